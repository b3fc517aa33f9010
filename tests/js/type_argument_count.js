// One argument too many for one of the page's functions: tsc must refuse it.
import { showCard } from "../../static/view/cards.js";

showCard(document.body, "and one more");
