// The encoding functions of the public API, on top of a loaded wasm module.
// Each one validates its arguments, moves whole arrays across the boundary
// inside a `scope` (so nothing leaks, even on error) and returns fresh JS
// typed arrays that stay valid however the wasm heap grows later.
import * as v from './validate.js';
import { scope, check } from './memory.js';
import { normaliseScaling } from './scaling.js';
import { createRopeConfig } from './rope-config.js';

const MAX_LEN = 2 ** 24; // positions / lengths
const MAX_DIM = 2 ** 16;
const MAX_POS = 2 ** 31 - 1;
const MAX_HEADS = 4096;

/** A caller's output buffer: a Float32Array of exactly n values. */
export function outputArray(name, out, n) {
  if (!(out instanceof Float32Array)) throw new TypeError(`${name} must be a Float32Array of ${n} values (got ${v.show(out)})`);
  if (out.length !== n) throw new RangeError(`${name} must have length ${n} (got ${out.length})`);
  return out;
}

/** Copies n = out.length floats at address p of wasm memory into out; returns out. */
export function copyInto(mod, p, out) {
  out.set(mod.HEAPF32.subarray(p / 4, p / 4 + out.length));
  return out;
}

// The position tables and indices of the absolute and bias encodings: sinusoidal, learned, ALiBi, T5, Shaw.
function createPositionTables(mod) {
  function sinusoidal(opts) {
    const o = v.options('sinusoidal options', opts);
    v.knownKeys('sinusoidal options', o, ['length', 'dim', 'base', 'layout', 'spacing', 'start']);
    const length = v.integer('length', o.length, 0, MAX_LEN);
    const dim = v.integer('dim', o.dim, 2, MAX_DIM); // odd: one more channel, as tensor2tensor pads (see sinusoidal.cpp)
    const base = v.number('base', o.base ?? 10000, { min: 1, minExclusive: true });
    const layout = v.oneOf('layout', o.layout ?? 'interleaved', ['interleaved', 'concat']);
    const spacing = v.oneOf('spacing', o.spacing ?? 'paper', ['paper', 'tensor2tensor']);
    const start = v.integer('start', o.start ?? 0, 0, MAX_POS);
    const n = v.elementBudget('sinusoidal(length*dim)', length * dim);
    return scope(mod, (m) => {
      const out = m.put('f32', n);
      check(mod, mod.sinusoidal(out, length, dim, base, layout === 'concat', spacing === 'tensor2tensor', start));
      return m.take('f32', out, n);
    });
  }

  function alibiSlopes(heads) {
    v.integer('heads', heads, 1, MAX_HEADS);
    return scope(mod, (m) => {
      const out = m.put('f32', heads);
      check(mod, mod.alibiSlopes(heads, out));
      return m.take('f32', out, heads);
    });
  }

  function alibiBias(opts) {
    const o = v.options('alibiBias options', opts);
    v.knownKeys('alibiBias options', o, ['heads', 'queryLength', 'keyLength', 'causal']);
    const heads = v.integer('heads', o.heads, 1, MAX_HEADS);
    const tq = v.integer('queryLength', o.queryLength, 0, MAX_LEN);
    const tk = v.integer('keyLength', o.keyLength ?? tq, 0, MAX_LEN);
    if (tq > tk) throw new RangeError(`queryLength must be <= keyLength (${tk}) (got ${tq})`);
    const causal = v.boolean('causal', o.causal ?? true);
    const n = v.elementBudget('alibiBias(heads*queryLength*keyLength)', heads * tq * tk);
    return scope(mod, (m) => {
      const out = m.put('f32', n);
      check(mod, mod.alibiBias(out, heads, tq, tk, causal));
      return m.take('f32', out, n);
    });
  }

  function t5Bucket(relative, opts) {
    const o = v.options('t5Bucket options', opts);
    v.knownKeys('t5Bucket options', o, ['bidirectional', 'numBuckets', 'maxDistance']);
    const rel = v.intArray('relative', typeof relative === 'number' ? [relative] : relative, undefined, -MAX_POS, MAX_POS);
    const bidirectional = v.boolean('bidirectional', o.bidirectional ?? true);
    const numBuckets = v.integer('numBuckets', o.numBuckets ?? 32, 2, 1 << 20);
    const maxDistance = v.integer('maxDistance', o.maxDistance ?? 128, 1, MAX_POS);
    // the core's cross-option rules (t5.cpp), with this API's option names
    const minBuckets = bidirectional ? 4 : 2;
    if (numBuckets < minBuckets)
      throw new RangeError(`numBuckets must be an integer >= ${minBuckets} when ${bidirectional ? 'bidirectional' : 'unidirectional'} (got ${numBuckets})`);
    const maxExact = Math.floor((bidirectional ? Math.floor(numBuckets / 2) : numBuckets) / 2);
    if (maxDistance <= maxExact)
      throw new RangeError(`maxDistance must be > ${maxExact}, the exact buckets on one side for numBuckets ${numBuckets} (got ${maxDistance})`);
    return scope(mod, (m) => {
      const pr = m.put('i32', rel.length, rel);
      const out = m.put('i32', rel.length);
      check(mod, mod.t5Buckets(pr, rel.length, bidirectional, numBuckets, maxDistance, out));
      return m.take('i32', out, rel.length);
    });
  }

  function shawIndex(opts) {
    const o = v.options('shawIndex options', opts);
    v.knownKeys('shawIndex options', o, ['queryLength', 'keyLength', 'maxDistance']);
    const tq = v.integer('queryLength', o.queryLength, 0, MAX_LEN);
    const tk = v.integer('keyLength', o.keyLength ?? tq, 0, MAX_LEN);
    if (tq > tk) throw new RangeError(`queryLength must be <= keyLength (${tk}) (got ${tq})`);
    const k = v.integer('maxDistance', o.maxDistance, 1, MAX_POS);
    const n = v.elementBudget('shawIndex(queryLength*keyLength)', tq * tk);
    return scope(mod, (m) => {
      const out = m.put('i32', n);
      check(mod, mod.shawIndex(out, tq, tk, k));
      return m.take('i32', out, n);
    });
  }

  function learnedLookup(table, opts) {
    const o = v.options('learnedLookup options', opts);
    v.knownKeys('learnedLookup options', o, ['rows', 'dim', 'positions', 'outOfRange']);
    const rows = v.integer('rows', o.rows, 1, MAX_LEN);
    const dim = v.integer('dim', o.dim, 1, MAX_DIM);
    const policy = v.oneOf('outOfRange', o.outOfRange ?? 'error', ['error', 'clamp', 'zero']);
    const tab = v.floatArray('table', table, v.elementBudget('learned table (rows*dim)', rows * dim));
    const positions = v.intArray('positions', o.positions, undefined, 0, MAX_POS);
    const count = positions.length;
    if (policy === 'error') {
      const bad = positions.findIndex((p) => p >= rows);
      if (bad >= 0)
        throw new RangeError(`positions[${bad}] = ${positions[bad]} is past the learned table: allowed 0..${rows - 1}, or choose outOfRange 'clamp' or 'zero'`);
    }
    const n = v.elementBudget('learnedLookup(positions*dim)', count * dim);
    return scope(mod, (m) => {
      const pt = m.put('f32', rows * dim, tab);
      const pp = m.put('i32', count, positions);
      const out = m.put('f32', n);
      check(mod, mod.learnedLookup(pt, rows, dim, pp, count, ['error', 'clamp', 'zero'].indexOf(policy), out));
      return m.take('f32', out, n);
    });
  }

  return { sinusoidal, alibiSlopes, alibiBias, t5Bucket, shawIndex, learnedLookup };
}

// RoPE: the frequencies (with a scaling), applying them, and a model config's RoPE (rope-config.js).
function createRope(mod) {
  function ropeFrequencies(opts) {
    const o = v.options('ropeFrequencies options', opts);
    v.knownKeys('ropeFrequencies options', o, ['dim', 'base', 'scaling', 'seqLen']);
    const dim = v.evenInteger('dim', o.dim, 2, MAX_DIM);
    return frequencies(dim, o.base, o.scaling, o.seqLen);
  }

  function frequencies(dim, baseArg, scalingArg, seqLenArg, name = 'scaling') {
    const sc = normaliseScaling(scalingArg, dim / 2, name);
    const base = v.number('base', baseArg ?? sc.theta ?? 10000, { min: 1, minExclusive: true });
    const seqLen = seqLenArg == null ? 0 : v.integer('seqLen', seqLenArg, 1, MAX_POS);
    const { invFreq64, attentionScale } = scope(mod, (m) => {
      const slots = m.put('f64', sc.slots.length, sc.slots);
      const lf = sc.longFactor ? m.put('f64', sc.longFactor.length, sc.longFactor) : 0;
      const sf = sc.shortFactor ? m.put('f64', sc.shortFactor.length, sc.shortFactor) : 0;
      const out = m.put('f64', dim / 2 + 1);
      check(mod, mod.ropeFrequencies(dim, base, slots, lf, sf, dim / 2, seqLen, out));
      const all = m.take('f64', out, dim / 2 + 1);
      return { invFreq64: all.subarray(0, dim / 2), attentionScale: all[dim / 2] };
    });
    // A tiny factor or base gives frequencies no float32 (the returned invFreq) can hold.
    const invFreq = v.finiteResult('invFreq', Float32Array.from(invFreq64), 'base or scaling.factor is outside any meaningful range');
    return { invFreq, attentionScale, invFreq64 };
  }

  function applyRope(x, opts) {
    const o = v.options('applyRope options', opts);
    v.knownKeys('applyRope options', o, ['length', 'dim', 'positions', 'layout', 'base', 'scaling', 'seqLen', 'rotaryDim']);
    const length = v.integer('length', o.length, 0, MAX_LEN);
    const dim = v.evenInteger('dim', o.dim, 2, MAX_DIM);
    const rotaryDim = v.evenInteger('rotaryDim', o.rotaryDim ?? dim, 2, dim);
    const layout = v.oneOf('layout', o.layout ?? 'interleaved', ['interleaved', 'half']);
    const n = v.elementBudget('applyRope(length*dim)', length * dim);
    const { invFreq64, attentionScale } = frequencies(rotaryDim, o.base, o.scaling, o.seqLen);
    const xs = v.floatArray('x', x, n);
    const positions = o.positions == null ? null : v.intArray('positions', o.positions, length, 0, MAX_POS);
    const out = scope(mod, (m) => {
      const px = m.put('f32', n, xs);
      const pf = m.put('f64', invFreq64.length, invFreq64);
      const pp = positions ? m.put('i32', length, positions) : 0;
      check(mod, mod.applyRope(px, px, length, dim, rotaryDim, layout === 'half', pf, attentionScale, pp));
      return m.take('f32', px, n);
    });
    return v.finiteResult('applyRope', out, `x times the attention scale (${attentionScale}) is too large; scale x down`);
  }

  const { ropeFromConfig } = createRopeConfig(mod, frequencies);
  return { ropeFrequencies, ropeFromConfig, applyRope };
}

function createAttention(mod) {
  // Attention probabilities for one head: softmax(scale * Q K^T - slope |i - j| + bias), causal by default.
  function attention(q, k, opts) {
    const o = v.options('attention options', opts);
    v.knownKeys('attention options', o, ['queryLength', 'keyLength', 'dim', 'scale', 'causal', 'alibiSlope', 'bias', 'out']);
    const tq = v.integer('queryLength', o.queryLength, 1, MAX_LEN);
    const tk = v.integer('keyLength', o.keyLength ?? tq, 1, MAX_LEN);
    if (tq > tk) throw new RangeError(`queryLength must be <= keyLength (${tk}) (got ${tq})`);
    const d = v.integer('dim', o.dim, 1, MAX_DIM);
    const scale = v.float32('scale', o.scale ?? 1 / Math.sqrt(d));
    const causal = v.boolean('causal', o.causal ?? true);
    // ALiBi penalises distance: a negative slope would reward it, and at float32 magnitudes it erases the scores'
    // differences (found by the JS fuzz: slope -2^31 tied far keys that float64 tells apart)
    const slope = v.number('alibiSlope', o.alibiSlope ?? 0, { min: 0, max: v.FLOAT32_MAX });
    const n = v.elementBudget('attention(queryLength*keyLength)', tq * tk);
    const qs = v.floatArray('q', q, v.elementBudget('q', tq * d));
    const ks = v.floatArray('k', k, v.elementBudget('k', tk * d));
    const bias = o.bias == null ? null : v.floatArray('bias', o.bias, n);
    // `out`: the caller's Float32Array to fill, instead of a new one per call (allocating and
    // zeroing a fresh T×T array costs more than the copy itself).
    const into = o.out == null ? null : outputArray('out', o.out, n);
    const out = scope(mod, (m) => {
      const pq = m.put('f32', tq * d, qs);
      const pk = m.put('f32', tk * d, ks);
      const pb = bias ? m.put('f32', n, bias) : 0;
      const ps = m.put('f32', n);
      check(mod, mod.attention(pq, pk, ps, tq, tk, d, scale, causal, slope, pb));
      return into ? copyInto(mod, ps, into) : m.take('f32', ps, n);
    });
    return v.finiteResult('attention', out, 'scale * q.k plus the bias must stay within float32; scale q, k or the bias down');
  }

  return { attention };
}

export function createEncodings(mod) {
  const { sinusoidal, alibiSlopes, alibiBias, t5Bucket, shawIndex, learnedLookup } = createPositionTables(mod);
  const { ropeFrequencies, ropeFromConfig, applyRope } = createRope(mod);
  const { attention } = createAttention(mod);
  return { sinusoidal, ropeFrequencies, ropeFromConfig, applyRope, alibiSlopes, alibiBias, t5Bucket, shawIndex, learnedLookup, attention };
}
