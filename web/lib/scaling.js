// Normalise a RoPE scaling block, as it stands in an HF model's config.json
// (`rope_scaling`, snake_case) or in camelCase, into the fixed slots the wasm
// layer reads. Values are only type-checked here; the core checks ranges and
// which keys each rope_type requires, with HF's defaults.
import * as v from './validate.js';
import { ROPE_SCALING_SCHEMA } from '../wasm/registry.js';

// The core's table (cpp/src/rope_scaling.cpp): the types, each with the keys it reads, and the keys.
/** [{name (HF's rope_type), gguf (llama.cpp's spelling, or ''), label, fields: [keys it reads], page}], in the core's order. */
export const ROPE_TYPE_INFO = Object.freeze(ROPE_SCALING_SCHEMA.types.map((t) => Object.freeze({ ...t, fields: Object.freeze(t.fields ? t.fields.split(',') : []) })));
/** [{key, camel, kind: 'number' | 'integer' | 'flag' | 'factors', min, max, minExclusive, hfDefault, fromContext, page}]. */
export const SCALING_FIELDS = Object.freeze(ROPE_SCALING_SCHEMA.fields.map((f) => Object.freeze({ ...f, page: f.page && Object.freeze({ ...f.page }) })));
export const ROPE_TYPES = Object.freeze(ROPE_TYPE_INFO.map((t) => t.name));
const infoOf = (type) => ROPE_TYPE_INFO.find((t) => t.name === type);
/** Whether rope_type `type` reads the scaling key `key`. */
export const reads = (type, key) => Boolean(infoOf(type)?.fields.includes(key));
/**
 * The key through which a model's (original) context reaches rope_type `type`, or null: the last of the keys it reads
 * that HF fills from the context (original_max_position_embeddings before max_position_embeddings: HF's original
 * defaults to max_position_embeddings, so the context set there reaches both).
 */
export const contextKey = (type) => infoOf(type)?.fields.findLast((k) => KIND[k].fromContext) ?? null;
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
