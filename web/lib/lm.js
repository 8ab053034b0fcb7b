// Real, trained language models (the families of the core's family table): load one from the bytes of its files and run it
// over a passage, with any HF RoPE scaling, for the per-position loss, attention statistics and
// pooled attention maps. The C++ core (posenc/lm.hpp) does the parsing of llama2.c and GGUF files
// and the forward; this module checks the caller's arguments, reads the formats that are JSON
// (safetensors headers, config.json through the one config reader, tokenizer.json), and owns memory.
//
//   const lm = await pe.loadLanguageModel({ model: binBytes, tokenizer: tokBytes });
//   const ids = lm.encode(text);
//   const { nll } = lm.forward(ids, { scaling: { rope_type: 'yarn', factor: 4 } });
//   lm.delete();
import * as v from './validate.js';
import { scope, check } from './memory.js';
import { normaliseScaling, SCALING_FIELDS, contextKey } from './scaling.js';
import { describeArchitecture } from './rope-config.js';
import { parseSafetensorsHeader, parseSafetensorsIndex, WEIGHT_DTYPES } from './safetensors.js';
import { createHfTokenizer } from './hf-tokenizer.js';
import { plainJson } from './json-guard.js';
import { loadLmModule } from './lm-module.js';
import { CONFIG_SCHEMA } from '../wasm/registry.js';

// The RoPE pair layouts, in posenc::RopeLayout's order (the model config's ropeLayout choices).
const LAYOUTS = CONFIG_SCHEMA.find((f) => f.name === 'ropeLayout').choices;
const gigabytes = (bytes) => `${(bytes / 1e9).toFixed(2)} GB`;
export const MAX_LENGTH = 1 << 17; // posenc::lm::kMaxLength
/**
 * The families the core runs, from its family table (one row each, in the core's order): [{name, label (as readers
 * know it: 'Gemma 3'), hfTypes: [config.json
 * model_type values], source: the HF modeling code followed, gguf: whether llama.cpp's GGUF files of it load, qkvBias}].
 */
export function languageModelFamilies(mod) {
  return mod.lmFamilies().map((f) => Object.freeze({ ...f, hfTypes: f.hfTypes.split(',') }));
}

const bytesOf = (name, x) => {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new TypeError(`${name} must be the file's bytes, a Uint8Array or an ArrayBuffer (got ${v.show(x)})`);
};
const textOf = (name, x) => (typeof x === 'string' ? x : new TextDecoder().decode(bytesOf(name, x)));
const jsonOf = (name, x) => (x !== null && typeof x === 'object' && !ArrayBuffer.isView(x) && !(x instanceof ArrayBuffer) ? x : textOf(name, x));

/**
 * The language models' module (options: {build, wasmUrl, locateFile}, lm-module.js) with the API on it:
 * {mod, loadLanguageModel}. index.js imports this file, and so the module, on the first loadLanguageModel.
 */
export async function loadLanguageModelApi(options) {
  const mod = await loadLmModule(options);
  return { mod, ...createLanguageModelApi(mod) };
}

export function createLanguageModelApi(mod) {
  const FAMILIES = languageModelFamilies(mod);
  const DTYPES = mod.lmDtypes(); // the core's weight dtypes, in lm::DType's order (the index lmLoad takes for a listed tensor)
  const SLOTS = mod.lmConfigSlots(); // the config's numbers as the module passes them, in their order
  const CONTEXT_SOURCES = mod.lmContextSources(); // lm::ContextSource's names, in its order
  const KV_TYPES = mod.lmKvTypes(); // the core's cache types ('float32', 'float16'), in lm::KvType's order
  // The core's training-free context extensions (lm::extend_methods(): name, label, source, params with bounds and
  // defaults, the RoPE scalings each composes with) and dynamic NTK's forms ('call', 'cached'), in their enums' order.
  const EXTEND_METHODS = Object.freeze(mod.lmExtendMethods().map((m) => Object.freeze({ ...m, params: Object.freeze(m.params.map(Object.freeze)) })));
  const DYNAMIC_FORMS = Object.freeze(mod.lmDynamicForms().map(Object.freeze));
  const ARCHS = FAMILIES.map((f) => f.name);
  const HF_ARCHS = new Map(FAMILIES.flatMap((f, i) => f.hfTypes.map((t) => [t, i])));
  // The formats posenc reads, from the core's table (posenc::lm::file_formats(), in its order: a format's index is its
  // place there): [{id, label, shortName, extension, signature, inputs, configJson, tokenizerJson}].
  const formats = Object.freeze(mod.lmFormats().map(Object.freeze));
  const formatIds = formats.map((x) => x.id);
  const api = { mod, FAMILIES, SLOTS, CONTEXT_SOURCES, KV_TYPES, EXTEND_METHODS, DYNAMIC_FORMS, ARCHS, HF_ARCHS, formats, formatIds }; // what readJson and wrap read
  /** A model file's format ('llama2c', 'gguf' or 'safetensors') from its content, or the core's RangeError naming what it found. */
  function detectFormat(bytes) {
    const b = bytesOf('model', bytes);
    return scope(mod, (m) => {
      const head = b.subarray(0, mod.lmFormatHeadBytes), out = m.put('i32', 1);
      check(mod, mod.lmDetectFormat(m.put('u8', head.length, head), head.length, b.length, out));
      return formatIds[mod.HEAP32[out / 4]];
    });
  }
  // A copy of a file's bytes in wasm memory that a loader takes over (the model reads its weights there, so the
  // file is held once): allocated outside any scope, freed by the core when the model is deleted or the load fails.
  // Addresses above 2 GB come back from malloc as negative int32: >>> 0 makes them unsigned.
  const handedOver = (n, what) => {
    const p = mod._malloc(Math.max(1, n)) >>> 0;
    if (!p) {
      const [max, used] = [mod.lmMemoryMax(), mod.lmMemoryUsed()];
      throw new RangeError(`${what} takes ${gigabytes(n)}, and the language-model module has ${gigabytes(max - used)} left of its ${gigabytes(max)}`);
    }
    return p;
  };
  const handleFrom = (m, load) => {
    const out = m.put('u32', 1);
    check(mod, load(out));
    return mod.HEAPU32[out / 4];
  };


  // The formats' inputs beside the model (their rows' inputs: loadLanguageModel's keys).
  const inputsOf = (row) => row.inputs.split(',').filter(Boolean);
  const sharded = formats.find((row) => inputsOf(row).includes('index')); // the format a model given by its index is

  /**
   * A language model from its files: {model} (a file of any format of the core's table: a llama2.c .bin, a GGUF, or
   * a .safetensors file), plus what its format takes beside it (its row's inputs): for a .bin {tokenizer:
   * tokenizer.bin}, for safetensors {config: config.json, tokenizer: tokenizer.json, tokenizerConfig, index:
   * model.safetensors.index.json and shards: {file name: bytes} when sharded}. Resolves to the model (an async call: an
   * HF tokenizer's code is imported when one is given). Call delete() when done.
   */
  async function loadLanguageModel(files) {
    const f = v.options('loadLanguageModel files', files);
    v.knownKeys('loadLanguageModel files', f, ['model', ...new Set(formats.flatMap(inputsOf)), 'format']);
    const format = f.format == null ? (f.model == null && f.index != null && sharded ? sharded.id : detectFormat(f.model)) : v.oneOf('format', f.format, formatIds);
    const index = formatIds.indexOf(format), row = formats[index], takes = inputsOf(row);
    const extra = Object.keys(f).find((k) => f[k] != null && k !== 'model' && k !== 'format' && !takes.includes(k));
    if (extra) throw new RangeError(`${extra}: a ${row.label} file takes ${takes.length ? `${takes.join(', ')} beside the model` : 'only the model'}`);
    // Everything is read and checked before the module holds anything.
    const json = row.configJson ? readJson(api, f, index) : null;
    const tok = f.tokenizer != null && !row.tokenizerJson ? bytesOf('tokenizer', f.tokenizer) : null;
    const tensors = json?.tensors ?? [];
    const parts = json ? tensors.map((t) => t.bytes) : [bytesOf('model', f.model)]; // what the core takes over
    const h = scope(mod, (m) => {
      const ptrs = m.put('u32', tensors.length), sizes = m.put('f64', tensors.length), dtypes = m.put('i32', tensors.length);
      const ranks = m.put('i32', tensors.length), dims = m.put('f64', tensors.reduce((n, t) => n + t.shape.length, 0));
      let d = dims / 8, at = 0;
      const starts = parts.map((b) => { const s = at; at += Math.ceil(b.length / 32) * 32; return s; }); // 32-byte aligned
      tensors.forEach((t, i) => {
        mod.HEAPF64[sizes / 8 + i] = t.byteLength;
        mod.HEAP32[dtypes / 4 + i] = DTYPES.indexOf(t.dtype);
        mod.HEAP32[ranks / 4 + i] = t.shape.length;
        for (const x of t.shape) mod.HEAPF64[d++] = x;
      });
      const pc = json ? m.put('f64', json.config.length, json.config) : 0;
      const pt = tok ? m.put('u8', tok.length, tok) : 0;
      const size = parts.length ? starts[parts.length - 1] + parts[parts.length - 1].length : 0;
      return handleFrom(m, (out) => {
        const storage = handedOver(at, json ? 'the model\'s tensors' : 'the model file'); // last: nothing can throw between this and the core taking it
        parts.forEach((b, i) => mod.HEAPU8.set(b, storage + starts[i]));
        tensors.forEach((t, i) => { mod.HEAPU32[ptrs / 4 + i] = storage + starts[i]; });
        return mod.lmLoad(index, storage, size, pt, tok?.length ?? 0, pc, tensors.map((t) => t.name), dtypes, ranks, dims, ptrs, sizes, out);
      });
    });
    // The tokenizer.json given beside the model, or else one the core built from the file's own byte-level BPE
    // vocabulary (a GGUF's) with its tokenizer_config.json and a label: both are read by the one tokenizer.json reader.
    const given = f.tokenizer != null && row.tokenizerJson;
    const [fileJson, fileConfig, label] = given ? [] : mod.lmTakeTokenizerJson(h);
    let tokenizer = null;
    if (given || fileJson) {
      try {
        tokenizer = given
          ? await createHfTokenizer(jsonOf('tokenizer', f.tokenizer), { config: f.tokenizerConfig == null ? {} : jsonOf('tokenizerConfig', f.tokenizerConfig) })
          : await createHfTokenizer(fileJson, { config: JSON.parse(fileConfig), name: `the ${row.label} file's tokenizer` });
      } catch (e) {
        mod.lmDelete(h);
        throw e;
      }
    }
    const tokenizerLabel = fileJson ? label : '';
    const note = tokenizer ? '' : mod.lmTokenizerNote(h); // '' when the core read one (from the file, or beside it)
    // the file's own scaling: config.json's, or the core's reading of the file (llama3's rope_freqs, Phi-3's LongRoPE
    // factors, linear), or null
    const defaultScaling = json ? json.defaultScaling : mod.lmFileScaling(h);
    return wrap(api, h, { tokenizer, coreTokenizer: !tokenizer && note === '', defaultScaling, note, format, tokenizerLabel });
  }


  return { loadLanguageModel, families: FAMILIES, detectFormat, formats, extendMethods: EXTEND_METHODS, dynamicForms: DYNAMIC_FORMS };
}

// For a format whose architecture is config.json and whose tensor table is JSON (its row's configJson), what the
// library reads for the core: the config's numbers and layer rules (config.json, read as "Your model's RoPE" reads
// it), the tensors each file's header lists (with their bytes), and the file's own scaling.
function readJson(api, files, source) {
  const { FAMILIES, SLOTS, HF_ARCHS, formats } = api;
  if (files.config == null) throw new TypeError(`config must be the model's config.json (text, bytes or object): ${formats[source].label} files carry no architecture`);
  const json = plainJson(jsonOf('config', files.config), 'config.json');
  const arch = describeArchitecture(json);
  const cfg = json.text_config ?? json;
  const family = HF_ARCHS.get(arch.modelType);
  if (family === undefined) throw new RangeError(`config.json: model_type ${v.show(arch.modelType)} is not one posenc runs (${[...HF_ARCHS.keys()].join(', ')})`);
  // Per layer (Config::layers): RoPE or NoPE, its sliding window, its RoPE base, and whether a scaling applies to it
  // (a family's scalingOn layer type, as Gemma 3's global layers; else every layer). The scaled layers share one RoPE,
  // the others rotate at their own base, unscaled.
  const roped = arch.layers.filter((l) => l.rope);
  const scaledType = arch.family.scalingOn;
  const isScaled = (l) => !scaledType || l.layerType === scaledType;
  const layer = roped.find(isScaled) ?? roped[0] ?? arch.layers[0];
  const same = (l) => l.layout === 'half' && l.rotaryDim === layer.rotaryDim &&
    (isScaled(l) ? JSON.stringify(l.ropeParameters) === JSON.stringify(layer.ropeParameters) : l.ropeType === 'default');
  if (!roped.length || !roped.every(same))
    throw new RangeError('config.json: posenc runs models whose RoPE layers all use the same RoPE (the same rotary dims and scaling)');
  // Qwen2/Qwen3's use_sliding_window (windows from max_window_layers on) is not among the layer rules read here
  if (cfg.use_sliding_window === true && cfg.sliding_window != null && arch.layers.every((l) => l.window == null))
    throw new RangeError('config.json: use_sliding_window is set but no layer_types say which layers slide; posenc does not guess them');
  for (const key of ['attn_logit_softcapping', 'final_logit_softcapping'])
    if (cfg[key] != null) throw new RangeError(`config.json: ${key} is not supported`);
  if (arch.attentionBias && !FAMILIES[family].qkvBias) throw new RangeError(`config.json: attention_bias is only supported for ${FAMILIES.filter((f) => f.qkvBias).map((f) => f.name).join(', ')} models`);
  // The shards: the file itself, or an index naming several (each given in files.shards by name).
  const shards = [];
  if (files.index != null) {
    const idx = parseSafetensorsIndex(jsonOf('index', files.index));
    for (const name of idx.files) {
      const b = files.shards?.[name];
      if (b == null) throw new RangeError(`shards must hold ${name}, which the index names (got ${Object.keys(files.shards ?? {}).join(', ') || 'none'})`);
      shards.push({ name, bytes: bytesOf(`shards[${JSON.stringify(name)}]`, b) });
    }
  } else shards.push({ name: 'model.safetensors', bytes: bytesOf('model', files.model) });
  const tensors = [];
  for (const s of shards)
    for (const t of parseSafetensorsHeader(s.bytes, { name: s.name }).tensors) {
      if (t.name.endsWith('rotary_emb.inv_freq')) continue; // carries nothing the forward uses
      if (!WEIGHT_DTYPES.includes(t.dtype)) throw new RangeError(`${s.name}: tensor ${t.name} is ${t.dtype}; posenc reads ${WEIGHT_DTYPES.join(', ')} weights`);
      tensors.push({ ...t, bytes: s.bytes.subarray(t.offset, t.offset + t.byteLength) });
    }
  const ctx = arch.maxPositionEmbeddings;
  const config = { arch: family, source, dim: arch.hiddenSize, hiddenDim: arch.intermediateSize, layers: arch.layers.length,
    heads: arch.numAttentionHeads, kvHeads: arch.numKeyValueHeads, vocabSize: arch.vocabSize, headDim: arch.headDim,
    rotaryDim: layer.rotaryDim, ropeTheta: layer.theta, normEps: arch.rmsNormEps, tiedEmbeddings: arch.tieWordEmbeddings ? 1 : 0,
    qkvBias: FAMILIES[family].qkvBias ? 1 : 0, context: ctx, contextSource: 1, layout: 1,
    attnScalar: cfg.query_pre_attn_scalar == null ? 0 : v.number('config.json query_pre_attn_scalar', cfg.query_pre_attn_scalar, { min: 0, minExclusive: true, max: 1e9 }) };
  const rules = arch.layers.flatMap((l) => [l.rope ? 1 : 0, l.window ?? 0, l.rope ? l.theta : 0, isScaled(l) ? 1 : 0]);
  const defaultScaling = layer.ropeType === 'default' ? null : layer.ropeParameters;
  return { config: [...SLOTS.map((k) => config[k]), ...rules], tensors, defaultScaling };
}

// A loaded model's handle as the JS model (api: createLanguageModelApi's tables and module).
function wrap(api, h, { tokenizer, coreTokenizer: cTokenizer = false, defaultScaling, note, format, tokenizerLabel = '' }) {
  const { mod, FAMILIES, SLOTS, CONTEXT_SOURCES, KV_TYPES, EXTEND_METHODS, DYNAMIC_FORMS, ARCHS, formatIds } = api;
  const raw = scope(mod, (m) => {
    const out = m.put('f64', SLOTS.length);
    check(mod, mod.lmConfig(h, out));
    return m.take('f64', out, SLOTS.length);
  });
  const c = Object.fromEntries(SLOTS.map((k, i) => [k, raw[i]]));
  const config = Object.freeze({
    ...c, arch: ARCHS[c.arch], source: formatIds[c.source], contextSource: CONTEXT_SOURCES[c.contextSource], layout: LAYOUTS[c.layout],
    tiedEmbeddings: Boolean(c.tiedEmbeddings), qkvBias: Boolean(c.qkvBias), parameters: mod.lmParameterCount(h), weightBytes: mod.lmWeightBytes(h), format,
  });
  let context = config.context;
  let deleted = false;
  const alive = () => {
    if (deleted) throw new RangeError('this language model was deleted');
  };
  // A forward's `cache`, checked for this model's shape and the forward's scaling.
  const checkPast = (p, scalingKey, T) => {
    if (p === null || typeof p !== 'object' || !(p.k instanceof Float32Array) || !(p.v instanceof Float32Array))
      throw new TypeError(`past must be the cache a forward with keep returned ({rows, k, v, scaling}) (got ${v.show(p)})`);
    const rows = v.integer('past.rows', p.rows, 1, MAX_LENGTH - T);
    const n = rows * config.layers * config.kvHeads * config.headDim;
    if (p.k.length !== n || p.v.length !== n)
      throw new RangeError(`past.k and past.v must hold ${n} floats each (layers x kv heads x rows x head_dim; got ${p.k.length} and ${p.v.length})`);
    if (p.scaling !== scalingKey) throw new RangeError('past was computed with another scaling than this forward\'s');
    return p;
  };
  // A scaling's slots for the core and its key (a cache is tied to the scaling that made it).
  const scalingOf = (o) => {
    const block = o.scaling === undefined ? defaultScaling : o.scaling;
    const sc = normaliseScaling(block == null ? null : withContext(block, context), config.rotaryDim / 2, 'scaling');
    return { sc, scalingKey: JSON.stringify([sc.slots, sc.longFactor ?? null, sc.shortFactor ?? null]) };
  };
  const putScaling = (m, sc) => [m.put('f64', sc.slots.length, sc.slots), sc.longFactor ? m.put('f64', sc.longFactor.length, sc.longFactor) : 0,
    sc.shortFactor ? m.put('f64', sc.shortFactor.length, sc.shortFactor) : 0, sc.longFactor?.length ?? sc.shortFactor?.length ?? 0];
  const idsOf = (tokens) => {
    const ids = v.intArray('tokens', tokens, undefined, 0, config.vocabSize - 1);
    if (ids.length < 2 || ids.length > MAX_LENGTH) throw new RangeError(`tokens must hold 2 to ${MAX_LENGTH} ids (got ${ids.length})`);
    return ids;
  };
  // statsLengths, stats, mapLayer, mapPx of forward's and stream's options, checked for T tokens
  const statsAndMaps = (o, T) => {
    const lengths = o.statsLengths == null ? [] : Array.from(v.intArray('statsLengths', o.statsLengths, undefined, 1, T));
    const stats = o.stats == null ? lengths.length > 0 : v.boolean('stats', o.stats);
    if (lengths.length > 64) throw new RangeError(`statsLengths must hold at most 64 lengths (got ${lengths.length})`);
    if (lengths.length && !stats) throw new RangeError('statsLengths needs stats: true (or stats left out)');
    const layer = o.mapLayer == null ? -1 : v.integer('mapLayer', o.mapLayer, 0, config.layers - 1);
    const px = layer < 0 ? 0 : o.mapPx == null ? Math.min(64, T) : v.integer('mapPx', o.mapPx, 1, Math.min(1024, T));
    return { lengths, stats, layer, px };
  };
  // extend and dynamic of forward's and stream's options: the method's index, its values in its row's order (NaN:
  // left out; a `context` left out is this model's), the form's index, and their key (a cache is tied to them). The
  // ranges and the scalings a method composes with are checked in the core, which names the field.
  const extendOf = (o) => {
    const forms = DYNAMIC_FORMS.map((f) => f.name);
    const dynamic = o.dynamic == null ? 0 : forms.indexOf(v.oneOf('dynamic', o.dynamic, forms));
    const e = o.extend;
    if (e != null && (typeof e !== 'object' || Array.isArray(e)))
      throw new TypeError(`extend must be an object such as {"method": "rerope", "window": 512} (got ${v.show(e)})`);
    const name = e == null ? 'none' : v.oneOf('extend.method', e.method, EXTEND_METHODS.map((m) => m.name));
    const method = EXTEND_METHODS.findIndex((m) => m.name === name), row = EXTEND_METHODS[method];
    if (e != null) v.knownKeys('extend', e, ['method', ...row.params.map((p) => p.key)]);
    const values = row.params.map((p) => {
      const x = e?.[p.key];
      if (x == null) return p.key === 'context' ? context : NaN;
      if (typeof x !== 'number' || Number.isNaN(x)) throw new TypeError(`extend.${p.key} must be a number (got ${v.show(x)})`);
      return x;
    });
    return { method, values, dynamic, key: JSON.stringify([method, values.map(String), dynamic]) };
  };
  const putExtend = (m, x) => [x.method, m.put('f64', x.values.length, x.values), x.values.length, x.dynamic];
  const kvIndex = (x) => (x == null || x === 'auto' ? -1 : KV_TYPES.indexOf(v.oneOf('kv', x, ['auto', ...KV_TYPES])));
  const streams = new Set(); // open streams (deleted with the model)
  let threads = mod.lmThreads().default;
  const lmObj = {
    config,
    /**
     * The threads its forwards run on (any count gives the same results): the cores, up to the build's cap, where the module
     * runs on threads (Node; a cross-origin isolated page), else 1; settable from 1 to threadsMax.
     */
    get threads() { return threads; },
    set threads(n) {
      threads = v.integer('threads', n, 1, mod.lmThreads().available);
      mod.lmSetThreads(h, threads);
    },
    get threadsMax() { return mod.lmThreads().available; },
    /** Why the forwards run on one thread, or null: 'not-isolated', 'no-shared-memory', 'no-simd', 'given-module' (lm-module.js). */
    threadsUnavailable: mod.threadsUnavailable ?? null,
    /** The original (trained) context that scalings extend; the file's unless set. */
    get context() { return context; },
    set context(n) { context = v.integer('context', n, 1, MAX_LENGTH); },
    /** Where the file's context came from: 'trained', 'file' or 'converter default' (a value to correct). */
    contextSource: config.contextSource,
    /**
     * What the loaded model is, from the core (posenc::lm::describe): {family, familyLabel, format, formatLabel, dtypes: [{dtype,
     * tensors}] (the file's tensors by type), parameters, weightBytes (the memory its weights take here), context,
     * contextSource, suggestedContext (0: none), suggestionReason} (the suggestion: when the file's context is its
     * converter's default, the context the file's other facts point to, and what that rests on).
     */
    describe() {
      alive();
      const d = mod.lmDescribe(h);
      return { ...d, contextSource: CONTEXT_SOURCES[d.contextSource] };
    },
    hasTokenizer: Boolean(tokenizer) || cTokenizer,
    tokenizerNote: tokenizer || cTokenizer ? '' : note,
    /** A GGUF's byte-level BPE tokenizer in plain words (how it splits text), or '' for any other. */
    tokenizerLabel,
    /** Token ids of `text`, with BOS first by default (and SentencePiece's dummy-prefix space). */
    encode(text, opts) {
      alive();
      if (typeof text !== 'string') throw new TypeError(`text must be a string (got ${v.show(text)})`);
      const o = v.options('encode options', opts);
      v.knownKeys('encode options', o, ['bos']);
      const bos = o.bos == null ? true : v.boolean('bos', o.bos);
      if (tokenizer) {
        const ids = tokenizer.encode(text, { addSpecialTokens: bos });
        if (ids.some((id) => id >= config.vocabSize)) throw new RangeError(`the tokenizer gave an id past the model's vocabulary (${config.vocabSize})`);
        return ids;
      }
      if (!cTokenizer) throw new RangeError(`this model has no tokenizer: ${lmObj.tokenizerNote}`);
      check(mod, mod.lmEncode(h, text, bos));
      const n = mod.lmTokenCount(h), p = mod.lmTokens(h);
      return mod.HEAP32.slice(p / 4, p / 4 + n);
    },
    /** The text of token `id` (SentencePiece and GGUF vocabularies; '' when the tokenizer is tokenizer.json). */
    piece(id) {
      alive();
      v.integer('id', id, 0, config.vocabSize - 1);
      return tokenizer ? tokenizer.decode([id]) : mod.lmPiece(h, id);
    },
    /**
     * One forward over `tokens` (2..131072 ids): nll[i] = -log p(tokens[i+1] | tokens[0..i]) ([T-1]), and with
     * stats: true the attention entropy and the mass on the first token per layer and head ([layers*heads]),
     * means over every query row, from the forward's own attention pass (a few per cent more time, not a second
     * pass); with statsLengths (lengths n in [1, T]) also statsByLength: [{length, entropy, sink}], the means over
     * the first n rows (what a forward over n tokens gives, for every scaling but dynamic NTK);
     * with mapLayer the pooled maps of that layer's heads ([heads, px, px]) and their peaks.
     * scaling: an HF rope_scaling object (unset context keys default to this model's context); null: none;
     * default: the model's own (from config.json).
     * In parts: keep: n (0..T) returns `cache`, the keys and values of the first n rows (after any past's);
     * past: such a cache (from this model's weights, the same scaling) continues after its rows, so a forward
     * over [0, T) gives the NLL of the part over [0, a + 1) with keep: a, then of the part over [a, T) with
     * past: its cache (equal to float rounding). Not with stats or maps, nor with dynamic NTK as one call, nor ReRoPE.
     * extend: a training-free extension, {method, ...its parameters} as extendMethods lists them (e.g. {method:
     * 'rerope', window: 256, leak: 16}); a parameter out of range or a scaling the method's authors do not run it
     * with is refused by name. dynamic: 'call' (default: every position at the input's length, as one HF call) or
     * 'cached' (with a dynamic scaling: as HF generates with a cache, each key at its own step's frequencies).
     */
    forward(tokens, opts) {
      alive();
      const o = v.options('forward options', opts);
      v.knownKeys('forward options', o, ['scaling', 'stats', 'statsLengths', 'mapLayer', 'mapPx', 'keep', 'past', 'extend', 'dynamic']);
      const ids = idsOf(tokens);
      const { lengths, stats, layer, px } = statsAndMaps(o, ids.length);
      const S = lengths.length + 1; // the lengths asked for, then T
      const ext = extendOf(o), { sc } = scalingOf(o), scalingKey = scalingOf(o).scalingKey + ext.key;
      const T = ids.length, LH = config.layers * config.heads;
      const keep = o.keep == null ? 0 : v.integer('keep', o.keep, 0, T);
      const past = o.past == null ? null : checkPast(o.past, scalingKey, T);
      if (past && (stats || layer >= 0)) throw new RangeError('past cannot be used with stats or mapLayer (they are means over every row)');
      const rowFloats = config.layers * config.kvHeads * config.headDim, kept = past ? past.rows + keep : keep;
      return scope(mod, (m) => {
        const pt = m.put('i32', T, ids), [ps, lf, sf, count] = putScaling(m, sc);
        const pl = m.put('i32', S, [...lengths, T]);
        const pn = m.put('f32', T - 1), pe = m.put('f32', stats ? S * LH : 0), pk = m.put('f32', stats ? S * LH : 0);
        const pm = m.put('f32', layer < 0 ? 0 : config.heads * px * px), pp = m.put('f32', layer < 0 ? 0 : config.heads);
        const pastK = past ? m.put('f32', past.k.length, past.k) : 0, pastV = past ? m.put('f32', past.v.length, past.v) : 0;
        const keptK = m.put('f32', keep ? kept * rowFloats : 0), keptV = m.put('f32', keep ? kept * rowFloats : 0);
        check(mod, mod.lmForward(h, pt, T, ps, lf, sf, count, stats, pl, stats ? S : 0, layer, px, pn, pe, pk, pm, pp,
          past ? past.rows : 0, pastK, pastV, past ? past.k.length : 0, keep, keptK, keptV, ...putExtend(m, ext)));
        const entropy = stats ? m.take('f32', pe, S * LH) : null, sink = stats ? m.take('f32', pk, S * LH) : null;
        const part = (x, i) => x.slice(i * LH, (i + 1) * LH);
        return {
          nll: v.finiteResult('nll', m.take('f32', pn, T - 1)),
          entropy: stats ? part(entropy, S - 1) : null, sink: stats ? part(sink, S - 1) : null,
          ...(lengths.length ? { statsByLength: lengths.map((n, i) => ({ length: n, entropy: part(entropy, i), sink: part(sink, i) })) } : {}),
          maps: layer < 0 ? null : m.take('f32', pm, config.heads * px * px), peaks: layer < 0 ? null : m.take('f32', pp, config.heads), px,
          ...(keep ? { cache: { rows: kept, k: m.take('f32', keptK, kept * rowFloats), v: m.take('f32', keptV, kept * rowFloats), scaling: scalingKey } } : {}),
        };
      });
    },
    /**
     * What a second executor of the forward (the GPU forward) reads, from the core: {family: the family table's row,
     * layers: [{rope, window, theta, scaled}] (empty: every layer rotates at ropeTheta, scaled, with no window),
     * tensors: [{kind, layer (-1: not a layer's), dtype, rows, cols (0: a vector), bytes}]}. Each `bytes` is a view of
     * the model's own bytes in the module's memory, in their storage format (float32 matrices transposed, [cols,
     * rows]; others row by row in ggml's blocks): copy them before anything else runs in the module (a view
     * detaches when its memory grows), and never write to them.
     */
    forwardInputs() {
      alive();
      const rules = scope(mod, (m) => {
        const out = m.put('f64', 4 * config.layers);
        const n = mod.lmLayerRules(h, out);
        return Array.from({ length: n }, (_, i) => {
          const r = mod.HEAPF64.subarray(out / 8 + 4 * i, out / 8 + 4 * i + 4);
          return { rope: r[0] !== 0, window: r[1], theta: r[2], scaled: r[3] !== 0 };
        });
      });
      const views = mod.lmTensorViews(h);
      const tensors = views.map((t) => ({ kind: t.kind, layer: t.layer, dtype: t.dtype, rows: t.rows, cols: t.cols,
        bytes: mod.HEAPU8.subarray(t.address, t.address + t.bytes) }));
      return { family: FAMILIES[ARCHS.indexOf(config.arch)], layers: rules, tensors };
    },
    /**
     * The RoPE a forward over `rows` positions with `scaling` (forward's option) rotates by, from the core:
     * {invFreq: Float64Array [rotaryDim / 2], attentionScale} (cos and sin at position p are cos(p f) and sin(p f)
     * times attentionScale). layer: that layer's RoPE (its own base, unscaled where forwardInputs().layers says so);
     * default: the scaled layers' at the model's base.
     */
    ropeFrequencies(rows, scaling, layer = -1) {
      alive();
      const n = v.integer('rows', rows, 1, MAX_LENGTH);
      const l = v.integer('layer', layer, -1, config.layers - 1);
      const { sc } = scalingOf({ scaling }), half = config.rotaryDim / 2;
      return scope(mod, (m) => {
        const [ps, lf, sf, count] = putScaling(m, sc), out = m.put('f64', half + 1);
        check(mod, mod.lmRopeFrequencies(h, ps, lf, sf, count, n, l, out));
        const f = m.take('f64', out, half + 1);
        return { invFreq: f.slice(0, half), attentionScale: f[half] };
      });
    },
    /**
     * The same forward as forward(tokens, opts) (scaling, stats, statsLengths, mapLayer, mapPx), run in chunks of at
     * most `chunk` rows (default 256) over one cache of keys and values: each step(n) (n in [1, chunk]) returns
     * {from, nll} (nll[i] = -log p(tokens[from+i+1] | ...), the rows it ran that predict a token), as soon as
     * they are computed; result() after the last row gives {statsByLength, entropy, sink, maps, peaks, px} as
     * forward's. Equal to forward's within float rounding, dynamic NTK included (its frequencies are the whole
     * input's). kv: the cache's type, 'auto' (default: float32 while a float32 cache takes at most 64 MB, float16
     * above), 'float32' or 'float16'. Call delete() when done (deleting the model deletes its streams).
     */
    stream(tokens, opts) {
      alive();
      const o = v.options('stream options', opts);
      v.knownKeys('stream options', o, ['scaling', 'stats', 'statsLengths', 'mapLayer', 'mapPx', 'chunk', 'kv', 'extend', 'dynamic']);
      const ids = idsOf(tokens), T = ids.length, LH = config.layers * config.heads;
      const { lengths, stats, layer, px } = statsAndMaps(o, T);
      const S = lengths.length + 1;
      const { sc } = scalingOf(o), ext = extendOf(o);
      const chunk = o.chunk == null ? 256 : v.integer('chunk', o.chunk, 1, MAX_LENGTH);
      const kv = kvIndex(o.kv);
      const s = scope(mod, (m) => {
        const pt = m.put('i32', T, ids), [ps, lf, sf, count] = putScaling(m, sc), pl = m.put('i32', S, [...lengths, T]), out = m.put('u32', 1);
        check(mod, mod.lmStreamNew(h, pt, T, ps, lf, sf, count, stats, pl, stats ? S : 0, layer, px, kv, chunk, out, ...putExtend(m, ext)));
        return mod.HEAPU32[out / 4];
      });
      let gone = false;
      const stream = {
        length: T,
        chunk,
        get done() { return gone ? T : mod.lmStreamDone(s); },
        step(n = chunk) {
          if (gone) throw new RangeError('this stream was deleted');
          const rows = v.integer('n', n, 1, chunk);
          return scope(mod, (m) => {
            const from = mod.lmStreamDone(s), pn = m.put('f32', rows), pc = m.put('i32', 1);
            check(mod, mod.lmStreamStep(s, rows, pn, pc));
            return { from, nll: v.finiteResult('nll', m.take('f32', pn, mod.HEAP32[pc / 4])) };
          });
        },
        result() {
          if (gone) throw new RangeError('this stream was deleted');
          return scope(mod, (m) => {
            const pe = m.put('f32', stats ? S * LH : 0), pk = m.put('f32', stats ? S * LH : 0);
            const pm = m.put('f32', layer < 0 ? 0 : config.heads * px * px), pp = m.put('f32', layer < 0 ? 0 : config.heads);
            check(mod, mod.lmStreamResult(s, pe, pk, pm, pp));
            const entropy = stats ? m.take('f32', pe, S * LH) : null, sink = stats ? m.take('f32', pk, S * LH) : null;
            const part = (x, i) => x.slice(i * LH, (i + 1) * LH);
            return {
              entropy: stats ? part(entropy, S - 1) : null, sink: stats ? part(sink, S - 1) : null,
              ...(lengths.length ? { statsByLength: lengths.map((n, i) => ({ length: n, entropy: part(entropy, i), sink: part(sink, i) })) } : {}),
              maps: layer < 0 ? null : m.take('f32', pm, config.heads * px * px), peaks: layer < 0 ? null : m.take('f32', pp, config.heads), px,
            };
          });
        },
        delete() {
          if (gone) return;
          gone = true;
          streams.delete(stream);
          mod.lmStreamDelete(s);
        },
      };
      streams.add(stream);
      return stream;
    },
    /**
     * The memory a stream over `length` tokens takes at its peak, from the core's own sizes: {weights, cache,
     * work, total} in bytes (the weights are held already; the cache and a step's working memory come with the
     * run), kv (the cache's type: 'float32' or 'float16', by the rule stream's kv 'auto' follows), and
     * available: the bytes the model's memory can still give (its maximum less what it holds now).
     * opts: {stats, mapLayer, mapPx, chunk, kv} as stream's.
     */
    memory(length, opts) {
      alive();
      const o = v.options('memory options', opts);
      v.knownKeys('memory options', o, ['stats', 'mapLayer', 'mapPx', 'chunk', 'kv']);
      const T = v.integer('length', length, 2, MAX_LENGTH);
      const { stats, layer, px } = statsAndMaps(o, T);
      const chunk = o.chunk == null ? 256 : v.integer('chunk', o.chunk, 1, MAX_LENGTH);
      const r = scope(mod, (m) => {
        const out = m.put('f64', 4);
        check(mod, mod.lmStreamMemory(h, T, stats, layer, px, kvIndex(o.kv), chunk, out));
        return m.take('f64', out, 4);
      });
      return { weights: r[0], cache: r[1], work: r[2], total: r[0] + r[1] + r[2], kv: KV_TYPES[r[3]], available: mod.lmMemoryMax() - mod.lmMemoryUsed() };
    },
    delete() {
      if (deleted) return;
      for (const s of [...streams]) s.delete();
      deleted = true;
      mod.lmDelete(h);
    },
  };
  return lmObj;
}

// The context keys a scaling block leaves unset default to the model's (original) context, as HF's do to
// max_position_embeddings; an explicit value wins.
function withContext(block, context) {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return block; // normaliseScaling names the problem
  const out = { ...block };
  const type = out.rope_type ?? out.ropeType ?? out.type;
  const has = (snake, camel) => out[snake] != null || out[camel] != null;
  const ck = SCALING_FIELDS.find((f) => f.key === contextKey(type));
  if (ck && !has(ck.key, ck.camel)) out[ck.key] = context;
  return out;
}
