// splitter.js: the splitter control and, for LangChain's recursive splitter, its
// settings: a separators preset, the separator list (editable, each separator shown
// with its escapes visible: a line break reads `\n`), keep-separator and strip. The
// presets, the choices and the reason word mode is not offered are the engine's
// (pyapp/facts.py, read from FACTS). Nothing here splits text or computes a figure.

import { FACTS } from "../facts.js";
import { el } from "./dom.js";

/** The escapes a separator is shown with (and read back from). */
const SHOWN = [
  ["\\", "\\\\"],
  ["\n", "\\n"],
  ["\r", "\\r"],
  ["\t", "\\t"],
];

/**
 * A separator as the list shows it: `\n` for a line break, `\\` for a backslash.
 * @param {string} separator
 * @returns {string}
 */
export function showSeparator(separator) {
  let out = separator;
  for (const [raw, shown] of SHOWN) out = out.split(raw).join(shown);
  return out;
}

/**
 * A separator from what was typed in the list: the inverse of showSeparator.
 * @param {string} typed
 * @returns {string}
 */
export function readSeparator(typed) {
  return typed.replace(/\\(\\|n|r|t)/g, (_, c) => ({ "\\": "\\", n: "\n", r: "\r", t: "\t" })[c]);
}

/**
 * The request fields of the splitter settings (the engine validates them).
 * @param {{sp: string, sepPreset: string, seps: string[] | null, rx: boolean, keep: string, strip: boolean}} s
 * @returns {Record<string, unknown>}
 */
export function splitterFields(s) {
  if (s.sp !== "recursive") return { splitter: "fixed" };
  const custom = s.seps !== null;
  return {
    splitter: "recursive",
    separators_preset: custom ? null : s.sepPreset,
    separators: custom ? s.seps : null,
    separator_regex: custom ? s.rx : null,
    keep_separator: s.keep,
    strip: s.strip,
  };
}

/**
 * Wires the splitter controls under `root` to `settings` (edited in place);
 * `changed()` is called after each edit.
 * @param {HTMLElement} root
 * @param {() => Record<string, any>} getSettings
 * @param {() => void} changed
 */
export function mountSplitter(root, getSettings, changed) {
  const q = (/** @type {string} */ id) => /** @type {HTMLElement} */ (root.querySelector(`[data-testid="${id}"]`));
  const select = /** @type {HTMLSelectElement} */ (q("splitter"));
  const preset = /** @type {HTMLSelectElement} */ (q("separators-preset"));
  const list = q("separator-list");
  const regex = /** @type {HTMLInputElement} */ (q("separator-regex"));
  const keep = /** @type {HTMLSelectElement} */ (q("keep-separator"));
  const strip = /** @type {HTMLInputElement} */ (q("strip-whitespace"));
  const panel = q("recursive-settings");
  select.replaceChildren(
    ...Object.entries(FACTS.splitters).map(([name, s]) => el("option", { value: name }, s.label)),
  );
  preset.replaceChildren(
    ...Object.keys(FACTS.separator_presets).map((name) => el("option", { value: name }, name)),
    el("option", { value: "" }, "custom"),
  );
  keep.replaceChildren(...FACTS.keep_separator.map((name) => el("option", { value: name }, name)));

  /** The separators the list holds now, as the engine takes them. */
  const typed = () =>
    [...list.querySelectorAll("input")].map((input) => readSeparator(/** @type {HTMLInputElement} */ (input).value));

  function row(/** @type {string} */ separator) {
    const input = el("input", {
      type: "text", "data-testid": "separator-item", "aria-label": "Separator", spellcheck: "false",
    });
    /** @type {HTMLInputElement} */ (input).value = showSeparator(separator);
    const remove = el("button", { type: "button", class: "link-button", "data-testid": "separator-remove" }, "remove");
    const item = el("li");
    item.append(input, remove);
    return item;
  }

  function show() {
    const s = getSettings();
    select.value = s.sp;
    panel.hidden = s.sp !== "recursive";
    preset.value = s.seps === null ? s.sepPreset : "";
    const seps = s.seps ?? FACTS.separator_presets[s.sepPreset] ?? FACTS.separator_presets.default;
    list.replaceChildren(...seps.map(row));
    regex.checked = s.seps === null ? s.sepPreset !== "default" : s.rx;
    regex.disabled = s.seps === null;
    keep.value = s.keep;
    strip.checked = s.strip;
  }

  select.addEventListener("change", () => {
    getSettings().sp = select.value;
    show();
    changed();
  });
  preset.addEventListener("change", () => {
    const s = getSettings();
    if (preset.value === "") {
      s.seps = typed();
      s.rx = regex.checked;
    } else {
      s.sepPreset = preset.value;
      s.seps = null;
    }
    show();
    changed();
  });
  list.addEventListener("input", () => {
    const s = getSettings();
    if (s.seps === null) s.rx = s.sepPreset !== "default"; // an edited preset keeps its kind
    s.seps = typed();
    preset.value = "";
    regex.disabled = false;
    changed();
  });
  list.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-testid='separator-remove']");
    if (!button) return;
    const s = getSettings();
    if (s.seps === null) s.rx = s.sepPreset !== "default";
    button.closest("li")?.remove();
    s.seps = typed();
    show();
    changed();
  });
  q("separator-add").addEventListener("click", () => {
    const s = getSettings();
    if (s.seps === null) s.rx = s.sepPreset !== "default";
    s.seps = [...typed(), ""];
    show();
    changed();
  });
  regex.addEventListener("change", () => {
    getSettings().rx = regex.checked;
    changed();
  });
  keep.addEventListener("change", () => {
    getSettings().keep = keep.value;
    changed();
  });
  strip.addEventListener("change", () => {
    getSettings().strip = strip.checked;
    changed();
  });
  return { show };
}
