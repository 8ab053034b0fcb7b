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

export { simdSupported, compileWasm };
export { ROPE_TYPES, ROPE_TYPE_INFO, SCALING_FIELDS, scalingBlock } from './scaling.js';
export { describeArchitecture } from './rope-config.js';
export { FAMILIES as ROPE_FAMILIES } from './rope-families.js';
export { ENCODINGS, ENCODING_INFO, CONFIG_SCHEMA, OPTIMIZER_SCHEMA, OPTIMIZER_KEYS } from './model.js';
export { TASKS } from './tasks.js';
/** The model file formats posenc reads ([{id, label, shortName, extension, signature}], the core's list). */
export { MODEL_FORMATS } from '../wasm/registry.js';

/**
 * The language models run in a module of their own (posenc-lm-*.wasm, with lm.js), imported and
 * instantiated on the first loadLanguageModel call, in the page module's build; a failed load is retried
 * on the next call. Until then a page downloads none of it.
 */
function lazyLanguageModels(options) {
  let pending = null, loaded = null;
  const api = () => (pending ??= import('./lm.js').then((m) => m.loadLanguageModelApi(options)).then(
    (a) => (loaded = a),
    (e) => {
      pending = null;
      throw e;
    }));
  return {
    loadLanguageModel: async (files) => (await api()).loadLanguageModel(files),
    languageModelFamilies: async () => (await api()).families,
    detectModelFormat: async (bytes) => (await api()).detectFormat(bytes),
    modelFormats: async () => (await api()).formats,
    contextExtensions: async () => ({ methods: (await api()).extendMethods, dynamicForms: (await api()).dynamicForms }),
    heapBytes: () => (loaded ? loaded.mod.heapBytes() : 0),
    memoryBytes: () => (loaded ? loaded.mod.HEAPU8.length : 0),
  };
}

/**
 * Load the module. Resolves to an object with the encoding functions.
 * @param {object} [options] see loader.js: build ('auto'|'simd'|'scalar'), wasmUrl, locateFile, wasmBinary, wasmModule;
 *   lmWasmUrl: where the language models' .wasm is (default: locateFile's answer, else next to its glue)
 */
export async function loadPosenc(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('loadPosenc options must be an object');
  const { mod, flavour } = await instantiate(options);
  const models = createModelApi(mod);
  const tasks = createTaskApi(mod);
  const lm = lazyLanguageModels({ build: flavour, wasmUrl: options.lmWasmUrl, locateFile: options.locateFile });
  return Object.freeze({
    build: flavour,
    simdArch: mod.simdArch(),
    /** Bytes currently allocated in the wasm heaps (for leak checks): the page module's, plus the language models' once loaded. */
    heapBytes: () => mod.heapBytes() + lm.heapBytes(),
    /** Size of the wasm memories in bytes (the same two). */
    memoryBytes: () => mod.HEAPU8.length + lm.memoryBytes(),
    ...createEncodings(mod),
    createModel: models.createModel,
    loadModel: models.loadModel,
    readCheckpoint: models.readCheckpoint,
    /** The module's encoding registry: [{ name, id, label, blurb, fields, positionTable, scoreBias, qkTransform, streaming, prefixStable, sink }]. */
    encodings: mod.encodingList(),
    ...tasks,
    ...createTrainer(mod, tasks),
    /** A real language model from its files (lm.js); the first call loads the language models' module. */
    loadLanguageModel: lm.loadLanguageModel,
    /** The model families loadLanguageModel runs, from the core's family table (loads the language models' module). */
    languageModelFamilies: lm.languageModelFamilies,
    /** A model file's format ('llama2c', 'gguf' or 'safetensors') from its content; a RangeError names what else it is. */
    detectModelFormat: lm.detectModelFormat,
    /** The model file formats posenc reads: [{id, label, shortName, extension, signature}] (from the core). */
    modelFormats: lm.modelFormats,
    /**
     * The training-free context extensions a forward's `extend` option takes, from the core's table: {methods: [{name,
     * label, source, params: [{key, integer, min, max, default, optional, about}], scalings, refused}], dynamicForms:
     * [{name, label}]} (loads the language models' module).
     */
    contextExtensions: lm.contextExtensions,
  });
}
