// Numerics at the edges, through the JS API: every encoding function at
// positions up to 1e6, every RoPE scaling type with factors up to 1000, and
// extreme but valid model configs (1 and 64 heads, head dim 2, dModel 512,
// 64 layers, a 65536-token vocabulary) either work with finite outputs or are
// refused with a RangeError that names the limit.
import { loadPosenc, ENCODINGS } from '../../web/lib/index.js';
import * as ref from './reference.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const FAR = [0, 1, 999, 1000, 65535, 99999, 100000, 999999, 1000000];
const FACTORS = [1, 1.5, 2, 8, 32, 100, 1000];
const allFinite = (a, what) => {
  for (let i = 0; i < a.length; i++) if (a[i] - a[i] !== 0) throw new Error(`${what}[${i}] = ${a[i]}`);
};
const near = (got, want, tol, what) => {
  const d = ref.maxAbsDiff(got, want);
  if (!(d <= tol)) throw new Error(`${what}: max difference ${d} > ${tol}`);
};

// Every scaling type at `factor`, as an HF rope_scaling block (training length 4096).
const scalingsAt = (factor, halfDim) => ({
  linear: { rope_type: 'linear', factor },
  dynamic: { rope_type: 'dynamic', factor, max_position_embeddings: 4096 },
  yarn: { rope_type: 'yarn', factor, original_max_position_embeddings: 4096 },
  'yarn (mscale)': { rope_type: 'yarn', factor, original_max_position_embeddings: 4096, mscale: 1, mscale_all_dim: 1 },
  llama3: { rope_type: 'llama3', factor, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 4096 },
  longrope: { rope_type: 'longrope', long_factor: Array.from({ length: halfDim }, (_, i) => 1 + ((factor - 1) * i) / Math.max(1, halfDim - 1)),
    short_factor: new Array(halfDim).fill(1), original_max_position_embeddings: 4096, max_position_embeddings: Math.round(4096 * factor) },
});

describe('positions up to 1e6', () => {
  test.each([2, 64, 512])('sinusoidal, dim %i, both layouts and spacings, within 1e-4 of float64', (dim) => {
    for (const layout of ['interleaved', 'concat'])
      for (const spacing of dim >= 4 ? ['paper', 'tensor2tensor'] : ['paper'])
        for (const base of [10000, 500000]) {
          const o = { length: 17, dim, layout, spacing, base, start: 1_000_000 - 16 };
          const got = pe.sinusoidal(o);
          allFinite(got, 'sinusoidal');
          near(got, ref.sinusoidReference(o), 1e-4, `sinusoidal ${JSON.stringify(o)}`);
        }
  });

  test('RoPE without scaling: both layouts, dims 2 / 64 / 512, within 1e-4 of a float64 rotation', () => {
    for (const dim of [2, 64, 512])
      for (const layout of ['interleaved', 'half']) {
        const x = Float32Array.from({ length: FAR.length * dim }, (_, i) => Math.sin(i * 0.37));
        const got = pe.applyRope(x, { length: FAR.length, dim, layout, positions: FAR });
        allFinite(got, 'applyRope');
        near(got, ref.ropeReference(x, { length: FAR.length, dim, layout, positions: FAR, invFreq: ref.invFreqDefault(dim) }), 1e-4, `rope ${dim} ${layout}`);
      }
  });

  test('ALiBi bias and attention with 1e6 keys; T5 buckets and Shaw indices at +-1e6; learned tables past their end', () => {
    const T = 1_000_001;
    for (const heads of [8]) {
      const bias = pe.alibiBias({ heads, queryLength: 1, keyLength: T, causal: false });
      allFinite(bias, 'alibiBias');
      const slopes = ref.alibiSlopesReference(heads);
      for (let h = 0; h < heads; h++) expect(bias[h * T]).toBeCloseTo(-slopes[h] * 1e6, 0); // key 0, a million positions back
    }
    // One query attending over a million keys with an ALiBi slope: finite, sums to 1, peaks at the nearest key.
    const p = pe.attention([1], new Float32Array(T).fill(1), { queryLength: 1, keyLength: T, dim: 1, alibiSlope: 2 ** -8 });
    allFinite(p, 'attention');
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
    expect(p[T - 1]).toBe(Math.max(...p.subarray(T - 10)));
    for (const bidirectional of [true, false]) {
      const rel = [-1e6, -999999, -1, 0, 1, 999999, 1e6, 2 ** 31 - 1, -(2 ** 31 - 1)];
      const b = pe.t5Bucket(rel, { bidirectional });
      rel.forEach((r, i) => expect(b[i]).toBe(ref.t5BucketReference(r, { bidirectional })[0]));
    }
    const shaw = pe.shawIndex({ queryLength: 1, keyLength: T, maxDistance: 128 });
    expect([shaw[0], shaw[T - 129], shaw[T - 1]]).toEqual([0, 0, 128]); // clip(j - i) + k
    const table = Float32Array.from({ length: 4 * 3 }, (_, i) => i);
    expect(Array.from(pe.learnedLookup(table, { rows: 4, dim: 3, positions: [1e6], outOfRange: 'clamp' }))).toEqual([9, 10, 11]);
    expect(Array.from(pe.learnedLookup(table, { rows: 4, dim: 3, positions: [1e6], outOfRange: 'zero' }))).toEqual([0, 0, 0]);
    expect(() => pe.learnedLookup(table, { rows: 4, dim: 3, positions: [1e6] })).toThrow(/past the learned table/);
    const slopes = pe.alibiSlopes(4096);
    allFinite(slopes, 'alibiSlopes');
    expect(Math.min(...slopes)).toBeGreaterThan(0);
  });
});

describe('RoPE scaling with factors up to 1000', () => {
  test.each([2, 64, 128])('every scaling type, head dim %i: finite frequencies and rotations at positions up to 1e6', (dim) => {
    const x = Float32Array.from({ length: FAR.length * dim }, (_, i) => Math.cos(i * 0.11));
    for (const factor of FACTORS) {
      for (const [type, scaling] of Object.entries(scalingsAt(factor, dim / 2))) {
        const what = `${type} x${factor} dim ${dim}`;
        if (type === 'dynamic' && dim === 2) { // HF's formula divides by dim - 2: refused, saying so
          expect(() => pe.ropeFrequencies({ dim, scaling, seqLen: 1_000_001 })).toThrow(/dim must be an even integer >= 4 for rope_type 'dynamic'/);
          continue;
        }
        const { invFreq, invFreq64, attentionScale } = pe.ropeFrequencies({ dim, scaling, seqLen: 1_000_001 });
        allFinite(invFreq, `${what} invFreq`);
        expect(Math.min(...invFreq)).toBeGreaterThan(0);
        expect(attentionScale).toBeGreaterThan(0);
        expect(attentionScale).toBeLessThan(10);
        if (type === 'linear') near(Array.from(invFreq64, (f, i) => f * factor / ref.invFreqDefault(dim)[i]), invFreq64.map(() => 1), 1e-12, what);
        for (const layout of ['interleaved', 'half']) {
          const got = pe.applyRope(x, { length: FAR.length, dim, layout, positions: FAR, scaling, seqLen: 1_000_001 });
          allFinite(got, `${what} applyRope`);
          const want = ref.ropeReference(x, { length: FAR.length, dim, layout, positions: FAR, invFreq: Array.from(invFreq64), scale: attentionScale });
          near(got, want, 1e-4 * attentionScale, `${what} ${layout}`);
        }
      }
    }
  });

  test('dynamic NTK at seqLen 1e6 with factor 1000 stays finite; frequencies shrink monotonically as seqLen grows', () => {
    let last = Infinity;
    for (const seqLen of [4096, 8192, 65536, 1e6]) {
      const { invFreq } = pe.ropeFrequencies({ dim: 128, seqLen, scaling: { rope_type: 'dynamic', factor: 1000, max_position_embeddings: 4096 } });
      allFinite(invFreq, `dynamic ${seqLen}`);
      expect(invFreq[1]).toBeLessThanOrEqual(last);
      last = invFreq[1];
    }
  });
});

describe('extreme model configs', () => {
  const run = (config, T = 16) => {
    const m = pe.createModel({ vocabSize: 11, maxLength: 64, seed: 5, ...config });
    try {
      const tokens = Int32Array.from({ length: T }, (_, i) => 1 + (i % 10));
      const targets = Int32Array.from({ length: T }, (_, i) => (i + 2) % 11);
      const { logits, attention } = m.forward(tokens, { length: T, attention: true });
      allFinite(logits, `${JSON.stringify(config)} logits`);
      allFinite(attention, `${JSON.stringify(config)} attention`);
      const loss = m.trainStep(tokens, targets, { length: T, lr: 1e-2 });
      expect(Number.isFinite(loss)).toBe(true);
      allFinite(m.forward(tokens, { length: T }).logits, `${JSON.stringify(config)} logits after a step`);
      return m.numParameters;
    } finally {
      m.delete();
    }
  };

  test.each(ENCODINGS)('%s: 1 head, 64 heads, head dim 2, dModel 512 all train with finite outputs', (encoding) => {
    run({ encoding, heads: 1, dModel: 2 }); // head dim 2, one head
    run({ encoding, heads: 64, dModel: 128 }); // 64 heads of dim 2
    run({ encoding, heads: 1, dModel: 64, layers: 1 });
    run({ encoding, heads: 8, dModel: 512, layers: 1, mlpRatio: 1 });
  });

  test('64 layers, mlpRatio 16, a 65536-token vocabulary and a 65536-row learned table work', () => {
    run({ encoding: 'rope', heads: 1, dModel: 2, layers: 64 });
    run({ encoding: 'alibi', heads: 2, dModel: 8, mlpRatio: 16 });
    run({ encoding: 'none', heads: 2, dModel: 16, vocabSize: 65536, layers: 1 });
    run({ encoding: 'learned', heads: 2, dModel: 8, maxLength: 65536, layers: 1 });
  });

  test('rope with head dim 2 and factor-1000 scalings at T = 4096 stays finite', () => {
    const m = pe.createModel({ encoding: 'rope', heads: 1, dModel: 2, layers: 1, vocabSize: 11, maxLength: 64 });
    const tokens = Int32Array.from({ length: 4096 }, (_, i) => 1 + (i % 10));
    for (const [type, scaling] of Object.entries(scalingsAt(1000, 1))) {
      if (type === 'dynamic') continue; // needs head dim >= 4 (checked above)
      const { logits } = m.forward(tokens, { length: 4096, ropeScaling: { ...scaling, original_max_position_embeddings: 64, max_position_embeddings: 64 * 1000 } });
      allFinite(logits, JSON.stringify(scaling));
    }
    m.delete();
  });

  test('what does not fit is refused with a RangeError naming the limit', () => {
    const refused = (config, re) => {
      expect(() => pe.createModel({ vocabSize: 11, ...config })).toThrow(RangeError);
      expect(() => pe.createModel({ vocabSize: 11, ...config })).toThrow(re);
    };
    refused({ heads: 65, dModel: 130 }, /heads must be an integer in \[1, 64\]/);
    refused({ heads: 3, dModel: 64 }, /dModel must be divisible by heads/);
    refused({ encoding: 'rope', heads: 3, dModel: 9 }, /head dim\) must be even/);
    refused({ dModel: 1 }, /dModel must be an integer in \[2, 4096\]/);
    refused({ layers: 65 }, /layers must be an integer in \[1, 64\]/);
    refused({ dModel: 4096, layers: 64, vocabSize: 65536 }, /model too large: \d+ parameters \(limit 33554432\)/);
    refused({ vocabSize: 65537 }, /vocabSize must be an integer in \[2, 65536\]/);
    const m = pe.createModel({ encoding: 'rope', heads: 1, dModel: 2, layers: 1, vocabSize: 11 });
    expect(() => m.forward(new Int32Array(1_000_000), { length: 1_000_000 })).toThrow(/length must be an integer in \[1, 16384\]/);
    // Without maps attention is streamed (no T×T buffer): the longest length runs.
    expect(m.forward(new Int32Array(16384), { length: 16384 }).logits.every(Number.isFinite)).toBe(true);
    expect(() => m.forward(new Int32Array(8192), { length: 8192, attention: true })).toThrow(/attention maps needs \d+ MB of activations \(limit 512 MB\)/);
    const wide = pe.createModel({ encoding: 'none', heads: 64, dModel: 128, layers: 4, vocabSize: 11, maxLength: 64 });
    expect(() => wide.forward(new Int32Array(1024), { length: 1024, attention: true })).toThrow(/attention maps .* more than the limit of 67108864/);
    wide.delete();
    m.delete();
  });
});
