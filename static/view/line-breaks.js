// line-breaks.js: a text box cannot hold a carriage return. Setting its value turns
// every CRLF and lone CR into LF, so a file opened in the page would be counted,
// chunked and downloaded as another text than the command line reads. The page keeps
// such a file's exact text here, while the box shows it with LF line breaks, and maps
// a place in the box (a selection) to the same place in the exact text.
//
//   const exact = ExactText.of("a\r\nb\rc");  // null when the text has no CR
//   exact.breaks                               -> "CRLF and CR"
//   exact.shown                                -> "a\nb\nc" (what the box holds)
//   exact.fromBox(2)                           -> 3 ("b" in the exact text)

export class ExactText {
  /**
   * The exact text of `text` when a text box would change it (it holds a CR), else null.
   * @param {string} text
   * @returns {ExactText | null}
   */
  static of(text) {
    return text.includes("\r") ? new ExactText(text) : null;
  }

  /** @param {string} text */
  constructor(text) {
    this.text = text;
    /** The text as a text box holds it: every CRLF and lone CR made LF. */
    this.shown = text.replace(/\r\n?/g, "\n");
    /** @type {number[]} where in `shown` each LF that was a CRLF stands, in order */
    this.pairs = [];
    let lone = false;
    for (let i = text.indexOf("\r"); i !== -1; i = text.indexOf("\r", i + 1)) {
      if (text.charCodeAt(i + 1) === 10) this.pairs.push(i - this.pairs.length);
      else lone = true;
    }
    /** In words: "CRLF", "CR", or "CRLF and CR". */
    this.breaks = this.pairs.length === 0 ? "CR" : lone ? "CRLF and CR" : "CRLF";
  }

  /**
   * The UTF-16 index in the exact text of index `at` in the box: after each CRLF
   * before it, one unit more.
   * @param {number} at
   */
  fromBox(at) {
    let lo = 0;
    let hi = this.pairs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.pairs[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    return at + lo;
  }
}
