// First speed figures: the wasm SIMD build against the scalar build of the
// same source, in one run, for applyRope and attention at T=1024, d=64.
// Two measurements each: the raw kernel (data already in wasm memory) and
// the public API (validation and copies included).
//   node bench/foundation.js [--json out.json]
import { readFile, writeFile } from 'node:fs/promises';
import { loadPosenc } from '../web/lib/index.js';

const T = 1024, D = 64, REPS = 9;

function median(fn, inner) {
  for (let i = 0; i < 3; i++) fn(); // warm-up (JIT tier-up)
  const times = [];
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < inner; i++) fn();
    times.push((performance.now() - t0) / inner);
  }
  times.sort((a, b) => a - b);
  return times[REPS >> 1];
}

async function rawModule(flavour) {
  const { default: create } = await import(`../web/wasm/posenc-${flavour}.mjs`);
  return create({ wasmBinary: await readFile(new URL(`../web/wasm/posenc-${flavour}.wasm`, import.meta.url)) });
}

function kernelBench(mod) {
  const x = mod._malloc(T * D * 4), q = mod._malloc(T * D * 4), s = mod._malloc(T * T * 4), f = mod._malloc(D / 2 * 8);
  const X = new Float32Array(T * D).map((_, i) => Math.sin(i * 0.37));
  mod.HEAPF32.set(X, x / 4);
  mod.HEAPF32.set(X, q / 4);
  mod.HEAPF64.set(Float64Array.from({ length: D / 2 }, (_, i) => 10000 ** (-2 * i / D)), f / 8);
  const rope = median(() => mod.applyRope(x, x, T, D, D, false, f, 1, 0), 20);
  const attn = median(() => mod.attention(q, x, s, T, T, D, 0.125, true, 0, 0), 5);
  [x, q, s, f].forEach((p) => mod._free(p));
  return { rope, attn };
}

function apiBench(pe) {
  const X = new Float32Array(T * D).map((_, i) => Math.sin(i * 0.37));
  return {
    rope: median(() => pe.applyRope(X, { length: T, dim: D }), 20),
    attn: median(() => pe.attention(X, X, { queryLength: T, dim: D }), 5),
  };
}

const results = {};
for (const flavour of ['simd', 'scalar']) {
  results[flavour] = { kernel: kernelBench(await rawModule(flavour)), api: apiBench(await loadPosenc({ build: flavour })) };
}
const rows = [];
for (const level of ['kernel', 'api'])
  for (const k of ['rope', 'attn']) {
    const simd = results.simd[level][k], scalar = results.scalar[level][k];
    rows.push({ what: `${k === 'rope' ? 'applyRope' : 'attention (causal, scores+softmax)'} [${level}]`, simd_ms: +simd.toFixed(3), scalar_ms: +scalar.toFixed(3), speedup: +(scalar / simd).toFixed(2) });
  }
console.log(`T=${T}, d=${D}, Node ${process.version}, median of ${REPS}`);
console.table(rows);
const out = process.argv.indexOf('--json');
if (out > 0) await writeFile(process.argv[out + 1], JSON.stringify({ T, D, rows }, null, 2));
