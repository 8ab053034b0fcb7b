// An HF config.json -> one rope description per group of layers (a layer type, split
// where some of its layers have no RoPE), following HF transformers' newest config
// classes, RotaryEmbeddingConfigMixin.standardize_rope_params and the per-family rules
// of rope-families.js. rope-config.js is the entry point (describeConfig).
import * as v from './validate.js';
import { reads } from './scaling.js';
import { familyOf, layoutOf, slidingWindow } from './rope-families.js';

export const MAX_LAYERS = 4096;
const own = (o, k) => o != null && typeof o === 'object' && Object.hasOwn(o, k);
const get = (o, k) => (own(o, k) ? o[k] : undefined);
const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const int = (name, x, min, max) => v.integer(name, x, min, max);
const LAYER_TYPE_NAMES = (path, n, given) =>
  new RangeError(`${path}layer_types must be a list of ${n} layer type names (num_hidden_layers) (got ${v.show(given)})`);

// no_rope_layers: 1 = the layer uses RoPE. Default: a NoPE layer every no_rope_layer_interval (4).
function ropeFlags(c, n, path) {
  const interval = int(`${path}no_rope_layer_interval`, get(c, 'no_rope_layer_interval') ?? 4, 1, MAX_LAYERS);
  let flags = get(c, 'no_rope_layers');
  if (flags != null && !Array.isArray(flags)) throw new TypeError(`${path}no_rope_layers must be a list of 0/1 per layer (got ${v.show(flags)})`);
  if (!flags || flags.length === 0) flags = Array.from({ length: n }, (_, i) => Number((i + 1) % interval !== 0));
  if (flags.length < n || !flags.every((f) => f === 0 || f === 1 || typeof f === 'boolean'))
    throw new RangeError(`${path}no_rope_layers must be a list of at least ${n} values 0 or 1 (num_hidden_layers) (got ${v.show(flags)})`);
  return flags.slice(0, n).map(Boolean);
}

function layerTypes(c, family, n, path, ctx) {
  const given = get(c, 'layer_types');
  if (given != null) {
    if (!Array.isArray(given) || given.length !== n || !given.every((t) => typeof t === 'string' && t.length <= 64)) throw LAYER_TYPE_NAMES(path, n, given);
    return given.slice();
  }
  if (family.ropeNames) return ctx.ropeFlags.map((f) => family.ropeNames[f ? 0 : 1]);
  return family.layerTypes ? family.layerTypes(c, n, ctx) : Array(n).fill('full_attention');
}

// The rope parameter dicts per layer type: {layerType: dict}, or {'*': dict} for every layer.
function ropeDicts(c, family, types, path, theta, notes) {
  const scaling = get(c, 'rope_scaling');
  const params = get(c, 'rope_parameters');
  for (const [k, x] of [['rope_scaling', scaling], ['rope_parameters', params]])
    if (x != null && !isObj(x)) throw new TypeError(`${path}${k} must be an object (got ${v.show(x)})`);
  const typeSet = new Set(types);
  const nested = (d) => isObj(d) && Object.keys(d).length > 0 && Object.keys(d).every((k) => typeSet.has(k) || k === 'full_attention' || k === 'sliding_attention');
  const copy = (d) => Object.fromEntries(Object.entries(d).map(([k, x]) => {
    if (!isObj(x)) throw new TypeError(`${path}rope_parameters.${k} must be an object of rope parameters (got ${v.show(x)})`);
    return [k, { ...x }];
  }));
  if (family.id === 'gemma3') {
    // Gemma3TextConfig.convert_rope_params_to_dict: full theta = rope_theta (default 1e6), sliding theta = rope_local_base_freq (default 1e4).
    const p = nested(params) ? params : {};
    const full = { rope_type: 'default', ...(get(p, 'full_attention') ?? {}), ...(scaling ?? {}) };
    if (full.rope_theta == null) full.rope_theta = get(c, 'rope_theta') ?? 1e6;
    const sliding = { rope_type: 'default', ...(get(p, 'sliding_attention') ?? {}) };
    if (sliding.rope_theta == null) sliding.rope_theta = get(c, 'rope_local_base_freq') ?? 1e4;
    return { full_attention: full, sliding_attention: sliding };
  }
  // RotaryEmbeddingConfigMixin.convert_rope_params_to_dict: `rope_scaling or rope_parameters`.
  const d = scaling && Object.keys(scaling).length ? scaling : params;
  if (nested(d)) return copy(d);
  if (family.scalingOn) {
    // Olmo3Config.convert_rope_params_to_dict: the flat block updates full_attention; sliding_attention keeps the default.
    if (d === params && d != null) notes.push(`rope_parameters is one flat block: read like rope_scaling, for ${family.scalingOn} only. ` +
      "HF's config code as read for posenc (Olmo3Config.convert_rope_params_to_dict) nests it only when it comes as rope_scaling, and would leave both layer types at the default rope here: check this form with your transformers version");
    const other = typeSet.has('sliding_attention') ? 'sliding_attention' : null;
    return { [family.scalingOn]: { rope_type: 'default', ...(d ?? {}) }, ...(other ? { [other]: { rope_type: 'default', rope_theta: theta } } : {}) };
  }
  if (family.id === 'gemma4' && d == null) // Gemma4TextConfig defaults
    return { sliding_attention: { rope_type: 'default', rope_theta: 1e4 },
      full_attention: { rope_type: 'proportional', partial_rotary_factor: 0.25, rope_theta: 1e6 } };
  return { '*': { ...(d ?? {}) } };
}

// DeepseekV4Config.__post_init__: layer types from layer_types, else compress_ratios, else V4-Pro's
// default; rope_parameters {main, compress} as saved by HF, else built from the hub's rope_scaling.
const V4_TYPES = ['sliding_attention', 'compressed_sparse_attention', 'heavily_compressed_attention'];
function deepseekV4(c, n, path, notes) {
  const headDim = int(`${path}head_dim`, get(c, 'head_dim') ?? 512, 2, 65536);
  const qkRope = get(c, 'qk_rope_head_dim');
  const prf = get(c, 'partial_rotary_factor') ?? (qkRope != null ? int(`${path}qk_rope_head_dim`, qkRope, 2, headDim) / headDim : 64 / 512);
  v.number(`${path}partial_rotary_factor`, prf, { min: 0, minExclusive: true, max: 1 });
  const rates = { compressed_sparse_attention: 4, heavily_compressed_attention: 128, ...(isObj(get(c, 'compress_rates')) ? c.compress_rates : {}) };
  let types = get(c, 'layer_types');
  const ratios = get(c, 'compress_ratios');
  if (types == null && ratios != null) {
    if (!Array.isArray(ratios)) throw new TypeError(`${path}compress_ratios must be a list of integers per layer (got ${v.show(ratios)})`);
    types = ratios.map((r, i) => {
      if (r === 0) return 'sliding_attention';
      const t = V4_TYPES.find((x) => rates[x] === r);
      if (!t) throw new RangeError(`${path}compress_ratios[${i}] must be 0, ${rates.compressed_sparse_attention} or ${rates.heavily_compressed_attention} (got ${v.show(r)})`);
      return t;
    });
  }
  if (types == null) types = [...Array(Math.min(n, 2)).fill('heavily_compressed_attention'),
    ...Array.from({ length: Math.max(n - 2, 0) }, (_, i) => (i % 2 ? 'compressed_sparse_attention' : 'heavily_compressed_attention'))];
  if (!Array.isArray(types) || types.length < n || !types.every((t) => V4_TYPES.includes(t)))
    throw new RangeError(`${path}layer_types (or compress_ratios) must name at least ${n} layers, each one of ${V4_TYPES.join(', ')} (got ${v.show(types)})`);
  if (types.length > n) notes.push(`compress_ratios has ${types.length} entries for ${n} layers: HF keeps the first ${n} (the rest belong to the multi-token-prediction layers)`);
  types = types.slice(0, n);
  const rp = get(c, 'rope_parameters');
  const rs = get(c, 'rope_scaling');
  let dicts;
  if (isObj(rp) && isObj(rp.main) && isObj(rp.compress)) {
    dicts = { main: { ...rp.main }, compress: { ...rp.compress } };
    notes.push('read rope_parameters.main and rope_parameters.compress (the form HF saves)');
  } else {
    const flat = { ...((isObj(rs) && Object.keys(rs).length ? rs : rp) ?? {}) };
    delete flat.main;
    delete flat.compress;
    if (flat.rope_type == null && flat.type != null) flat.rope_type = flat.type;
    delete flat.type;
    const compress = { ...flat, rope_theta: get(c, 'compress_rope_theta') ?? 160000, partial_rotary_factor: prf };
    if (compress.rope_type == null) compress.rope_type = 'default';
    if (compress.rope_type === 'yarn' && compress.attention_factor == null) compress.attention_factor = 1; // "the V4 reference does NOT multiply cos/sin by YaRN's mscale"
    dicts = { main: { rope_type: 'default', rope_theta: get(c, 'rope_theta') ?? 10000, partial_rotary_factor: prf }, compress };
    notes.push('built rope_parameters.main (sliding layers) and .compress (compressed layers, with the yarn block) from the hub form, as DeepseekV4Config does');
  }
  return { headDim, types, dicts, keyOf: (t) => (t === 'sliding_attention' ? 'main' : 'compress'), prf };
}

export function describeHf(c) {
  const textConfig = get(c, 'text_config');
  if (textConfig != null && !isObj(textConfig)) throw new TypeError(`config.text_config must be an object (got ${v.show(textConfig)})`);
  const t = textConfig ?? c;
  const path = textConfig ? 'text_config.' : '';
  const rawType = get(t, 'model_type') ?? get(c, 'model_type') ?? '';
  const modelType = typeof rawType === 'string' ? rawType.slice(0, 64) : String(rawType).slice(0, 64);
  const { family, known } = familyOf(modelType);
  const notes = [];
  if (textConfig) notes.push('read the language model from text_config');
  if (!known) notes.push(modelType
    ? `model_type '${modelType}' is not in posenc's table of families: read with the generic rules (every layer rotates, the half layout, head_dim or hidden_size / num_attention_heads); check them against its modeling code`
    : "the config has no model_type: read with the generic rules (every layer rotates, the half layout, head_dim or hidden_size / num_attention_heads)");
  const n = int(`${path}num_hidden_layers`, get(t, 'num_hidden_layers') ?? 1, 1, MAX_LAYERS);
  const maxPos = get(t, 'max_position_embeddings') == null ? undefined : int(`${path}max_position_embeddings`, get(t, 'max_position_embeddings'), 1, 2 ** 31 - 1);
  const heads = get(t, 'num_attention_heads');
  const hidden = get(t, 'hidden_size');
  const ctx = { notes, modelType, path, ropeFlags: family.ropeByLayer ? ropeFlags(t, n, path) : null };
  for (const note of family.notes?.(t, modelType) ?? []) notes.push(note);

  let headDim, types, dicts, keyOf, v4 = null;
  if (family.custom === 'deepseek_v4') {
    v4 = deepseekV4(t, n, path, notes);
    ({ headDim, types, dicts, keyOf } = v4);
  } else {
    if (family.headDim) {
      if (family.id === 'cohere2') {
        int(`${path}num_attention_heads`, heads, 1, 65536);
        int(`${path}hidden_size`, hidden, 1, 2 ** 24);
      }
      headDim = family.headDim(t);
    } else headDim = get(t, 'head_dim');
    if (headDim == null) {
      if (heads == null || hidden == null) throw new RangeError(`${path}head_dim is missing, and so are hidden_size and num_attention_heads to derive it from`);
      int(`${path}num_attention_heads`, heads, 1, 65536);
      int(`${path}hidden_size`, hidden, 1, 2 ** 24);
      headDim = Math.floor(hidden / heads);
    }
    int(family.id === 'mla' ? `${path}qk_rope_head_dim` : `${path}head_dim`, headDim, 2, 65536);
    types = layerTypes(t, family, n, path, ctx);
    const theta = get(t, 'rope_theta') ?? family.defaultTheta ?? 10000;
    dicts = ropeDicts(t, family, types, path, theta, notes);
    keyOf = (name) => (own(dicts, name) ? name : '*');
  }
  const topPrf = v4 ? undefined : get(t, 'partial_rotary_factor');
  const topTheta = get(t, 'rope_theta');
  const topOrig = get(t, 'original_max_position_embeddings');
  const layout = layoutOf(family, t, modelType);
  const ropeAt = (i) => (ctx.ropeFlags ? ctx.ropeFlags[i] : family.rope ? family.rope(types[i], t) : true);

  // Groups: each layer type, split into its RoPE and its NoPE layers where it has both.
  const groups = [];
  const seen = new Map();
  types.forEach((type, i) => {
    const rope = ropeAt(i);
    const key = `${type}\u0000${rope}`;
    if (!seen.has(key)) seen.set(key, { type, rope, layers: [] });
    seen.get(key).layers.push(i);
  });
  const mixed = new Set([...seen.values()].map((x) => x.type).filter((ty, _, all) => all.indexOf(ty) !== all.lastIndexOf(ty)));
  for (const { type, rope, layers } of seen.values()) {
    const name = mixed.has(type) && !rope ? `${type} (NoPE)` : type;
    const window = (family.window ?? slidingWindow)(type, t);
    const g = { name, layerType: type, layers, rope, layout, slice: family.slice ?? 'leading', window: window ?? null,
      headDim: family.id === 'gemma4' && type === 'full_attention' ? int(`${path}global_head_dim`, get(t, 'global_head_dim') ?? 512, 2, 65536) : headDim };
    if (family.id === 'mla') g.qkHeadDim = (get(t, 'qk_nope_head_dim') ?? 128) + headDim;
    if (!rope) {
      g.scaling = null;
      if (family.nopeQueryScale === 'llama4Temperature' && (get(t, 'attn_temperature_tuning') ?? true)) {
        const a = v.number(`${path}attn_scale`, get(t, 'attn_scale') ?? 0.1);
        const b = v.number(`${path}floor_scale`, get(t, 'floor_scale') ?? 8192, { min: 0, minExclusive: true });
        g.queryScale = { kind: 'llama4Temperature', a, b, formula: `1 + ${a} * log1p(floor((position + 1) / ${b}))` };
      } else g.queryScale = null;
      groups.push(g);
      continue;
    }
    const key = keyOf(type);
    const base = v4 ? 'rope_parameters' : own(t, 'rope_parameters') && !own(t, 'rope_scaling') ? 'rope_parameters' : 'rope_scaling';
    const dictPath = `${path}${base}${key === '*' ? '' : `.${key}`}`;
    const raw = get(dicts, key);
    if (!raw) throw new RangeError(`${dictPath} has no entry for layer type '${type}' (layer_types has it)`);
    const d = { ...raw };
    // standardize_rope_params: rope_type from `type`, rope_theta and partial_rotary_factor from the config.
    if (d.rope_type == null && d.type != null) d.rope_type = d.type;
    delete d.type;
    if (d.rope_theta == null) d.rope_theta = topTheta ?? family.defaultTheta ?? 10000;
    if (topPrf != null) d.partial_rotary_factor = topPrf;
    else if (d.partial_rotary_factor == null && family.partialRotaryFactor != null) d.partial_rotary_factor = family.partialRotaryFactor;
    if (family.renameToLongrope && (d.rope_type === 'su' || d.rope_type === 'yarn')) {
      notes.push(`Phi3Config renames rope_type '${d.rope_type}' to 'longrope'`);
      d.rope_type = 'longrope';
    }
    if (d.rope_type === 'mrope') {
      notes.push("rope_type 'mrope' is computed as 'default' (Qwen2VLConfig does the same); mrope_section splits the pairs among the time, height and width positions");
      d.rope_type = 'default';
    }
    const rt = d.rope_type ?? 'default';
    if (rt === 'llama3' && typeof d.high_freq_factor === 'number' && typeof d.low_freq_factor === 'number' && d.high_freq_factor <= d.low_freq_factor)
      notes.push(`${name}: high_freq_factor (${d.high_freq_factor}) <= low_freq_factor (${d.low_freq_factor}); HF only warns, and then no pair is smoothed: each is kept or divided by factor`);
    // Where the pretraining length came from: the rope dict, the top level (Phi-3, HF gives it priority), or max_position_embeddings.
    let origFrom = null;
    if (reads(rt, 'original_max_position_embeddings')) {
      if (topOrig != null) { d.original_max_position_embeddings = topOrig; origFrom = 'config'; }
      else if (d.original_max_position_embeddings != null) origFrom = 'config';
      else if (maxPos != null) { d.original_max_position_embeddings = maxPos; origFrom = 'max_position_embeddings'; }
    }
    if (d.max_position_embeddings == null && maxPos != null && reads(rt, 'max_position_embeddings')) d.max_position_embeddings = maxPos;
    Object.assign(g, { scaling: d, scalingPath: dictPath, origFrom, queryScale: null });
    const beta = get(d, 'llama_4_scaling_beta');
    if (beta != null && family.queryScaleBeta) {
      const orig = d.original_max_position_embeddings ?? maxPos;
      g.queryScale = { kind: 'llama4ScalingBeta', a: v.number(`${dictPath}.llama_4_scaling_beta`, beta), b: orig,
        formula: `1 + ${beta} * log(1 + floor(position / ${orig}))` };
    }
    if (family.softmaxMscale && rt !== 'default') g.softmaxScaleFrom = { factor: get(d, 'factor'), mscaleAllDim: get(d, 'mscale_all_dim') ?? 0 };
    if (d.mrope_section != null) g.mrope = { section: d.mrope_section, interleaved: d.mrope_interleaved === true, path: `${dictPath}.mrope_section` };
    groups.push(g);
  }
  return { source: 'hf', modelType, family: { id: family.id, known, source: family.source, reads: family.reads, scalingOn: family.scalingOn ?? null },
    maxPositionEmbeddings: maxPos, groups, notes };
}
