// The language models' wasm module (posenc-lm-simd / posenc-lm-scalar): posenc::lm and its bindings, a
// module of its own so that a page that never opens a model never downloads it. Reached only through
// lm.js, which index.js imports when loadLanguageModel is first called.
import { instantiate } from './loader.js';

const LM = {
  name: 'posenc-lm',
  glue: {
    simd: () => import('../wasm/posenc-lm-simd.mjs'),
    scalar: () => import('../wasm/posenc-lm-scalar.mjs'),
  },
  // Literal, as the page module's: bundlers copy the .wasm, and it is fetched only from here.
  wasmUrls: {
    simd: () => new URL('../wasm/posenc-lm-simd.wasm', import.meta.url),
    scalar: () => new URL('../wasm/posenc-lm-scalar.wasm', import.meta.url),
  },
};

/**
 * Instantiates the language models' module in the build the page's module uses ('simd' or 'scalar'),
 * from `wasmUrl`, else `locateFile('posenc-lm-<build>.wasm')`, else next to its glue.
 */
export async function loadLmModule({ build, wasmUrl, locateFile }) {
  const { mod } = await instantiate({ build, ...(wasmUrl === undefined ? {} : { wasmUrl }), ...(locateFile ? { locateFile } : {}) }, LM);
  return mod;
}
