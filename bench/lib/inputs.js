// Deterministic inputs, the same numbers on every side of the benchmark:
// xorshift32 from a seed, mapped to [-1, 1) exactly in float32 (24 random
// bits, a power-of-two scale), as bench/bench_kernels.cpp does in C++.

function state(seed) {
  return (Math.imul(seed, 2654435761) + 1) >>> 0;
}

function next(s) {
  s ^= s << 13;
  s >>>= 0;
  s ^= s >>> 17;
  s ^= s << 5;
  return s >>> 0;
}

/** Float32Array(n) of values in [-1, 1). */
export function uniform(n, seed) {
  const out = new Float32Array(n);
  let s = state(seed);
  for (let i = 0; i < n; i++) {
    s = next(s);
    out[i] = (s >>> 8) * (2 / 16777216) - 1;
  }
  return out;
}

/** Int32Array(n) of token ids in [0, vocab). */
export function tokens(n, vocab, seed) {
  const out = new Int32Array(n);
  let s = state(seed);
  for (let i = 0; i < n; i++) {
    s = next(s);
    out[i] = s % vocab;
  }
  return out;
}
