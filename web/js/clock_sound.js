// The turn clock's warning sound: a short double beep when your turn has ten seconds left,
// made with the Web Audio API (no audio file), and the toggle that turns it off (kept in
// localStorage, so it holds on every table in this browser).
import { h } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "felt.clockSound";
let context = null;
let warned = null; // the deadline last warned of: one warning a turn

/** Whether the warning sound is on (it is, until turned off). */
export const soundOn = () => localStorage.getItem(KEY) !== "off";

/** The page's audio, made at a click or a key press (browsers start sound only after one). */
function audio() {
  if (context) return context;
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return null;
  context = new Audio();
  return context;
}

for (const kind of ["pointerdown", "keydown"]) {
  document.addEventListener(kind, () => {
    if (soundOn()) audio()?.resume?.();
  }, { capture: true });
}

/** Two short beeps, quietly (once a click or key has let the page make sound). */
function beep() {
  const ctx = context;
  if (!ctx || ctx.state !== "running") return;
  const now = ctx.currentTime;
  for (const at of [0, 0.18]) {
    const tone = ctx.createOscillator();
    const gain = ctx.createGain();
    tone.type = "sine";
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, now + at);
    gain.gain.exponentialRampToValueAtTime(0.15, now + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.12);
    tone.connect(gain).connect(ctx.destination);
    tone.start(now + at);
    tone.stop(now + at + 0.13);
  }
}

/** Warn once for the turn ending at ``deadline`` (when the sound is on). */
export function warnOnce(deadline) {
  if (warned === deadline) return;
  warned = deadline;
  if (soundOn()) beep();
}

/** The action bar's toggle: the warning sound on or off (its name says which). */
export function soundToggle() {
  const button = h("button", { type: "button", class: "btn btn-small btn-ghost clock-sound", "data-key": "clock-sound", title: t("sound.title") },
    t(soundOn() ? "sound.on" : "sound.off"));
  button.addEventListener("click", () => {
    const now = !soundOn();
    localStorage.setItem(KEY, now ? "on" : "off");
    if (now) audio()?.resume?.();
    button.textContent = t(now ? "sound.on" : "sound.off");
  });
  return button;
}
