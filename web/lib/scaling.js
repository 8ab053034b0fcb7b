// Normalise a RoPE scaling block, as it stands in an HF model's config.json
// (`rope_scaling`, snake_case) or in camelCase, into the fixed slots the wasm
// layer reads. Values are only type-checked here; the core checks ranges and
// which keys each rope_type requires, with HF's defaults.
import * as v from './validate.js';

export const ROPE_TYPES = ['default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope'];

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
];
const INTEGER_KEYS = new Set(['max_position_embeddings', 'original_max_position_embeddings']);
const ARRAYS = [
  ['long_factor', 'longFactor'],
  ['short_factor', 'shortFactor'],
];
// Accepted but not used by the frequency computation (HF configs carry them).
const IGNORED = ['rope_theta', 'ropeTheta', 'partial_rotary_factor', 'partialRotaryFactor'];
const TYPE_KEYS = ['rope_type', 'ropeType', 'type'];
const ALL_KEYS = [...TYPE_KEYS, ...NUMERIC.flat(), ...ARRAYS.flat(), ...IGNORED];

export const SLOT_COUNT = 1 + NUMERIC.length;

function pick(obj, [snake, camel]) {
  if (obj[snake] != null && obj[camel] != null && snake !== camel && obj[snake] !== obj[camel])
    throw new RangeError(`scaling has both ${snake} and ${camel} with different values`);
  return obj[snake] ?? obj[camel];
}

// Returns { slots: Float64Array, longFactor, shortFactor, theta } (arrays may be null).
export function normaliseScaling(scaling, halfDim) {
  const slots = new Float64Array(SLOT_COUNT).fill(NaN);
  slots[0] = 0;
  if (scaling === undefined || scaling === null) return { slots, longFactor: null, shortFactor: null, theta: undefined };
  if (typeof scaling !== 'object' || Array.isArray(scaling) || ArrayBuffer.isView(scaling))
    throw new TypeError(`scaling must be an HF rope_scaling object such as {rope_type: 'linear', factor: 4} (got ${v.show(scaling)})`);
  scaling = { ...scaling }; // read each key once (see validate.options)
  v.knownKeys('scaling', scaling, ALL_KEYS);
  const typeKey = TYPE_KEYS.find((k) => scaling[k] != null);
  const type = typeKey ? v.oneOf(`scaling.${typeKey}`, scaling[typeKey], ROPE_TYPES) : 'default';
  slots[0] = ROPE_TYPES.indexOf(type);
  NUMERIC.forEach((keys, i) => {
    let value = pick(scaling, keys);
    if (value === undefined || value === null) return;
    if (keys[0] === 'truncate') value = v.boolean('scaling.truncate', value) ? 1 : 0;
    else if (INTEGER_KEYS.has(keys[0])) v.integer(`scaling.${keys[0]}`, value, 1, 2 ** 31 - 1);
    else v.number(`scaling.${keys[0]}`, value);
    slots[1 + i] = value;
  });
  const [longFactor, shortFactor] = ARRAYS.map((keys) => {
    const a = pick(scaling, keys);
    return a === undefined || a === null ? null : v.floatArray(`scaling.${keys[0]}`, a, halfDim, Float64Array);
  });
  const rawTheta = pick(scaling, ['rope_theta', 'ropeTheta']);
  const theta = rawTheta === undefined || rawTheta === null ? undefined
    : v.number('scaling.rope_theta', rawTheta, { min: 1, minExclusive: true });
  return { slots, longFactor, shortFactor, theta };
}
