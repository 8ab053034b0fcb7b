// The plain-JavaScript baseline: straightforward implementations of every
// benchmarked kernel, written for the benchmark. Straightforward, not naive:
// typed arrays, row-major buffers reused across calls, loop orders that walk
// memory contiguously (i-k-j for matrix products), float64 accumulators where
// JS gives them for free. No SIMD, no blocking, no workers.

/** out = RoPE(x), half layout (pairs i, i + d/2), positions 0..T-1; tables recomputed per call. */
export function ropeHalf(x, out, T, d, base = 10000) {
  const half = d / 2;
  const invFreq = new Float64Array(half);
  for (let i = 0; i < half; i++) invFreq[i] = 1 / Math.pow(base, (2 * i) / d);
  for (let t = 0; t < T; t++) {
    const row = t * d;
    for (let i = 0; i < half; i++) {
      const angle = t * invFreq[i], c = Math.cos(angle), s = Math.sin(angle);
      const a = x[row + i], b = x[row + half + i];
      out[row + i] = a * c - b * s;
      out[row + half + i] = b * c + a * s;
    }
  }
  return out;
}

/** P[T,T] = causal softmax(scale q k^T - slope (i - j) + bias). */
export function probs(q, k, out, T, d, scale, slope, bias) {
  for (let i = 0; i < T; i++) {
    const row = i * T;
    let max = -Infinity;
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += q[i * d + c] * k[j * d + c];
      s = s * scale - slope * (i - j) + (bias ? bias[row + j] : 0);
      out[row + j] = s;
      if (s > max) max = s;
    }
    let sum = 0;
    for (let j = 0; j <= i; j++) {
      const e = Math.exp(out[row + j] - max);
      out[row + j] = e;
      sum += e;
    }
    for (let j = 0; j <= i; j++) out[row + j] /= sum;
    for (let j = i + 1; j < T; j++) out[row + j] = 0;
  }
  return out;
}

/** S[M,N] = A[M,K] B[N,K]^T (rows against rows: both contiguous). */
export function matmulBt(a, b, out, M, K, N) {
  for (let i = 0; i < M; i++)
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let c = 0; c < K; c++) s += a[i * K + c] * b[j * K + c];
      out[i * N + j] = s;
    }
  return out;
}

/** C[M,N] (+)= A[M,K] B[K,N], i-k-j order. */
export function matmul(a, b, out, M, K, N, accumulate = false) {
  if (!accumulate) out.fill(0, 0, M * N);
  for (let i = 0; i < M; i++)
    for (let p = 0; p < K; p++) {
      const aip = a[i * K + p];
      const bRow = p * N, cRow = i * N;
      for (let j = 0; j < N; j++) out[cRow + j] += aip * b[bRow + j];
    }
  return out;
}

/** O[T,dv] = causal softmax(scale q k^T) v, one query row at a time (a T-long scratch row). */
export function attention(q, k, v, out, T, d, dv, scale, row = new Float64Array(T)) {
  for (let i = 0; i < T; i++) {
    let max = -Infinity;
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += q[i * d + c] * k[j * d + c];
      row[j] = s * scale;
      if (row[j] > max) max = row[j];
    }
    let sum = 0;
    for (let j = 0; j <= i; j++) sum += row[j] = Math.exp(row[j] - max);
    const o = i * dv;
    out.fill(0, o, o + dv);
    for (let j = 0; j <= i; j++) {
      const p = row[j] / sum;
      for (let c = 0; c < dv; c++) out[o + c] += p * v[j * dv + c];
    }
  }
  return out;
}
