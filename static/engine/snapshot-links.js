// snapshot-links.js: the runtime's own JS functions and objects that the memory
// snapshot refers to by name (scripts/make_snapshot.mjs names them: micropip keeps
// them when it is imported). A restored snapshot gets these stand-ins, which call
// through to the new runtime once loadPyodide has returned it.

let runtime = null;

/** The restored runtime, once loadPyodide returns it. */
export function linkRuntime(pyodide) {
  runtime = pyodide;
}

function target(name) {
  if (runtime === null) throw new Error(`the snapshot's ${name} was used before the runtime was ready`);
  switch (name) {
    case "loadPackage":
      return runtime.loadPackage;
    case "public_api":
      return runtime._api.public_api;
    case "install":
      return runtime._api.install;
    case "loadBinaryFile":
      return runtime._api.loadBinaryFile;
    default:
      throw new Error(`the memory snapshot names a JS object this page does not know: ${name}`);
  }
}

/**
 * Pyodide's `loadPackage`, strict: every wheel's integrity checked against the lock,
 * and a package that fails is an Error thrown (micropip raises it), not a line on the
 * console. The worker installs micropip and each vocabulary wheel through it too.
 * @param {(names: string[], options: object) => Promise<unknown>} loadPackage
 * @returns {(names: string[], options?: object) => Promise<void>}
 */
export function strictly(loadPackage) {
  return async (names, options = {}) => {
    const problems = [];
    await loadPackage(names, {
      ...options,
      checkIntegrity: true,
      messageCallback: () => {},
      errorCallback: (message) => problems.push(message),
    });
    if (problems.length > 0) throw new Error(problems.join("; "));
  };
}

/** loadPackage as micropip calls it (names only), on the runtime linked now. */
const loadPackageStrictly = (names, options = {}) => strictly(target("loadPackage"))(names, options);

/** `_snapshotDeserializer` for loadPyodide: a stand-in for each name. */
export function snapshotLink(name) {
  if (name === "loadPackage") return loadPackageStrictly;
  if (name === "public_api") {
    return new Proxy(
      {},
      {
        get: (_, key) => Reflect.get(target(name), key),
        has: (_, key) => Reflect.has(target(name), key),
        ownKeys: () => Reflect.ownKeys(target(name)),
        getOwnPropertyDescriptor: (_, key) => {
          const descriptor = Reflect.getOwnPropertyDescriptor(target(name), key);
          return descriptor && { ...descriptor, configurable: true };
        },
      },
    );
  }
  return async (...args) => target(name)(...args);
}
