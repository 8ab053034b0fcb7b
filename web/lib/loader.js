// Finding, fetching and instantiating the wasm module, in browsers, workers
// and Node. The SIMD build is used where the engine supports wasm SIMD, the
// scalar build of the same source otherwise (or when asked for).

// The smallest module that uses a SIMD128 instruction: (func (result v128) i32.const 0 i8x16.splat)
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// `globalThis.process`, never a bare `process`: bundlers (Parcel) see a bare one as a
// use of Node's global and pull in a polyfill.
const nodeProcess = globalThis.process;
const isNode = typeof nodeProcess === 'object' && nodeProcess.versions != null && nodeProcess.versions.node != null &&
  typeof window === 'undefined' && typeof importScripts === 'undefined';

// The page's module. The language models' module (posenc-lm-*) is described the same way in lm-module.js,
// which only the lazily imported language-model code reaches.
const PAGE = {
  name: 'posenc',
  glue: {
    simd: () => import('../wasm/posenc-simd.mjs'),
    scalar: () => import('../wasm/posenc-scalar.mjs'),
  },
  // Literal `new URL(…, import.meta.url)`s, which bundlers (Vite, webpack 5,
  // Parcel, esbuild with a plugin) recognise and copy the .wasm for.
  wasmUrls: {
    simd: () => new URL('../wasm/posenc-simd.wasm', import.meta.url),
    scalar: () => new URL('../wasm/posenc-scalar.wasm', import.meta.url),
  },
};

async function readNodeFile(url) {
  // Only reached under Node (>= 20.19, package.json engines, so getBuiltinModule exists). No
  // import() of a Node built-in: a bundler would see one and try to resolve or stub it.
  return nodeProcess.getBuiltinModule('fs/promises').readFile(url);
}

const OPTIONS = ['build', 'wasmUrl', 'locateFile', 'wasmBinary', 'wasmModule', 'lmWasmUrl'];

/** Checks loadPosenc's options: TypeError for a wrong kind of value, RangeError for a value out of its set. */
function checkOptions(options) {
  for (const key of Object.keys(options))
    if (!OPTIONS.includes(key)) throw new TypeError(`loadPosenc: unknown option ${JSON.stringify(key)} (allowed: ${OPTIONS.join(', ')})`);
  const { build, wasmUrl, locateFile, wasmBinary } = options;
  if (build !== undefined && typeof build !== 'string') throw new TypeError(`build must be a string: 'auto', 'simd' or 'scalar' (got ${typeof build})`);
  for (const [name, url] of [['wasmUrl', wasmUrl], ['lmWasmUrl', options.lmWasmUrl]])
    if (url !== undefined && typeof url !== 'string' && !(url instanceof URL)) throw new TypeError(`${name} must be a string or a URL (got ${typeof url})`);
  if (locateFile !== undefined && typeof locateFile !== 'function')
    throw new TypeError(`locateFile must be a function (file: string) => string (got ${typeof locateFile})`);
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary))
    throw new TypeError(`wasmBinary must be an ArrayBuffer or a Uint8Array (got ${typeof wasmBinary})`);
  if (options.wasmModule !== undefined && !(options.wasmModule instanceof WebAssembly.Module))
    throw new TypeError(`wasmModule must be a WebAssembly.Module, e.g. from compileWasm() (got ${typeof options.wasmModule})`);
}

/** In Node, a plain file path is accepted where a URL is expected. */
function toUrl(url) {
  if (url instanceof URL) return url;
  if (isNode && /^(\/|[A-Za-z]:[\\/])/.test(url)) return new URL(`file://${url.startsWith('/') ? '' : '/'}${url.replace(/\\/g, '/')}`);
  return url;
}

/** Which build `options` ask for, and where the .wasm of module `spec` is. */
function locate(options, spec = PAGE) {
  checkOptions(options);
  const build = options.build ?? 'auto';
  if (!['auto', 'simd', 'scalar'].includes(build))
    throw new RangeError(`build must be one of 'auto', 'simd', 'scalar' (got ${String(build)})`);
  const base = build === 'auto' ? (simdSupported() ? 'simd' : 'scalar') : build;
  if (base === 'simd' && !simdSupported()) throw new RangeError("build 'simd' was asked for, but this engine has no wasm SIMD");
  // Given the module or its bytes, no URL is formed at all (a bundler may have left none: Parcel
  // rewrites the literal into a lookup that only works inside its own bundles).
  const given = options.wasmModule || options.wasmBinary;
  // A variant of the build (lm-module.js: the one on threads) where the files are the module's own to pick.
  const flavour = spec.variant && !given && options.wasmUrl === undefined ? spec.variant(base) : base;
  const file = `${spec.name}-${flavour}.wasm`;
  const url = options.wasmUrl ?? (options.locateFile ? options.locateFile(file) : given ? null : spec.wasmUrls[flavour]());
  return { flavour, url: url === null ? null : toUrl(url) };
}

/** The error for a module that would not load, naming where it came from. */
function failed(options, url, e) {
  const from = options.wasmModule ? 'the given wasmModule' : options.wasmBinary ? 'the given wasmBinary' : String(url);
  const why = String(e && e.message ? e.message : e).replace(/\s*\(?Build with -s ASSERTIONS=1 for more info\.?\)?/, '');
  return new Error(`posenc: could not load the wasm module from ${from}: ${why}`);
}

/**
 * Compile the .wasm once, to share: pass `{wasmModule: module, build}` to loadPosenc here or in a Worker
 * (a WebAssembly.Module can be posted to Workers), and nothing is fetched or compiled again.
 * @returns {Promise<{module: WebAssembly.Module, build: 'simd'|'scalar'}>}
 */
export async function compileWasm(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('compileWasm options must be an object');
  const { flavour, url } = locate(options);
  try {
    let bytes = options.wasmBinary;
    if (!bytes && isNode && String(url).startsWith('file:')) bytes = await readNodeFile(new URL(String(url)));
    if (!bytes) {
      const res = await fetch(String(url));
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      bytes = await res.arrayBuffer();
    }
    return { module: await WebAssembly.compile(bytes), build: flavour };
  } catch (e) {
    throw failed(options, url, e);
  }
}

/**
 * @param {object} [options]
 * @param {'auto'|'simd'|'scalar'} [options.build='auto']
 * @param {string|URL} [options.wasmUrl] where to fetch the .wasm from (default: next to the glue)
 * @param {(file: string) => string} [options.locateFile] as in Emscripten
 * @param {ArrayBuffer|Uint8Array} [options.wasmBinary] the .wasm bytes, if you already have them
 * @param {WebAssembly.Module} [options.wasmModule] a compiled module (compileWasm) of the same build
 * @param {object} [spec] which module: the page's (default), or lm-module.js's
 */
export async function instantiate(options = {}, spec = PAGE) {
  const { flavour, url } = locate(options, spec);
  const moduleArgs = { print: () => {}, printErr: (s) => console.warn(`posenc: ${s}`) };
  let instantiateFailed = new Promise(() => {}); // rejects if a given wasmModule cannot be instantiated
  if (options.wasmModule) {
    instantiateFailed = new Promise((_, reject) => {
      moduleArgs.instantiateWasm = (imports, done) => {
        WebAssembly.instantiate(options.wasmModule, imports).then((instance) => done(instance, options.wasmModule), reject);
        return {}; // Emscripten's contract: exports arrive through done()
      };
    });
  } else if (options.wasmBinary) moduleArgs.wasmBinary = options.wasmBinary;
  // Always given, so the glue never forms its own default URL either. (A threaded build also asks for its
  // Workers' script: spec.worker.)
  moduleArgs.locateFile = (file) => (file.endsWith('.worker.js') && spec.worker ? spec.worker(options, flavour, isNode)
    : String(url ?? `${spec.name}-${flavour}.wasm`));
  if (spec.mainScripts?.[flavour]) moduleArgs.mainScriptUrlOrBlob = String(spec.mainScripts[flavour]());
  const { default: create } = await spec.glue[flavour]();
  try {
    if (!moduleArgs.wasmBinary && !options.wasmModule && isNode && String(url).startsWith('file:'))
      moduleArgs.wasmBinary = await readNodeFile(new URL(String(url))); // a missing file is named like a failed fetch
    const mod = await Promise.race([create(moduleArgs), instantiateFailed]);
    // Node: the threaded build's worker threads (idle, or waiting for the next job) do not keep the process alive.
    if (isNode) for (const w of mod.PThread?.unusedWorkers ?? []) w.unref?.();
    return { mod, flavour };
  } catch (e) {
    throw failed(options, url, e);
  }
}
