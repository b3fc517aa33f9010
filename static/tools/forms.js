// forms.js: one way to show what the engine refused, for the main form and the
// planning panels alike. The message goes next to the field it blames (or into
// the form's general slot), the field is marked aria-invalid, and while the last
// good result stays on screen a note says it is stale.
//
// Slots are the elements `[data-testid="error"][data-field="<name>"]` under the
// form's roots, static in index.html with aria-live="polite".
//
//   const errors = new FieldErrors({ roots: [panel], name: (f) => `sizing.${f}`,
//     fallback: "sizing.other", input: (f) => inputs[f], staleNote, staleTarget: panel });
//   errors.show(response.error, { stale: lastGood !== null });
//   errors.clear();

const DEFAULT_MESSAGE = "The engine refused this input.";

export class FieldErrors {
  /**
   * @param {{roots: Element[], name?: (field: string) => string, fallback: string,
   *   input?: (field: string | null) => Element | null | undefined,
   *   staleNote: HTMLElement, staleTarget: Element}} options
   *   `name` maps an engine field to its slot's data-field; `fallback` names the
   *   slot for a field with none; `input` gives the control to mark; the stale note
   *   is shown and `staleTarget` gets the class `is-stale` while a result is stale.
   */
  constructor({ roots, name = (field) => field, fallback, input = () => null, staleNote, staleTarget }) {
    this.roots = roots;
    this.name = name;
    this.fallback = fallback;
    this.input = input;
    this.staleNote = staleNote;
    this.staleTarget = staleTarget;
  }

  /** The slot for `data-field` value `name`, or null. */
  slot(name) {
    for (const root of this.roots) {
      const node = root.querySelector(`[data-testid="error"][data-field="${name}"]`);
      if (node) return node;
    }
    return null;
  }

  /** Hides every message and mark, and the stale note. */
  clear() {
    for (const root of this.roots) {
      for (const node of root.querySelectorAll('[data-testid="error"]')) {
        node.hidden = true;
        node.textContent = "";
      }
      for (const input of root.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
    }
    this.staleNote.hidden = true;
    this.staleTarget.classList.remove("is-stale");
  }

  /**
   * Shows `error` ({field, message}, as the engine answers) in place of any other.
   * @param {{field?: string | null, message?: string} | null} error
   * @param {{stale?: boolean, mark?: boolean}} [how] `stale`: a last good result is
   *   on screen and no longer matches the fields; `mark`: the field itself is wrong.
   */
  show(error, { stale = false, mark = true } = {}) {
    this.clear();
    const field = error?.field ?? null;
    const node = (field !== null && this.slot(this.name(field))) || this.slot(this.fallback);
    node.textContent = error?.message || DEFAULT_MESSAGE;
    node.hidden = false;
    const input = mark ? this.input(field) : null;
    if (input) input.setAttribute("aria-invalid", "true");
    if (stale) {
      this.staleNote.hidden = false;
      this.staleTarget.classList.add("is-stale");
    }
  }
}
