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

const isNode = typeof process === 'object' && process.versions != null && process.versions.node != null &&
  typeof window === 'undefined' && typeof importScripts === 'undefined';

const glue = {
  simd: () => import('../wasm/posenc-simd.mjs'),
  scalar: () => import('../wasm/posenc-scalar.mjs'),
};
// Literal `new URL(…, import.meta.url)`s, which bundlers (Vite, webpack 5,
// Parcel, esbuild with a plugin) recognise and copy the .wasm for.
const wasmUrls = {
  simd: () => new URL('../wasm/posenc-simd.wasm', import.meta.url),
  scalar: () => new URL('../wasm/posenc-scalar.wasm', import.meta.url),
};

async function readNodeFile(url) {
  // Only reached under Node; the specifier is built at run time so bundlers
  // never try to resolve a Node built-in for the browser.
  const fs = await import(/* @vite-ignore */ ['node', 'fs/promises'].join(':'));
  return fs.readFile(url);
}

/**
 * @param {object} [options]
 * @param {'auto'|'simd'|'scalar'} [options.build='auto']
 * @param {string|URL} [options.wasmUrl] where to fetch the .wasm from (default: next to the glue)
 * @param {(file: string) => string} [options.locateFile] as in Emscripten
 * @param {ArrayBuffer|Uint8Array} [options.wasmBinary] the .wasm bytes, if you already have them
 */
export async function instantiate(options = {}) {
  const build = options.build ?? 'auto';
  if (!['auto', 'simd', 'scalar'].includes(build))
    throw new RangeError(`build must be one of 'auto', 'simd', 'scalar' (got ${String(build)})`);
  const flavour = build === 'auto' ? (simdSupported() ? 'simd' : 'scalar') : build;
  if (flavour === 'simd' && !simdSupported()) throw new RangeError("build 'simd' was asked for, but this engine has no wasm SIMD");
  const file = `posenc-${flavour}.wasm`;
  const url = options.wasmUrl ?? (options.locateFile ? options.locateFile(file) : wasmUrls[flavour]());
  const moduleArgs = { print: () => {}, printErr: (s) => console.warn(`posenc: ${s}`) };
  if (options.wasmBinary) moduleArgs.wasmBinary = options.wasmBinary;
  else if (isNode && String(url).startsWith('file:')) moduleArgs.wasmBinary = await readNodeFile(new URL(String(url)));
  else moduleArgs.locateFile = () => String(url);
  const { default: create } = await glue[flavour]();
  try {
    const mod = await create(moduleArgs);
    return { mod, flavour };
  } catch (e) {
    throw new Error(`posenc: could not load the wasm module from ${String(url)}: ${e && e.message ? e.message : e}`);
  }
}
