// A fact the engine does not share (FACTS comes from pyapp/facts.py): tsc must refuse it.
import { FACTS } from "../../static/facts.js";

console.log(FACTS.max_byts);
