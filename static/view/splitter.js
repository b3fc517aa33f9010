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
 * @param {{splitter: string, separatorsPreset: string, separators: string[] | null, separatorRegex: boolean, keepSeparator: string, strip: boolean}} s
 * @returns {Record<string, unknown>}
 */
export function splitterFields(s) {
  if (s.splitter !== "recursive") return { splitter: s.splitter };
  const custom = s.separators !== null;
  return {
    splitter: "recursive",
    separators_preset: custom ? null : s.separatorsPreset,
    separators: custom ? s.separators : null,
    separator_regex: custom ? s.separatorRegex : null,
    keep_separator: s.keepSeparator,
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
    select.value = s.splitter;
    panel.hidden = s.splitter !== "recursive";
    preset.value = s.separators === null ? s.separatorsPreset : "";
    const separators = s.separators ?? FACTS.separator_presets[s.separatorsPreset] ?? FACTS.separator_presets.default;
    list.replaceChildren(...separators.map(row));
    regex.checked = s.separators === null ? s.separatorsPreset !== "default" : s.separatorRegex;
    regex.disabled = s.separators === null;
    keep.value = s.keepSeparator;
    strip.checked = s.strip;
  }

  select.addEventListener("change", () => {
    getSettings().splitter = select.value;
    show();
    changed();
  });
  preset.addEventListener("change", () => {
    const s = getSettings();
    if (preset.value === "") {
      s.separators = typed();
      s.separatorRegex = regex.checked;
    } else {
      s.separatorsPreset = preset.value;
      s.separators = null;
    }
    show();
    changed();
  });
  list.addEventListener("input", () => {
    const s = getSettings();
    if (s.separators === null) s.separatorRegex = s.separatorsPreset !== "default"; // an edited preset keeps its kind
    s.separators = typed();
    preset.value = "";
    regex.disabled = false;
    changed();
  });
  list.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-testid='separator-remove']");
    if (!button) return;
    const s = getSettings();
    if (s.separators === null) s.separatorRegex = s.separatorsPreset !== "default";
    button.closest("li")?.remove();
    s.separators = typed();
    show();
    changed();
  });
  q("separator-add").addEventListener("click", () => {
    const s = getSettings();
    if (s.separators === null) s.separatorRegex = s.separatorsPreset !== "default";
    s.separators = [...typed(), ""];
    show();
    changed();
  });
  regex.addEventListener("change", () => {
    getSettings().separatorRegex = regex.checked;
    changed();
  });
  keep.addEventListener("change", () => {
    getSettings().keepSeparator = keep.value;
    changed();
  });
  strip.addEventListener("change", () => {
    getSettings().strip = strip.checked;
    changed();
  });
  return { show };
}
