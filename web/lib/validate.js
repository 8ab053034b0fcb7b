// Argument checks shared by every entry point. Each failure is a TypeError
// (wrong kind of value) or a RangeError (right kind, outside the allowed
// range), and the message names the argument and what is allowed. An
// optional value that is undefined or null (JSON's "not set") takes its default.

// The built-in length getter of typed arrays (an own `length` property cannot shadow it; throws for non-typed arrays).
const typedArrayLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'length').get;

// Array.isArray, false for a revoked Proxy (for which it throws).
const isArray = (v) => {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
};

// A short description of a bad value for a message. It must not throw (a
// hostile getter would replace our error with its own), so it reads nothing
// the caller can intercept except inside the try.
export const show = (v) => {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (typeof v === 'number' || typeof v === 'boolean' || v == null) return String(v);
  try {
    if (ArrayBuffer.isView(v)) return `${Object.prototype.toString.call(v).slice(8, -1)}(${typedArrayLength.call(v)})`;
    if (Array.isArray(v)) return `Array(${v.length})`;
  } catch {}
  return typeof v;
};

export function integer(name, v, min, max) {
  if (typeof v !== 'number') throw new TypeError(`${name} must be an integer in [${min}, ${max}] (got ${show(v)})`);
  if (!Number.isInteger(v) || v < min || v > max)
    throw new RangeError(`${name} must be an integer in [${min}, ${max}] (got ${show(v)})`);
  return v;
}

export function evenInteger(name, v, min, max) {
  integer(name, v, min, max);
  if (v % 2 !== 0) throw new RangeError(`${name} must be an even integer in [${min}, ${max}] (got ${v})`);
  return v;
}

export function number(name, v, { min = -Infinity, max = Infinity, minExclusive = false, maxExclusive = false } = {}) {
  const fmt = (x) => (Math.abs(x) >= 1e21 ? x.toPrecision(3) : String(x));
  const range = `${minExclusive ? '>' : '>='} ${fmt(min)}${max < Infinity ? ` and ${maxExclusive ? '<' : '<='} ${fmt(max)}` : ''}`;
  if (typeof v !== 'number') throw new TypeError(`${name} must be a finite number ${range} (got ${show(v)})`);
  if (!Number.isFinite(v) || (minExclusive ? v <= min : v < min) || (maxExclusive ? v >= max : v > max))
    throw new RangeError(`${name} must be a finite number ${range} (got ${show(v)})`);
  return v;
}

export function boolean(name, v) {
  if (typeof v !== 'boolean') throw new TypeError(`${name} must be true or false (got ${show(v)})`);
  return v;
}

export function oneOf(name, v, allowed) {
  if (typeof v !== 'string') throw new TypeError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${show(v)})`);
  if (!allowed.includes(v)) throw new RangeError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${show(v)})`);
  return v;
}

// A shallow copy of the caller's options (own enumerable keys, each getter run
// once), so later reads cannot see a different value than the one checked.
export function options(name, v) {
  if (v === undefined) return {};
  if (v === null || typeof v !== 'object' || isArray(v) || ArrayBuffer.isView(v))
    throw new TypeError(`${name} must be an options object (got ${show(v)})`);
  return { ...v };
}

// Reject keys we do not know, so a typo ('rotary_dim' vs 'rotaryDim') is not silently ignored.
export function knownKeys(name, obj, keys) {
  for (const k of Object.keys(obj)) {
    if (!keys.includes(k)) throw new RangeError(`${name} has an unknown option ${show(k)}: allowed ${[...new Set(keys)].join(', ')}`);
  }
}

// Arrays from the caller are copied into a fresh typed array while they are
// checked: the values the library checks are exactly the values it hands to
// wasm, however the caller's array changes afterwards (a Proxy whose traps
// answer differently on a second read, a getter elsewhere in the options that
// detaches or resizes a buffer). Each element is read once; a typed array's
// length is read through the built-in getter, which an own `length` property
// cannot shadow.
function lengthOf(name, v, kind) {
  let n = -1;
  try {
    n = typedArrayLength.call(v); // throws unless v is a real typed array
  } catch {
    if (isArray(v)) n = v.length;
  }
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new TypeError(`${name} must be a ${kind} (got ${show(v)})`);
  return n;
}

function checkedLength(name, n, length) {
  if (length !== undefined && n !== length) throw new RangeError(`${name} must have length ${length} (got ${n})`);
  if (n > MAX_ELEMENTS) throw new RangeError(`${name} has ${n} values, more than the limit of ${MAX_ELEMENTS}`);
}

/**
 * A copy, as `Out` (Float32Array or Float64Array), of a numeric array of exactly
 * `length` values, each finite and representable in `Out` (1e39 is not a float32).
 */
export function floatArray(name, v, length, Out = Float32Array) {
  const n = lengthOf(name, v, 'Float32Array or an array of numbers');
  checkedLength(name, n, length);
  const out = new Out(n);
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (typeof x !== 'number') throw new TypeError(`${name}[${i}] must be a number (got ${show(x)})`);
    out[i] = x;
    if (out[i] - out[i] !== 0) // NaN, +-Infinity, or too large for Out
      throw new RangeError(`${name}[${i}] must be finite${Out === Float32Array ? ' and within float32 range (|x| <= 3.4e38)' : ''} (got ${show(x)})`);
  }
  return out;
}

/** An Int32Array copy of an array of integers in [min, max] (of exactly `length` values if given). */
export function intArray(name, v, length, min, max) {
  const n = lengthOf(name, v, 'Int32Array or an array of integers');
  checkedLength(name, n, length);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (typeof x !== 'number') throw new TypeError(`${name}[${i}] must be an integer in [${min}, ${max}] (got ${show(x)})`);
    if (!Number.isInteger(x) || x < min || x > max)
      throw new RangeError(`${name}[${i}] must be an integer in [${min}, ${max}] (got ${show(x)})`);
    out[i] = x;
  }
  return out;
}

// Refuse requests whose output would not fit, up front, instead of letting
// the allocation abort the module.
export const MAX_ELEMENTS = 2 ** 26; // 64 Mi values = 256 MiB of float32
export function elementBudget(what, count) {
  if (count > MAX_ELEMENTS)
    throw new RangeError(`${what} would have ${count} values, more than the limit of ${MAX_ELEMENTS}; ask for a smaller size`);
  return count;
}

// A number the core receives as a float32: beyond this it would become Infinity.
export const FLOAT32_MAX = 3.4028234663852886e38;
export const float32 = (name, v) => number(name, v, { min: -FLOAT32_MAX, max: FLOAT32_MAX });

// The last line of defence against a silent NaN: valid, finite inputs can
// still overflow float32 inside the core (huge q.k, an absurd attention
// factor). Such a result is refused with the reason, never returned.
export function finiteResult(what, values, hint) {
  for (let i = 0; i < values.length; i++) {
    if (values[i] - values[i] !== 0)
      throw new RangeError(`${what} overflowed float32 (${what}[${i}] = ${values[i]}): ${hint}`);
  }
  return values;
}
