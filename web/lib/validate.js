// Argument checks shared by every entry point. Each failure is a TypeError
// (wrong kind of value) or a RangeError (right kind, outside the allowed
// range), and the message names the argument and what is allowed.

const show = (v) => {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (typeof v === 'number' || typeof v === 'boolean' || v == null) return String(v);
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.length})`;
  if (Array.isArray(v)) return `Array(${v.length})`;
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

export function number(name, v, { min = -Infinity, max = Infinity, minExclusive = false } = {}) {
  const range = `${minExclusive ? '>' : '>='} ${min}${max < Infinity ? ` and <= ${max}` : ''}`;
  if (typeof v !== 'number') throw new TypeError(`${name} must be a finite number ${range} (got ${show(v)})`);
  if (!Number.isFinite(v) || (minExclusive ? v <= min : v < min) || v > max)
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

export function options(name, v) {
  if (v === undefined) return {};
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new TypeError(`${name} must be an options object (got ${show(v)})`);
  return v;
}

// Reject keys we do not know, so a typo ('rotary_dim' vs 'rotaryDim') is not silently ignored.
export function knownKeys(name, obj, keys) {
  for (const k of Object.keys(obj)) {
    if (!keys.includes(k)) throw new RangeError(`${name} has an unknown option '${k}': allowed ${keys.join(', ')}`);
  }
}

// A numeric array of exactly `length` finite values (typed array or plain array).
export function floatArray(name, v, length) {
  if (!(ArrayBuffer.isView(v) && !(v instanceof DataView)) && !Array.isArray(v))
    throw new TypeError(`${name} must be a Float32Array or an array of numbers (got ${show(v)})`);
  if (v.length !== length) throw new RangeError(`${name} must have length ${length} (got ${v.length})`);
  const typed = v instanceof Float32Array || v instanceof Float64Array;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!typed && typeof x !== 'number') throw new TypeError(`${name}[${i}] must be a number (got ${show(x)})`);
    if (x - x !== 0) throw new RangeError(`${name}[${i}] must be finite (got ${show(x)})`); // NaN or +-Infinity
  }
  return v;
}

export function intArray(name, v, length, min, max) {
  if (!(ArrayBuffer.isView(v) && !(v instanceof DataView)) && !Array.isArray(v))
    throw new TypeError(`${name} must be an Int32Array or an array of integers (got ${show(v)})`);
  if (length !== undefined && v.length !== length) throw new RangeError(`${name} must have length ${length} (got ${v.length})`);
  const typed = v instanceof Int32Array || v instanceof Uint16Array || v instanceof Uint8Array || v instanceof Int16Array;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typed) {
      if (x < min || x > max) throw new RangeError(`${name}[${i}] must be an integer in [${min}, ${max}] (got ${x})`);
      continue;
    }
    if (typeof x !== 'number') throw new TypeError(`${name}[${i}] must be an integer in [${min}, ${max}] (got ${show(x)})`);
    if (!Number.isInteger(x) || x < min || x > max)
      throw new RangeError(`${name}[${i}] must be an integer in [${min}, ${max}] (got ${show(x)})`);
  }
  return v;
}

// Refuse requests whose output would not fit, up front, instead of letting
// the allocation abort the module.
export const MAX_ELEMENTS = 2 ** 26; // 64 Mi values = 256 MiB of float32
export function elementBudget(what, count) {
  if (count > MAX_ELEMENTS)
    throw new RangeError(`${what} would have ${count} values, more than the limit of ${MAX_ELEMENTS}; ask for a smaller size`);
  return count;
}
