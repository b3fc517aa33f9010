// The two DOM builders every rendering module uses. Text goes in through
// textContent only, so nothing passed here is ever parsed as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An HTML element with attributes (`class` sets className) and optional text. */
export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Puts `text` into `node`, each `backticked` run as a <code> element (the engine's
 * prose marks code that way, e.g. FACTS.sentence_rule); all of it as text, never HTML.
 * @param {Element} node
 * @param {string} text
 */
export function textWithCode(node, text) {
  node.replaceChildren(...text.split("`").map((part, i) => (i % 2 === 1 ? el("code", {}, part) : part)));
}

/**
 * Wraps the given UTF-16 ranges `[a, b)` (sorted, disjoint) of `root`'s text in spans,
 * the k-th with the attributes `attrsOf(k)` (or all with `attrsOf` itself, an object),
 * `class` included, splitting text nodes
 * where a range starts or ends; the text itself is unchanged. Returns how many spans it
 * made (a range over several text nodes makes one span in each).
 * @param {Node} root
 * @param {number[][]} ranges
 * @param {((k: number) => Record<string, string>) | Record<string, string>} attrsOf
 */
export function wrapRanges(root, ranges, attrsOf) {
  if (ranges.length === 0) return 0;
  const attrs = typeof attrsOf === "function" ? attrsOf : () => attrsOf;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  let offset = 0;
  let r = 0;
  let wrapped = 0;
  for (const node of nodes) {
    const start = offset;
    const end = offset + node.data.length;
    offset = end;
    // The ranges in this text node, from the last one backwards (splitting from the
    // end keeps earlier indices valid).
    while (r < ranges.length && ranges[r][1] <= start) r += 1;
    const here = [];
    for (let k = r; k < ranges.length && ranges[k][0] < end; k += 1) here.push(k);
    for (const k of here.reverse()) {
      const a = Math.max(ranges[k][0], start) - start;
      const b = Math.min(ranges[k][1], end) - start;
      const middle = /** @type {Text} */ (node).splitText(a);
      middle.splitText(b - a);
      const span = el("span", attrs(k));
      middle.replaceWith(span);
      span.append(middle);
      wrapped += 1;
    }
  }
  return wrapped;
}

/**
 * Saves `text` as a file named `filename` (the browser's download), through a blob URL
 * that is revoked once the download has begun.
 * @param {string} filename
 * @param {string} text
 * @param {string} [type]
 */
export function saveFile(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { href: url, download: filename, hidden: "" });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** An SVG element with attributes and optional text. */
export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Resolves in a new task, after the browser has had a turn (a message to itself:
 * unlike setTimeout it is not clamped to 4 ms, unlike a microtask it lets input in).
 */
export function yieldTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

/** Resolves in a task after the next frame is produced. */
export function nextFrame() {
  return new Promise((resolve) => requestAnimationFrame(() => yieldTask().then(resolve)));
}
