// Uses the page's modules as they are meant to be used: both checks pass on it.
import { Engine } from "../../static/engine/engine-client.js";
import { showCard } from "../../static/view/cards.js";

const engine = new Engine();
engine.call("view", { op: "counts", text: "one two" });
showCard(document.body);
