// Uses the page's modules as they are meant to be used: both checks pass on it.
import { Engine } from "../../static/engine/engine-client.js";
import { markOverview } from "../../static/view/overview.js";

const engine = new Engine();
engine.call("view", { op: "counts", text: "one two" });
markOverview(document.body, { active: [1, 2] });
