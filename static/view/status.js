// status.js: the status line in the header. While Python starts it says, in plain
// words, how far start-up got ("Loading the engine, 2 of 3: installing its
// packages…") beside a progress bar; then "Computing…" while a call is in flight
// and "Ready" when none is. It says "Error" when start-up failed (for good) or when
// the engine failed on a call (a bug): until the next call is answered, so it always
// follows the latest call. A traceback is never shown here: the engine's own report
// is on the console, and the status says one plain sentence.

import { STAGES } from "../engine/protocol.js";

const WORDS = { loading: "Loading the engine…", busy: "Computing…", ready: "Ready" };
const FAILED_CALL =
  "Error: the engine failed on the last request (a bug; the details are in the browser console). Your next edit tries again.";

/** What each start-up stage does, as a person would say it. */
const STAGE_WORDS = {
  runtime: "starting Python",
  packages: "installing its packages",
  engine: "starting the engine",
};
const STEPS = STAGES.filter((stage) => stage !== "ready");

export class Status {
  /** @param {HTMLElement} root the `[data-testid="status"]` element */
  constructor(root) {
    this.root = root;
    this.text = root.querySelector(".status-text");
    /** @type {HTMLProgressElement} */
    this.bar = root.querySelector(".stages");
    this.bar.max = STEPS.length;
    this.bar.value = 0;
    this.ready = false;
    this.busy = false;
    /** @type {string | null} why start-up failed, for good */
    this.fatal = null;
    /** the engine failed on the latest settled call */
    this.failed = false;
    this.set("loading");
  }

  /**
   * A start-up stage began. `detail` is the worker's own account: it is shown only
   * when start-up takes the slow way (the memory snapshot could not be used).
   */
  stage(stage, detail) {
    if (stage === "ready") {
      this.ready = true;
      this.show();
      return;
    }
    const at = STEPS.indexOf(stage);
    this.root.dataset.stage = stage;
    this.bar.value = at;
    this.bar.setAttribute("aria-valuetext", `${at + 1} of ${STEPS.length}`);
    const slow = /from scratch/.test(detail ?? "") ? " from scratch (slower: the saved start-up state could not be used)" : "";
    const what = STAGE_WORDS[stage] ?? stage;
    this.set("loading", `Loading the engine, ${at + 1} of ${STEPS.length}: ${what}${slow}…`);
  }

  /** Start-up failed in `stage`: no call will succeed. */
  failedToStart(stage, message) {
    const what = STAGE_WORDS[stage] ?? stage;
    this.fatal = `The engine failed to start while ${what} (the ${stage} stage): ${message}. The text box still works; reload to try again.`;
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
    this.bar.hidden = state !== "loading";
  }
}
