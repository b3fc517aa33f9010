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
