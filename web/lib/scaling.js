// Normalise a RoPE scaling block, as it stands in an HF model's config.json
// (`rope_scaling`, snake_case) or in camelCase, into the fixed slots the wasm
// layer reads. Values are only type-checked here; the core checks ranges and
// which keys each rope_type requires, with HF's defaults.
import * as v from './validate.js';
import { ROPE_SCALING_SCHEMA } from '../wasm/registry.js';

// The core's table (cpp/src/rope_scaling.cpp): the types, each with the keys it reads, and the keys.
/** [{name (HF's rope_type), gguf (llama.cpp's spelling, or ''), label, fields: [keys it reads], context (the key its context
 * reaches it through, or ''), page}], in the core's order. */
export const ROPE_TYPE_INFO = Object.freeze(ROPE_SCALING_SCHEMA.types.map((t) => Object.freeze({ ...t, fields: Object.freeze(t.fields ? t.fields.split(',') : []) })));
/** [{key, camel, kind: 'number' | 'integer' | 'flag' | 'factors', min, max, minExclusive, hfDefault, fromContext, page}]. */
export const SCALING_FIELDS = Object.freeze(ROPE_SCALING_SCHEMA.fields.map((f) => Object.freeze({ ...f, page: f.page && Object.freeze({ ...f.page }) })));
export const ROPE_TYPES = Object.freeze(ROPE_TYPE_INFO.map((t) => t.name));
const infoOf = (type) => ROPE_TYPE_INFO.find((t) => t.name === type);
/** Whether rope_type `type` reads the scaling key `key`. */
export const reads = (type, key) => Boolean(infoOf(type)?.fields.includes(key));
/** The key through which a model's (original) context reaches rope_type `type`, or null (the table's context column). */
export const contextKey = (type) => infoOf(type)?.context || null;
// Legacy `type` names HF's config classes rewrite before computing (Qwen2-VL: 'mrope' -> 'default').
const LEGACY_TYPES = { mrope: 'default' };

// The numbers, in the slots' order (slot 0 is the type), and the per-pair lists: [snake_case key, camelCase key].
const NUMERIC = SCALING_FIELDS.filter((f) => f.kind !== 'factors').map((f) => [f.key, f.camel]);
const KIND = Object.fromEntries(SCALING_FIELDS.map((f) => [f.key, f]));
const ARRAYS = SCALING_FIELDS.filter((f) => f.kind === 'factors').map((f) => [f.key, f.camel]);
// Keys HF knows (a config class lists them in ignore_keys_at_rope_validation, or
// the model's attention reads them) but that do not change the frequencies:
// accepted and reported, with what uses them.
export const KNOWN_UNUSED = {
  mrope_section: 'Qwen2-VL / Qwen2.5-VL / Qwen3-VL: splits the pairs among the temporal, height and width position ids; the frequencies are the default ones',
  mrope_interleaved: 'Qwen3-VL: interleaves the M-RoPE sections over the pairs; frequencies unchanged',
  llama_4_scaling_beta: 'Ministral 3 / Mistral 4: multiplies the queries by 1 + beta * log(1 + floor(position / original_max_position_embeddings))',
  long_mscale: 'Phi-3.5-MoE: cos/sin scale at long lengths (its own modeling code)',
  short_mscale: 'Phi-3.5-MoE: cos/sin scale at short lengths (its own modeling code)',
};
const KNOWN_CHECKS = {
  mrope_section: (name, a) => v.intArray(name, a, undefined, 0, 65536),
  mrope_interleaved: (name, b) => v.boolean(name, b),
  llama_4_scaling_beta: (name, x) => v.number(name, x),
  long_mscale: (name, x) => v.number(name, x, { min: 0, minExclusive: true }),
  short_mscale: (name, x) => v.number(name, x, { min: 0, minExclusive: true }),
};
const IGNORED = ['rope_theta', 'ropeTheta', ...Object.keys(KNOWN_UNUSED)];
const TYPE_KEYS = ['rope_type', 'ropeType', 'type'];
const ALL_KEYS = [...TYPE_KEYS, ...NUMERIC.flat(), ...ARRAYS.flat(), ...IGNORED];

export const SLOT_COUNT = 1 + NUMERIC.length;

function pick(obj, [snake, camel]) {
  if (obj[snake] != null && obj[camel] != null && snake !== camel && obj[snake] !== obj[camel])
    throw new RangeError(`scaling has both ${snake} and ${camel} with different values`);
  return obj[snake] ?? obj[camel];
}

// Returns { slots: Float64Array, longFactor, shortFactor, theta, type, known } (arrays may be null;
// known: the KNOWN_UNUSED keys present, {key: value}). `name` prefixes the keys in messages.
export function normaliseScaling(scaling, halfDim, name = 'scaling') {
  const slots = new Float64Array(SLOT_COUNT).fill(NaN);
  slots[0] = 0;
  if (scaling === undefined || scaling === null) return { slots, longFactor: null, shortFactor: null, theta: undefined, type: 'default', known: {} };
  if (typeof scaling !== 'object' || Array.isArray(scaling) || ArrayBuffer.isView(scaling))
    throw new TypeError(`${name} must be an HF rope_scaling object such as {rope_type: 'linear', factor: 4} (got ${v.show(scaling)})`);
  scaling = { ...scaling }; // read each key once (see validate.options)
  v.knownKeys(name, scaling, ALL_KEYS);
  // HF: rope_parameters.setdefault("rope_type", rope_parameters.get("type", "default"))
  const typeKey = TYPE_KEYS.find((k) => scaling[k] != null);
  const rawType = typeKey ? scaling[typeKey] : 'default';
  const type = typeof rawType === 'string' && Object.hasOwn(LEGACY_TYPES, rawType) ? LEGACY_TYPES[rawType]
    : typeKey ? v.oneOf(`${name}.${typeKey}`, rawType, ROPE_TYPES) : 'default';
  slots[0] = ROPE_TYPES.indexOf(type);
  const known = {};
  for (const k of Object.keys(KNOWN_UNUSED)) if (scaling[k] != null) known[k] = KNOWN_CHECKS[k](`${name}.${k}`, scaling[k]);
  NUMERIC.forEach((keys, i) => {
    let value = pick(scaling, keys);
    if (value === undefined || value === null) return;
    const f = KIND[keys[0]];
    if (f.kind === 'flag') value = v.boolean(`${name}.${keys[0]}`, value) ? 1 : 0;
    else if (f.kind === 'integer') v.integer(`${name}.${keys[0]}`, value, f.min, f.max);
    else v.number(`${name}.${keys[0]}`, value);
    slots[1 + i] = value;
  });
  const [longFactor, shortFactor] = ARRAYS.map((keys) => {
    const a = pick(scaling, keys);
    return a === undefined || a === null ? null : v.floatArray(`${name}.${keys[0]}`, a, halfDim, Float64Array);
  });
  const rawTheta = pick(scaling, ['rope_theta', 'ropeTheta']);
  const theta = rawTheta === undefined || rawTheta === null ? undefined
    : v.number(`${name}.rope_theta`, rawTheta, { min: 1, minExclusive: true });
  return { slots, longFactor, shortFactor, theta, type, known };
}

/**
 * An HF rope_scaling block of `type` (null for 'none' or 'default') from the page's slider values, keyed by the page's
 * keys ({factor, betaFast, ...}): each key the type reads that has a slider takes `values`' value, else, when HF has no
 * default for it, the slider's default. `context`, when given, is set at the type's contextKey.
 */
export function scalingBlock(type, values = {}, { context } = {}) {
  if (type === 'none' || type === 'default') return null;
  const info = infoOf(type);
  if (!info) throw new RangeError(`type must be one of ${['none', ...ROPE_TYPES].map((t) => `'${t}'`).join(', ')} (got ${v.show(type)})`);
  const block = { rope_type: type };
  for (const key of info.fields) {
    const f = KIND[key];
    if (f.page && values[f.page.key] != null) block[key] = values[f.page.key];
    else if (f.page && f.hfDefault === null) block[key] = f.page.default;
  }
  const ck = contextKey(type);
  if (ck && context != null) block[ck] = context;
  return block;
}

// ---------- per type: what the table's columns cannot say ----------

/** A value as a Python literal (float64 numbers keep their `.0`). */
export const py = (x) => {
  if (typeof x === 'boolean') return x ? 'True' : 'False';
  if (Array.isArray(x)) return `[${x.map(py).join(', ')}]`;
  if (typeof x === 'number') return Number.isInteger(x) ? `${x}.0` : String(x);
  return JSON.stringify(x);
};
const ARANGE = 'torch.arange(0, dim, 2, dtype=torch.float64)';
// The default frequencies over the rotary dim; `baseLines` may rescale `base` first (dynamic NTK).
const plain = (p, o, baseLines = []) => [`dim, base = ${o.rotaryDim}, ${py(p.rope_theta)}`, ...baseLines,
  `inv_freq = 1.0 / (base ** (${ARANGE} / dim))`, 'attention_scaling = 1.0'];
const GET_MSCALE = 'def get_mscale(scale, m=1.0):\n        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0';

/**
 * The code of each rope_type of the core's table, keyed by its name, for what no column can hold (tests/js/
 * scaling-table.test.js holds its keys to the table's types):
 *  - pytorch(p, {rotaryDim, headDim, seqLen}): HF's modeling_rope_utils formula as PyTorch lines (float64) that set
 *    `inv_freq` and `attention_scaling` from the type's rope_parameters `p`;
 *  - fromGguf(g): for a type with a llama.cpp spelling (the table's gguf column), its scaling block's keys from GGUF
 *    metadata, llama.cpp's semantics: g = {factor, origCtx, number(key, opts), name(key), notes};
 *  - originalContext(d, advertised, num): where a type with no context key finds the original context (or null; num
 *    formats a number for the words);
 *  - wholeHeadDim: its frequencies span the whole head_dim (partial_rotary_factor says which pairs rotate).
 */
export const TYPE_CODE = Object.freeze({
  default: { pytorch: plain },
  linear: {
    pytorch: (p, o) => [...plain(p, o), `inv_freq = inv_freq / ${py(p.factor)}`],
    fromGguf: ({ factor }) => ({ factor }),
    originalContext: (d, advertised, num) => (advertised && typeof d.factor === 'number' && d.factor > 0
      ? { value: Math.round(advertised / d.factor), inferred: true, how: `max_position_embeddings ${num(advertised)} ÷ factor ${d.factor}: the config names no original context` }
      : null),
  },
  dynamic: {
    pytorch: (p, o) => plain(p, o, [`factor, max_pos, seq_len = ${py(p.factor)}, ${p.max_position_embeddings}, ${Math.max(o.seqLen ?? 0, p.max_position_embeddings)}`,
      'base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))']),
  },
  yarn: {
    pytorch: (p, o) => {
      const orig = p.original_max_position_embeddings;
      return [...plain(p, o), GET_MSCALE,
        `factor, orig = ${py(p.factor ?? (p.max_position_embeddings / orig))}, ${orig}`,
        `beta_fast, beta_slow, ext_factor = ${py(p.beta_fast || 32)}, ${py(p.beta_slow || 1)}, ${py(p.ext_factor ?? 1)}`,
        'def corr(rot):\n        return dim * math.log(orig / (rot * 2 * math.pi)) / (2 * math.log(base))',
        (p.truncate ?? true) ? 'low, high = math.floor(corr(beta_fast)), math.ceil(corr(beta_slow))' : 'low, high = corr(beta_fast), corr(beta_slow)',
        'low, high = max(low, 0), min(high, dim - 1)',
        'high = high + 0.001 if low == high else high',
        'ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)',
        'extrapolation = (1 - ramp) * ext_factor',
        'inv_freq = (inv_freq / factor) * (1 - extrapolation) + inv_freq * extrapolation',
        p.attention_factor != null ? `attention_scaling = ${py(p.attention_factor)}`
          : p.mscale && p.mscale_all_dim ? `attention_scaling = get_mscale(factor, ${py(p.mscale)}) / get_mscale(factor, ${py(p.mscale_all_dim)})`
            : 'attention_scaling = get_mscale(factor)'];
    },
    // llama.cpp: ext_factor < 0 (the default) means 1; the cos/sin scale is attn_factor * (1 + 0.1 * ln(factor))
    // (rope_yarn's mscale) when ext_factor != 0; the correction dims always floor/ceil (no `truncate`).
    fromGguf: (g) => {
      const ext = g.number('rope.scaling.yarn_ext_factor');
      if (ext > 1) throw new RangeError(`${g.name('rope.scaling.yarn_ext_factor')} must be a number <= 1 (negative: unset, i.e. 1) (got ${ext})`);
      const extFactor = ext == null || ext < 0 ? 1 : ext;
      const attnKey = g.number('rope.scaling.yarn_attn_factor') != null ? 'rope.scaling.yarn_attn_factor' : 'rope.scaling.attn_factor';
      const attn = g.number(attnKey, { min: 0, minExclusive: true }) ?? 1;
      const logMul = g.number('rope.scaling.yarn_log_multiplier', { min: 0 });
      if (g.origCtx == null) throw new RangeError(`${g.name('rope.scaling.original_context_length')} (or ${g.name('context_length')}) is needed for YaRN`);
      const block = { factor: g.factor, original_max_position_embeddings: g.origCtx, ext_factor: extFactor,
        attention_factor: extFactor !== 0 && g.factor > 1 ? attn * (1 + 0.1 * Math.log(g.factor)) : attn, truncate: true };
      const bf = g.number('rope.scaling.yarn_beta_fast', { min: 0, minExclusive: true });
      const bs = g.number('rope.scaling.yarn_beta_slow', { min: 0, minExclusive: true });
      if (bf != null) block.beta_fast = bf;
      if (bs != null) block.beta_slow = bs;
      if (logMul) g.notes.push(`${g.name('rope.scaling.yarn_log_multiplier')} = ${logMul}: llama.cpp's DeepSeek graph folds it into kq_scale; not applied here`);
      return block;
    },
  },
  llama3: {
    pytorch: (p, o) => [...plain(p, o),
      `factor, low, high, old = ${py(p.factor)}, ${py(p.low_freq_factor)}, ${py(p.high_freq_factor)}, ${p.original_max_position_embeddings}`,
      'wavelen = 2 * math.pi / inv_freq',
      'scaled = torch.where(wavelen > old / low, inv_freq / factor, inv_freq)',
      'smooth = (old / wavelen - low) / (high - low)',
      'medium = ~(wavelen < old / high) & ~(wavelen > old / low)',
      'inv_freq = torch.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled)'],
  },
  longrope: {
    pytorch: (p, o) => {
      const orig = p.original_max_position_embeddings;
      const long = (o.seqLen ?? 0) > orig;
      return [...plain(p, o), `orig, factor = ${orig}, ${py(p.factor ?? p.max_position_embeddings / orig)}`,
        `ext = torch.tensor(${py(long ? p.long_factor : p.short_factor)}, dtype=torch.float64)  # ${long ? 'long' : 'short'}_factor: the sequence is ${long ? 'longer' : 'no longer'} than orig`,
        'inv_freq = inv_freq / ext',
        p.attention_factor != null ? `attention_scaling = ${py(p.attention_factor)}` : 'attention_scaling = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(orig))'];
    },
    fromGguf: (g) => {
      throw new RangeError(`${g.name('rope.scaling.type')} 'longrope': llama.cpp keeps the long/short factors in the tensors rope_factors_long / rope_factors_short, not in the metadata; pass the model's HF config.json instead`);
    },
  },
  proportional: {
    wholeHeadDim: true,
    pytorch: (p, o) => [`head_dim, base, factor = ${o.headDim}, ${py(p.rope_theta)}, ${py(p.factor ?? 1)}`,
      `angles = int(${py(p.partial_rotary_factor ?? 1)} * head_dim // 2)`,
      'inv_freq = torch.zeros(head_dim // 2, dtype=torch.float64)',
      'inv_freq[:angles] = 1.0 / (base ** (torch.arange(0, 2 * angles, 2, dtype=torch.float64) / head_dim))',
      'inv_freq = inv_freq / factor', 'attention_scaling = 1.0'],
  },
});
/** The code of rope_type `type` (TYPE_CODE's row; {} for an unknown type). */
export const codeOf = (type) => TYPE_CODE[type] ?? {};
