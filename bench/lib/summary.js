// The issue's targets, computed from one results object (every ratio from
// figures of the same run), and the console tables of `npm run bench`.
import { FORWARD_LENGTHS, MATMULS, matmulName } from './cases.js';

export const ENVS = ['chromium', 'node'];
const valid = (r) => r && Number.isFinite(r.ms) && r.check?.ok;

/** speed of `a` relative to `b` (b.ms / a.ms), or null when either is missing or void. */
export function speedup(a, b) {
  return valid(a) && valid(b) ? +(b.ms / a.ms).toFixed(2) : null;
}

/** tfjs formulations: QKᵀ with transposeB or an explicit transpose; the forward per head
 * (two ways) or with the heads as a batch dimension (bench/lib/tfjs.js). */
export const TFJS_VARIANTS = ['tfjs', 'tfjsTransposed', 'tfjsSliced', 'tfjsBatched'];

/** The best valid tfjs figure of a kernel: tfjs in its fastest form. */
export function bestTfjs(kernel) {
  const all = TFJS_VARIANTS.map((v) => kernel?.variants[v]).filter(valid);
  return all.sort((a, b) => a.ms - b.ms)[0] ?? kernel?.variants.tfjs ?? null;
}

// A ratio target (higher is better); met when every measured environment reaches the goal.
const target = (id, name, goal, measured) => ({
  id, name, goal, measured, met: Object.values(measured).some((x) => x !== null) ? Object.values(measured).every((x) => x === null || x >= goal) : null,
});

export function summarise(results) {
  const per = (fn) => Object.fromEntries(ENVS.filter((e) => results[e]).map((e) => [e, fn(results[e].kernels, e)]));
  const native = results.native?.kernels ?? {};
  const gflopsRatio = (name) => per((k) => {
    const w = k[name]?.variants.simd, n = native[name];
    return valid(w) && valid(n) && w.gflops && n.gflops ? +(w.gflops / n.gflops).toFixed(2) : null;
  });
  const targets = [
    target('forward', 'tiny-model forward, T=1024: wasm SIMD vs tfjs-backend-wasm at its fastest', 3,
      per((k) => speedup(k.forward_1024?.variants.simd, bestTfjs(k.forward_1024)))),
    target('forward128', 'tiny-model forward, T=128: wasm SIMD vs tfjs-backend-wasm at its fastest', 5,
      per((k) => speedup(k.forward_128?.variants.simd, bestTfjs(k.forward_128)))),
    target('attention', 'attention (causal, streamed): wasm SIMD vs wasm scalar', 3.5,
      per((k) => speedup(k.attention?.variants.simd, k.attention?.variants.scalar))),
    target('qkt', 'QKᵀ GFLOP/s: wasm SIMD / native AVX2', 0.6, gflopsRatio('qkt')),
    ...MATMULS.map((s) => target('matmul', `matmul ${s.M}×${s.K}×${s.N} GFLOP/s: wasm SIMD / native AVX2`, 0.6, gflopsRatio(matmulName(s)))),
    target('train', 'training step: wasm SIMD vs plain JS', 5, per((k) => speedup(k.train?.variants.simd, k.train?.variants.js))),
  ];
  const e = results.explorer;
  if (e) // lower is better: the main thread's work per frame, p95, in ms
    targets.push({ id: 'frame', name: `explorer, main-thread work per frame at T=${e.T}, all encodings (p95 ms)`, goal: '< 16',
      measured: { chromium: e.frame.draws.p95 }, met: e.frame.draws.p95 < 16 });
  const pool = e?.latency?.pools.at(-1);
  if (pool) // lower is better: one new length asked of every encoding at once, until the page has the last pictures
    targets.push({ id: 'sweep', name: `explorer, sweep: one new length for all ${e.encodings.length} encodings at T=${e.T}, ${pool.workers} sweep Worker${pool.workers > 1 ? 's' : ''} (ms)`,
      goal: '< 100', measured: { chromium: pool.median }, met: pool.median < 100 });
  else if (e?.worker) // older results: one Worker's time, one encoding after the other
    targets.push({ id: 'sweep', name: `explorer, sweep Worker: one new length for all ${e.encodings.length} encodings at T=${e.T} (ms)`, goal: '< 100',
      measured: { chromium: e.worker.total }, met: e.worker.total < 100 });
  return targets;
}

const fmt = (r, unit = 'ms') => {
  if (!r || !Number.isFinite(r.ms)) return '—';
  const v = unit === 'gflops' ? r.gflops : r.ms;
  const s = v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toPrecision(2);
  return r.check?.ok ? s : `${s} VOID`;
};

export const KERNEL_ORDER = ['rope', 'alibi_softmax', 't5_softmax', 'qkt', ...MATMULS.map(matmulName), 'attention',
  ...FORWARD_LENGTHS.map((T) => `forward_${T}`), 'train'];

export function printTables(results) {
  for (const env of ENVS) {
    const k = results[env]?.kernels;
    if (!k) continue;
    const rows = KERNEL_ORDER.filter((n) => k[n]).map((n) => {
      const v = k[n].variants, tf = bestTfjs(k[n]);
      return {
        kernel: n, 'simd ms': fmt(v.simd), 'scalar ms': fmt(v.scalar), 'native ms': fmt(results.native?.kernels[n]),
        'js ms': fmt(v.js), 'tfjs ms': fmt(tf), 'simd/scalar': speedup(v.simd, v.scalar) ?? '—',
        'vs js': speedup(v.simd, v.js) ?? '—', 'vs tfjs': speedup(v.simd, tf) ?? '—',
      };
    });
    console.log(`\n${env}: median ms per call (ratios: how many times faster wasm SIMD is)`);
    console.table(rows);
  }
  console.log('\ntargets:');
  for (const t of results.targets)
    console.log(`  ${t.met === null ? '?' : t.met ? 'met    ' : 'NOT met'}  ${t.name}: ${Object.entries(t.measured).map(([e, x]) => `${e} ${x ?? '—'}`).join(', ')} (goal ${t.goal})`);
}
