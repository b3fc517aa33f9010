// The runtime's module as the site serves it (dist/pyodide/, copied there by build.py
// from node_modules/pyodide), typed by the pinned package's own declarations.
export { loadPyodide } from "pyodide";
