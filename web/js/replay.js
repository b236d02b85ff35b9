// A replay as the server sends it: the deal in full, then one RFC 6902 patch per action.
// Any step's view is rebuilt by applying patches from the nearest checkpoint (one kept every
// EVERY steps), so stepping is cheap and memory grows with the match's length, not its square.
import { applyPatch } from "./patch.js";

const EVERY = 100;

export class Replay {
  constructor(body) {
    this.steps = Array.isArray(body.steps) ? body.steps : [];
    this.checkpoints = [body.first];
    let view = body.first;
    this.steps.forEach((step, i) => {
      view = applyPatch(view, step.ops);
      if ((i + 1) % EVERY === 0) this.checkpoints.push(view);
    });
    this.lastView = view;
    this.at = this.steps.length;
    this.current = view;
  }

  /** The number of states: the deal, then one per action. */
  get length() {
    return this.steps.length + 1;
  }

  /** The seat and action that led to state ``index`` (null for the deal). */
  entry(index) {
    return index === 0 ? { seat: null, action: null } : this.steps[index - 1];
  }

  /** The full view (every hand shown) at state ``index``. */
  view(index) {
    if (index === this.at) return this.current;
    let from = Math.floor(index / EVERY) * EVERY;
    let view = this.checkpoints[from / EVERY];
    if (index > this.at && this.at > from) {
      from = this.at;
      view = this.current;
    }
    for (let i = from; i < index; i += 1) view = applyPatch(view, this.steps[i].ops);
    this.at = index;
    this.current = view;
    return view;
  }
}
