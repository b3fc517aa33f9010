// fit.js: fit the chunk size to the model. With a model chosen (or an input limit
// typed) in token mode, the engine finds the largest size at which every chunk of this
// text, encoded on its own, fits the model with its special tokens (op `fit`, a
// background call after each result), and says when a fixed size cannot guarantee it.
// This module shows its offer ("Fit: size 254 so every chunk fits all-MiniLM-L6-v2's
// 256 tokens") and the engine's sentence, and puts that size into the settings when
// the offer is taken. Nothing is computed here.
//
//   const fit = mountFit({ engine, node, apply });  // apply({size}) sets the size
//   fit.viewLanded(request, result);                // after every main-view result

import { PURPOSE } from "../engine/protocol.js";

/**
 * @param {{engine: any, node: HTMLElement, apply: (setting: {size: number}) => void}} options
 */
export function mountFit({ engine, node, apply }) {
  const button = /** @type {HTMLButtonElement} */ (node.querySelector('[data-testid="fit-model"]'));
  const note = /** @type {HTMLElement} */ (node.querySelector('[data-testid="fit-note"]'));
  let asked = 0;

  button.addEventListener("click", () => {
    if (button.dataset.size) apply({ size: Number(button.dataset.size) });
  });

  function hide() {
    node.hidden = true;
    node.dataset.state = "";
  }

  return {
    /** A main-view result is on screen: ask for the fit of its settings, or hide the offer. */
    async viewLanded(request, result) {
      const seq = ++asked;
      const { params } = result;
      if (params.unit !== "token" || params.max_tokens === null || params.max_tokens === undefined) {
        hide();
        return;
      }
      button.disabled = true; // the offer shown is the last text's until the new one lands
      let response = null;
      try {
        response = await engine.call(PURPOSE.fit, { ...request, op: "fit" });
      } catch {
        response = null;
      }
      if (seq !== asked) return; // a newer result asked again
      if (response === null || !response.ok) {
        hide(); // no fit to offer here (a chunks file shown, a refusal the view already says)
        return;
      }
      const fit = response.result;
      node.hidden = fit.current; // the size is the fit already: the limit line says it fits
      node.dataset.state = fit.size === null ? "none" : "offer";
      button.hidden = fit.size === null;
      button.disabled = false;
      button.textContent = fit.label;
      button.dataset.size = fit.size === null ? "" : String(fit.size);
      note.textContent = fit.note;
    },
  };
}
