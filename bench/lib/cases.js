// What the benchmark measures: shapes, seeds and model settings, shared by
// every variant (and mirrored in bench/bench_kernels.cpp, which must agree).

export const T = 1024; // sequence length of the kernel benchmarks
export const D = 64; // head dim of the kernel benchmarks
export const ALIBI_SLOPE = 0.0625; // head 4 of 8 (2^-4)
export const SEED = { q: 1, k: 2, v: 3, x: 4, bias: 5, a: 6, b: 7, tokens: 8 };

export const MATMULS = [
  { M: 256, K: 256, N: 64 },
  { M: 1024, K: 64, N: 256 },
];

/** The tiny model whose forward pass is timed (the library's createModel defaults, RoPE). */
export const MODEL = { encoding: 'rope', layers: 2, heads: 4, dModel: 64, mlpRatio: 4, vocabSize: 16, maxLength: 64, seed: 1 };
export const FORWARD_LENGTHS = [128, 512, 1024, 4096];
/** Lengths of the time / memory sweep (wasm SIMD; the others as far as they go). */
export const SWEEP_LENGTHS = [128, 256, 512, 1024, 2048, 4096, 8192, 16384];

/**
 * One training step at the explorer's defaults (web/app/shared/state.js: copy task, trainLength 32,
 * 3 layers, 4 heads, dModel 32; web/app/shared/experiment.js: mlpRatio 3, batch 32, lr 6e-3).
 */
export const TRAIN = {
  model: { encoding: 'rope', layers: 3, heads: 4, dModel: 32, mlpRatio: 3, maxLength: 32, seed: 1 },
  task: { task: 'copy', symbols: 8, variableLength: true, seed: 1 },
  batch: 32,
  length: 32,
  lr: 6e-3,
};

export const matmulName = ({ M, K, N }) => `matmul_${M}x${K}x${N}`;

/**
 * Correctness: every variant is compared with ours (wasm SIMD) and its time is void if
 * max |a - b| > tol * max(1, max |ours|). The tolerances are float32 rounding plus, for
 * tfjs RoPE, its float32 angles (position 1023 times a frequency near 1 is off by up to
 * one float32 ulp of 1023, ~6e-5 rad).
 */
export const TOLERANCE = {
  rope: 2e-4,
  alibi_softmax: 1e-5,
  t5_softmax: 1e-5,
  qkt: 1e-5,
  matmul: 1e-5,
  attention: 1e-5,
  forward: 1e-4,
  train: 1e-4, // relative, on the loss, the gradient norm and the loss after the step
};
