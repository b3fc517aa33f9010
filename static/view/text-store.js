// text-store.js: the text box's text, kept in this browser (localStorage) so that it
// is there again after a reload, or after the tab is closed and the page opened
// again. It never leaves the machine: the storage belongs to this site in this
// browser, and nothing here sends anything anywhere.
//
// localStorage, not IndexedDB: a write is synchronous, so the text written when the
// page is hidden (a tab closed, a reload) is written whole before the page goes.
// A text within the engine's byte limit is at most a million UTF-16 units, well
// within what browsers give a site.
//
//   const store = new TextStore();
//   store.load();      // {text} kept, {emptied: true} after Clear, or null (first visit)
//   store.save(text);  // written after a short pause (the last text wins)
//   store.flush();     // written now (the page is being hidden)
//   store.clear();     // removes the text; the next visit opens with an empty box
//
// A browser that refuses storage (a private window, a full quota, storage switched
// off) is not an error of the page: `onProblem(message)` says the text will not be
// kept, and everything else works as before.

const KEY = "rag-chunk-visualizer:text";
const EMPTIED = "rag-chunk-visualizer:emptied";
const SAVE_DELAY_MS = 300;

export class TextStore {
  /** @param {{onProblem?: (message: string) => void, storage?: Storage}} [options] */
  constructor({ onProblem = () => {}, storage } = {}) {
    this.onProblem = onProblem;
    try {
      this.storage = storage ?? window.localStorage;
    } catch (err) {
      this.storage = null; // reading localStorage itself can throw when storage is off
      this.problem(err);
    }
    this.timer = 0;
    this.pending = null; // the text waiting to be written, or null
  }

  problem(err) {
    const why = err?.name === "QuotaExceededError" ? "its storage is full" : err?.message || String(err);
    this.onProblem(`This browser did not let the page keep the text (${why}): it will not be here after a reload.`);
  }

  /** Runs `work` on the storage; false (and a message) when the browser refuses. */
  attempt(work) {
    if (this.storage === null) return false;
    try {
      work(this.storage);
      return true;
    } catch (err) {
      this.problem(err);
      return false;
    }
  }

  /** What was kept: `{text}`, `{emptied: true}` (cleared), or null (nothing yet). */
  load() {
    let kept = null;
    this.attempt((storage) => {
      const text = storage.getItem(KEY);
      if (text !== null) kept = { text };
      else if (storage.getItem(EMPTIED) === "1") kept = { emptied: true };
    });
    return kept;
  }

  /** Keeps `text` after a short pause; a newer call replaces an older one. */
  save(text) {
    this.pending = text;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  /** Writes the waiting text now. */
  flush() {
    clearTimeout(this.timer);
    const text = this.pending;
    if (text === null) return;
    this.pending = null;
    const written = this.attempt((storage) => {
      storage.setItem(KEY, text);
      storage.removeItem(EMPTIED);
    });
    // Never leave an older text behind to come back after a reload.
    if (!written) this.attempt((storage) => storage.removeItem(KEY));
  }

  /** Removes the kept text; the page opens with an empty box until something is typed. */
  clear() {
    clearTimeout(this.timer);
    this.pending = null;
    this.attempt((storage) => {
      storage.removeItem(KEY);
      storage.setItem(EMPTIED, "1");
    });
  }
}
