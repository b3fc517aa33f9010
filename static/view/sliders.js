// sliders.js: a slider beside the chunk size and beside the overlap, each in step
// with its number field both ways. Moving a slider (by pointer, or with the arrow
// keys, Page Up and Page Down, Home and End, as every range input moves) writes its
// value into the field and gives the field an `input` event, as if typed: the view
// follows at once. Typing into the field moves the slider. Where each one reaches,
// and where it stands, is the engine's (the `sliders` of the chunk answer): the
// overlap stays below the size, the size above the overlap, in percent when the
// overlap is a share of the size.

/** A plain number as typed ("40", "12.5"): only such a value moves a slider. */
const PLAIN = /^\s*\d+(?:\.\d*)?\s*$/;

/**
 * Pairs each `input[type=range][data-slider]` under `form` with the number field
 * `fields[name]`; returns `landed(result)`, which puts the ranges of a chunk answer
 * on the sliders.
 * @param {HTMLElement} form
 * @param {Record<string, HTMLInputElement>} fields
 */
export function mountSliders(form, fields) {
  /** @type {Map<string, HTMLInputElement>} */
  const sliders = new Map();
  for (const node of form.querySelectorAll("input[type=range][data-slider]")) {
    const slider = /** @type {HTMLInputElement} */ (node);
    const field = fields[slider.dataset.slider];
    sliders.set(slider.dataset.slider, slider);
    slider.addEventListener("input", () => {
      if (field.value === slider.value) return;
      field.value = slider.value;
      field.dispatchEvent(new Event("input", { bubbles: true }));
    });
    field.addEventListener("input", () => {
      if (PLAIN.test(field.value)) slider.value = field.value.trim();
    });
  }
  return {
    /** The ranges and places of the answer's own settings. */
    landed(result) {
      for (const [name, slider] of sliders) {
        const range = result.sliders?.[name];
        slider.disabled = !range;
        if (!range) continue;
        slider.min = String(range.low);
        slider.max = String(range.high);
        slider.value = String(range.value);
      }
    },
  };
}
