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
import { KNOWN_UNUSED, ROPE_TYPE_INFO, reads, contextKey, codeOf } from './scaling.js';
import { describeHf, MAX_LAYERS } from './rope-hf.js';

const TWO_PI = 2 * Math.PI;
const own = (o, k) => o != null && typeof o === 'object' && Object.hasOwn(o, k);
const get = (o, k) => (own(o, k) ? o[k] : undefined);
const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);

// Query-scale kinds, as the C++ QueryScaleKind enum.
const QUERY_SCALE = { none: 0, llama4Temperature: 1, llama4ScalingBeta: 2 };

function int(name, x, min, max) {
  return v.integer(name, x, min, max);
}
function optNumber(name, x, opts) {
  return x == null ? undefined : v.number(name, x, opts);
}

// ---------- llama.cpp GGUF metadata ----------

// llama.cpp's rope.scaling.type spellings (the core's table).
const GGUF_SCALING = ROPE_TYPE_INFO.filter((t) => t.gguf).map((t) => t.gguf);
const fromGgufName = (name) => ROPE_TYPE_INFO.find((t) => t.gguf === name)?.name;

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
  const rt = fromGgufName(type);
  if (rt !== 'default') { // its keys, as llama.cpp spells and reads them (scaling.js, per type)
    const g = { factor, origCtx, notes, name: k, number: (key, opts) => optNumber(k(key), val(key), opts) };
    Object.assign(scaling, { rope_type: rt, ...codeOf(rt).fromGguf(g) });
  }
  const group = { name: 'full_attention', layers: Array.from({ length: int(k('block_count'), val('block_count') ?? 1, 1, MAX_LAYERS) }, (_, i) => i),
    rope: true, headDim, rotaryDim: rotary, scaling, scalingPath: `${arch}.rope.scaling`, queryScale: null, layout: 'see llama.cpp rope type',
    layerType: 'full_attention', slice: 'leading', window: null,
    origFrom: val('rope.scaling.original_context_length') != null ? 'config' : ctxTrain != null ? 'max_position_embeddings' : null };
  return { source: 'gguf', modelType: arch, maxPositionEmbeddings: ctxTrain, groups: [group], notes,
    family: { id: 'gguf', known: true, source: "llama.cpp's llama-model.cpp (LLM_KV rope keys)", reads: 'rope.freq_base, rope.dimension_count, rope.scaling.*' } };
}

const isGguf = (c) => own(c, 'general.architecture') || Object.keys(c).some((k) => /^[A-Za-z0-9_-]+\.rope\./.test(k));

/** The config, checked as plain JSON, described per layer type (no frequencies yet). */
export function describeConfig(config) {
  const c = plainJson(config, 'config');
  return isGguf(c) ? describeGguf(c) : describeHf(c);
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
// 8,192 with thousands separators (locale-free, for messages).
const num = (x) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

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

  // One rope group's parameters before its frequencies: rotary dim, factor, and where its original context comes from.
  function prepare(g, advertised) {
    const d = g.scaling;
    const { rt, prf, dim } = rotaryDims(g);
    let orig = null;
    const explicitOrig = reads(rt, 'original_max_position_embeddings') ? d.original_max_position_embeddings : undefined;
    if (explicitOrig != null) orig = g.origFrom === 'config' ? { value: explicitOrig, inferred: false, how: 'original_max_position_embeddings' }
      : { value: explicitOrig, inferred: true, how: `taken from max_position_embeddings (${num(explicitOrig)}), as HF does when the ${rt} block names no original_max_position_embeddings` };
    else if (contextKey(rt) && d[contextKey(rt)] != null) // e.g. dynamic NTK's max_position_embeddings
      orig = { value: d[contextKey(rt)], inferred: false, how: `${contextKey(rt)} (${ROPE_TYPE_INFO.find((t) => t.name === rt).label} scales beyond it)` };
    else if (codeOf(rt).originalContext) orig = codeOf(rt).originalContext(d, advertised, num);
    const factor = typeof d.factor === 'number' ? d.factor : (advertised && orig?.value ? advertised / orig.value : 1);
    return { d, rt, prf, dim, factor, orig };
  }

  // The model's original and extended context, the same on every chart: from its scaled layer types.
  function contextsOf(groups, preps, advertised, notes) {
    const fromMax = (value) => ({ value, inferred: false, how: 'max_position_embeddings' });
    const scaled = preps.filter((p) => p && p.factor > 1 && p.orig);
    if (!scaled.length) {
      const c = advertised == null ? null : fromMax(advertised);
      return { original: c, extended: c };
    }
    const values = [...new Set(scaled.map((p) => p.orig.value))];
    if (values.length > 1) notes.push(`the scaled layer types disagree on the original context (${values.map(num).join(', ')}): the smallest is shown`);
    const p = scaled.reduce((a, b) => (b.orig.value < a.orig.value || (b.orig.value === a.orig.value && b.factor > a.factor) ? b : a));
    const original = p.orig;
    let extended;
    if (advertised != null && advertised > original.value) extended = fromMax(advertised);
    else {
      const value = Math.round(p.factor * original.value);
      extended = { value, inferred: true, how: `factor ${p.factor} × original ${num(original.value)}` +
        (advertised != null ? `; max_position_embeddings was left at ${num(advertised)}` : '; the config has no max_position_embeddings') };
    }
    return { original, extended };
  }

  // Which position axis (t, h, w) drives each pair: Qwen2-VL's mrope_section in order,
  // Qwen3-VL's interleaved (apply_interleaved_mrope: pair j is height if j % 3 == 1 and j < 3·h, width if j % 3 == 2 and j < 3·w).
  function mropeAxes(m, pairs, notes) {
    const s = v.intArray(m.path, m.section, undefined, 0, 65536);
    if (s.length !== 3) { notes.push(`${m.path} has ${s.length} sections, not 3 (time, height, width): not drawn`); return null; }
    const sum = s[0] + s[1] + s[2];
    if (sum !== pairs) { notes.push(`${m.path} sums to ${sum}, not the ${pairs} rotary pairs: not drawn`); return null; }
    return Array.from({ length: pairs }, (_, j) => {
      if (m.interleaved) return j % 3 === 1 && j < 3 * s[1] ? 'h' : j % 3 === 2 && j < 3 * s[2] ? 'w' : 't';
      return j < s[0] ? 't' : j < s[0] + s[1] ? 'h' : 'w';
    });
  }

  function ropeFromConfig(config, opts) {
    const o = v.options('ropeFromConfig options', opts);
    v.knownKeys('ropeFromConfig options', o, ['seqLen']);
    const desc = describeConfig(config);
    const advertised = desc.maxPositionEmbeddings;
    const seqLen = o.seqLen == null ? advertised : v.integer('seqLen', o.seqLen, 1, 2 ** 31 - 1);
    const notes = desc.notes.slice();
    const preps = desc.groups.map((g) => (g.rope ? prepare(g, advertised) : null));
    const contexts = contextsOf(desc.groups, preps, advertised, notes);
    const origCtx = contexts.original?.value;
    const layerTypes = desc.groups.map((g, gi) => {
      const out = { name: g.name, layerType: g.layerType, layers: g.layers, rope: g.rope, headDim: g.headDim, layout: g.layout, slice: g.slice,
        window: g.window, qkHeadDim: g.qkHeadDim ?? null, originalContext: origCtx, extendedContext: contexts.extended?.value };
      const qs = g.queryScale;
      out.queryScale = qs ? { kind: qs.kind, formula: qs.formula, a: qs.a, b: qs.b } : null;
      if (!g.rope) {
        Object.assign(out, { ropeType: null, theta: null, rotaryDim: 0, invFreq: new Float64Array(0), pairs: [],
          counts: { kept: 0, interpolated: 0, blended: 0, dropped: 0 }, cosSinScale: 1, softmaxScale: 1, mrope: null });
      } else {
        const { d, rt, prf, dim, factor } = preps[gi];
        const known = Object.keys(KNOWN_UNUSED).filter((k) => d[k] != null);
        const forCore = { ...d };
        if (!codeOf(rt).wholeHeadDim) delete forCore.partial_rotary_factor;
        let f;
        try {
          f = frequencies(dim, undefined, forCore, seqLen, g.scalingPath);
        } catch (e) { // the core names its keys rope_scaling.*: name them where this config has them
          if (!(e instanceof RangeError || e instanceof TypeError)) throw e;
          throw new e.constructor(e.message.replace(/^rope_scaling\./, `${g.scalingPath}.`));
        }
        const base = frequencies(dim, undefined, { rope_theta: d.rope_theta }, undefined, g.scalingPath).invFreq64;
        const rotating = codeOf(rt).wholeHeadDim ? Math.floor((prf * g.headDim) / 2) : dim / 2;
        const pairs = Array.from(f.invFreq64, (inv, i) => {
          // over the whole head_dim (proportional): the base exponent is 2i/head_dim for the rotating pairs
          const b = codeOf(rt).wholeHeadDim ? (i < rotating ? Math.pow(d.rope_theta, (-2 * i) / g.headDim) : 0) : base[i];
          const regime = b === 0 ? 'dropped' : regimeOf(inv, b, factor);
          return { index: i, invFreq: inv, baseInvFreq: b, wavelength: inv ? TWO_PI / inv : Infinity, baseWavelength: b ? TWO_PI / b : Infinity,
            turns: origCtx && b ? (origCtx * b) / TWO_PI : 0, regime };
        });
        const counts = Object.fromEntries(REGIMES.map((r) => [r, pairs.filter((p) => p.regime === r).length]));
        let softmaxScale = 1;
        if (g.softmaxScaleFrom) softmaxScale = deepseekScale(v.number(`${g.scalingPath}.factor`, g.softmaxScaleFrom.factor, { min: 0, minExclusive: true }),
          v.number(`${g.scalingPath}.mscale_all_dim`, g.softmaxScaleFrom.mscaleAllDim, { min: 0 }));
        const axes = g.mrope ? mropeAxes(g.mrope, pairs.length, notes) : null;
        Object.assign(out, { ropeType: rt, theta: d.rope_theta, rotaryDim: codeOf(rt).wholeHeadDim ? 2 * rotating : dim, factor,
          invFreq: f.invFreq64, pairs, counts, cosSinScale: f.attentionScale, softmaxScale,
          mrope: axes && { section: g.mrope.section.slice(), interleaved: g.mrope.interleaved, axes },
          knownKeys: known.map((k2) => ({ key: k2, value: d[k2], use: KNOWN_UNUSED[k2] })),
          ropeParameters: { ...d } }); // as HF standardises them (rope_type, rope_theta, original_max_position_embeddings filled in)
      }
      // The factor on the attention logits at position p beyond the model's 1/sqrt(d):
      // cos/sin scale on both q and k (squared), DeepSeek's softmax correction, the query scale.
      out.queryScaleAt = (positions) => queryScaleAt(qs, positions);
      out.logitScaleAt = (positions) => queryScaleAt(qs, positions).map((x) => x * out.cosSinScale ** 2 * out.softmaxScale);
      return out;
    });
    return { source: desc.source, modelType: desc.modelType, family: desc.family, seqLen, contextLength: advertised,
      originalContext: origCtx, extendedContext: contexts.extended?.value, contexts, layerTypes, notes };
  }
  return { ropeFromConfig };
}

// ---------- architecture facts (for a loader of Llama-family weights) ----------

/**
 * The architecture facts a Llama-family loader needs, from the same reading of the config
 * as ropeFromConfig: sizes, norms, tying, biases and, per layer, its RoPE (or none). Every
 * value is checked; a missing or bad key is a TypeError/RangeError naming it.
 */
/**
 * A rope group's rotary dims, validated: `dim` the frequencies are computed over (HF: int(head_dim *
 * partial_rotary_factor); proportional: the whole head_dim) and `rotaryDim` the dims that rotate.
 */
function rotaryDims(g) {
  const d = g.scaling;
  const rt = d.rope_type ?? 'default';
  const prf = d.partial_rotary_factor ?? 1;
  const whole = Boolean(codeOf(rt).wholeHeadDim);
  v.number(`${g.scalingPath}.partial_rotary_factor`, prf, { min: 0, minExclusive: !whole, max: 1 });
  const dim = whole ? g.headDim : g.rotaryDim ?? Math.floor(g.headDim * prf);
  if (dim < 2 || dim % 2) throw new RangeError(`the rotary dim int(head_dim * partial_rotary_factor) = ${dim} must be an even integer >= 2 (${g.scalingPath})`);
  return { rt, prf, dim, rotaryDim: whole ? 2 * Math.floor((prf * g.headDim) / 2) : dim };
}

export function describeArchitecture(config) {
  const c = plainJson(config, 'config');
  if (isGguf(c)) throw new RangeError('describeArchitecture reads an HF config.json; llama.cpp GGUF metadata is not supported here');
  const desc = describeHf(c);
  const t = isObj(get(c, 'text_config')) ? c.text_config : c;
  const path = t === c ? '' : 'text_config.';
  const k = (name) => `${path}${name}`;
  const heads = int(k('num_attention_heads'), get(t, 'num_attention_heads'), 1, 65536);
  const kvHeads = int(k('num_key_value_heads'), get(t, 'num_key_value_heads') ?? heads, 1, heads);
  if (heads % kvHeads) throw new RangeError(`${k('num_key_value_heads')} must divide num_attention_heads (${heads}) (got ${kvHeads})`);
  const hidden = int(k('hidden_size'), get(t, 'hidden_size'), 1, 2 ** 24);
  const headDim = int(k('head_dim'), get(t, 'head_dim') ?? Math.floor(hidden / heads), 1, 65536);
  const epsKey = get(t, 'rms_norm_eps') == null && get(t, 'layer_norm_eps') != null ? 'layer_norm_eps' : 'rms_norm_eps';
  const bool = (name, dflt) => (get(t, name) == null ? dflt : v.boolean(k(name), get(t, name)));
  const modelType = get(t, 'model_type') ?? get(c, 'model_type');
  if (modelType != null && typeof modelType !== 'string') throw new TypeError(`${k('model_type')} must be a string (got ${v.show(modelType)})`);
  const byLayer = [];
  for (const g of desc.groups)
    for (const i of g.layers)
      byLayer[i] = g.rope
        ? { index: i, layerType: g.layerType, rope: true, ropeType: g.scaling.rope_type ?? 'default', theta: g.scaling.rope_theta,
          headDim: g.headDim, rotaryDim: rotaryDims(g).rotaryDim, layout: g.layout, slice: g.slice,
          window: g.window, ropeParameters: { ...g.scaling } }
        : { index: i, layerType: g.layerType, rope: false, ropeType: null, theta: null, headDim: g.headDim, rotaryDim: 0, layout: null, slice: null,
          window: g.window, ropeParameters: null };
  return {
    modelType: modelType ?? '', family: desc.family,
    hiddenSize: hidden, numAttentionHeads: heads, numKeyValueHeads: kvHeads, headDim,
    intermediateSize: int(k('intermediate_size'), get(t, 'intermediate_size'), 1, 2 ** 26),
    rmsNormEps: v.number(k(epsKey), get(t, epsKey), { min: 0, minExclusive: true, max: 1 }),
    vocabSize: int(k('vocab_size'), get(t, 'vocab_size'), 1, 2 ** 24),
    tieWordEmbeddings: get(c, 'tie_word_embeddings') != null && t !== c ? v.boolean('tie_word_embeddings', c.tie_word_embeddings) : bool('tie_word_embeddings', false),
    attentionBias: bool('attention_bias', false),
    maxPositionEmbeddings: int(k('max_position_embeddings'), get(t, 'max_position_embeddings'), 1, 2 ** 31 - 1),
    layers: byLayer, notes: desc.notes,
  };
}
