// Randomised calls to every public function of the library with hostile
// arguments: wrong types, wrong lengths, negative / huge / fractional sizes,
// NaN and Infinity, unknown options, wrong typed-array kinds, detached and
// resizable buffers, Proxies that answer differently on a second read, getters
// that throw, corrupted checkpoints. Every failure must be a TypeError or
// RangeError whose message names an argument (or the caller's own error from a
// throwing getter, passed through untouched); every call that succeeds must
// return what an independent float64 reference computes from the same
// arguments; the wasm heap must stay flat.
//
// Reproduce a failure with POSENC_FUZZ_SEED=<printed seed>; POSENC_FUZZ_SEED=random
// explores a new sequence; POSENC_FUZZ_CALLS sets the number of calls.
import { spawnSync } from 'node:child_process';
import { loadPosenc, ENCODINGS, ENCODING_INFO, TASKS } from '../../web/lib/index.js';
import * as ref from './reference.js';

const SEED = process.env.POSENC_FUZZ_SEED === 'random' ? (Math.random() * 2 ** 32) >>> 0 : Number(process.env.POSENC_FUZZ_SEED ?? 0x5eed0008);
const CALLS = Number(process.env.POSENC_FUZZ_CALLS ?? 12000);
// After the calls, with every model and task deleted: bytes the allocator still
// holds beyond the warmed-up baseline, and growth of the wasm memory itself.
// What remains is the core's one-time scratch reaching a new high-water mark
// (0 to 8.4 KB over the seeds tried, no more after 4x as many calls), not a leak.
const HEAP_BOUND = 4 * 1024; // measured: +0 bytes on the second pass for every seed tried
const MEMORY_BOUND = 0;

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

// ---------------------------------------------------------------- randomness
let rnd = ref.mulberry32(SEED);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const chance = (p) => rnd() < p;
const floats = (n, lo = -1, hi = 1) => Array.from({ length: n }, () => lo + (hi - lo) * rnd());
const ints = (n, lo, hi) => Array.from({ length: n }, () => int(lo, hi));

// ---------------------------------------------------------------- hostile values
class CallerError extends Error {}
const throwingGetter = () => { throw new CallerError('thrown by a caller getter'); };
const detached = (Kind, n) => {
  const buf = new ArrayBuffer(n * Kind.BYTES_PER_ELEMENT);
  const view = new Kind(buf);
  structuredClone(buf, { transfer: [buf] });
  return view;
};
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  return proxy;
};
// Values for any argument: none is valid where a size, a flag or an enum is expected,
// and none is a valid but huge size (those are checked separately: `tooLarge`).
const HOSTILE = [
  undefined, null, NaN, Infinity, -Infinity, -1, -0.5, 0.5, 1.5, 2 ** 31, 2 ** 32, 2 ** 53, 1e9, 1e300, -1e300,
  Number.MAX_VALUE, Number.MIN_VALUE, -(2 ** 31), '8', '', '1e3', 'NaN', '<img src=x onerror=alert(1)>', 'x'.repeat(10000),
  true, false, {}, [], [1, 2], () => 1, Symbol('s'), 10n, new Date(0), /re/, new Map(), Object.create(null),
  new Float32Array(3), new Int32Array(2), new DataView(new ArrayBuffer(4)), new ArrayBuffer(8), Promise.resolve(1),
  { valueOf: () => 4 }, { toString: () => '4' }, new Number(4), new String('rope'), new Boolean(true),
];
const hostile = () => {
  const k = int(0, HOSTILE.length + 2);
  if (k === HOSTILE.length) return revoked();
  if (k === HOSTILE.length + 1) return new Proxy({}, { get: throwingGetter, ownKeys: throwingGetter });
  if (k === HOSTILE.length + 2) return detached(Float32Array, 4);
  return HOSTILE[k];
};

// The values a check should see for an argument built by a mutation that keeps the
// values on the first read (and lies on later ones): the library must read once.
const intended = new WeakMap(); // array -> its values; options object -> Map(key -> value of its once-getter)
const resolve = (v) => {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof ArrayBuffer) return Array.from(new Uint8Array(v));
  const real = intended.get(v);
  if (Array.isArray(real)) return real.slice();
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    try {
      return Array.from(v);
    } catch {
      return []; // a detached buffer: no values
    }
  }
  // The library reads a null or undefined option as "not set": so does the check.
  const entries = Object.keys(v).map((k) => [k, resolve(real?.has(k) ? real.get(k) : v[k])]);
  return Object.fromEntries(entries.filter(([, x]) => x != null));
};
const plainValue = (o, k) => Object.getOwnPropertyDescriptor(o, k)?.value; // never runs a getter
const setOwn = (o, k, value) => Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });

// Proxies made here are never mutated again (reading them to do so would spring them).
const tricks = new WeakSet();
const trick = (p) => (tricks.add(p), p);

// Mutations of an array argument. `float` says whether it holds floats.
function mutateArray(a, float) {
  const n = a.length;
  const nums = a.map((x) => (typeof x === 'number' && Number.isFinite(x) ? x : 0)); // for the conversions
  const kind = int(0, 17);
  switch (kind) {
    case 0: return a.slice(0, Math.max(0, n - 1)); // too short
    case 1: return [...a, 0]; // too long
    case 2: { const b = a.slice(); b[int(0, Math.max(0, n - 1))] = pick([NaN, Infinity, -Infinity, 1e39, -1e300]); return b; }
    case 3: { const b = a.slice(); b[int(0, Math.max(0, n - 1))] = pick(['1', null, undefined, {}, 10n, true]); return b; }
    case 4: return float ? Int8Array.from(nums, Math.round) : Float32Array.from(nums, (x) => x + 0.5); // wrong kind / fractional
    case 5: return BigInt64Array.from(nums, (x) => BigInt(Math.round(x)));
    case 6: return detached(float ? Float32Array : Int32Array, n);
    case 7: return new DataView(new ArrayBuffer(n * 4));
    case 8: { const b = new Array(n); return b; } // holes
    case 9: return Object.assign({ length: n }, a); // array-like, not an array
    case 10: return trick(new Proxy(a.slice(), { get: (t, p) => (p === 'length' || p in t ? throwingGetter() : t[p]) }));
    case 11: { // first read: the real values; later reads: a longer array of NaN
      const seen = new Set();
      const p = new Proxy(a.slice(), {
        get(t, k) {
          if (k === 'length') return seen.has(k) ? n * 1000 : (seen.add(k), n);
          if (typeof k === 'string' && /^\d+$/.test(k)) return seen.has(k) ? NaN : (seen.add(k), t[k]);
          return t[k];
        },
      });
      intended.set(p, a);
      return trick(p);
    }
    case 12: { // a typed array whose own `length` lies
      const b = float ? Float32Array.from(nums) : Int32Array.from(nums);
      Object.defineProperty(b, 'length', { value: n + 1000 });
      intended.set(b, Array.from(b));
      return b;
    }
    case 13: return Uint8ClampedArray.from(nums, (x) => Math.abs(Math.round(x)));
    case 14: return float ? Float64Array.from(nums, (x) => x * 1e300) : Float64Array.from(nums);
    case 15: return new Array(n + 2 ** 16); // long and empty
    case 16: return Array.from(a, String);
    default: return hostile();
  }
}

// Mutate one place of `args` (positional args from `from` on; options objects and
// nested scaling objects are descended into). Returns a short description.
function mutate(args, from = 0) {
  const i = int(from, args.length - 1);
  const [shape, values] = shapeOf(args[i]);
  if (shape === 'object' && chance(0.85)) return `${i}.${mutateObject(args[i])}`;
  if (shape === 'array') {
    args[i] = mutateArray(values, !values.every(Number.isInteger));
    return `${i}:array`;
  }
  args[i] = hostile();
  return `${i}:value`;
}

// 'object' (a plain options object to descend into), 'array' (with its values) or
// 'value' (anything else, including what an earlier mutation made hostile).
function shapeOf(v) {
  try {
    if (v === null || typeof v !== 'object' || tricks.has(v)) return ['value'];
    // (a long array an earlier mutation made is not mutated again: that only costs time)
    if (Array.isArray(v) || ArrayBuffer.isView(v)) return v.length > 4096 ? ['value'] : ['array', Array.from(v)];
    return [Object.getPrototypeOf(v) === Object.prototype && Object.keys(v) ? 'object' : 'value'];
  } catch {
    return ['value'];
  }
}

function mutateObject(o) {
  const keys = Object.keys(o);
  const kind = int(0, 9);
  const k = keys.length ? pick(keys) : 'length';
  if (kind === 0) {
    const key = pick(['lenght', 'rotary_dim', 'Dim', '__proto__', 'constructor', 'x'.repeat(500), '']);
    setOwn(o, key, 1);
    return `unknown key ${key.slice(0, 12)}`;
  }
  if (kind === 1) { delete o[k]; return `-${k}`; }
  if (kind === 2) { Object.defineProperty(o, k, { get: throwingGetter, enumerable: true, configurable: true }); return `${k}:throwing getter`; }
  const v = plainValue(o, k);
  if (kind === 3 && v !== undefined) { // a getter that answers once with the real value, then lies
    let reads = 0;
    Object.defineProperty(o, k, { get: () => (reads++ ? hostile() : v), enumerable: true, configurable: true });
    if (!intended.has(o)) intended.set(o, new Map());
    intended.get(o).set(k, v);
    return `${k}:once getter`;
  }
  const [shape, values] = shapeOf(v);
  if (shape === 'object') return `${k}.${mutateObject(v)}`;
  if (shape === 'array') {
    setOwn(o, k, mutateArray(values, !values.every(Number.isInteger)));
    return `${k}:array`;
  }
  if (intended.get(o)?.has(k)) intended.get(o).delete(k);
  setOwn(o, k, hostile());
  return `${k}:value`;
}

// ---------------------------------------------------------------- checks of results
const within = (got, want, tol, what) => {
  const d = ref.maxAbsDiff(got, want);
  if (!(d <= tol)) throw new Error(`${what}: max difference ${d} > ${tol}`);
};
const typed = (got, Kind, n, what) => {
  if (!(got instanceof Kind) || got.length !== n) throw new Error(`${what}: expected ${Kind.name}(${n}), got ${got?.constructor?.name}(${got?.length})`);
};

const SCALINGS = ['default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope'];
// Words a message about a bad scaling block may name (HF's keys, either spelling).
const SCALING_NAMES = ['scaling', 'rope_type', 'ropeType', 'type', 'factor', 'max_position_embeddings', 'maxPositionEmbeddings',
  'original_max_position_embeddings', 'originalMaxPositionEmbeddings', 'attention_factor', 'beta_fast', 'beta_slow', 'mscale',
  'truncate', 'low_freq_factor', 'high_freq_factor', 'long_factor', 'short_factor', 'longFactor', 'shortFactor', 'rope_theta',
  'lowFreqFactor', 'highFreqFactor', 'betaFast', 'betaSlow', 'attentionFactor', 'seqLen', 'invFreq'];
function validScaling(half) {
  const factor = pick([1, 2, 4, 8, 32, 1000]);
  switch (pick([undefined, ...SCALINGS])) {
    case 'default': return { rope_type: 'default' };
    case 'linear': return { rope_type: 'linear', factor };
    case 'dynamic': return { rope_type: 'dynamic', factor, max_position_embeddings: 64 };
    case 'yarn': return { rope_type: 'yarn', factor, original_max_position_embeddings: 64 };
    case 'llama3': return { type: 'llama3', factor, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 };
    case 'longrope': return { ropeType: 'longrope', longFactor: floats(half, 1, 8), shortFactor: floats(half, 1, 2),
      originalMaxPositionEmbeddings: 64, maxPositionEmbeddings: 64 * factor };
    default: return undefined;
  }
}
// Reference frequencies where a closed form is short (none, default, linear); otherwise
// the library's own (other tests check those against HF), with finiteness checked.
function frequenciesFor(dim, base, scaling) {
  const type = scaling?.rope_type ?? scaling?.type ?? scaling?.ropeType ?? 'default';
  if (type === 'default' || type === 'linear') {
    const f = type === 'linear' ? scaling.factor : 1;
    return { invFreq: ref.invFreqDefault(dim, base).map((x) => x / f), scale: 1, exact: true };
  }
  return null;
}

// ---------------------------------------------------------------- the API under test
const tinyConfig = (encoding) => ({ encoding, layers: 1, heads: 2, dModel: 8, mlpRatio: 1, vocabSize: 7, maxLength: 8, seed: 3,
  learnedPolicy: encoding === 'learned' ? 'clamp' : 'error' });
let models; // encoding -> { model (never trained), baseline logits, trainee (trained by the fuzz) }
const FIXED = Int32Array.of(1, 3, 4, 5, 6, 2, 3, 4);
// Which model a model call uses: one per encoding, or (rarely) one already deleted.
const modelName = () => (chance(0.03) ? 'deleted' : pick(ENCODINGS));

const specs = {
  sinusoidal: {
    names: ['sinusoidal', 'length', 'dim', 'base', 'layout', 'spacing', 'start'],
    valid() {
      const spacing = pick(['paper', 'tensor2tensor']);
      const o = { length: int(0, 12), dim: 2 * int(spacing === 'paper' ? 1 : 2, 8) };
      if (chance(0.5)) o.base = pick([10000, 100, 1.5, 1e6]);
      if (chance(0.5)) o.layout = pick(['interleaved', 'concat']);
      if (chance(0.5) || spacing !== 'paper') o.spacing = spacing;
      if (chance(0.5)) o.start = pick([0, int(0, 100), 1e6, 2 ** 31 - 20]);
      return [o];
    },
    call: (o) => pe.sinusoidal(o),
    check(out, o) {
      typed(out, Float32Array, o.length * o.dim, 'sinusoidal');
      within(out, ref.sinusoidReference(o), 1e-5, 'sinusoidal');
    },
    tooLarge: () => [{ length: 2 ** 24, dim: 2 ** 16 }],
  },
  ropeFrequencies: {
    names: ['ropeFrequencies', 'dim', 'base', ...SCALING_NAMES],
    valid() {
      const dim = 2 * int(1, 8);
      const o = { dim };
      if (chance(0.5)) o.base = pick([10000, 500000, 2]);
      const s = validScaling(dim / 2);
      if (s) o.scaling = s;
      if (chance(0.5)) o.seqLen = pick([1, 64, 1000, 1e6]);
      return [o];
    },
    call: (o) => pe.ropeFrequencies(o),
    check(out, o) {
      typed(out.invFreq, Float32Array, o.dim / 2, 'invFreq');
      if (!(out.attentionScale > 0 && Number.isFinite(out.attentionScale))) throw new Error(`attentionScale ${out.attentionScale}`);
      if (!out.invFreq.every((f) => f >= 0 && Number.isFinite(f))) throw new Error(`invFreq not finite: ${out.invFreq}`);
      const f = frequenciesFor(o.dim, o.base ?? 10000, o.scaling);
      // relative to the reference, or (below float32's normal range, e.g. base 1e300) flushed towards 0
      if (f) within(Array.from(out.invFreq, (x, i) => (f.invFreq[i] < 1.2e-38 ? x : x / f.invFreq[i])),
        f.invFreq.map((x) => (x < 1.2e-38 ? 0 : 1)), 1e-6, 'invFreq / reference');
    },
    tooLarge: () => [{ dim: 2 ** 17 }],
  },
  applyRope: {
    names: ['applyRope', 'x', 'length', 'dim', 'positions', 'layout', 'base', 'rotaryDim', 'rotary_dim', ...SCALING_NAMES],
    valid() {
      const length = int(0, 6), dim = 2 * int(1, 6);
      const o = { length, dim };
      if (chance(0.5)) o.rotaryDim = 2 * int(1, dim / 2);
      if (chance(0.5)) o.layout = pick(['interleaved', 'half']);
      if (chance(0.5)) o.positions = ints(length, 0, pick([10, 1e6, 2 ** 31 - 1]));
      if (chance(0.3)) o.base = pick([10000, 500000, 2]);
      const s = validScaling((o.rotaryDim ?? dim) / 2);
      if (s) o.scaling = s;
      if (chance(0.3)) o.seqLen = pick([1, 64, 1e6]);
      return [pick([(a) => a, (a) => Float32Array.from(a), (a) => Float64Array.from(a)])(floats(length * dim, -2, 2)), o];
    },
    call: (x, o) => pe.applyRope(x, o),
    check(out, x, o) {
      typed(out, Float32Array, o.length * o.dim, 'applyRope');
      const rd = o.rotaryDim ?? o.dim;
      const f = frequenciesFor(rd, o.base ?? 10000, o.scaling) ?? (() => {
        const lib = pe.ropeFrequencies({ dim: rd, base: o.base, scaling: o.scaling, seqLen: o.seqLen });
        return { invFreq: Array.from(lib.invFreq64), scale: lib.attentionScale };
      })();
      const far = o.positions?.some((p) => p > 1e5);
      const size = Math.max(1, ...x.map(Math.abs)); // float32 rounding grows with |x|
      within(out, ref.ropeReference(x, { ...o, rotaryDim: rd, invFreq: f.invFreq, scale: f.scale }), (far ? 1e-4 : 1e-5) * 2 * size * f.scale, 'applyRope');
    },
    tooLarge: () => [new Float32Array(0), { length: 1e6, dim: 128 }],
  },
  alibiSlopes: {
    names: ['heads'],
    valid: () => [int(1, 64)],
    call: (h) => pe.alibiSlopes(h),
    check(out, h) {
      typed(out, Float32Array, h, 'alibiSlopes');
      within(out, ref.alibiSlopesReference(h), 1e-7, 'alibiSlopes');
    },
    tooLarge: () => [2 ** 20],
  },
  alibiBias: {
    names: ['alibiBias', 'heads', 'queryLength', 'keyLength', 'causal', 'query_length', 'key_length'],
    valid() {
      const tq = int(0, 6);
      const o = { heads: int(1, 4), queryLength: tq };
      if (chance(0.5)) o.keyLength = tq + int(0, 3);
      if (chance(0.5)) o.causal = chance(0.5);
      return [o];
    },
    call: (o) => pe.alibiBias(o),
    check(out, o) {
      typed(out, Float32Array, o.heads * o.queryLength * (o.keyLength ?? o.queryLength), 'alibiBias');
      within(out, ref.alibiBiasReference(o), 1e-6, 'alibiBias');
    },
    tooLarge: () => [{ heads: 64, queryLength: 1e6, keyLength: 1e6 }],
  },
  t5Bucket: {
    names: ['relative', 't5Bucket', 'bidirectional', 'numBuckets', 'maxDistance', 'num_buckets', 'max_distance'],
    valid() {
      const o = {};
      if (chance(0.5)) o.bidirectional = chance(0.5);
      const bidirectional = o.bidirectional ?? true;
      if (chance(0.6)) {
        o.numBuckets = int(bidirectional ? 4 : 2, 64);
        const maxExact = Math.floor((bidirectional ? Math.floor(o.numBuckets / 2) : o.numBuckets) / 2);
        o.maxDistance = maxExact + int(1, 500);
      }
      const rel = chance(0.2) ? int(-300, 300) : ints(int(0, 8), -pick([10, 1000, 2 ** 31 - 1]), pick([10, 1000, 2 ** 31 - 1]));
      return [rel, o];
    },
    call: (rel, o) => pe.t5Bucket(rel, o),
    check(out, rel, o) {
      const list = [].concat(rel);
      typed(out, Int32Array, list.length, 't5Bucket');
      list.forEach((r, i) => {
        const [want, exact] = ref.t5BucketReference(r, o);
        if (out[i] !== want && (exact || Math.abs(out[i] - want) > 1)) throw new Error(`t5Bucket(${r}) = ${out[i]}, want ${want}`);
      });
    },
    tooLarge: () => [new Array(2 ** 26 + 1)],
  },
  shawIndex: {
    names: ['shawIndex', 'queryLength', 'keyLength', 'maxDistance', 'max_distance', 'query_length', 'key_length'],
    valid() {
      const tq = int(0, 6);
      const o = { queryLength: tq, maxDistance: pick([1, int(1, 10), 2 ** 30 - 1]) };
      if (chance(0.5)) o.keyLength = tq + int(0, 3);
      return [o];
    },
    call: (o) => pe.shawIndex(o),
    check(out, o) {
      typed(out, Int32Array, o.queryLength * (o.keyLength ?? o.queryLength), 'shawIndex');
      within(out, ref.shawIndexReference(o), 0, 'shawIndex');
    },
    tooLarge: () => [{ queryLength: 1e6, keyLength: 1e6, maxDistance: 16 }],
  },
  learnedLookup: {
    names: ['table', 'learnedLookup', 'rows', 'dim', 'positions', 'outOfRange', 'position'],
    valid() {
      const rows = int(1, 6), dim = int(1, 5);
      const o = { rows, dim };
      if (chance(0.6)) o.outOfRange = pick(['error', 'clamp', 'zero']);
      o.positions = ints(int(0, 6), 0, (o.outOfRange ?? 'error') === 'error' ? rows - 1 : rows + 3);
      return [floats(rows * dim, -3, 3), o];
    },
    call: (t, o) => pe.learnedLookup(t, o),
    check(out, t, o) {
      typed(out, Float32Array, o.positions.length * o.dim, 'learnedLookup');
      within(out, ref.learnedReference(t, o), 1e-6, 'learnedLookup');
    },
    tooLarge: () => [new Float32Array(0), { rows: 2 ** 24, dim: 2 ** 16, positions: [0] }],
  },
  attention: {
    names: ['attention', 'q', 'k', 'queryLength', 'keyLength', 'dim', 'scale', 'causal', 'alibiSlope', 'bias'],
    valid() {
      const tq = int(1, 5), tk = tq + int(0, 2), d = int(1, 8);
      const o = { queryLength: tq, dim: d };
      if (tk !== tq || chance(0.3)) o.keyLength = tk;
      if (chance(0.4)) o.scale = pick([0.1, 1, 4, -1]);
      if (chance(0.4)) o.causal = chance(0.5);
      if (chance(0.4)) o.alibiSlope = pick([0, 0.25, 1]);
      if (chance(0.3)) o.bias = floats(tq * tk);
      return [floats(tq * d), floats(tk * d), o];
    },
    call: (q, k, o) => pe.attention(q, k, o),
    check(out, q, k, o) {
      typed(out, Float32Array, o.queryLength * (o.keyLength ?? o.queryLength), 'attention');
      // float32 scores up to |scale|*d = 32 carry ~2e-6 relative error into exp: 3e-5 absolute on probabilities
      within(out, ref.attentionReference(q, k, o), 3e-5, 'attention');
    },
    tooLarge: () => [new Float32Array(0), new Float32Array(0), { queryLength: 1e6, dim: 64 }],
  },
  createModel: {
    names: ['createModel', 'encoding', 'layers', 'heads', 'dModel', 'mlpRatio', 'vocabSize', 'maxLength', 'seed', 'ropeLayout',
      'ropeBase', 'rotaryDim', 't5NumBuckets', 't5MaxDistance', 'shawK', 'learnedPolicy', 'model too large', 'head dim'],
    valid() {
      const heads = pick([1, 2, 4]);
      const o = { encoding: pick(ENCODINGS), heads, dModel: heads * 2 * int(1, 3), vocabSize: int(2, 12) };
      if (chance(0.5)) o.layers = int(1, 2);
      if (chance(0.5)) o.maxLength = int(1, 16);
      if (chance(0.5)) o.mlpRatio = int(1, 3);
      if (chance(0.5)) o.seed = int(0, 1e6);
      if (chance(0.3)) o.ropeLayout = pick(['interleaved', 'half']);
      if (chance(0.3)) o.learnedPolicy = pick(['error', 'clamp', 'zero']);
      if (chance(0.3)) o.shawK = int(0, 8);
      return [o];
    },
    call: (o) => {
      const m = pe.createModel(o);
      try {
        return { config: m.config, logits: m.forward([0, 1], { length: 2 }).logits, again: sameWeights(m, resolve(o)) };
      } finally {
        m.delete();
      }
    },
    check(out, o) {
      for (const [k, v] of Object.entries(o)) if (v !== undefined && out.config[k] !== v) throw new Error(`config.${k} = ${out.config[k]}, asked ${v}`);
      typed(out.logits, Float32Array, 2 * o.vocabSize, 'logits');
      if (!out.again) throw new Error('the same config and seed gave different weights');
    },
    tooLarge: () => [{ vocabSize: 65536, dModel: 4096, layers: 64 }],
  },
  trainStep: {
    plumbing: 1, // args[0] picks the model; not an API argument
    names: ['deleted', 'trainStep', 'tokens', 'targets', 'batch', 'length', 'lr', 'T', 'B', 'maxLength', 'learned'],
    valid() {
      const batch = int(1, 2), length = int(1, 8);
      const o = { length };
      if (batch > 1 || chance(0.3)) o.batch = batch;
      if (chance(0.5)) o.lr = pick([0, 1e-3, 1e-2]);
      return [modelName(), ints(batch * length, 0, 6), ints(batch * length, -1, 6), o];
    },
    call: (enc, tokens, targets, o) => {
      const m = models[enc].trainee;
      return { loss: m.trainStep(tokens, targets, o), last: m.lastStep };
    },
    check(out, enc, tokens, targets) {
      const scored = targets.filter((t) => t >= 0).length;
      if (!(out.loss >= 0 && Number.isFinite(out.loss)) || out.last.scored !== scored) throw new Error(`loss ${out.loss}, scored ${out.last.scored} of ${scored}`);
      if (!(out.last.accuracy >= 0 && out.last.accuracy <= 1)) throw new Error(`accuracy ${out.last.accuracy}`);
    },
    tooLarge: () => ['rope', new Int32Array(16384), new Int32Array(16384), { length: 16384 }],
  },
  forward: {
    plumbing: 1,
    names: ['deleted', 'forward', 'tokens', 'batch', 'length', 'attention', 'ropeScaling', 'rope', 'T', 'B', 'limit', 'learned', 'maxLength',
      'logits', ...SCALING_NAMES],
    valid() {
      const enc = modelName();
      const batch = int(1, 2), length = int(1, 12);
      const o = { length };
      if (batch > 1 || chance(0.3)) o.batch = batch;
      if (chance(0.4)) o.attention = chance(0.5);
      if (enc === 'rope' && chance(0.5)) o.ropeScaling = validScaling(2);
      if (o.ropeScaling === undefined) delete o.ropeScaling;
      return [enc, chance(0.2) && batch === 1 ? FIXED.slice(0, length) : ints(batch * length, 0, 6), o];
    },
    call: (enc, tokens, o) => models[enc].model.forward(tokens, o),
    check(out, enc, tokens, o) {
      const { length, batch = 1 } = o;
      typed(out.logits, Float32Array, batch * length * 7, 'logits');
      if (o.attention) typed(out.attention, Float32Array, 2 * length * length, 'attention');
      else if (out.attention !== null) throw new Error('attention maps without attention: true');
      const base = models[enc].baseline;
      // Causal: the first `length` positions of FIXED give the first rows of the full-length logits
      // (unless the encoding's positions depend on the length: the registry's prefixStable).
      const stable = ENCODING_INFO.find((e) => e.name === enc)?.prefixStable ?? true;
      if (stable && batch === 1 && !o.ropeScaling && tokens.every((t, i) => t === FIXED[i]))
        within(out.logits, base.subarray(0, length * 7), 2e-5, `${enc} logits against the pre-fuzz baseline`);
    },
    tooLarge: () => ['rope', new Int32Array(16384), { length: 16384, attention: true }],
  },
  evaluate: {
    plumbing: 1,
    names: ['deleted', 'evaluate', 'tokens', 'targets', 'batch', 'length', 'attention', 'ropeScaling', 'rope', 'T', 'B', 'limit', 'learned',
      'maxLength', 'loss', ...SCALING_NAMES],
    valid() {
      const batch = int(1, 2), length = int(1, 8);
      const o = { length };
      if (batch > 1 || chance(0.3)) o.batch = batch;
      return [modelName(), ints(batch * length, 0, 6), ints(batch * length, -1, 6), o];
    },
    call: (enc, tokens, targets, o) => models[enc].model.evaluate(tokens, targets, o),
    check(out, enc, tokens, targets) {
      const scored = targets.filter((t) => t >= 0).length;
      if (out.scored !== scored || !(out.correct <= scored) || !Number.isFinite(out.loss) || out.loss < 0) throw new Error(`evaluate ${JSON.stringify(out)}`);
    },
    tooLarge: () => ['none', new Int32Array(16384), new Int32Array(16384), { length: 16384, attention: true }],
  },
  positionStatus: {
    plumbing: 1,
    names: ['deleted', 'length', 'T'],
    valid: () => [modelName(), int(0, 40)],
    call: (enc, n) => models[enc].model.positionStatus(n),
    check(out, enc, n) {
      typed(out, Uint8Array, n, 'positionStatus');
      if (!out.every((s) => s <= 2)) throw new Error(`status ${out}`);
    },
    tooLarge: () => ['rope', 1e6],
  },
  loadModel: {
    names: ['bytes', 'checkpoint'],
    valid() {
      const bytes = models[pick(ENCODINGS)].bytes.slice();
      return [pick([(b) => b, (b) => b.buffer])(bytes)];
    },
    call(bytes) {
      const m = pe.loadModel(bytes);
      try {
        return m.forward(FIXED, { length: 8 }).logits;
      } finally {
        m.delete();
      }
    },
    check(out, bytes) {
      const enc = ENCODINGS.find((e) => Buffer.from(models[e].bytes).equals(Buffer.from(bytes)));
      if (!enc) throw new Error('a corrupted checkpoint was accepted');
      within(out, models[enc].baseline, 0, 'logits of a reloaded checkpoint');
    },
    // Checkpoint-specific corruption, in place of the generic mutations half the time.
    corrupt(args) {
      const b = (shapeOf(args[0])[0] === 'array' && args[0] instanceof Uint8Array ? args[0] : models.rope.bytes).slice();
      const kind = int(0, 3);
      if (kind === 0) args[0] = b.slice(0, int(0, b.length - 1));
      else if (kind === 1) { b[int(0, b.length - 1)] ^= 1 << int(0, 7); args[0] = b; }
      else if (kind === 2) { b[4] = pick([0, 2, 9, 255]); args[0] = b; }
      else args[0] = Uint8Array.from({ length: int(0, 400) }, () => int(0, 255));
      return `checkpoint ${['truncated', 'bit flip', 'version', 'garbage'][kind]}`;
    },
  },
  createTask: {
    names: ['createTask', 'task', 'symbols', 'variableLength', 'depth', 'packed', 'scoreRepeats', 'order', 'branching', 'tableSeed',
      'seed', 'sample', 'batch', 'length', 'symbol'],
    valid() {
      const o = { task: pick(TASKS), symbols: int(4, 12) };
      if (chance(0.5)) o.seed = int(0, 1000);
      if (chance(0.3)) o.variableLength = chance(0.5);
      return [o, { batch: int(1, 3), length: int(24, 40) }];
    },
    call(o, s) {
      const task = pe.createTask(o);
      try {
        return { vocab: task.vocabSize, ...task.sample(s) };
      } finally {
        task.delete();
      }
    },
    check(out, o, s) {
      typed(out.tokens, Int32Array, (s.batch ?? 1) * s.length, 'tokens');
      typed(out.targets, Int32Array, (s.batch ?? 1) * s.length, 'targets');
      if (!out.tokens.every((t) => t >= 0 && t < out.vocab) || !out.targets.every((t) => t >= -1 && t < out.vocab)) throw new Error('token out of the vocabulary');
    },
    tooLarge: () => [{}, { batch: 4096, length: 16385 }],
  },
  taskOracle: {
    names: ['createTask', 'task', 'symbols', 'variableLength', 'depth', 'packed', 'scoreRepeats', 'order', 'branching', 'tableSeed',
      'seed', 'symbol', 'oracle', 'tokens', 'targets', 'batch', 'length'],
    valid() {
      const o = { task: pick(TASKS), symbols: int(4, 12), seed: int(0, 1000) };
      const batch = int(1, 3), length = int(24, 40);
      const task = pe.createTask(o);
      try {
        return [o, { ...task.sample({ batch, length }), batch, length }];
      } finally {
        task.delete();
      }
    },
    call(o, b) {
      const task = pe.createTask(o);
      try {
        return task.oracle(b);
      } finally {
        task.delete();
      }
    },
    check(out, o) {
      if (!(out.loss >= 0 && out.accuracy > 0 && out.accuracy <= 1 && Number.isInteger(out.scored))) throw new Error(JSON.stringify(out));
      const task = o?.task ?? 'copy';
      if (task !== 'markov' && (out.loss !== 0 || out.accuracy !== 1)) throw new Error(`oracle of ${task}: ${JSON.stringify(out)}`);
    },
  },
  taskInfo: {
    names: ['taskInfo', 'task', 'symbols', 'variableLength', 'depth', 'packed', 'scoreRepeats', 'order', 'branching', 'tableSeed', 'seed', 'symbol'],
    valid: () => [{ task: pick(TASKS), symbols: int(4, 12) }],
    call: (o) => pe.taskInfo(o),
    check(out) {
      if (!(Number.isInteger(out.vocabSize) && out.vocabSize >= 3 && Number.isInteger(out.minLength))) throw new Error(JSON.stringify(out));
    },
  },
  lrAt: {
    names: ['step', 'total', 'warmup', 'maxLr', 'minLr'],
    valid() {
      const total = int(1, 100), maxLr = pick([0, 1e-3, 6e-3, 1]);
      return [int(0, 120), total, int(0, total), maxLr, maxLr * rnd()];
    },
    call: (...a) => pe.lrAt(...a),
    check(out, step, total, warmup, maxLr, minLr) {
      let want = minLr;
      if (step < warmup) want = (maxLr * (step + 1)) / warmup;
      else if (step < total && total > warmup) want = minLr + 0.5 * (1 + Math.cos((Math.PI * (step - warmup)) / (total - warmup))) * (maxLr - minLr);
      within([out], [want], 1e-6 * Math.max(1, maxLr), 'lrAt');
    },
    tooLarge: () => [2 ** 60, 1, 0, 1, 0],
  },
};
const sameWeights = (m, o) => chance(0.1) ? (() => {
  const twin = pe.createModel(o);
  try {
    return Buffer.from(twin.save()).equals(Buffer.from(m.save()));
  } finally {
    twin.delete();
  }
})() : true;

// train() is async: its own, smaller loop below.
const trainSpec = {
  names: ['model', 'Model', 'vocabSize', 'train', 'task', 'symbols', 'steps', 'batch', 'length', 'lr', 'minLr', 'warmup', 'onProgress', 'signal',
    'progressEvery', 'targetAccuracy', 'stop', 'every', 'accuracy', 'lossAboveOracle', 'seed', 'variableLength', 'depth', 'packed', 'scoreRepeats', 'order', 'branching', 'tableSeed',
    'T', 'maxLength', 'learned', 'symbol'],
  valid: () => [pick(ENCODINGS), { task: 'copy', symbols: 4, steps: int(1, 3), batch: int(1, 2), length: 8, lr: 1e-3, progressEvery: 1,
    onProgress: () => {}, ...(chance(0.3) ? { stop: { every: int(1, 2), batch: int(1, 4), seed: 99, ...(chance(0.5) ? { accuracy: 0.99 } : { lossAboveOracle: 0.1 }) } } : {}) }],
};

// ---------------------------------------------------------------- the runner
const stats = { calls: 0, ok: 0, TypeError: 0, RangeError: 0, caller: 0, tooLarge: 0 };
const heapBy = {}; // function -> heap bytes its calls left behind (to say where a leak is)
const failures = [];
function classify(e, names, what) {
  if (e instanceof CallerError) return stats.caller++;
  const cls = e instanceof RangeError ? 'RangeError' : e instanceof TypeError ? 'TypeError' : null;
  const message = typeof e?.message === 'string' ? e.message : '';
  // A revoked Proxy makes the engine itself throw a TypeError that says so.
  if (!cls || !message || !(names.some((n) => message.includes(n)) || (cls === 'TypeError' && message.includes('revoked'))))
    return failures.push(`${what}: ${cls ?? (e?.constructor?.name ?? typeof e)}: ${message || String(e)}`);
  stats[cls]++;
}

function runOne(name, spec) {
  const heap = pe.heapBytes();
  try {
    runCall(name, spec);
  } finally {
    heapBy[name] = (heapBy[name] ?? 0) + pe.heapBytes() - heap;
  }
}

function runCall(name, spec) {
  const args = spec.valid();
  let what = name;
  const rounds = chance(0.1) ? 0 : chance(0.8) ? 1 : 2;
  for (let r = 0; r < rounds; r++) what += `${r ? ',' : ':'} ${spec.corrupt && chance(0.5) ? spec.corrupt(args) : mutate(args, spec.plumbing)}`;
  stats.calls++;
  let out;
  try {
    out = spec.call(...args);
  } catch (e) {
    return classify(e, spec.names, what);
  }
  stats.ok++;
  try {
    if (args[0] === 'deleted') throw new Error('a deleted model answered');
    spec.check(out, ...args.map(resolve));
  } catch (e) {
    failures.push(`${what}: accepted and returned a wrong result: ${e.message}; arguments ${describe(args)}`);
  }
}

const describe = (args) => {
  try {
    return JSON.stringify(args.map(resolve)).slice(0, Number(process.env.POSENC_FUZZ_ARGS ?? 400));
  } catch {
    return '(unreadable)';
  }
};

function runTooLarge(name, spec) {
  stats.calls++;
  try {
    spec.call(...spec.tooLarge());
    failures.push(`${name}: a too-large request was accepted`);
  } catch (e) {
    if (e instanceof RangeError && /limit|too large|MB|at most|must be|length/.test(e.message)) stats.tooLarge++;
    else failures.push(`${name} too large: ${e?.constructor?.name}: ${e?.message}`);
  }
}

test(`${CALLS} randomised calls fail only with named TypeError/RangeError, valid ones stay exact, heap flat (seed ${SEED})`, async () => {
  console.log(`fuzz seed ${SEED} (POSENC_FUZZ_SEED=${SEED} reproduces), ${CALLS} calls`);
  const names = Object.keys(specs);
  // One pass of the workload: fresh models, CALLS calls and 200 train() runs from the seed, then the checks.
  async function pass() {
    rnd = ref.mulberry32(SEED);
    makeModels();
    for (let i = 0; i < CALLS; i++) {
      const name = pick(names);
      if (specs[name].tooLarge && chance(0.02)) runTooLarge(name, specs[name]);
      else runOne(name, specs[name]);
    }
    // train(): async, fewer calls (each valid one runs up to 3 steps).
    for (let i = 0; i < 200; i++) {
      const [enc, o] = trainSpec.valid();
      const args = [models[enc].trainee, o];
      let what = 'train valid';
      if (chance(0.15)) {
        args[0] = pick([hostile(), models.deleted.model, { trainStep() {}, config: { maxLength: 8 } }]);
        what = 'train: not a model';
      } else if (!chance(0.1)) what = `train ${mutate(args, 1)}`;
      stats.calls++;
      try {
        const r = await pe.train(...args);
        stats.ok++;
        if (!(r.steps >= 1 && Number.isFinite(r.loss))) failures.push(`${what}: result ${JSON.stringify(r)}`);
      } catch (e) {
        classify(e, trainSpec.names, what);
      }
    }

    // The untouched models still give their pre-fuzz logits, bit for bit, and reload from their checkpoints.
    for (const enc of ENCODINGS) {
      within(models[enc].model.forward(FIXED, { length: 8 }).logits, models[enc].baseline, 0, `${enc} after the fuzz`);
      const again = pe.loadModel(models[enc].bytes);
      within(again.forward(FIXED, { length: 8 }).logits, models[enc].baseline, 0, `${enc} reloaded after the fuzz`);
      again.delete();
    }
    const x = Float32Array.from([1, 0, 0, 1, 0.5, -2]);
    within(pe.applyRope(x, { length: 3, dim: 2, positions: [1, 1000000, 7] }),
      ref.ropeReference(x, { length: 3, dim: 2, positions: [1, 1e6, 7], invFreq: [1] }), 1e-6, 'RoPE after the fuzz');

    deleteModels(models);
  }
  // The same pass twice: the first brings buffers that grow to the largest size seen (the kernels' scratch,
  // kept for the next call; the allocator's free lists) to their high-water mark, so whatever the second,
  // identical pass leaves behind is a leak, not a one-time cost.
  await pass();
  Object.assign(stats, { calls: 0, ok: 0, TypeError: 0, RangeError: 0, caller: 0, tooLarge: 0 });
  for (const k of Object.keys(heapBy)) delete heapBy[k];
  const heap0 = pe.heapBytes(), memory0 = pe.memoryBytes();
  await pass(); // the same calls, give or take the few that depend on state outside the seed
  const heapGrowth = pe.heapBytes() - heap0, memoryGrowth = pe.memoryBytes() - memory0;
  console.log(`fuzz: ${stats.calls} calls: ${stats.ok} returned (each checked against a reference), ${stats.TypeError} TypeError, ` +
    `${stats.RangeError} RangeError, ${stats.tooLarge} too-large requests refused, ${stats.caller} caller errors passed through; ` +
    `heap ${heapGrowth >= 0 ? '+' : ''}${heapGrowth} bytes, wasm memory +${memoryGrowth} bytes; ${failures.length} failures`);
  expect(failures.slice(0, 20)).toEqual([]);
  expect(stats.calls).toBeGreaterThanOrEqual(10000);
  expect(stats.ok).toBeGreaterThan(500); // the valid paths were exercised too
  if (heapGrowth > HEAP_BOUND) console.log('heap left behind, by function:', heapBy);
  expect(heapGrowth).toBeLessThanOrEqual(HEAP_BOUND);
  expect(memoryGrowth).toBeLessThanOrEqual(MEMORY_BOUND);
});

function makeModels() {
  models = Object.fromEntries(ENCODINGS.map((enc) => {
    const model = pe.createModel(tinyConfig(enc));
    return [enc, { model, trainee: pe.createModel(tinyConfig(enc)), baseline: model.forward(FIXED, { length: 8 }).logits, bytes: model.save({ weights: 'float32' }) }];
  }));
  const gone = pe.createModel(tinyConfig('rope'));
  gone.delete();
  models.deleted = { model: gone, trainee: gone };
  return models;
}

function deleteModels(set) {
  for (const { model, trainee } of Object.values(set)) { // (deleting twice is allowed)
    model.delete();
    trainee.delete();
  }
}

test('arguments that change under the library are read once: Proxies, lying lengths, buffers resized by a later read', () => {
  const x = [1, 0, 0, 1, 0.5, -2];
  const want = ref.ropeReference(x, { length: 3, dim: 2, invFreq: [1] });
  // A Proxy that answers the real values first, then NaN and a length 1000x longer.
  let reads = 0;
  const lying = new Proxy(x.slice(), { get: (t, k) => (k === 'length' ? (reads++ ? 6000 : 6) : reads > 7 ? NaN : (reads++, t[k])) });
  within(pe.applyRope(lying, { length: 3, dim: 2 }), want, 1e-6, 'applyRope(lying Proxy)');
  // A typed array with an own `length` property that lies.
  const shadowed = Float32Array.from(x);
  Object.defineProperty(shadowed, 'length', { value: 1 << 20 });
  within(pe.applyRope(shadowed, { length: 3, dim: 2 }), want, 1e-6, 'applyRope(shadowed length)');
  // q lives in a resizable buffer; reading k (a Proxy) grows that buffer and fills it with NaN.
  const buf = new ArrayBuffer(4 * 4, { maxByteLength: 4 * 4096 });
  const q = new Float32Array(buf); // length-tracking
  q.set([0.5, -1, 2, 0.25]);
  const kv = [1, 0, 0.5, 0.5];
  const k = new Proxy(kv.slice(), { get: (t, key) => {
    if (key === '0') { buf.resize(4 * 4096); q.fill(NaN); }
    return t[key];
  } });
  const opts = { queryLength: 2, dim: 2 };
  within(pe.attention(q, k, opts), ref.attentionReference([0.5, -1, 2, 0.25], kv, opts), 1e-6, 'attention(resized q)');
  // Options whose getters answer differently on each read.
  let n = 0;
  const shifty = { get length() { return n++ ? 1e9 : 3; }, dim: 2 };
  within(pe.applyRope(x, shifty), want, 1e-6, 'applyRope(shifty options)');
});

test('filling the whole 2 GB wasm memory gives RangeErrors, never an abort, and the module still works (own process)', () => {
  const child = spawnSync(process.execPath, [new URL('./children/exhaust.mjs', import.meta.url).pathname], { encoding: 'utf8', timeout: 120_000 });
  expect(child.stderr).toBe('');
  const r = JSON.parse(child.stdout.trim().split('\n').at(-1));
  console.log(`memory exhausted at ${r.memoryFull / 2 ** 20} MB after ${r.created} models: ${r.errors.join(' | ')}`);
  expect(r.memoryFull).toBe(2 ** 31);
  expect(r.created).toBeGreaterThanOrEqual(2);
  expect(r.errors.length).toBeGreaterThanOrEqual(2);
  for (const e of r.errors) expect(e).toMatch(/^RangeError: out of memory/);
  expect(r.heapAfter).toBeLessThan(1 << 20); // everything came back
  within(r.table, [0, 1, Math.sin(1), Math.cos(1)], 1e-6, 'sinusoid after exhaustion');
}, 120_000);

test('loadPosenc refuses bad options with TypeError/RangeError and a bad .wasm with a readable rejection', async () => {
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  const warn = console.warn;
  console.warn = () => {}; // the Emscripten glue reports the failed compile too
  try {
    await expect(loadPosenc(5)).rejects.toThrow(TypeError);
    await expect(loadPosenc(null)).rejects.toThrow(TypeError);
    await expect(loadPosenc({ build: 'fast' })).rejects.toThrow(RangeError);
    await expect(loadPosenc({ wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 2]) })).rejects.toThrow(/could not load the wasm module/);
    await expect(loadPosenc({ wasmBinary: new Uint8Array(0) })).rejects.toThrow(/could not load the wasm module/);
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    console.warn = warn;
    process.off('unhandledRejection', onUnhandled);
  }
  expect(unhandled).toEqual([]);
  expect(Array.from(pe.alibiSlopes(2))).toEqual([2 ** -4, 2 ** -8]); // the loaded module is unaffected
});
