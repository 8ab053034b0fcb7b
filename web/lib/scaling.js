// Normalise a RoPE scaling block, as it stands in an HF model's config.json
// (`rope_scaling`, snake_case) or in camelCase, into the fixed slots the wasm
// layer reads. Values are only type-checked here; the core checks ranges and
// which keys each rope_type requires, with HF's defaults.
import * as v from './validate.js';

export const ROPE_TYPES = ['default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional'];
// Legacy `type` names HF's config classes rewrite before computing (Qwen2-VL: 'mrope' -> 'default').
const LEGACY_TYPES = { mrope: 'default' };

// slot name -> [snake_case key, camelCase key]; order matches the C++ Slot enum.
const NUMERIC = [
  ['factor', 'factor'],
  ['max_position_embeddings', 'maxPositionEmbeddings'],
  ['original_max_position_embeddings', 'originalMaxPositionEmbeddings'],
  ['attention_factor', 'attentionFactor'],
  ['beta_fast', 'betaFast'],
  ['beta_slow', 'betaSlow'],
  ['mscale', 'mscale'],
  ['mscale_all_dim', 'mscaleAllDim'],
  ['truncate', 'truncate'],
  ['low_freq_factor', 'lowFreqFactor'],
  ['high_freq_factor', 'highFreqFactor'],
  ['ext_factor', 'extFactor'], // llama.cpp's YaRN ext_factor (not an HF key)
  ['partial_rotary_factor', 'partialRotaryFactor'], // read by 'proportional' only; other types take the rotary dim as dim
];
const INTEGER_KEYS = new Set(['max_position_embeddings', 'original_max_position_embeddings']);
const ARRAYS = [
  ['long_factor', 'longFactor'],
  ['short_factor', 'shortFactor'],
];
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
    if (keys[0] === 'truncate') value = v.boolean(`${name}.truncate`, value) ? 1 : 0;
    else if (INTEGER_KEYS.has(keys[0])) v.integer(`${name}.${keys[0]}`, value, 1, 2 ** 31 - 1);
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
