// status.js: the status line in the header. While Python starts it names the
// stage; then it says "Computing…" while a call is in flight and "Ready" when
// none is. It says "Error" when start-up failed (for good) or when the engine
// failed on a call (a bug): until the next call is answered, so it always
// follows the latest call. A traceback is never shown here: the engine's own
// report is on the console, and the status says one plain sentence.

import { STAGES } from "../engine/protocol.js";
import { el } from "./dom.js";

const WORDS = { loading: "Starting Python…", busy: "Computing…", ready: "Ready" };
const FAILED_CALL =
  "Error: the engine failed on the last request (a bug; the details are in the browser console). Your next edit tries again.";

export class Status {
  /** @param {HTMLElement} root the `[data-testid="status"]` element */
  constructor(root) {
    this.root = root;
    this.text = root.querySelector(".status-text");
    this.stages = root.querySelector(".stages");
    this.stages.replaceChildren(
      ...STAGES.filter((stage) => stage !== "ready").map((stage) => el("li", { "data-stage": stage }, stage)),
    );
    this.ready = false;
    this.busy = false;
    /** @type {string | null} why start-up failed, for good */
    this.fatal = null;
    /** the engine failed on the latest settled call */
    this.failed = false;
    this.set("loading");
  }

  /** A start-up stage began. */
  stage(stage, detail) {
    if (stage === "ready") {
      this.ready = true;
      this.show();
      return;
    }
    const at = STAGES.indexOf(stage);
    for (const li of this.stages.children) {
      const i = STAGES.indexOf(li.dataset.stage);
      li.dataset.progress = i < at ? "done" : i === at ? "active" : "todo";
    }
    this.set("loading", `Starting Python: ${stage}${detail ? ` (${detail})` : ""}…`);
  }

  /** Start-up failed in `stage`: no call will succeed. */
  failedToStart(stage, message) {
    this.fatal = `Python failed to start in the ${stage} stage: ${message}. The text box still works; reload to try again.`;
    this.show();
  }

  busyChanged(busy) {
    this.busy = busy;
    this.show();
  }

  /** A call settled: `error` when the engine failed on it, null when it was answered. */
  outcome(error) {
    if (error) console.warn(`page: ${error.message}`);
    this.failed = error !== null;
    this.show();
  }

  show() {
    if (this.fatal !== null) this.set("error", this.fatal);
    else if (!this.ready) return; // the stage line stays until ready
    else if (this.failed) this.set("error", FAILED_CALL);
    else this.set(this.busy ? "busy" : "ready");
  }

  set(state, text) {
    this.root.dataset.state = state;
    this.text.textContent = text ?? WORDS[state];
    this.stages.hidden = state !== "loading";
  }
}
