// One argument too many for one of the page's functions: tsc must refuse it.
import { markOverview } from "../../static/view/overview.js";

markOverview(document.body, { active: [1] }, "and one more");
