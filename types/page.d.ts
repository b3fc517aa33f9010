// Loose types for the page's DOM, so that `tsc --checkJs` (jsconfig.json) checks the
// modules' own code without a cast at every lookup: an element found by a selector is
// typed as a form field (value, checked, disabled, dataset and the rest all exist on
// it), and an event's target as such an element. A misspelled property is still an
// error on it, as on everything else.

type PageElement = HTMLInputElement;

interface ParentNode {
  querySelector<E extends Element = PageElement>(selectors: string): E | null;
  querySelectorAll<E extends Element = PageElement>(selectors: string): NodeListOf<E>;
}

interface Element {
  closest<E extends Element = PageElement>(selectors: string): E | null;
}

// A node as the page's MutationObserver callbacks and text walkers use it: an element's
// members once `nodeType === 1` was checked, a text node's once it came from a walker
// over text nodes.
interface Node {
  matches?(selectors: string): boolean;
  querySelectorAll?<E extends Element = PageElement>(selectors: string): NodeListOf<E>;
  data?: string;
  splitText?(offset: number): Text;
}

// `document.activeElement` and the like are HTML (or SVG) elements on this page.
interface Element {
  dataset?: DOMStringMap;
}
