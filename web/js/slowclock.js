// Slow clocks: tables of hours or days a decision (turn_timer of 3600 s and more). Their time
// is told in days, hours and minutes, never counted down second by second.
import { t } from "./i18n.js";

export const SLOW_S = 3600; // a turn timer this long or longer is a slow clock

export const isSlow = (seconds) => Number(seconds) >= SLOW_S;

/** A stretch of time in its two largest units: "2 d 3 h", "5 h 20 min", "12 min". */
export function duration(ms) {
  const minutes = Math.max(0, Math.ceil(ms / 60000));
  const d = Math.floor(minutes / 1440);
  const hrs = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d > 0) return t("timer.days", { d, h: hrs });
  if (hrs > 0) return t("timer.hours", { h: hrs, m });
  return t("timer.minutes", { m });
}

/** What is left until ``deadline`` (Unix ms): "5 h 20 min left". */
export const timeLeft = (deadline) => t("timer.leftLong", { time: duration(deadline - Date.now()) });

/** A table's clock in a lobby row: "30 s per turn", "1 d 0 h per turn"... */
export function perTurn(seconds) {
  return isSlow(seconds) ? t("lobby.timerSlowShort", { time: duration(seconds * 1000) }) : t("lobby.timerShort", { n: seconds });
}
