// text-offsets.js: the engine counts text in code points (Python's str); the DOM
// indexes it in UTF-16 code units. This is the one place that converts.
//
//   const at = utf16Indexer("a🙂b");   // the emoji is two UTF-16 units
//   [0, 1, 2, 3].map(at)               -> [0, 1, 3, 4]

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * A function from a code-point offset in `s` to its UTF-16 index, offsets past
 * either end clamped to it. Without surrogates the two are the same; otherwise
 * one pass over `s` builds the table.
 * @param {string} s
 * @returns {(cp: number) => number}
 */
export function utf16Indexer(s) {
  if (!SURROGATE.test(s)) return (cp) => Math.max(0, Math.min(cp, s.length));
  const at = [0];
  for (let i = 0; i < s.length; ) {
    i += s.codePointAt(i) > 0xffff ? 2 : 1;
    at.push(i);
  }
  return (cp) => at[Math.max(0, Math.min(cp, at.length - 1))];
}
