// Keeps one connection's room view current from snapshot and patch frames (PROTOCOL §5).
// Pure: no socket, no DOM; the connection sends "resync" when receive() says so.
import { applyPatch } from "./patch.js";

export class ViewSync {
  constructor() {
    this.v = null;
    this.state = null;
    this.waiting = false; // a gap or a bad patch was seen: ignore patches until a snapshot
  }

  /** Feed one server frame; returns "changed", "resync" (ask for a snapshot) or "ignored". */
  receive(frame) {
    if (frame.type === "snapshot") {
      if (!Number.isInteger(frame.v) || typeof frame.state !== "object" || frame.state === null) {
        return this.#broken();
      }
      this.state = frame.state;
      this.v = frame.v;
      this.waiting = false;
      return "changed";
    }
    if (frame.type !== "patch") return "ignored";
    if (this.waiting) return "ignored";
    if (this.state === null || !Number.isInteger(frame.v)) return this.#broken();
    if (frame.v <= this.v) return "ignored"; // already seen
    if (frame.v !== this.v + 1) return this.#broken();
    try {
      this.state = applyPatch(this.state, frame.ops);
    } catch {
      return this.#broken();
    }
    this.v = frame.v;
    return "changed";
  }

  /** A new socket: nothing applies until its first snapshot arrives. */
  reset() {
    this.waiting = true;
  }

  #broken() {
    this.waiting = true;
    return "resync";
  }
}
