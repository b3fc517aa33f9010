// ESLint (flat config) for the page's, the workers' and the build's JavaScript: the
// recommended rules, with each file's own globals. `python build.py test` runs it.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["dist/", "node_modules/", ".cache/", ".venv/", "test-results/", "tests/js/"] },
  js.configs.recommended,
  {
    files: ["static/**/*.js", "bench/pages/**/*.js", "tests/js/**/*.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["static/engine/worker.js", "bench/pages/bare-worker.js"],
    languageOptions: { globals: { ...globals.worker } },
  },
  {
    // Inlined into index.html by build.py as a classic script (not a module).
    files: ["static/loader.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    files: ["sw.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "script", globals: { ...globals.serviceworker } },
  },
  {
    files: ["**/*.mjs"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      // `const { text: _, ...rest } = request` drops a field; `_`-named is unused on purpose.
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // `catch {}`: a failure that changes nothing (a storage refused, a request unparsed).
      "no-empty": ["error", { allowEmptyCatch: true }],
    },
  },
];
