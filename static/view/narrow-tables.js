// narrow-tables.js: on a phone a wide table (`table[data-narrow="rows"]`) is shown
// one row per block, each cell under its column's name (style.css), so it fits the
// width whatever columns it has. Here each cell gets its column's name in
// `data-label`, again whenever the rows or the columns change.

/** A header's name as read on a wide screen (a short narrow form is left out). */
function headerName(th) {
  if (th.querySelector(".visually-hidden")) return "";
  return (th.querySelector(".on-wide") ?? th).textContent.trim();
}

function label(table) {
  const names = [...table.querySelectorAll("thead th")].map(headerName);
  for (const row of table.tBodies[0]?.rows ?? []) {
    [...row.cells].forEach((cell, i) => {
      if (names[i]) cell.dataset.label = names[i];
      else delete cell.dataset.label;
    });
  }
}

/** Labels the cells of every such table under `root`, and keeps them labelled. */
export function mountNarrowTables(root) {
  for (const table of root.querySelectorAll('table[data-narrow="rows"]')) {
    const observer = new MutationObserver(() => {
      label(table);
      observer.takeRecords(); // its own writes are attributes, not rows: nothing to redo
    });
    observer.observe(table, { childList: true, subtree: true });
    label(table);
  }
}
