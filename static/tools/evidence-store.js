// evidence-store.js: the page's evidence list. Each item is a passage of the text as
// a half-open interval of code points, counted after a leading byte-order mark as
// every engine offset is, with an id and an optional question:
//
//   {id: "e1", start: 120, end: 188, question: "When was it signed?" | null}
//
// The list belongs to the text it was made on. When the text changes it follows the
// edit (one edited stretch: the common start and end of the old and new text stay
// put): an item before the edit keeps its offsets, one after it moves with it, one
// the edit falls inside grows or shrinks, and one whose edge the edit crosses is
// dropped and reported. A text replaced wholesale drops every item.
//
// The list is kept for the page session (sessionStorage) beside a fingerprint of its
// text, so a reload of the same text finds it again. Nothing here talks to the engine
// or draws anything (static/tools/evidence.js does).

/** The event the list's owner fires on `document` when the evidence changes: its
 * `detail` is `{fields: {evidence: [...items], top_k}, note}` for the sweep's request
 * (`note`: what the sweep leaves out, or null), or null when the list is empty. */
export const EVIDENCE_EVENT = "evidence-change";

const KEY = "rag-chunk-visualizer:evidence";
const SAVE_DELAY_MS = 300;
const LOW_SURROGATE = /[\uDC00-\uDFFF]/g;

/** The text offsets count in: the text without a leading byte-order mark. */
export function bodyOf(text) {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** How many code points the first `units` UTF-16 units of `s` hold. */
export function codePointsIn(s, units = s.length) {
  const head = units >= s.length ? s : s.slice(0, units);
  const low = head.match(LOW_SURROGATE);
  return head.length - (low === null ? 0 : low.length);
}

/** `1` and `"1"` are the same id, as in the engine. */
export const idKey = (id) => String(id);

/**
 * A short fingerprint of a text (its length and a 53-bit hash), to know a kept list's
 * text again without keeping the text twice.
 */
export function fingerprint(s) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${s.length}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

/**
 * The one stretch where `before` and `after` differ, in code points: `[at, oldEnd)`
 * of `before` became `[at, newEnd)` of `after`. Null when they are equal.
 */
export function editBetween(before, after) {
  if (before === after) return null;
  const shortest = Math.min(before.length, after.length);
  let p = 0;
  while (p < shortest && before.charCodeAt(p) === after.charCodeAt(p)) p += 1;
  // Never split a surrogate pair: a pair differing in its low half differs whole.
  if (p > 0 && isHigh(before.charCodeAt(p - 1))) p -= 1;
  let s = 0;
  while (s < shortest - p && before.charCodeAt(before.length - 1 - s) === after.charCodeAt(after.length - 1 - s)) s += 1;
  if (s > 0 && isLow(before.charCodeAt(before.length - s))) s -= 1;
  const at = codePointsIn(before, p);
  return {
    at,
    oldEnd: codePointsIn(before, before.length - s),
    newEnd: codePointsIn(after, after.length - s),
  };
}

const isHigh = (c) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Where item `[start, end)` goes when `[at, oldEnd)` becomes `[at, newEnd)`; null
 * when the edit crosses one of its edges (or leaves nothing of it).
 */
export function follow(item, { at, oldEnd, newEnd }) {
  const { start, end } = item;
  if (end <= at) return item; // the edit is after it (or just at its end)
  const delta = newEnd - oldEnd;
  if (start >= oldEnd) return { ...item, start: start + delta, end: end + delta };
  if (start <= at && oldEnd <= end && end + delta > start) return { ...item, end: end + delta };
  return null;
}

export class EvidenceList {
  /** @param {{storage?: Storage | null, onProblem?: (message: string) => void}} [options] */
  constructor({ storage, onProblem = () => {} } = {}) {
    /** @type {{id: string | number, start: number, end: number, question: string | null}[]} */
    this.items = [];
    /** The text (BOM removed) the offsets refer to, or null before the first. */
    this.text = null;
    this.onProblem = onProblem;
    try {
      this.storage = storage === undefined ? window.sessionStorage : storage;
    } catch {
      this.storage = null; // storage switched off: the list lives as long as the page
    }
    this.restored = false;
    this.timer = 0;
    /** Grows by one at every change of the items (added, removed, moved by an edit). */
    this.version = 0;
  }

  /**
   * The text is now `text` (as the box holds it): the items follow the edit from the
   * last text. The first time, a list kept in this session for this very text comes
   * back. Returns the ids of the items dropped.
   */
  follow(text) {
    const body = bodyOf(text);
    if (this.text === null) {
      this.text = body;
      if (!this.restored) this.restore();
      return [];
    }
    if (this.items.length === 0) {
      this.text = body; // nothing to move
      return [];
    }
    const edit = editBetween(this.text, body);
    this.text = body;
    if (edit === null) return [];
    const kept = [];
    const dropped = [];
    for (const item of this.items) {
      const moved = follow(item, edit);
      if (moved === null) dropped.push(item.id);
      else kept.push(moved);
    }
    this.items = kept;
    this.save();
    return dropped;
  }

  has(id) {
    const key = idKey(id);
    return this.items.some((item) => idKey(item.id) === key);
  }

  /** The item already holding `[start, end)` for the same question (none and "" alike), or null:
   * the engine refuses such a second item, so the page does not add it. */
  sameAs({ start, end, question }) {
    const asked = question || null;
    return this.items.find((item) => item.start === start && item.end === end && (item.question || null) === asked) || null;
  }

  /** The next free id of the form e1, e2, ... */
  freshId() {
    const used = new Set(this.items.map((item) => idKey(item.id)));
    let n = this.items.length + 1;
    while (used.has(`e${n}`)) n += 1;
    return `e${n}`;
  }

  /** Adds items (their ids checked free by the caller) at the end. */
  add(items) {
    this.items.push(...items.map(({ id, start, end, question }) => ({ id, start, end, question: question || null })));
    this.save();
  }

  remove(id) {
    const key = idKey(id);
    this.items = this.items.filter((item) => idKey(item.id) !== key);
    this.save();
  }

  clear() {
    this.items = [];
    this.save();
  }

  /** The items as the engine's `evidence` list (a question only when there is one). */
  request() {
    return this.items.map(({ id, start, end, question }) => (question ? { id, start, end, question } : { id, start, end }));
  }

  // ------------------------------------------------------------ the page session

  save() {
    this.version += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  /** Writes the list now (the page is being hidden). */
  flush() {
    clearTimeout(this.timer);
    if (this.storage === null || this.text === null) return;
    try {
      if (this.items.length === 0) this.storage.removeItem(KEY);
      else this.storage.setItem(KEY, JSON.stringify({ text: fingerprint(this.text), items: this.items }));
    } catch (err) {
      this.onProblem(`This browser did not let the page keep the evidence list (${err?.message || err}): it will be gone after a reload.`);
    }
  }

  restore() {
    this.restored = true;
    if (this.storage === null) return;
    let kept = null;
    try {
      kept = JSON.parse(this.storage.getItem(KEY) ?? "null");
    } catch {
      kept = null; // unreadable: start empty
    }
    if (kept === null || kept.text !== fingerprint(this.text) || !Array.isArray(kept.items)) return;
    this.items = kept.items.filter((item) => Number.isInteger(item?.start) && Number.isInteger(item?.end));
    this.version += 1;
  }
}
