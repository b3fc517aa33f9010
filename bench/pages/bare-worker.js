// Benchmark anchor: nothing but loadPyodide() with its defaults (the stock
// pyodide-lock.json next to pyodide.mjs), served by the same server as the site.
import { loadPyodide } from "/pyodide/pyodide.mjs";

const t0 = performance.now();
try {
  const pyodide = await loadPyodide();
  self.postMessage({ ok: true, ms: performance.now() - t0, wasmBytes: pyodide._module.HEAP8.length });
} catch (error) {
  self.postMessage({ ok: false, error: String(error) });
}
