// text-store.js: the text box's text, kept in this browser (IndexedDB) so that it
// is there again after a reload, or after the tab is closed and the page opened
// again. It never leaves the machine: IndexedDB belongs to this site in this
// browser, and nothing here sends anything anywhere.
//
//   const store = new TextStore();
//   const kept = await store.load();  // {text} kept, {emptied: true} after Clear, or null
//   store.save(text);                  // written after a short pause (the last text wins)
//   store.flush();                     // written now (the page is being hidden)
//   await store.clear();               // removes the text; the next visit opens empty
//
// A browser that refuses storage (a private window, a full disk) is not an error of
// the page: `onProblem(message)` says the text will not be kept, and everything
// else works as before.

const DB_NAME = "rag-chunk-visualizer";
const STORE = "text";
const KEY = "current";
const SAVE_DELAY_MS = 300;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export class TextStore {
  /** @param {{onProblem?: (message: string) => void}} [options] */
  constructor({ onProblem = () => {} } = {}) {
    this.onProblem = onProblem;
    this.db = null;
    this.timer = 0;
    this.pending = null; // the text waiting to be written, or null
    this.written = null; // the last text written
  }

  /** The database, opened once; null when this browser refuses it. */
  async open() {
    if (this.db) return this.db;
    try {
      const req = indexedDB.open(DB_NAME, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE);
      this.db = await request(req);
      return this.db;
    } catch (err) {
      this.problem(err);
      return null;
    }
  }

  problem(err) {
    const why = err?.message || String(err);
    this.onProblem(`This browser did not let the page keep the text (${why}): it will not be here after a reload.`);
  }

  async transact(mode, work) {
    const db = await this.open();
    if (!db) return undefined;
    try {
      const tx = db.transaction(STORE, mode);
      const result = await request(work(tx.objectStore(STORE)));
      await new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      });
      return result;
    } catch (err) {
      this.problem(err);
      return undefined;
    }
  }

  /** What was kept: `{text}`, `{emptied: true}` (cleared), or null (nothing yet). */
  async load() {
    const record = await this.transact("readonly", (store) => store.get(KEY));
    if (!record || typeof record !== "object") return null;
    if (record.emptied === true) return { emptied: true };
    if (typeof record.text !== "string") return null;
    this.written = record.text;
    return { text: record.text };
  }

  /** Keeps `text` after a short pause; a newer call replaces an older one. */
  save(text) {
    if (text === this.written && this.pending === null) return;
    this.pending = text;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  /** Writes the waiting text now. */
  flush() {
    clearTimeout(this.timer);
    const text = this.pending;
    if (text === null) return Promise.resolve();
    this.pending = null;
    this.written = text;
    return this.transact("readwrite", (store) => store.put({ text, saved: Date.now() }, KEY));
  }

  /** Removes the kept text; the page opens with an empty box until something is typed. */
  async clear() {
    clearTimeout(this.timer);
    this.pending = null;
    this.written = "";
    await this.transact("readwrite", (store) => store.put({ emptied: true }, KEY));
  }
}
