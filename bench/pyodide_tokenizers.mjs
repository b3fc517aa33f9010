// pyodide_tokenizers.mjs: the pure tokenizer in the page's runtime, for
// bench/bench_tokenizers.py --pyodide (nothing else runs it).
//
//   node bench/pyodide_tokenizers.mjs <dist/pyodide> <dist/packages> <texts dir> <rows.py>
//
// Boots the built site's Pyodide in Node (the same wasm runtime and V8 engine as
// the page's worker), installs the site's wheels from the site's own lock, copies
// every <texts dir>/*.txt (and its config.json) into the runtime's file system, runs <rows.py> there and
// prints the JSON text it leaves in the global RESULT. Node is used instead of a page
// so that nothing but the tokenizer is timed: no rendering, no worker messages.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [runtimeDir, packagesDir, textsDir, script] = process.argv.slice(2);
if (!script) {
  console.error("usage: node pyodide_tokenizers.mjs <pyodide dir> <packages dir> <texts dir> <rows.py>");
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(`${runtimeDir}/pyodide.mjs`).href);
const pyodide = await loadPyodide({
  lockFileURL: `${packagesDir}/site-lock.json`,
  packageBaseUrl: `${packagesDir}/`,
  stdout: (line) => console.error(line),
  stderr: (line) => console.error(line),
});
const packages = [
  "pyapp",
  "pyapp-vocab-bert-base-uncased",
  "pyapp-vocab-llama3",
  "pyapp-vocab-qwen2",
  "pyapp-vocab-tekken",
];
const problems = [];
await pyodide.loadPackage(packages, {
  messageCallback: () => {},
  errorCallback: (message) => problems.push(message),
  checkIntegrity: true,
});
if (problems.length > 0) throw new Error(problems.join("; "));
pyodide.FS.mkdirTree("/texts");
for (const name of readdirSync(textsDir).filter((file) => file.endsWith(".txt") || file === "config.json")) {
  pyodide.FS.writeFile(`/texts/${name}`, readFileSync(join(textsDir, name)));
}
pyodide.runPython(readFileSync(script, "utf8"));
console.log(pyodide.globals.get("RESULT"));
