// Independent float64 references for the encoding functions, written from the
// papers / HF code (not from the C++), and a seeded PRNG. Shared by the fuzz
// and numerics tests. Each reference takes plain numbers and arrays.

/** mulberry32: a small, fast, seeded PRNG; returns floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Inverse frequencies base^(-2i/dim), i < dim/2 (RoPE without scaling). */
export const invFreqDefault = (dim, base = 10000) => Array.from({ length: dim / 2 }, (_, i) => base ** ((-2 * i) / dim));

/**
 * RoPE rotation of x [length, dim] at `positions` (default 0..length-1): pairs (2i, 2i+1)
 * ('interleaved') or (i, i + rotaryDim/2) ('half') of the first rotaryDim channels turn by
 * position * invFreq[i]; cos and sin are multiplied by `scale`; the other channels pass through.
 */
export function ropeReference(x, { length, dim, positions, layout = 'interleaved', invFreq, scale = 1, rotaryDim = dim }) {
  const out = Float64Array.from(x);
  const half = rotaryDim / 2;
  for (let t = 0; t < length; t++) {
    const p = positions ? positions[t] : t;
    for (let i = 0; i < half; i++) {
      const a = layout === 'half' ? i : 2 * i;
      const b = layout === 'half' ? i + half : 2 * i + 1;
      const angle = p * invFreq[i];
      const c = Math.cos(angle) * scale, s = Math.sin(angle) * scale;
      const xa = x[t * dim + a], xb = x[t * dim + b];
      out[t * dim + a] = xa * c - xb * s;
      out[t * dim + b] = xa * s + xb * c;
    }
  }
  return out;
}

/**
 * Vaswani et al. sinusoids; 'tensor2tensor' spacing is get_timing_signal_1d's
 * exp(-i ln(base) / max(num_timescales - 1, 1)) with num_timescales = dim // 2. An odd dim
 * gets a zero last column (t2t's tf.pad(signal, [[0, 0], [0, channels % 2]])), except
 * interleaved paper spacing, where channel d-1 follows the paper's per-channel formula sin(p / base^(2*(j//2)/d)).
 */
export function sinusoidReference({ length, dim, base = 10000, layout = 'interleaved', spacing = 'paper', start = 0 }) {
  const half = Math.floor(dim / 2);
  const out = new Float64Array(length * dim);
  for (let r = 0; r < length; r++) {
    if (dim % 2 && layout === 'interleaved' && spacing === 'paper') out[r * dim + dim - 1] = Math.sin((start + r) / base ** ((2 * half) / dim));
    for (let i = 0; i < half; i++) {
      const w = spacing === 'paper' ? base ** ((-2 * i) / dim) : Math.exp((-i * Math.log(base)) / Math.max(half - 1, 1));
      const a = (start + r) * w;
      const [si, ci] = layout === 'concat' ? [i, half + i] : [2 * i, 2 * i + 1];
      out[r * dim + si] = Math.sin(a);
      out[r * dim + ci] = Math.cos(a);
    }
  }
  return out;
}

/** ALiBi slopes, ofirpress get_slopes (power-of-two path, else interleave the next power's). */
export function alibiSlopesReference(n) {
  const pow2 = (m) => Array.from({ length: m }, (_, i) => 2 ** ((-8 * (i + 1)) / m));
  if ((n & (n - 1)) === 0) return pow2(n);
  const p = 2 ** Math.floor(Math.log2(n));
  return [...pow2(p), ...pow2(2 * p).filter((_, i) => i % 2 === 0).slice(0, n - p)];
}

/** -m |i_pos - j| per head (query i sits at i + Tk - Tq); -Infinity above the diagonal when causal. */
export function alibiBiasReference({ heads, queryLength: tq, keyLength: tk = tq, causal = true }) {
  const m = alibiSlopesReference(heads);
  const out = new Float64Array(heads * tq * tk);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < tq; i++)
      for (let j = 0; j < tk; j++) {
        const ip = i + tk - tq;
        out[(h * tq + i) * tk + j] = causal && j > ip ? -Infinity : -m[h] * Math.abs(ip - j);
      }
  return out;
}

/**
 * HF T5Attention._relative_position_bucket, in float64. Returns [bucket, exact]: `exact` is
 * false where the log-spaced branch lands within 1e-4 of a bucket edge, where torch's float32
 * arithmetic may round to the neighbouring bucket.
 */
export function t5BucketReference(rel, { bidirectional = true, numBuckets = 32, maxDistance = 128 } = {}) {
  let nb = numBuckets, bucket = 0, r = rel;
  if (bidirectional) {
    nb = Math.floor(nb / 2);
    if (r > 0) bucket += nb;
    r = Math.abs(r);
  } else {
    r = -Math.min(r, 0);
  }
  const maxExact = Math.floor(nb / 2);
  if (r < maxExact) return [bucket + r, true];
  const v = (Math.log(r / maxExact) / Math.log(maxDistance / maxExact)) * (nb - maxExact);
  const large = Math.min(maxExact + Math.trunc(v), nb - 1);
  const edge = Math.abs(v - Math.round(v)) < 1e-4 && maxExact + Math.round(v) <= nb - 1;
  return [bucket + large, !edge];
}

/** clip(j - i_pos, -k, k) + k. */
export function shawIndexReference({ queryLength: tq, keyLength: tk = tq, maxDistance: k }) {
  const out = new Int32Array(tq * tk);
  for (let i = 0; i < tq; i++)
    for (let j = 0; j < tk; j++) out[i * tk + j] = Math.max(-k, Math.min(k, j - (i + tk - tq))) + k;
  return out;
}

/** Rows of `table` [rows, dim] at `positions`; past the table: an error, the last row, or zeros. */
export function learnedReference(table, { rows, dim, positions, outOfRange = 'error' }) {
  const out = new Float64Array(positions.length * dim);
  positions.forEach((p, n) => {
    if (p >= rows && outOfRange === 'error') throw new RangeError('past the table');
    if (p >= rows && outOfRange === 'zero') return;
    const r = Math.min(p, rows - 1);
    for (let c = 0; c < dim; c++) out[n * dim + c] = table[r * dim + c];
  });
  return out;
}

/** softmax(scale q.k - slope |i_pos - j| + bias) per query row; masked (j > i_pos when causal) entries 0. */
export function attentionReference(q, k, { queryLength: tq, keyLength: tk = tq, dim: d, scale = 1 / Math.sqrt(d), causal = true,
  alibiSlope = 0, bias }) {
  const out = new Float64Array(tq * tk);
  for (let i = 0; i < tq; i++) {
    const ip = i + tk - tq, n = causal ? ip + 1 : tk;
    const row = [];
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += q[i * d + c] * k[j * d + c];
      row.push(scale * s - alibiSlope * Math.abs(ip - j) + (bias ? bias[i * tk + j] : 0));
    }
    const max = Math.max(...row);
    const e = row.map((x) => Math.exp(x - max));
    const sum = e.reduce((a, b) => a + b, 0);
    e.forEach((x, j) => { out[i * tk + j] = x / sum; });
  }
  return out;
}

/** Largest |a[i] - b[i]| (Infinity if lengths differ or a value is NaN where the other is not). */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue; // also equal infinities
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

/**
 * Attention maps pooled for display, by the definition (posenc/attention_pool.hpp), map by map:
 * [count, T, T] -> pixels [count, px, px] (each its cell's largest weight with key <= query, -1 where the
 * cell has none) and peaks [count] (the mean over query rows of the row's largest weight).
 */
export function poolByDefinition(maps, T, px) {
  const count = maps.length / (T * T), cell = T / px;
  const lo = (y) => Math.floor(y * cell), hi = (y) => Math.max(lo(y) + 1, Math.floor((y + 1) * cell));
  const pixels = new Float32Array(count * px * px).fill(-1), peaks = new Float32Array(count);
  for (let m = 0; m < count; m++) {
    const at = (i, j) => maps[m * T * T + i * T + j];
    for (let y = 0; y < px; y++)
      for (let x = 0; x < px; x++) {
        if (lo(x) >= hi(y)) continue;
        let v = 0;
        for (let i = lo(y); i < hi(y); i++) for (let j = lo(x); j < hi(x) && j <= i; j++) v = Math.max(v, at(i, j));
        pixels[m * px * px + y * px + x] = v;
      }
    let sum = 0;
    for (let i = 0; i < T; i++) {
      let r = 0;
      for (let j = 0; j <= i; j++) r = Math.max(r, at(i, j));
      sum += r;
    }
    peaks[m] = sum / T;
  }
  return { pixels, peaks };
}
