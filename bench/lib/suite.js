// The benchmark suite, the same code in Node and in headless Chromium: every
// kernel of bench/lib/cases.js in every variant on the same inputs, each
// output checked against ours (wasm SIMD), then timed in interleaved rounds
// (bench/lib/timing.js). Returns plain data; bench/run.js adds the native
// figures and writes bench/results.json.
//
// Variants: simd / scalar = our two wasm builds, on data already in wasm
// memory (the raw kernels) or through the public API where that is what a
// user calls (model forward, training step); simdApi = the public API of a
// kernel, validation and copies in and out included (simdApiOut: writing into
// the caller's array, option `out`); js = bench/lib/plain.js; tfjs =
// @tensorflow/tfjs-backend-wasm (bench/lib/tfjs.js).
import { T, D, ALIBI_SLOPE, SEED, MATMULS, MODEL, FORWARD_LENGTHS, SWEEP_LENGTHS, TRAIN, TOLERANCE, matmulName } from './cases.js';
import { uniform, tokens as makeTokens } from './inputs.js';
import { compileOurs, wasmBuffers } from './ours.js';
import { measure } from './timing.js';
import { compare, compareScalars } from './check.js';
import * as plain from './plain.js';
import { PlainModel } from './plain-model.js';
import { weightsFromCheckpoint } from './weights.js';
import { tfInputs, tfRope, tfQkt, tfProbs, tfAttention, TfModel } from './tfjs.js';

const ok = (status, mod) => {
  if (status !== 0) throw new Error(`posenc kernel failed: ${mod.lastError()}`);
};

/**
 * @param {object} o
 * @param {object} o.wasm where our builds come from (bench/lib/ours.js compileOurs)
 * @param {object} o.tf tfjs with the wasm backend ready
 * @param {(s: string) => void} [o.log]
 * @param {string[]} [o.only] kernel names (default: all)
 * @param {boolean} [o.sweep=true] run the time / memory sweep over SWEEP_LENGTHS
 */
export async function runSuite({ wasm, tf, log = () => {}, only = null, sweep = true }) {
  const builds = { simd: await compileOurs('simd', wasm), scalar: await compileOurs('scalar', wasm) };
  const ours = { simd: await builds.simd.instance(), scalar: await builds.scalar.instance() };
  const wanted = (name) => !only || only.includes(name) || only.some((o) => name.startsWith(o));
  const kernels = {};
  const outputs = {}; // ours (simd) per kernel, for bench/run.js to check the native build against

  const inputs = {
    q: uniform(T * D, SEED.q), k: uniform(T * D, SEED.k), v: uniform(T * D, SEED.v), x: uniform(T * D, SEED.x),
  };
  const scale = 1 / Math.sqrt(D);
  const t5Table = uniform(32, SEED.bias);
  const t5Bias = t5BiasMatrix(ours.simd.api, t5Table);
  const tfIn = tfInputs(tf, { ...inputs, T, D, alibiSlope: ALIBI_SLOPE, t5Bias });

  // One kernel: variants {name: {run, output}}; check every output against simd's, then time them together.
  function kernel(name, what, variants, { flops = 0, tol, extra = {} } = {}) {
    if (!wanted(name)) return;
    log(`${name}: ${what}`);
    const ref = variants.simd.output();
    outputs[name] = ref;
    const result = { what, flops, tol, variants: {}, ...extra };
    const timed = {};
    for (const [v, { run, output }] of Object.entries(variants)) {
      const check = v === 'simd' ? { ok: true, reference: true } : compare(ref, output(), tol);
      result.variants[v] = { check };
      timed[v] = run;
    }
    const times = measure(timed);
    for (const [v, t] of Object.entries(times)) {
      Object.assign(result.variants[v], t);
      if (flops) result.variants[v].gflops = +(flops / t.ms / 1e6).toFixed(2);
    }
    for (const v of Object.values(variants)) v.dispose?.();
    kernels[name] = result;
    log(`  ${Object.entries(result.variants).map(([v, r]) => `${v} ${r.ms.toPrecision(3)} ms${r.check.ok ? '' : ' (VOID)'}`).join(', ')}`);
  }

  // Our raw kernel on buffers in wasm memory (one set per build).
  function raw(inst, setup) {
    const buf = wasmBuffers(inst.mod);
    const { run, out, n } = setup(inst.mod, buf);
    return { run: () => ok(run(), inst.mod), output: () => (ok(run(), inst.mod), buf.read(out, n)), dispose: () => buf.free() };
  }
  const both = (setup) => ({ simd: raw(ours.simd, setup), scalar: raw(ours.scalar, setup) });
  const js = (fn, n) => {
    const out = new Float32Array(n);
    return { run: () => fn(out), output: () => (fn(out), out) };
  };
  const tfv = (fn) => ({
    run: () => fn().dispose(),
    output: () => {
      const t = fn();
      const data = t.dataSync().slice();
      t.dispose();
      return data;
    },
  });
  const api = (fn) => ({ run: fn, output: fn });

  // --- RoPE
  const invFreq64 = Float64Array.from({ length: D / 2 }, (_, i) => 1 / Math.pow(10000, (2 * i) / D));
  kernel('rope', `applyRope, T=${T}, d=${D}, half layout, sin/cos tables included`, {
    ...both((mod, b) => {
      const px = b.put(inputs.x), po = b.alloc(T * D), pf = b.put(invFreq64);
      return { run: () => mod.applyRope(px, po, T, D, D, true, pf, 1, 0), out: po, n: T * D };
    }),
    simdApi: api(() => ours.simd.api.applyRope(inputs.x, { length: T, dim: D, layout: 'half' })),
    js: js((out) => plain.ropeHalf(inputs.x, out, T, D), T * D),
    tfjs: tfv(() => tfRope(tf, tfIn.x, tfIn.positions, tfIn.invFreq)),
  }, { tol: TOLERANCE.rope });

  // --- attention probabilities with a position bias
  const probsOut = new Float32Array(T * T); // the caller-owned result of simdApiOut
  const probsKernel = (name, what, slope, bias, tfBias) => kernel(name, what, {
    ...both((mod, b) => {
      const pq = b.put(inputs.q), pk = b.put(inputs.k), ps = b.alloc(T * T), pb = bias ? b.put(bias) : 0;
      return { run: () => mod.attention(pq, pk, ps, T, T, D, scale, true, slope, pb), out: ps, n: T * T };
    }),
    simdApi: api(() => ours.simd.api.attention(inputs.q, inputs.k, { queryLength: T, dim: D, alibiSlope: slope, ...(bias ? { bias } : {}) })),
    simdApiOut: api(() => ours.simd.api.attention(inputs.q, inputs.k, { queryLength: T, dim: D, alibiSlope: slope, ...(bias ? { bias } : {}), out: probsOut })),
    js: js((out) => plain.probs(inputs.q, inputs.k, out, T, D, scale, slope, bias), T * T),
    tfjs: tfv(() => tfProbs(tf, tfIn.q, tfIn.k, tfIn.scale, tfBias)),
    tfjsTransposed: tfv(() => tfProbs(tf, tfIn.q, tfIn.k, tfIn.scale, tfBias, true)),
  }, { tol: TOLERANCE[name] });
  probsKernel('alibi_softmax', `softmax(QKᵀ/√d − m·(i−j)), causal, T=${T}, d=${D}`, ALIBI_SLOPE, null, tfIn.alibi);
  probsKernel('t5_softmax', `softmax(QKᵀ/√d + T5 bucket bias), causal, T=${T}, d=${D}`, 0, t5Bias, tfIn.t5);

  // --- Q K^T and plain matrix products
  kernel('qkt', `QKᵀ, T=${T}, d=${D} (full T×T)`, {
    ...both((mod, b) => {
      const pq = b.put(inputs.q), pk = b.put(inputs.k), ps = b.alloc(T * T);
      return { run: () => mod.kernelMatmulBt(pq, pk, ps, T, D, T), out: ps, n: T * T };
    }),
    js: js((out) => plain.matmulBt(inputs.q, inputs.k, out, T, D, T), T * T),
    tfjs: tfv(() => tfQkt(tf, tfIn.q, tfIn.k, false)),
    tfjsTransposed: tfv(() => tfQkt(tf, tfIn.q, tfIn.k, true)),
  }, { tol: TOLERANCE.qkt, flops: 2 * T * T * D });
  for (const s of MATMULS) {
    const A = uniform(s.M * s.K, SEED.a), B = uniform(s.K * s.N, SEED.b);
    const tA = tf.tensor2d(A, [s.M, s.K]), tB = tf.tensor2d(B, [s.K, s.N]);
    kernel(matmulName(s), `A[${s.M}×${s.K}] · B[${s.K}×${s.N}]`, {
      ...both((mod, b) => {
        const pa = b.put(A), pb = b.put(B), pc = b.alloc(s.M * s.N);
        return { run: () => mod.kernelMatmul(pa, pb, pc, s.M, s.K, s.N), out: pc, n: s.M * s.N };
      }),
      js: js((out) => plain.matmul(A, B, out, s.M, s.K, s.N), s.M * s.N),
      tfjs: tfv(() => tf.matMul(tA, tB)),
    }, { tol: TOLERANCE.matmul, flops: 2 * s.M * s.K * s.N });
    tA.dispose();
    tB.dispose();
  }

  // --- full causal attention, O = softmax(QKᵀ/√d) V
  kernel('attention', `causal attention output, T=${T}, d=${D} (ours streamed: no T×T buffer)`, {
    ...both((mod, b) => {
      const pq = b.put(inputs.q), pk = b.put(inputs.k), pv = b.put(inputs.v), po = b.alloc(T * D);
      return { run: () => mod.kernelAttentionForward(pq, pk, pv, po, T, T, D, D, scale, true, 0), out: po, n: T * D };
    }),
    js: js((out) => plain.attention(inputs.q, inputs.k, inputs.v, out, T, D, D, scale), T * D),
    tfjs: tfv(() => tfAttention(tf, tfIn.q, tfIn.k, tfIn.v, tfIn.scale, tfIn.mask)),
    tfjsTransposed: tfv(() => tfAttention(tf, tfIn.q, tfIn.k, tfIn.v, tfIn.scale, tfIn.mask, true)),
  }, { tol: TOLERANCE.attention, flops: 4 * D * (T * (T + 1)) / 2 });
  tfIn.dispose();

  // --- the tiny model's forward pass
  const models = { simd: ours.simd.api.createModel(MODEL), scalar: ours.scalar.api.createModel(MODEL) };
  const weights = weightsFromCheckpoint(models.simd.save(), models.simd.config);
  const plainModel = new PlainModel(models.simd.config, weights.params);
  const tfModel = new TfModel(tf, models.simd.config, weights);
  const tfBatched = new TfModel(tf, models.simd.config, weights, { layout: 'batched' });
  const tfSliced = new TfModel(tf, models.simd.config, weights, { layout: 'perHeadSliced' });
  for (const len of FORWARD_LENGTHS) {
    const tok = makeTokens(len, MODEL.vocabSize, SEED.tokens), tokT = tf.tensor1d(tok, 'int32');
    const fwd = (m) => api(() => m.forward(tok, { length: len }).logits);
    kernel(`forward_${len}`, `tiny model forward (L=${MODEL.layers}, H=${MODEL.heads}, d=${MODEL.dModel}, RoPE), T=${len}, batch 1`, {
      simd: fwd(models.simd),
      scalar: fwd(models.scalar),
      js: api(() => plainModel.forward(tok, 1, len)),
      tfjs: tfv(() => tfModel.forward(tokT)),
      tfjsSliced: tfv(() => tfSliced.forward(tokT)),
      tfjsBatched: tfv(() => tfBatched.forward(tokT)),
    }, { tol: TOLERANCE.forward });
    tokT.dispose();
  }
  tfModel.dispose();
  tfBatched.dispose();
  tfSliced.dispose();
  Object.values(models).forEach((m) => m.delete());

  // --- one training step at the explorer's defaults
  if (wanted('train')) {
    const vocabSize = ours.simd.api.taskInfo(TRAIN.task).vocabSize;
    const config = { ...TRAIN.model, vocabSize };
    const task = ours.simd.api.createTask(TRAIN.task);
    const { tokens, targets } = task.sample({ batch: TRAIN.batch, length: TRAIN.length });
    task.delete();
    const shape = { batch: TRAIN.batch, length: TRAIN.length };
    const oursStep = (inst) => {
      const timedModel = inst.api.createModel(config);
      return {
        run: () => timedModel.trainStep(tokens, targets, { ...shape, lr: TRAIN.lr }),
        output: () => {
          const m = inst.api.createModel(config);
          const loss = m.trainStep(tokens, targets, { ...shape, lr: TRAIN.lr });
          const r = [loss, m.lastStep.gradNorm, m.evaluate(tokens, targets, shape).loss];
          m.delete();
          return r;
        },
        dispose: () => timedModel.delete(),
      };
    };
    const fresh = ours.simd.api.createModel(config);
    const trainWeights = weightsFromCheckpoint(fresh.save(), fresh.config).params;
    fresh.delete();
    const timedPlain = new PlainModel(config, trainWeights);
    const variants = {
      simd: oursStep(ours.simd),
      scalar: oursStep(ours.scalar),
      js: {
        run: () => timedPlain.trainStep(tokens, targets, TRAIN.batch, TRAIN.length, TRAIN.lr),
        output: () => {
          const m = new PlainModel(config, trainWeights);
          const r = m.trainStep(tokens, targets, TRAIN.batch, TRAIN.length, TRAIN.lr);
          return [r.loss, r.gradNorm, m.evaluate(tokens, targets, TRAIN.batch, TRAIN.length)];
        },
      },
    };
    log(`train: one AdamW step, batch ${TRAIN.batch} x T=${TRAIN.length}`);
    const ref = variants.simd.output();
    outputs.train = Float32Array.from(ref);
    const result = { what: `one training step (forward, backward, AdamW), copy task, batch ${TRAIN.batch}, T=${TRAIN.length}, L=${config.layers}, H=${config.heads}, d=${config.dModel}, mlpRatio ${config.mlpRatio}`, tol: TOLERANCE.train, variants: {} };
    for (const [v, { output }] of Object.entries(variants))
      result.variants[v] = { check: v === 'simd' ? { ok: true, reference: true, values: ref.map((x) => +x.toPrecision(7)) } : compareScalars(ref, output(), TOLERANCE.train) };
    const times = measure(Object.fromEntries(Object.entries(variants).map(([v, x]) => [v, x.run])));
    for (const [v, t] of Object.entries(times)) Object.assign(result.variants[v], t);
    variants.simd.dispose();
    variants.scalar.dispose();
    kernels.train = result;
    log(`  ${Object.entries(result.variants).map(([v, r]) => `${v} ${r.ms.toPrecision(3)} ms${r.check.ok ? '' : ' (VOID)'}`).join(', ')}`);
  }

  const lengths = sweep && wanted('sweep') ? await lengthSweep({ builds, tf, log, weights }) : [];
  return { kernels, sweep: lengths, outputs, simdArch: ours.simd.mod.simdArch() };
}

// T5 bias [T, T]: a random per-bucket table through the causal buckets of key - query.
function t5BiasMatrix(api, table) {
  const rel = new Int32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) rel[i * T + j] = j - i;
  const bucket = api.t5Bucket(rel, { bidirectional: false, numBuckets: 32, maxDistance: 128 });
  return Float32Array.from(bucket, (b) => table[b]);
}

// Time and memory of one forward pass against T. Ours (wasm SIMD) streams attention;
// each length runs in a fresh instance of the module, so its memory figures are that
// length's own: the wasm memory size afterwards (never shrinks) and the allocator's
// high-water mark. "simdMaps" asks for the attention maps (materialised T×T per head).
// The others run while they fit and stay under a time budget.
async function lengthSweep({ builds, tf, log, weights }) {
  const rows = [];
  // Past these lengths: the maps (L·H·T² floats) exceed the model's 512 MB activation limit; tfjs
  // holds H×T×T scores and probabilities, 1 GB each at T = 8192; scalar and plain JS take too long.
  const limits = { simd: Infinity, simdMaps: 2048, scalar: 4096, js: 2048, tfjs: 4096 };
  const failed = new Set();
  let tfModel = null;
  for (const len of SWEEP_LENGTHS) {
    const tok = makeTokens(len, MODEL.vocabSize, SEED.tokens);
    const row = { T: len };
    for (const variant of Object.keys(limits)) {
      if (len > limits[variant] || failed.has(variant)) continue;
      try {
        row[variant] = await sweepOne(variant, { builds, tf, tok, len, weights, tfModel: () => (tfModel ??= new TfModel(tf, { ...MODEL }, weights)) });
      } catch (e) {
        failed.add(variant);
        row[variant] = { error: String(e?.message ?? e).slice(0, 200) };
      }
    }
    log(`sweep T=${len}: ${Object.entries(row).filter(([k]) => k !== 'T').map(([k, r]) => `${k} ${r.ms ? `${r.ms.toPrecision(3)} ms` : 'failed'}`).join(', ')}`);
    rows.push(row);
  }
  tfModel?.dispose();
  return rows;
}

async function sweepOne(variant, { builds, tf, tok, len, weights, tfModel }) {
  // one warm-up call, then 5 single-call samples (3 once a call passes 2 s)
  const budget = { rounds: 5, minMs: 1, warmMs: 1, budgetMs: 10000 };
  if (variant === 'tfjs') {
    const tokT = tf.tensor1d(tok, 'int32');
    try {
      const t = measure({ tfjs: () => tfModel().forward(tokT).dispose() }, budget).tfjs;
      return { ms: t.ms, samples: t.samples };
    } finally {
      tokT.dispose();
    }
  }
  if (variant === 'js') {
    const m = new PlainModel({ ...MODEL }, weights.params);
    const t = measure({ js: () => m.forward(tok, 1, len) }, budget).js;
    return { ms: t.ms, samples: t.samples };
  }
  const inst = await builds[variant === 'scalar' ? 'scalar' : 'simd'].instance();
  const startBytes = inst.memoryBytes();
  const model = inst.api.createModel(MODEL);
  // With maps, into one reused array: a fresh 32-128 MB result per call would time the
  // browser's garbage collector more than the model.
  const maps = variant === 'simdMaps' ? { attention: true, attentionOut: new Float32Array(MODEL.layers * MODEL.heads * len * len) } : {};
  const t = measure({ [variant]: () => model.forward(tok, { length: len, ...maps }) }, budget)[variant];
  const r = { ms: t.ms, samples: t.samples, memoryBytes: inst.memoryBytes(), startBytes, heapPeakBytes: inst.heapPeakBytes() };
  model.delete();
  return r;
}
