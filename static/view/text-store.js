// text-store.js: the text box's text, kept in this browser so that it is there again
// after a reload, or after the tab is closed and the page opened again. It never
// leaves the machine: the storage belongs to this site in this browser, and nothing
// here sends anything anywhere.
//
// Where: IndexedDB, written a short pause after the last edit. Its writes happen off
// the page's thread (a megabyte written to localStorage instead holds the page for
// 20 to 50 ms on every pause in typing). When the page is hidden (a tab closed, a
// reload) with an edit not yet written, that text goes to localStorage at once,
// since a write begun then may not finish; the next visit takes it from there when it
// is the newer one, and moves it into IndexedDB.
//
// The newest text wins: every text kept carries the time it was typed (`at`, ms since
// the epoch), in IndexedDB and in localStorage alike, and the next visit opens with the
// newer of the two. Two tabs write to the same place: a tab closed before its write
// finished leaves its copy in localStorage, and another tab's later edit, written to
// IndexedDB afterwards, is the newer one, so it stays.
//
//   const store = new TextStore();
//   await store.load();  // {text} kept, {emptied: true} after Clear, or null (first visit)
//   store.save(text);    // written after a short pause (the last text wins)
//   store.flush();       // the page is being hidden: an unwritten text is kept now
//   store.clear();       // removes the text; the next visit opens with an empty box
//
// A browser that refuses storage (a private window, a full quota, storage switched
// off) is not an error of the page: `onProblem(message)` says the text will not be
// kept, and everything else works as before.
//
// The settings are kept beside the text, in localStorage (a few hundred bytes, read
// before the first computation so the page opens with them at once): the share
// link's form of them (`writeHash`, static/view/hash.js), written on every change.
// A page opened without settings in its link takes them from there; a link's own
// settings win.
//
//   keptSettings();           // "#unit=token&size=254&..." kept last time, or ""
//   keepSettings(hash);       // after every change of the settings

const DB_NAME = "rag-chunk-visualizer";
const STORE = "text";
const KEY = "current";
/** localStorage, for a text the page was hidden before it could write. */
const PENDING = "rag-chunk-visualizer:unsaved-text";
const SAVE_DELAY_MS = 300;
/** localStorage, for the settings (as the share link writes them). */
const SETTINGS = "rag-chunk-visualizer:settings";

/** The settings kept by the last visit, as a link's hash ("#unit=..."), or "" (none, or storage refused). */
export function keptSettings() {
  try {
    return window.localStorage.getItem(SETTINGS) ?? "";
  } catch {
    return "";
  }
}

/** Keeps the settings (a link's hash) for the next visit; a browser that refuses storage keeps none. */
export function keepSettings(hash) {
  try {
    window.localStorage.setItem(SETTINGS, hash);
  } catch {}
}

function settle(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * The copy a hidden page left in localStorage, as `{text, at}`, or null. A copy left
 * by an older page is the bare text, with no time: it counts as older than any timed
 * record.
 * @param {string | null} stored
 * @returns {{text: string, at: number} | null}
 */
function unsavedCopy(stored) {
  if (stored === null) return null;
  try {
    const copy = JSON.parse(stored);
    if (copy && typeof copy.text === "string" && typeof copy.at === "number") return { text: copy.text, at: copy.at };
  } catch {}
  return { text: stored, at: 0 };
}

export class TextStore {
  /** @param {{onProblem?: (message: string) => void}} [options] */
  constructor({ onProblem = () => {} } = {}) {
    this.onProblem = onProblem;
    /** @type {Promise<IDBDatabase | null> | null} */
    this.db = null;
    this.timer = 0;
    /** @type {{text: string, at: number} | null} the text waiting to be written, and when it was typed */
    this.pending = null;
    /** @type {{text: string, at: number} | null} the text being written, until IndexedDB has it */
    this.writing = null;
    this.reported = false;
  }

  problem(err) {
    if (this.reported) return; // once is enough
    this.reported = true;
    const why = err?.name === "QuotaExceededError" ? "its storage is full" : err?.message || String(err);
    this.onProblem(`This browser did not let the page keep the text (${why}): it will not be here after a reload.`);
  }

  /** The database, opened once; null when this browser refuses it. */
  open() {
    this.db ??= (async () => {
      try {
        const request = indexedDB.open(DB_NAME, 1);
        request.onupgradeneeded = () => request.result.createObjectStore(STORE);
        return await settle(request);
      } catch (err) {
        this.problem(err);
        return null;
      }
    })();
    return this.db;
  }

  /** Runs `work(store)` in one transaction; its result, or undefined when refused. */
  async transact(mode, work) {
    const db = await this.open();
    if (!db) return undefined;
    try {
      const tx = db.transaction(STORE, mode);
      const done = new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      });
      const result = await settle(work(tx.objectStore(STORE)));
      await done;
      return result;
    } catch (err) {
      this.problem(err);
      return undefined;
    }
  }

  /** localStorage, or null where reading it throws (storage switched off). */
  local() {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  }

  /** What was kept: `{text}`, `{emptied: true}` (cleared), or null (nothing yet). */
  async load() {
    const local = this.local();
    const unsaved = unsavedCopy(local?.getItem(PENDING) ?? null);
    const record = await this.transact("readonly", (store) => store.get(KEY));
    const kept = record && typeof record === "object" ? record : null;
    const keptAt = typeof kept?.at === "number" ? kept.at : -1; // a record of an older page: no time
    if (unsaved !== null) {
      local.removeItem(PENDING);
      if (unsaved.at > keptAt) {
        // The newer text: a page was hidden before it was written. Move it.
        await this.transact("readwrite", (store) => store.put(unsaved, KEY));
        return { text: unsaved.text };
      }
    }
    if (kept === null) return null;
    if (kept.emptied === true) return { emptied: true };
    return typeof kept.text === "string" ? { text: kept.text } : null;
  }

  /** Keeps `text` after a short pause; a newer call replaces an older one. */
  save(text) {
    this.pending = { text, at: Date.now() };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.write(), SAVE_DELAY_MS);
  }

  /** Writes the waiting text to IndexedDB; then a copy left in localStorage is stale. */
  async write() {
    clearTimeout(this.timer);
    const record = this.pending;
    if (record === null) return;
    this.pending = null;
    this.writing = record; // until the write is done, a hidden page keeps it (flush)
    const written = await this.transact("readwrite", (store) => store.put(record, KEY));
    if (this.writing === record) this.writing = null;
    const local = this.local();
    if (written !== undefined && unsavedCopy(local?.getItem(PENDING) ?? null)?.at === record.at) {
      local.removeItem(PENDING);
    }
  }

  /**
   * The page is being hidden: a text not yet written goes to localStorage at once,
   * the one waiting for its pause or, when none is, the one still being written (its
   * write may never finish once the page is gone).
   */
  flush() {
    const record = this.pending ?? this.writing;
    if (record === null) return;
    try {
      this.local()?.setItem(PENDING, JSON.stringify(record));
    } catch (err) {
      this.problem(err);
    }
    this.write(); // may finish; if it does not, the next visit has the copy above
  }

  /** Removes the kept text; the page opens with an empty box until something is typed. */
  clear() {
    clearTimeout(this.timer);
    this.pending = null;
    this.writing = null;
    try {
      this.local()?.removeItem(PENDING);
    } catch {}
    return this.transact("readwrite", (store) => store.put({ emptied: true, at: Date.now() }, KEY));
  }
}
