// One WebSocket to a room: snapshot + patches through ViewSync, resync on a gap,
// reconnect with exponential backoff (never more than a few seconds) after a drop, ping to keep
// the line warm. The token rides as a subprotocol, never in the URL: a browser prints the URL
// of a socket that fails (as every reconnect does while the server restarts) in its console.
import { ViewSync } from "./sync.js";
import { t } from "./i18n.js";

const PING_MS = 25000;
const MAX_BACKOFF_MS = 3000; // a restarted server is back in a few seconds: look that often

/** The wait before reconnect number ``attempt`` (1, 2, ...): doubling from 0.5 s, at most 3 s,
 * the second half of it random so that a table's players do not all come back at once. */
export function retryDelay(attempt, random = Math.random) {
  const base = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(Math.max(attempt - 1, 0), 16));
  return base / 2 + random() * (base / 2);
}

export class RoomConnection {
  /**
   * @param {string} code room code
   * @param {{token?: string, onState: Function, onStatus: Function, onError: Function}} handlers
   */
  constructor(code, { token, onState, onStatus, onError }) {
    this.code = code;
    this.token = token || null;
    this.onState = onState;
    this.onStatus = onStatus;
    this.onError = onError;
    this.sync = new ViewSync();
    this.ws = null;
    this.attempt = 0;
    this.closed = false;
    this.retryTimer = null;
    this.pingTimer = null;
  }

  get v() {
    return this.sync.v;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/rooms/${encodeURIComponent(this.code)}`;
  }

  /** The subprotocols offered: ``felt``, and the token next to it when there is one. */
  protocols() {
    return this.token ? ["felt", `felt-token.${this.token}`] : ["felt"];
  }

  open() {
    this.closed = false;
    clearTimeout(this.retryTimer);
    this.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    const ws = new WebSocket(this.url(), this.protocols());
    this.ws = ws;
    this.sync.reset();
    this.refused = null; // the code of the last error frame on this socket
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_MS);
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      this.#receive(event.data);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      clearInterval(this.pingTimer);
      this.ws = null;
      if (this.closed) return;
      if (event.code === 4404) {
        // The server refused the room itself (unknown or closed): retrying cannot help.
        this.onStatus("gone", t("room.gone"));
        return;
      }
      if (this.refused === "no_watchers") {
        // The table takes no watchers: only a seat (another player, another token) would help.
        this.onStatus("gone", t("error.no_watchers"));
        return;
      }
      this.#retry();
    });
  }

  /** Open again with another token (after the visitor gave a name). */
  reopen(token) {
    this.token = token || null;
    this.attempt = 0;
    this.close();
    this.open();
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
  }

  /** Send a frame; false when the socket is not open. */
  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  act(action) {
    return this.send({ type: "act", action, v: this.sync.v });
  }

  #receive(data) {
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (!frame || typeof frame !== "object") return;
    if (frame.type === "snapshot" || frame.type === "patch") {
      const result = this.sync.receive(frame);
      if (result === "changed") {
        if (frame.type === "snapshot") {
          this.attempt = 0;
          this.onStatus("connected");
        }
        this.onState(this.sync.state, this.sync.v);
      } else if (result === "resync") {
        this.send({ type: "resync" });
      }
    } else if (frame.type === "error") {
      this.refused = frame.code;
      this.onError(frame);
    }
  }

  #retry() {
    this.attempt += 1;
    this.onStatus("reconnecting");
    this.retryTimer = setTimeout(() => this.open(), retryDelay(this.attempt));
  }
}
