// Benchmark anchor: a bare loadPyodide() of the site's runtime, in a module
// worker started the way the site starts its own (a blob: URL importing it),
// timed from navigation start like the page's time to ready.
const workerUrl = new URL("./bare-worker.js", import.meta.url).href;
const blobUrl = URL.createObjectURL(
  new Blob([`import ${JSON.stringify(workerUrl)};\n`], { type: "text/javascript" }),
);
const worker = new Worker(blobUrl, { type: "module" });
const result = document.getElementById("result");
worker.onmessage = (event) => {
  result.dataset.atMs = String(performance.now());
  result.dataset.inWorkerMs = String(event.data.ms ?? "");
  result.dataset.wasmBytes = String(event.data.wasmBytes ?? "");
  result.textContent = event.data.ok ? "booted" : `failed: ${event.data.error}`;
  result.dataset.state = event.data.ok ? "done" : "error";
};
