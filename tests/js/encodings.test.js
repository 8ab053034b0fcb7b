// The wasm module through the public JS API, in Node, against independent
// float64 references and properties.
import { loadPosenc } from '../../web/lib/index.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const close = (a, b, tol, what = '') => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) {
    if (!(Math.abs(a[i] - b[i]) <= tol)) throw new Error(`${what}[${i}]: ${a[i]} vs ${b[i]} (tol ${tol})`);
  }
};
const randn = (n, seed) => {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 32 - 0.5;
  }
  return out;
};
const dot = (a, ao, b, bo, n) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[ao + i] * b[bo + i];
  return s;
};

test('loads the SIMD build by default in Node 20', () => {
  expect(pe.build).toBe('simd');
  expect(pe.simdArch).toBe('sse4.1');
});

describe('sinusoidal', () => {
  test('interleaved paper formula, float64 reference', () => {
    const length = 50, dim = 16;
    const got = pe.sinusoidal({ length, dim });
    const ref = [];
    for (let p = 0; p < length; p++)
      for (let i = 0; i < dim / 2; i++) {
        const w = Math.pow(10000, (-2 * i) / dim);
        ref.push(Math.sin(p * w), Math.cos(p * w));
      }
    close(got, ref, 1e-6, 'pe');
  });

  test('concat layout with tensor2tensor spacing', () => {
    const length = 9, dim = 8, half = 4;
    const got = pe.sinusoidal({ length, dim, layout: 'concat', spacing: 'tensor2tensor' });
    for (let p = 0; p < length; p++)
      for (let i = 0; i < half; i++) {
        const w = Math.exp((-i * Math.log(10000)) / (half - 1));
        expect(got[p * dim + i]).toBeCloseTo(Math.sin(p * w), 6);
        expect(got[p * dim + half + i]).toBeCloseTo(Math.cos(p * w), 6);
      }
  });

  test('PE(p+k) is a fixed rotation of PE(p)', () => {
    const dim = 32, k = 7;
    const pe0 = pe.sinusoidal({ length: 200, dim });
    for (const p of [0, 13, 150]) {
      for (let i = 0; i < dim / 2; i++) {
        const w = Math.pow(10000, (-2 * i) / dim);
        const [s, c] = [pe0[p * dim + 2 * i], pe0[p * dim + 2 * i + 1]];
        // [sin(a+b), cos(a+b)] = [[cos b, sin b], [-sin b, cos b]] [sin a, cos a]
        const sk = Math.sin(k * w) , ck = Math.cos(k * w);
        expect(pe0[(p + k) * dim + 2 * i]).toBeCloseTo(ck * s + sk * c, 5);
        expect(pe0[(p + k) * dim + 2 * i + 1]).toBeCloseTo(-sk * s + ck * c, 5);
      }
    }
  });
});

describe('RoPE', () => {
  test('default frequencies and attention scale', () => {
    const { invFreq, attentionScale } = pe.ropeFrequencies({ dim: 64 });
    expect(invFreq).toBeInstanceOf(Float32Array);
    expect(invFreq.length).toBe(32);
    invFreq.forEach((f, i) => expect(f).toBeCloseTo(Math.pow(10000, (-2 * i) / 64), 7));
    expect(attentionScale).toBe(1);
  });

  test('linear scaling divides every frequency by the factor', () => {
    const a = pe.ropeFrequencies({ dim: 32, base: 500000 }).invFreq;
    const b = pe.ropeFrequencies({ dim: 32, base: 500000, scaling: { rope_type: 'linear', factor: 4 } }).invFreq;
    close(b, a.map((x) => x / 4), 1e-9);
  });

  test('accepts a pasted HF config block and its camelCase twin alike (llama3)', () => {
    const hf = { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' };
    const camel = { ropeType: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 };
    const a = pe.ropeFrequencies({ dim: 128, base: 500000, scaling: hf });
    const b = pe.ropeFrequencies({ dim: 128, base: 500000, scaling: camel });
    close(a.invFreq, b.invFreq, 0);
    // independent float64 reference of the llama3 rule
    for (let i = 0; i < 64; i++) {
      const f = Math.pow(500000, (-2 * i) / 128), wl = (2 * Math.PI) / f;
      let want;
      if (wl < 8192 / 4) want = f;
      else if (wl > 8192 / 1) want = f / 8;
      else {
        const s = (8192 / wl - 1) / (4 - 1);
        want = (1 - s) * (f / 8) + s * f;
      }
      expect(Math.abs(a.invFreq[i] - want) / want).toBeLessThan(1e-6);
    }
  });

  test('scores depend only on the offset, in both layouts', () => {
    const dim = 64, T = 600;
    const q = randn(dim, 1), k = randn(dim, 2);
    const tile = (v) => { const o = new Float32Array(T * dim); for (let t = 0; t < T; t++) o.set(v, t * dim); return o; };
    for (const layout of ['interleaved', 'half']) {
      const rq = pe.applyRope(tile(q), { length: T, dim, layout });
      const rk = pe.applyRope(tile(k), { length: T, dim, layout });
      for (const off of [0, 3, 50, 400]) {
        const ref = dot(rq, off * dim, rk, 0, dim);
        for (const n of [1, 77, T - 1 - off]) expect(dot(rq, (n + off) * dim, rk, n * dim, dim)).toBeCloseTo(ref, 4);
      }
    }
  });

  test('half and interleaved layouts agree after the channel permutation', () => {
    const dim = 16, T = 20, half = dim / 2;
    const x = randn(T * dim, 3);
    const perm = new Float32Array(T * dim); // interleaved (2i, 2i+1) -> half (i, i + d/2)
    for (let t = 0; t < T; t++)
      for (let i = 0; i < half; i++) {
        perm[t * dim + i] = x[t * dim + 2 * i];
        perm[t * dim + half + i] = x[t * dim + 2 * i + 1];
      }
    const a = pe.applyRope(x, { length: T, dim, layout: 'interleaved' });
    const b = pe.applyRope(perm, { length: T, dim, layout: 'half' });
    for (let t = 0; t < T; t++)
      for (let i = 0; i < half; i++) {
        expect(b[t * dim + i]).toBeCloseTo(a[t * dim + 2 * i], 6);
        expect(b[t * dim + half + i]).toBeCloseTo(a[t * dim + 2 * i + 1], 6);
      }
  });

  test('explicit positions, partial rotary and accuracy at position 1,000,000', () => {
    const dim = 8, rotaryDim = 4, positions = [0, 5, 1_000_000];
    const x = randn(3 * dim, 4);
    const out = pe.applyRope(x, { length: 3, dim, rotaryDim, positions, base: 10000 });
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < rotaryDim / 2; i++) {
        const ang = positions[t] * Math.pow(10000, (-2 * i) / rotaryDim);
        const [a, b] = [x[t * dim + 2 * i], x[t * dim + 2 * i + 1]];
        expect(Math.abs(out[t * dim + 2 * i] - (a * Math.cos(ang) - b * Math.sin(ang)))).toBeLessThan(1e-4);
        expect(Math.abs(out[t * dim + 2 * i + 1] - (b * Math.cos(ang) + a * Math.sin(ang)))).toBeLessThan(1e-4);
      }
      for (let c = rotaryDim; c < dim; c++) expect(out[t * dim + c]).toBe(x[t * dim + c]);
    }
  });

  test('yarn multiplies the rotation by its attention factor, as HF does', () => {
    const x = randn(2 * 8, 5);
    const plain = pe.applyRope(x, { length: 2, dim: 8, scaling: { rope_type: 'yarn', factor: 1, original_max_position_embeddings: 64 } });
    const { attentionScale } = pe.ropeFrequencies({ dim: 8, scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 64 } });
    expect(attentionScale).toBeCloseTo(0.1 * Math.log(4) + 1, 12);
    // row 0 (position 0) is not rotated, only scaled
    const scaled = pe.applyRope(x, { length: 2, dim: 8, scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 64 } });
    for (let c = 0; c < 8; c++) expect(scaled[c]).toBeCloseTo(plain[c] * attentionScale, 6);
  });
});

describe('ALiBi', () => {
  test('8 heads give slopes 1/2 ... 1/256', () => {
    close(pe.alibiSlopes(8), [1, 2, 3, 4, 5, 6, 7, 8].map((h) => 2 ** -h), 0);
  });

  test('non-power-of-two head counts follow the reference rule', () => {
    const pow2 = (n) => { const start = 2 ** -(2 ** -(Math.log2(n) - 3)); return Array.from({ length: n }, (_, i) => start * start ** i); };
    const ref = (n) => {
      if (Number.isInteger(Math.log2(n))) return pow2(n);
      const p = 2 ** Math.floor(Math.log2(n));
      return pow2(p).concat(ref(2 * p).filter((_, i) => i % 2 === 0).slice(0, n - p));
    };
    for (const n of [1, 3, 5, 6, 12, 20]) close(pe.alibiSlopes(n), ref(n), 1e-7, `heads=${n}`);
  });

  test('bias -m(i - j), causal mask, queries aligned to the last keys', () => {
    const heads = 2, tq = 2, tk = 5;
    const bias = pe.alibiBias({ heads, queryLength: tq, keyLength: tk });
    const m = pe.alibiSlopes(heads);
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < tq; i++)
        for (let j = 0; j < tk; j++) {
          const ipos = i + tk - tq, got = bias[(h * tq + i) * tk + j];
          if (j > ipos) expect(got).toBe(-Infinity);
          else expect(got).toBeCloseTo(-m[h] * (ipos - j), 6);
        }
    const sym = pe.alibiBias({ heads: 1, queryLength: 3, causal: false });
    // one head has slope 2^-8; symmetric bias is -m|i - j| on both sides
    expect(sym[0 * 3 + 2]).toBeCloseTo(-2 / 256, 9);
    expect(sym[2 * 3 + 0]).toBeCloseTo(-2 / 256, 9);
  });
});

describe('T5 buckets and Shaw index', () => {
  test('known HF values (bidirectional, 32 buckets, max distance 128)', () => {
    const rel = [0, -1, 1, -7, 7, -8, 8, -20, 20, -127, 127, -200, 200];
    expect(Array.from(pe.t5Bucket(rel))).toEqual([0, 1, 17, 7, 23, 8, 24, 10, 26, 15, 31, 15, 31]);
  });

  test('monotone in |relative|, both directions', () => {
    for (const bidirectional of [true, false]) {
      const neg = pe.t5Bucket(Array.from({ length: 400 }, (_, i) => -i), { bidirectional });
      for (let i = 1; i < neg.length; i++) expect(neg[i]).toBeGreaterThanOrEqual(neg[i - 1]);
    }
    const pos = pe.t5Bucket(Array.from({ length: 400 }, (_, i) => i));
    for (let i = 1; i < pos.length; i++) expect(pos[i]).toBeGreaterThanOrEqual(pos[i - 1]);
  });

  test('shaw index is clip(j - i, -k, k) + k', () => {
    const idx = pe.shawIndex({ queryLength: 6, keyLength: 6, maxDistance: 2 });
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) expect(idx[i * 6 + j]).toBe(Math.max(-2, Math.min(2, j - i)) + 2);
  });
});

test('results stay correct when a large call grows the wasm memory', () => {
  const before = pe.memoryBytes();
  const length = 8192, dim = 1024; // 32 MiB of output: more than the initial heap
  const big = pe.sinusoidal({ length, dim });
  expect(pe.memoryBytes()).toBeGreaterThan(before);
  const p = 8191, i = 100, w = Math.pow(10000, (-2 * i) / dim);
  expect(big[p * dim + 2 * i]).toBeCloseTo(Math.sin(p * w), 5);
  expect(big[p * dim + 2 * i + 1]).toBeCloseTo(Math.cos(p * w), 5);
  // and calls after the growth still see fresh views
  expect(Array.from(pe.alibiSlopes(2))).toEqual([2 ** -4, 2 ** -8]);
});

test('the scalar build of the same source gives the same numbers', async () => {
  const scalar = await loadPosenc({ build: 'scalar' });
  expect(scalar.build).toBe('scalar');
  expect(scalar.simdArch).toBe('scalar');
  const x = randn(64 * 32, 9);
  const a = pe.applyRope(x, { length: 64, dim: 32, layout: 'interleaved', base: 500000 });
  const b = scalar.applyRope(x, { length: 64, dim: 32, layout: 'interleaved', base: 500000 });
  close(a, b, 1e-5, 'rope');
  const q = randn(100 * 16, 10), k = randn(100 * 16, 11);
  close(pe.attention(q, k, { queryLength: 100, dim: 16, alibiSlope: 0.1 }), scalar.attention(q, k, { queryLength: 100, dim: 16, alibiSlope: 0.1 }), 1e-6, 'attn');
});

describe('odd sinusoid dims (tensor2tensor get_timing_signal_1d parity)', () => {
  test.each([
    [3, 'concat', 'tensor2tensor'], [7, 'concat', 'tensor2tensor'], [9, 'interleaved', 'tensor2tensor'],
    [7, 'interleaved', 'paper'], [5, 'concat', 'paper'], [2, 'concat', 'tensor2tensor'],
  ])('dim %i, %s layout, %s spacing', async (dim, layout, spacing) => {
    const { sinusoidReference } = await import('./reference.js');
    const o = { length: 11, dim, layout, spacing, start: 5 };
    const got = pe.sinusoidal(o);
    const want = sinusoidReference(o);
    close(got, want, 2e-6, `sinusoidal ${dim} ${layout} ${spacing}`);
    if (dim % 2 && !(layout === 'interleaved' && spacing === 'paper'))
      for (let r = 0; r < 11; r++) expect(got[r * dim + dim - 1]).toBe(0); // the padding column
  });
  test('dim 1 is still refused with the allowed range', () => {
    expect(() => pe.sinusoidal({ length: 2, dim: 1 })).toThrow('dim must be an integer in [2, 65536] (got 1)');
  });
});
