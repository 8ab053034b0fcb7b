// The language models' wasm module (posenc-lm-simd / posenc-lm-scalar): posenc::lm and its bindings, a
// module of its own so that a page that never opens a model never downloads it. Reached only through
// lm.js, which index.js imports when loadLanguageModel is first called.
import { instantiate } from './loader.js';

/**
 * Why the language models run on one thread here, or null when they may run on several: 'not-isolated' (a page
 * that is not cross-origin isolated gets no shared memory), 'no-shared-memory' (an engine without it), 'no-simd'
 * (the build without SIMD has no threaded variant).
 */
export function threadsUnavailable(flavour = 'simd') {
  if (flavour !== 'simd') return 'no-simd';
  if (typeof SharedArrayBuffer !== 'function') return globalThis.crossOriginIsolated === false ? 'not-isolated' : 'no-shared-memory';
  const isNode = typeof globalThis.process === 'object' && globalThis.process.versions?.node != null && typeof window === 'undefined';
  return isNode || globalThis.crossOriginIsolated === true ? null : 'not-isolated';
}

/**
 * The Workers' script of the threaded build: `locateFile`'s answer for it, else next to the glue. In Node, a path;
 * in a browser, a script of another origin (a CDN) is started from a same-origin blob: that imports it (a Worker
 * cannot start from another origin's URL).
 */
function workerScript(options, flavour, isNode) {
  const file = `posenc-lm-${flavour}.worker.js`;
  const located = options.locateFile ? options.locateFile(file) : LM.workerUrl();
  // (In Node, locateFile may answer a plain path, as for the .wasm files.)
  if (isNode && typeof located === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(located)) return located;
  const url = new URL(located, globalThis.location?.href);
  if (isNode) return globalThis.process.getBuiltinModule('url').fileURLToPath(url);
  if (url.protocol === 'blob:' || url.origin === globalThis.location?.origin) return url.href;
  return URL.createObjectURL(new Blob([`importScripts(${JSON.stringify(url.href)});`], { type: 'text/javascript' }));
}

const LM = {
  name: 'posenc-lm',
  glue: {
    simd: () => import('../wasm/posenc-lm-simd.mjs'),
    scalar: () => import('../wasm/posenc-lm-scalar.mjs'),
    'simd-mt': () => import('../wasm/posenc-lm-simd-mt.mjs'),
  },
  // Literal, as the page module's: bundlers copy the .wasm, and it is fetched only from here.
  wasmUrls: {
    simd: () => new URL('../wasm/posenc-lm-simd.wasm', import.meta.url),
    scalar: () => new URL('../wasm/posenc-lm-scalar.wasm', import.meta.url),
    'simd-mt': () => new URL('../wasm/posenc-lm-simd-mt.wasm', import.meta.url),
  },
  workerUrl: () => new URL('../wasm/posenc-lm-simd-mt.worker.js', import.meta.url),
  // The glue as a file of its own, which each of the threaded build's Workers imports (a bundle that holds the
  // glue, as the language model's Worker in dist/ does, is no module those Workers could run).
  mainScripts: { 'simd-mt': () => new URL('../wasm/posenc-lm-simd-mt.mjs', import.meta.url) },
  // The SIMD build on threads where shared memory is there (Node; a cross-origin isolated page).
  variant: (flavour) => (threadsUnavailable(flavour) ? flavour : `${flavour}-mt`),
  worker: workerScript,
};

/**
 * Instantiates the language models' module in the build the page's module uses ('simd' or 'scalar'; the SIMD one
 * on threads where it can), from `wasmUrl` (then the single-thread build), else `locateFile('posenc-lm-<build>.wasm')`,
 * else next to its glue. Resolves to the module, with `threadsUnavailable`: null on the threaded build, else why not.
 */
export async function loadLmModule({ build, wasmUrl, locateFile }) {
  const { mod, flavour } = await instantiate({ build, ...(wasmUrl === undefined ? {} : { wasmUrl }), ...(locateFile ? { locateFile } : {}) }, LM);
  mod.threadsUnavailable = flavour.endsWith('-mt') ? null : wasmUrl !== undefined && !threadsUnavailable(flavour) ? 'given-module' : threadsUnavailable(flavour);
  return mod;
}
