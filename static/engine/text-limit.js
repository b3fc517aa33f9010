// text-limit.js: the engine's byte limit, checked in the page before a text
// crosses to the worker, with work bounded by the limit however long the text is.
//
//   measureText("naïve €")          -> {bytes: 10, chars: 7, exact: true, over: false}
//   measureText("x".repeat(2e7))    -> {bytes: 20000000, chars: null, exact: false, over: true}
//   overLimitMessage(measure)        -> "text is 20,000,000 bytes or more of UTF-8, over ..."
//   overByteLimit({what: "a.txt", size: "1,000,002 bytes"})  -> the engine's sentence

import { FACTS } from "../facts.js";
import { integer } from "../view/format.js";

export const MAX_BYTES = FACTS.caps.bytes;

const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The UTF-8 length of `text`, counted only when that is bounded work.
 *
 * Every UTF-16 code unit is at least one byte of UTF-8 (a pair is four bytes, an
 * unpaired surrogate the three of U+FFFD), so a text of more code units than the
 * limit is over it unread: `bytes` is then a lower bound, `chars` null and `exact`
 * false. A shorter text is counted exactly (bytes, and code points as the engine
 * counts characters), in at most `limit` steps.
 * @param {string} text
 * @param {number} [limit]
 * @returns {{bytes: number, chars: number | null, exact: boolean, over: boolean}}
 */
export function measureText(text, limit = MAX_BYTES) {
  const n = text.length;
  if (n > limit) return { bytes: n, chars: null, exact: false, over: true };
  // All ASCII (the common case, tested natively): a byte and a character a code unit.
  if (!NOT_ASCII.test(text)) return { bytes: n, chars: n, exact: true, over: false };
  let bytes = 0;
  let chars = 0;
  for (let i = 0; i < n; i += 1) {
    chars += 1;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return { bytes, chars, exact: true, over: bytes > limit };
}

/** "1,000,002 bytes", or "20,000,000 bytes or more" when only a lower bound is known. */
export function bytesText({ bytes, exact }) {
  return exact ? `${integer(bytes)} bytes` : `${integer(bytes)} bytes or more`;
}

/**
 * The one refusal over a byte limit, worded by the engine (FACTS.messages): `what` is
 * `size` (in words), over the `limit`-byte limit, and the remedy for its `kind`
 * ("text", "evidence", "chunks_file").
 * @param {{what: string, size: string, kind?: string, limit?: number, scope?: string}} refusal
 */
export function overByteLimit({ what, size, kind = "text", limit = MAX_BYTES, scope = "" }) {
  const words = { what, size, limit: integer(limit), scope, remedy: FACTS.messages.byte_limit_remedies[kind] };
  return FACTS.messages.over_byte_limit.replace(/\{(\w+)\}/g, (_, key) => words[key]);
}

/** What the engine would answer for an over-limit text, in the same words. */
export function overLimitMessage(size) {
  return overByteLimit({ what: "text", size: `${bytesText(size)} of UTF-8` });
}
