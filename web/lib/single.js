// posenc/single: the library with both .wasm builds inlined, for setups that
// cannot serve a .wasm file next to the module. About 1.4x the bytes of the
// .wasm it replaces, before compression.
import { loadPosenc as load } from './index.js';
import { inlineWasm } from './inline-wasm.js';

export * from './index.js';

/** As loadPosenc from 'posenc', without fetching: the wasm comes from this file unless `wasmBinary` is given. */
export function loadPosenc(options = {}) {
  if (options === null || typeof options !== 'object') return load(options); // rejects with the usual TypeError
  return load({ ...options, wasmBinary: options.wasmBinary ?? inlineWasm(options.build) });
}
