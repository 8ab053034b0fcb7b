// Training in wasm (Node, single thread) at the browser defaults:
// L=2, 4 heads, d_model=64, T=64, batch 16, copy task with 16 symbols, lr 6e-3, warmup 250, cosine over 2400 steps.
//  - tokens/s of training steps, SIMD build against the scalar build (one run);
//  - per encoding, steps and seconds until held-out copy accuracy >= 95%,
//    with a 60 s budget (the target).
//   node bench/train_wasm.js [--encodings rope,alibi] [--budget 60] [--lr 6e-3] [--symbols 16] [--json out.json]
import { writeFile } from 'node:fs/promises';
import { loadPosenc, ENCODINGS } from '../web/lib/index.js';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const encodings = arg('encodings', ENCODINGS.join(',')).split(',');
const budget = Number(arg('budget', 60));
const lr = Number(arg('lr', 6e-3));
const T = 64, B = 16, SYMBOLS = Number(arg('symbols', 16));
const config = (encoding, seed = 1) => ({ encoding, layers: 2, heads: 4, dModel: 64, vocabSize: SYMBOLS + 3, maxLength: T, seed });

async function throughput(pe, steps = 30) {
  const m = pe.createModel(config('rope'));
  const task = pe.createTask({ symbols: SYMBOLS, seed: 1 });
  const batches = Array.from({ length: steps }, () => task.sample({ batch: B, length: T }));
  for (let i = 0; i < 5; i++) m.trainStep(batches[i].tokens, batches[i].targets, { batch: B, length: T, lr: 1e-3 });
  const t0 = performance.now();
  for (const { tokens, targets } of batches) m.trainStep(tokens, targets, { batch: B, length: T, lr: 1e-3 });
  const seconds = (performance.now() - t0) / 1000;
  m.delete();
  task.delete();
  return (steps * B * T) / seconds;
}

async function timeToTarget(pe, encoding) {
  const m = pe.createModel(config(encoding));
  const heldOut = pe.createTask({ symbols: SYMBOLS, seed: 999 }).sample({ batch: 64, length: T });
  const task = pe.createTask({ symbols: SYMBOLS, seed: 1 });
  const t0 = performance.now();
  const maxSteps = 2400, warmup = 250; // the settings tuned natively (bench/train_native.cpp)
  let step = 0, acc = 0, trainSeconds = 0;
  for (; step < maxSteps; step++) {
    const s0 = performance.now();
    const { tokens, targets } = task.sample({ batch: B, length: T });
    m.trainStep(tokens, targets, { batch: B, length: T, lr: pe.lrAt(step, maxSteps, warmup, lr, lr / 10) });
    trainSeconds += (performance.now() - s0) / 1000;
    if ((step + 1) % 25 === 0) {
      acc = m.evaluate(heldOut.tokens, heldOut.targets, { batch: 64, length: T }).accuracy;
      if (acc >= 0.95) break;
    }
    if (trainSeconds > budget) break;
  }
  m.delete();
  task.delete();
  return { encoding, reached: acc >= 0.95, steps: step + 1, trainSeconds: +trainSeconds.toFixed(1),
    wallSeconds: +((performance.now() - t0) / 1000).toFixed(1), heldOutAccuracy: +acc.toFixed(3) };
}

const simd = await loadPosenc({ build: 'simd' });
const scalar = await loadPosenc({ build: 'scalar' });
const tps = { simd: await throughput(simd), scalar: await throughput(scalar) };
console.log(`training tokens/s at T=${T}, batch ${B}, L=2, H=4, d=64: wasm SIMD ${tps.simd.toFixed(0)}, wasm scalar ${tps.scalar.toFixed(0)} (SIMD/scalar ${(tps.simd / tps.scalar).toFixed(2)}x)`);
const runs = [];
for (const e of encodings) {
  const r = await timeToTarget(simd, e);
  runs.push(r);
  console.log(`${e.padEnd(11)} ${r.reached ? 'reached 95%' : 'did not reach 95%'} after ${r.steps} steps, ${r.trainSeconds}s of training (${r.wallSeconds}s with evaluation), held-out accuracy ${r.heldOutAccuracy}`);
}
const out = arg('json', null);
if (out) await writeFile(out, JSON.stringify({ tokensPerSecond: tps, lr, budget, runs }, null, 2));
