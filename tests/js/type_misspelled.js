// A misspelled property of one of the page's objects: tsc must refuse it.
import { Engine } from "../../static/engine/engine-client.js";

const engine = new Engine();
engine.cal("view", { op: "counts", text: "one two" });
