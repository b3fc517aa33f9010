// settings-bar.js: on a narrow screen the settings fold into a drawer behind one bar
// under the text box, so the figures come right after the text; the bar says, in a
// line, the settings the figures on screen were made with. Its button opens and
// closes the drawer (style.css shows the drawer on a wide screen whatever the
// button says, and opens it by itself while a field in it is marked in red).

import * as fmt from "./format.js";

/**
 * Wires the bar's toggle; returns `landed(result)`, which writes the line for the
 * settings of a chunk answer.
 * @param {HTMLElement} bar
 * @param {HTMLElement} drawer
 */
export function mountSettingsBar(bar, drawer) {
  const toggle = bar.querySelector('[data-testid="settings-toggle"]');
  const line = bar.querySelector('[data-testid="settings-line"]');
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    drawer.dataset.open = String(open);
  });
  // The drawer's height, for style.css to keep its last field in view while it sticks.
  new ResizeObserver(([entry]) => {
    drawer.style.setProperty("--drawer-height", `${entry.borderBoxSize[0].blockSize}px`);
  }).observe(drawer);
  return {
    /** "Chunks of 40 words, overlap 8 words": what the figures below were made with. */
    landed(result) {
      if (result.splitter.name === "imported") {
        line.textContent = "The imported chunks";
        return;
      }
      const { unit, size, overlap } = result.params;
      const recursive = result.splitter.name === "recursive" ? ", LangChain's recursive splitter" : "";
      line.textContent = `Chunks of ${fmt.unitCount(size, unit)}, overlap ${fmt.unitCount(overlap, unit)}${recursive}`;
    },
  };
}
