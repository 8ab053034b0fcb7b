// posenc: transformer positional encodings in WebAssembly (SIMD).
//
//   import { loadPosenc } from 'posenc';
//   const pe = await loadPosenc();
//   const table = pe.sinusoidal({ length: 128, dim: 64 });
import { instantiate, simdSupported, compileWasm } from './loader.js';
import { createEncodings } from './encodings.js';
import { createModelApi } from './model.js';
import { createTaskApi } from './tasks.js';
import { createTrainer } from './train.js';
import { createLanguageModelApi } from './lm.js';

export { simdSupported, compileWasm };
export { ROPE_TYPES } from './scaling.js';
export { describeArchitecture } from './rope-config.js';
export { FAMILIES as ROPE_FAMILIES } from './rope-families.js';
export { ENCODINGS, ENCODING_INFO, CONFIG_SCHEMA, OPTIMIZER_SCHEMA, OPTIMIZER_KEYS } from './model.js';
export { TASKS } from './tasks.js';

/**
 * Load the module. Resolves to an object with the encoding functions.
 * @param {object} [options] see loader.js: build ('auto'|'simd'|'scalar'), wasmUrl, locateFile, wasmBinary
 */
export async function loadPosenc(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('loadPosenc options must be an object');
  const { mod, flavour } = await instantiate(options);
  const models = createModelApi(mod);
  const tasks = createTaskApi(mod);
  return Object.freeze({
    build: flavour,
    simdArch: mod.simdArch(),
    /** Bytes currently allocated in the wasm heap (for leak checks). */
    heapBytes: () => mod.heapBytes(),
    /** Size of the wasm memory in bytes. */
    memoryBytes: () => mod.HEAPU8.length,
    ...createEncodings(mod),
    createModel: models.createModel,
    loadModel: models.loadModel,
    readCheckpoint: models.readCheckpoint,
    /** The module's encoding registry: [{ name, id, label, blurb, fields, positionTable, scoreBias, qkTransform, streaming }]. */
    encodings: mod.encodingList(),
    ...tasks,
    ...createTrainer(mod, tasks),
    ...createLanguageModelApi(mod),
  });
}
