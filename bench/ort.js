// The second peer: onnxruntime-web's wasm backend running the tiny model, exported to ONNX by
// bench/lib/onnx-export.js with our weights, against ours (wasm SIMD, public API) in Node.
// Each length: ORT's logits are checked against ours first (tolerance of the forward rows),
// then both run in interleaved rounds (a burst of load hits both alike); the ratio is from
// the same rounds. Made fast the way ORT's docs say: the wasm SIMD build, one thread (as
// ours; no cross-origin isolation in a page either), graph optimisation level "all" (it fuses
// LayerNorm, GELU, MatMul + Add), one session for every length (T is symbolic), input
// tensors made once per length outside the timing.
//
//   node bench/ort.js [--out file]      (default bench/results-ort.json; run by bench/run.js)
import { readFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { compileOurs } from './lib/ours.js';
import { MODEL, SEED, TOLERANCE } from './lib/cases.js';
import { tokens as makeTokens } from './lib/inputs.js';
import { weightsFromCheckpoint } from './lib/weights.js';
import { compare } from './lib/check.js';
import { exportTinyModel, onnxInputs } from './lib/onnx-export.js';

const LENGTHS = [128, 512, 1024];
const root = new URL('..', import.meta.url).pathname;

/** {version, lengths: [{T, ours, ort, check, ratio}]}: ours and ORT's forward at each length, one run. */
export async function runOrt(log = console.log) {
  const require = createRequire(import.meta.url);
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = `${require.resolve('onnxruntime-web').replace(/[^/]+$/, '')}`;
  const ours = await (await compileOurs('simd', { read: (file) => readFile(join(root, 'web/wasm', file)) })).instance();
  const model = ours.api.createModel(MODEL);
  const weights = weightsFromCheckpoint(model.save({ weights: 'float32' }), model.config);
  const bytes = exportTinyModel(model.config, weights);
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all', executionMode: 'sequential',
  });
  log(`\n== onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, 1 thread, SIMD), ONNX graph of ${(bytes.length / 1024).toFixed(0)} KB`);
  const rows = [];
  for (const T of LENGTHS) {
    const tok = makeTokens(T, MODEL.vocabSize, SEED.tokens);
    const { cos2, sin2, mask } = onnxInputs(model.config, T);
    const hd = MODEL.dModel / MODEL.heads;
    const feeds = {
      tokens: new ort.Tensor('int64', BigInt64Array.from(tok, (t) => BigInt(t)), [T]),
      cos2: new ort.Tensor('float32', cos2, [T, hd]), sin2: new ort.Tensor('float32', sin2, [T, hd]),
      mask: new ort.Tensor('float32', mask, [T, T]),
    };
    const runOrtOnce = async () => (await session.run(feeds)).logits;
    const runOurs = () => model.forward(tok, { length: T }).logits;
    const check = compare(runOurs(), (await runOrtOnce()).data, TOLERANCE.forward);
    const t = await interleaved({ ours: runOurs, ort: runOrtOnce });
    const row = { T, ours: t.ours, ort: t.ort, check, ratio: check.ok ? +(t.ort.ms / t.ours.ms).toFixed(2) : null };
    log(`  T=${T}: ours ${t.ours.ms.toPrecision(3)} ms, ort ${t.ort.ms.toPrecision(3)} ms${check.ok ? ` (ours ${row.ratio}x faster)` : ` VOID ${JSON.stringify(check)}`}`);
    rows.push(row);
  }
  await session.release();
  model.delete();
  return { version: ort.env.versions?.web ?? null, graphKB: +(bytes.length / 1024).toFixed(1), lengths: rows };
}

// Warm-up, then 7 rounds alternating who goes first; each sample averages calls lasting >= 50 ms.
// The first warm-up is long: V8 compiles ORT's large wasm module with TurboFan in the background
// after instantiation, and that compile competes with whatever runs first.
let firstWarmUp = true;
async function interleaved(variants) {
  const names = Object.keys(variants), plan = {}, samples = {};
  const warmMs = firstWarmUp ? 4000 : 400;
  firstWarmUp = false;
  for (const n of names) {
    const t0 = performance.now();
    let calls = 0;
    while (performance.now() - t0 < warmMs || calls < 3) {
      await variants[n]();
      calls++;
    }
    plan[n] = Math.max(1, Math.round(50 / ((performance.now() - t0) / calls)));
    samples[n] = [];
  }
  for (let r = 0; r < 7; r++)
    for (const n of r % 2 ? names.slice().reverse() : names) {
      const t0 = performance.now();
      for (let i = 0; i < plan[n]; i++) await variants[n]();
      samples[n].push((performance.now() - t0) / plan[n]);
    }
  return Object.fromEntries(names.map((n) => {
    const s = samples[n].slice().sort((a, b) => a - b);
    return [n, { ms: s[s.length >> 1], samples: samples[n].map((x) => +x.toPrecision(4)) }];
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : join(root, 'bench/results-ort.json');
  const loadAverageAtStart = os.loadavg().map((x) => +x.toFixed(2));
  const r = await runOrt();
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, loadAverageAtStart, loadAverageAtEnd: os.loadavg().map((x) => +x.toFixed(2)), ...r }, null, 1)}\n`);
  console.log(`wrote ${out}`);
}
