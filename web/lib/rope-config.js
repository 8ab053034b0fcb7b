// A whole model config -> what its RoPE does, per layer type.
//
// `describeConfig` turns an HF config.json (or llama.cpp GGUF metadata) into
// one rope description per layer type, following HF transformers' newest
// config classes and RotaryEmbeddingConfigMixin.standardize_rope_params (read
// from the source; see docs/api.md "ropeFromConfig" for the list of rules).
// `createRopeConfig` computes the frequencies (the C++ core, via the shared
// `frequencies` of encodings.js), the attention-side scales and, per pair, its
// wavelength, its turns within the original context and its regime.
import * as v from './validate.js';
import { plainJson } from './json-guard.js';
import { scope, check } from './memory.js';
import { KNOWN_UNUSED } from './scaling.js';

const TWO_PI = 2 * Math.PI;
const MAX_LAYERS = 4096;
const own = (o, k) => o != null && typeof o === 'object' && Object.hasOwn(o, k);
const get = (o, k) => (own(o, k) ? o[k] : undefined);
const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);

// Query-scale kinds, as the C++ QueryScaleKind enum.
const QUERY_SCALE = { none: 0, llama4Temperature: 1, llama4ScalingBeta: 2 };
const LLAMA4_SCALING_MODELS = ['ministral3', 'mistral3', 'mistral4'];
const DEEPSEEK_MODELS = ['deepseek_v2', 'deepseek_v3', 'kimi_k2'];

function int(name, x, min, max) {
  return v.integer(name, x, min, max);
}
function optNumber(name, x, opts) {
  return x == null ? undefined : v.number(name, x, opts);
}

// ---------- HF config.json ----------

// Layer types of the text model, as the config classes make them.
function layerTypes(c, modelType, n, path) {
  const given = get(c, 'layer_types');
  if (given != null) {
    if (!Array.isArray(given) || given.length !== n || !given.every((t) => typeof t === 'string' && t.length <= 64))
      throw new RangeError(`${path}layer_types must be a list of ${n} layer type names (num_hidden_layers) (got ${v.show(given)})`);
    return given.slice();
  }
  if (modelType.startsWith('llama4')) {
    // Llama4TextConfig: no_rope_layers[i] = 1 means layer i uses RoPE; default: a NoPE layer every no_rope_layer_interval.
    const interval = int(`${path}no_rope_layer_interval`, get(c, 'no_rope_layer_interval') ?? 4, 1, MAX_LAYERS);
    let flags = get(c, 'no_rope_layers');
    if (flags != null && !Array.isArray(flags)) throw new TypeError(`${path}no_rope_layers must be a list of 0/1 per layer (got ${v.show(flags)})`);
    if (!flags || flags.length === 0) flags = Array.from({ length: n }, (_, i) => Number((i + 1) % interval !== 0));
    if (flags.length !== n || !flags.every((f) => f === 0 || f === 1 || typeof f === 'boolean'))
      throw new RangeError(`${path}no_rope_layers must be a list of ${n} values 0 or 1 (got ${v.show(flags)})`);
    return flags.map((f) => (f ? 'chunked_attention' : 'full_attention'));
  }
  if (modelType.startsWith('gemma3') || modelType.startsWith('gemma4')) {
    const pattern = int(`${path}sliding_window_pattern`, get(c, 'sliding_window_pattern') ?? 6, 1, MAX_LAYERS);
    const t = Array.from({ length: n }, (_, i) => ((i + 1) % pattern ? 'sliding_attention' : 'full_attention'));
    if (modelType.startsWith('gemma4') && n) t[n - 1] = 'full_attention'; // Gemma4TextConfig forces the last layer to full
    return t;
  }
  return Array(n).fill('full_attention');
}

// The rope parameter dicts per layer type: {layerType: dict} (HF's nested form), or {'*': dict}.
function ropeDicts(c, modelType, types, path) {
  const scaling = get(c, 'rope_scaling');
  const params = get(c, 'rope_parameters');
  for (const [k, x] of [['rope_scaling', scaling], ['rope_parameters', params]])
    if (x != null && !isObj(x)) throw new TypeError(`${path}${k} must be an object (got ${v.show(x)})`);
  const typeSet = new Set(types);
  const nested = (d) => isObj(d) && Object.keys(d).length > 0 && Object.keys(d).every((k) => typeSet.has(k));
  if (modelType.startsWith('gemma3')) {
    // Gemma3TextConfig.convert_rope_params_to_dict: rope_scaling goes into full_attention;
    // full theta = rope_theta (default 1e6), sliding theta = rope_local_base_freq (default 1e4).
    const p = nested(params) ? params : {};
    const full = { rope_type: 'default', ...(get(p, 'full_attention') ?? {}), ...(scaling ?? {}) };
    if (full.rope_theta == null) full.rope_theta = get(c, 'rope_theta') ?? 1e6;
    const sliding = { rope_type: 'default', ...(get(p, 'sliding_attention') ?? {}) };
    if (sliding.rope_theta == null) sliding.rope_theta = get(c, 'rope_local_base_freq') ?? 1e4;
    return { full_attention: full, sliding_attention: sliding };
  }
  // RotaryEmbeddingConfigMixin.convert_rope_params_to_dict: `rope_scaling or rope_parameters`.
  const d = scaling && Object.keys(scaling).length ? scaling : params;
  if (nested(d)) {
    return Object.fromEntries(Object.entries(d).map(([k, x]) => {
      if (!isObj(x)) throw new TypeError(`${path}rope_parameters.${k} must be an object of rope parameters (got ${v.show(x)})`);
      return [k, { ...x }];
    }));
  }
  if (modelType.startsWith('gemma4') && d == null) // Gemma4TextConfig defaults
    return { sliding_attention: { rope_type: 'default', rope_theta: 1e4 },
      full_attention: { rope_type: 'proportional', partial_rotary_factor: 0.25, rope_theta: 1e6 } };
  return { '*': { ...(d ?? {}) } };
}

function describeHf(c, top) {
  const textConfig = get(c, 'text_config');
  if (textConfig != null && !isObj(textConfig)) throw new TypeError(`config.text_config must be an object (got ${v.show(textConfig)})`);
  const t = textConfig ?? c;
  const path = textConfig ? 'text_config.' : '';
  const modelType = String(get(t, 'model_type') ?? get(top, 'model_type') ?? '');
  const notes = [];
  if (textConfig) notes.push('read the language model from text_config');
  const n = int(`${path}num_hidden_layers`, get(t, 'num_hidden_layers') ?? 1, 1, MAX_LAYERS);
  const maxPos = get(t, 'max_position_embeddings') == null ? undefined : int(`${path}max_position_embeddings`, get(t, 'max_position_embeddings'), 1, 2 ** 31 - 1);
  const heads = get(t, 'num_attention_heads');
  const hidden = get(t, 'hidden_size');
  let headDim = get(t, 'head_dim');
  if (DEEPSEEK_MODELS.includes(modelType)) headDim = get(t, 'qk_rope_head_dim') ?? 64; // DeepseekV3Config: head_dim = qk_rope_head_dim
  if (headDim == null) {
    if (heads == null || hidden == null) throw new RangeError(`${path}head_dim is missing, and so are hidden_size and num_attention_heads to derive it from`);
    int(`${path}num_attention_heads`, heads, 1, 65536);
    int(`${path}hidden_size`, hidden, 1, 2 ** 24);
    headDim = Math.floor(hidden / heads);
  }
  int(`${path}head_dim`, headDim, 2, 65536);
  const types = layerTypes(t, modelType, n, path);
  const dicts = ropeDicts(t, modelType, types, path);
  const topPrf = get(t, 'partial_rotary_factor');
  const topTheta = get(t, 'rope_theta');
  const topOrig = get(t, 'original_max_position_embeddings');
  const isPhi3 = modelType === 'phi3';
  const groups = [];
  for (const name of [...new Set(types)]) {
    const layers = types.flatMap((x, i) => (x === name ? [i] : []));
    const nope = modelType.startsWith('llama4') && name === 'full_attention';
    const key = own(dicts, name) ? name : '*';
    const dictPath = `${path}${own(t, 'rope_parameters') && !own(t, 'rope_scaling') ? 'rope_parameters' : 'rope_scaling'}${key === '*' ? '' : `.${key}`}`;
    const raw = get(dicts, key);
    if (!raw && !nope) throw new RangeError(`${dictPath} has no entry for layer type '${name}' (layer_types has it)`);
    const g = { name, layers, rope: !nope, headDim: modelType.startsWith('gemma4') && name === 'full_attention'
      ? int(`${path}global_head_dim`, get(t, 'global_head_dim') ?? 512, 2, 65536) : headDim };
    if (!nope) {
      const d = { ...raw };
      // standardize_rope_params: rope_type from `type`, rope_theta and partial_rotary_factor from the config.
      if (d.rope_type == null && d.type != null) d.rope_type = d.type;
      delete d.type;
      if (d.rope_theta == null) d.rope_theta = topTheta ?? 10000; // PreTrainedConfig.default_theta
      if (topPrf != null) d.partial_rotary_factor = topPrf;
      if (isPhi3 && (d.rope_type === 'su' || d.rope_type === 'yarn')) {
        notes.push(`Phi3Config renames rope_type '${d.rope_type}' to 'longrope'`);
        d.rope_type = 'longrope';
      }
      if (d.rope_type === 'mrope') {
        notes.push("rope_type 'mrope' is computed as 'default' (Qwen2VLConfig does the same); mrope_section only splits the pairs among position ids");
        d.rope_type = 'default';
      }
      const rt = d.rope_type ?? 'default';
      if (rt === 'llama3' && typeof d.high_freq_factor === 'number' && typeof d.low_freq_factor === 'number' && d.high_freq_factor <= d.low_freq_factor)
        notes.push(`${name}: high_freq_factor (${d.high_freq_factor}) <= low_freq_factor (${d.low_freq_factor}); HF only warns, and then no pair is smoothed: each is kept or divided by factor`);
      if (['llama3', 'yarn', 'longrope'].includes(rt)) {
        // Phi-3 (and any config carrying it) keeps the pretraining length outside the rope dict; HF gives it priority.
        if (topOrig != null) d.original_max_position_embeddings = topOrig;
        else if (d.original_max_position_embeddings == null && maxPos != null) d.original_max_position_embeddings = maxPos;
      }
      if (d.max_position_embeddings == null && maxPos != null && ['dynamic', 'yarn', 'longrope'].includes(rt)) d.max_position_embeddings = maxPos;
      g.scaling = d;
      g.scalingPath = dictPath;
      g.queryScale = null;
      const beta = get(d, 'llama_4_scaling_beta');
      if (beta != null && LLAMA4_SCALING_MODELS.includes(modelType)) {
        const orig = d.original_max_position_embeddings ?? maxPos;
        g.queryScale = { kind: 'llama4ScalingBeta', a: v.number(`${dictPath}.llama_4_scaling_beta`, beta), b: orig,
          formula: `1 + ${beta} * log(1 + floor(position / ${orig}))` };
      }
      if (DEEPSEEK_MODELS.includes(modelType) && rt !== 'default') {
        const mad = get(d, 'mscale_all_dim') ?? 0;
        g.softmaxScaleFrom = { factor: get(d, 'factor'), mscaleAllDim: mad };
      }
    } else {
      g.scaling = null;
      const tuning = get(t, 'attn_temperature_tuning') ?? true;
      g.queryScale = tuning ? { kind: 'llama4Temperature',
        a: v.number(`${path}attn_scale`, get(t, 'attn_scale') ?? 0.1),
        b: v.number(`${path}floor_scale`, get(t, 'floor_scale') ?? 8192, { min: 0, minExclusive: true }),
        formula: `1 + ${get(t, 'attn_scale') ?? 0.1} * log1p(floor((position + 1) / ${get(t, 'floor_scale') ?? 8192}))` } : null;
    }
    g.layout = modelType.startsWith('llama4') || (DEEPSEEK_MODELS.includes(modelType) && (get(t, 'rope_interleave') ?? true)) ? 'interleaved' : 'half';
    groups.push(g);
  }
  return { source: 'hf', modelType, maxPositionEmbeddings: maxPos, groups, notes };
}

// ---------- llama.cpp GGUF metadata ----------

const GGUF_SCALING = ['none', 'linear', 'yarn', 'longrope'];

function describeGguf(c) {
  const keys = Object.keys(c);
  let arch = get(c, 'general.architecture');
  if (arch == null) arch = keys.find((k) => /^[A-Za-z0-9_-]+\.rope\./.test(k))?.split('.')[0];
  if (typeof arch !== 'string') throw new TypeError(`general.architecture must be a string (got ${v.show(arch)})`);
  const k = (s) => `${arch}.${s}`;
  const val = (s) => get(c, k(s));
  const notes = ["read llama.cpp GGUF metadata (llama.cpp's semantics, see docs/api.md for where they differ from HF)"];
  const heads = val('attention.head_count');
  const embd = val('embedding_length');
  let headDim = val('attention.key_length');
  if (headDim == null) {
    if (heads == null || embd == null) throw new RangeError(`${k('attention.key_length')} is missing, and so are ${k('embedding_length')} and ${k('attention.head_count')} to derive it from`);
    headDim = Math.floor(int(k('embedding_length'), embd, 1, 2 ** 24) / int(k('attention.head_count'), heads, 1, 65536));
  }
  int(k('attention.key_length'), headDim, 2, 65536);
  const rotary = int(k('rope.dimension_count'), val('rope.dimension_count') ?? headDim, 2, headDim);
  const ctxTrain = val('context_length') == null ? undefined : int(k('context_length'), val('context_length'), 1, 2 ** 31 - 1);
  const type = v.oneOf(k('rope.scaling.type'), val('rope.scaling.type') ?? 'none', GGUF_SCALING);
  // llama.cpp: rope.scaling.factor, else the older rope.scale_linear; 0 means 1; ignored for 'none'
  const factor = optNumber(k('rope.scaling.factor'), val('rope.scaling.factor') ?? val('rope.scale_linear'), { min: 0 }) || 1;
  const origCtx = val('rope.scaling.original_context_length') == null ? ctxTrain
    : int(k('rope.scaling.original_context_length'), val('rope.scaling.original_context_length'), 1, 2 ** 31 - 1);
  const theta = v.number(k('rope.freq_base'), val('rope.freq_base') ?? 10000, { min: 1, minExclusive: true });
  const scaling = { rope_theta: theta };
  if (type === 'linear') Object.assign(scaling, { rope_type: 'linear', factor });
  else if (type === 'yarn') {
    // llama.cpp: ext_factor < 0 (the default) means 1 for YaRN; the cos/sin scale is
    // attn_factor * (1 + 0.1 * ln(factor)) (rope_yarn's mscale) when ext_factor != 0;
    // corr dims always floor/ceil (no `truncate`).
    const ext = optNumber(k('rope.scaling.yarn_ext_factor'), val('rope.scaling.yarn_ext_factor'));
    if (ext > 1) throw new RangeError(`${k('rope.scaling.yarn_ext_factor')} must be a number <= 1 (negative: unset, i.e. 1) (got ${ext})`);
    const extFactor = ext == null || ext < 0 ? 1 : ext;
    const attnKey = val('rope.scaling.yarn_attn_factor') != null ? 'rope.scaling.yarn_attn_factor' : 'rope.scaling.attn_factor';
    const attn = optNumber(k(attnKey), val(attnKey), { min: 0, minExclusive: true }) ?? 1;
    const logMul = optNumber(k('rope.scaling.yarn_log_multiplier'), val('rope.scaling.yarn_log_multiplier'), { min: 0 });
    if (origCtx == null) throw new RangeError(`${k('rope.scaling.original_context_length')} (or ${k('context_length')}) is needed for YaRN`);
    Object.assign(scaling, { rope_type: 'yarn', factor, original_max_position_embeddings: origCtx, ext_factor: extFactor,
      attention_factor: extFactor !== 0 && factor > 1 ? attn * (1 + 0.1 * Math.log(factor)) : attn, truncate: true });
    const bf = optNumber(k('rope.scaling.yarn_beta_fast'), val('rope.scaling.yarn_beta_fast'), { min: 0, minExclusive: true });
    const bs = optNumber(k('rope.scaling.yarn_beta_slow'), val('rope.scaling.yarn_beta_slow'), { min: 0, minExclusive: true });
    if (bf != null) scaling.beta_fast = bf;
    if (bs != null) scaling.beta_slow = bs;
    if (logMul) notes.push(`${k('rope.scaling.yarn_log_multiplier')} = ${logMul}: llama.cpp's DeepSeek graph folds it into kq_scale; not applied here`);
  } else if (type === 'longrope') {
    throw new RangeError(`${k('rope.scaling.type')} 'longrope': llama.cpp keeps the long/short factors in the tensors rope_factors_long / rope_factors_short, not in the metadata; pass the model's HF config.json instead`);
  }
  const group = { name: 'full_attention', layers: Array.from({ length: int(k('block_count'), val('block_count') ?? 1, 1, MAX_LAYERS) }, (_, i) => i),
    rope: true, headDim, rotaryDim: rotary, scaling, scalingPath: `${arch}.rope.scaling`, queryScale: null, layout: 'see llama.cpp rope type' };
  return { source: 'gguf', modelType: arch, maxPositionEmbeddings: ctxTrain, originalContext: origCtx, groups: [group], notes };
}

const isGguf = (c) => own(c, 'general.architecture') || Object.keys(c).some((k) => /^[A-Za-z0-9_-]+\.rope\./.test(k));

/** The config, checked as plain JSON, described per layer type (no frequencies yet). */
export function describeConfig(config) {
  const c = plainJson(config, 'config');
  return isGguf(c) ? describeGguf(c) : describeHf(c, c);
}

// ---------- per pair ----------

/** Each pair's regime from its scaled and unscaled inverse frequency. */
export function regimeOf(scaled, base, factor) {
  if (scaled === 0) return 'dropped';
  const r = scaled / base;
  const tol = 1e-9;
  if (Math.abs(r - 1) <= tol) return 'kept';
  if (factor > 1 && Math.abs(r * factor - 1) <= tol) return 'interpolated';
  return 'blended';
}

export const REGIMES = ['kept', 'interpolated', 'blended', 'dropped'];

export function createRopeConfig(mod, frequencies) {
  function queryScaleAt(qs, positions) {
    const pos = Float64Array.from(positions);
    if (!qs) return new Float64Array(pos.length).fill(1);
    return scope(mod, (m) => {
      const pp = m.put('f64', pos.length, pos);
      const out = m.put('f64', pos.length);
      check(mod, mod.ropeQueryScale(QUERY_SCALE[qs.kind], qs.a, qs.b, pp, pos.length, out));
      return m.take('f64', out, pos.length);
    });
  }
  function deepseekScale(factor, mscaleAllDim) {
    return scope(mod, (m) => {
      const out = m.put('f64', 1);
      check(mod, mod.deepseekSoftmaxScale(factor, mscaleAllDim, out));
      return m.take('f64', out, 1)[0];
    });
  }

  function ropeFromConfig(config, opts) {
    const o = v.options('ropeFromConfig options', opts);
    v.knownKeys('ropeFromConfig options', o, ['seqLen']);
    const desc = describeConfig(config);
    const advertised = desc.maxPositionEmbeddings;
    const seqLen = o.seqLen == null ? advertised : v.integer('seqLen', o.seqLen, 1, 2 ** 31 - 1);
    const layerTypes = desc.groups.map((g) => {
      const out = { name: g.name, layers: g.layers, rope: g.rope, headDim: g.headDim, layout: g.layout };
      const qs = g.queryScale;
      out.queryScale = qs ? { kind: qs.kind, formula: qs.formula } : null;
      if (!g.rope) {
        Object.assign(out, { ropeType: null, theta: null, rotaryDim: 0, invFreq: new Float64Array(0), pairs: [],
          counts: { kept: 0, interpolated: 0, blended: 0, dropped: 0 }, cosSinScale: 1, softmaxScale: 1 });
      } else {
        const d = g.scaling;
        const rt = d.rope_type ?? 'default';
        const prf = d.partial_rotary_factor ?? 1;
        v.number(`${g.scalingPath}.partial_rotary_factor`, prf, { min: 0, minExclusive: rt !== 'proportional', max: 1 });
        // HF: dim = int(head_dim * partial_rotary_factor); proportional computes over the whole head_dim.
        const dim = rt === 'proportional' ? g.headDim : g.rotaryDim ?? Math.floor(g.headDim * prf);
        if (dim < 2 || dim % 2) throw new RangeError(`the rotary dim int(head_dim * partial_rotary_factor) = ${dim} must be an even integer >= 2 (${g.scalingPath})`);
        const known = Object.keys(KNOWN_UNUSED).filter((k) => d[k] != null);
        const forCore = { ...d };
        if (rt !== 'proportional') delete forCore.partial_rotary_factor;
        let f;
        try {
          f = frequencies(dim, undefined, forCore, seqLen, g.scalingPath);
        } catch (e) { // the core names its keys rope_scaling.*: name them where this config has them
          if (!(e instanceof RangeError || e instanceof TypeError)) throw e;
          throw new e.constructor(e.message.replace(/^rope_scaling\./, `${g.scalingPath}.`));
        }
        const base = frequencies(dim, undefined, { rope_theta: d.rope_theta }, undefined, g.scalingPath).invFreq64;
        const origCtx = (['llama3', 'yarn', 'longrope'].includes(rt) ? d.original_max_position_embeddings : undefined)
          ?? (rt === 'dynamic' ? d.max_position_embeddings : undefined) ?? desc.originalContext
          ?? (rt === 'linear' && advertised ? Math.round(advertised / d.factor) : advertised);
        const factor = typeof d.factor === 'number' ? d.factor : (advertised && origCtx ? advertised / origCtx : 1);
        const rotating = rt === 'proportional' ? Math.floor((prf * g.headDim) / 2) : dim / 2;
        const pairs = Array.from(f.invFreq64, (inv, i) => {
          // proportional: the base exponent is 2i/head_dim for the rotating pairs
          const b = rt === 'proportional' ? (i < rotating ? Math.pow(d.rope_theta, (-2 * i) / g.headDim) : 0) : base[i];
          const regime = b === 0 ? 'dropped' : regimeOf(inv, b, factor);
          return { index: i, invFreq: inv, baseInvFreq: b, wavelength: inv ? TWO_PI / inv : Infinity, baseWavelength: b ? TWO_PI / b : Infinity,
            turns: origCtx && b ? (origCtx * b) / TWO_PI : 0, regime };
        });
        const counts = Object.fromEntries(['kept', 'interpolated', 'blended', 'dropped'].map((r) => [r, pairs.filter((p) => p.regime === r).length]));
        let softmaxScale = 1;
        if (g.softmaxScaleFrom) softmaxScale = deepseekScale(v.number(`${g.scalingPath}.factor`, g.softmaxScaleFrom.factor, { min: 0, minExclusive: true }),
          v.number(`${g.scalingPath}.mscale_all_dim`, g.softmaxScaleFrom.mscaleAllDim, { min: 0 }));
        Object.assign(out, { ropeType: rt, theta: d.rope_theta, rotaryDim: rt === 'proportional' ? 2 * rotating : dim, factor, originalContext: origCtx,
          invFreq: f.invFreq64, pairs, counts, cosSinScale: f.attentionScale, softmaxScale,
          knownKeys: known.map((k2) => ({ key: k2, value: d[k2], use: KNOWN_UNUSED[k2] })),
          ropeParameters: { ...d } }); // as HF standardises them (rope_type, rope_theta, original_max_position_embeddings filled in)
      }
      // The factor on the attention logits at position p beyond the model's 1/sqrt(d):
      // cos/sin scale on both q and k (squared), DeepSeek's softmax correction, the query scale.
      out.queryScaleAt = (positions) => queryScaleAt(qs, positions);
      out.logitScaleAt = (positions) => queryScaleAt(qs, positions).map((x) => x * out.cosSinScale ** 2 * out.softmaxScale);
      return out;
    });
    // (a config without max_position_embeddings names no context: null, never Math.min of nothing = NaN)
    const ctxs = layerTypes.filter((l) => l.rope && l.originalContext != null).map((l) => l.originalContext);
    return { source: desc.source, modelType: desc.modelType, seqLen, contextLength: advertised,
      originalContext: ctxs.length ? Math.min(...ctxs) : advertised ?? null, layerTypes, notes: desc.notes };
  }
  return { ropeFromConfig };
}
