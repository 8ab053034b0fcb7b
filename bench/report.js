// bench/results.json -> the README's "Sizes and speed" section, docs/performance.md
// and the time / memory against length figure (docs/figures/bench-length.svg, and
// a PNG rendered in headless Chromium). Run by `npm run bench`; also alone:
//   node bench/report.js [results.json]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { scaleLog } from 'd3-scale';
import { line } from 'd3-shape';
import { launchBrowser } from '../tests/browser/harness.js';
import { ENVS, KERNEL_ORDER, speedup, bestTfjs } from './lib/summary.js';
import { TOLERANCE } from './lib/cases.js';

const root = new URL('..', import.meta.url).pathname;
const results = JSON.parse(readFileSync(process.argv[2] ?? `${root}bench/results.json`, 'utf8'));
const { machine } = results;

// ---------------------------------------------------------------------------
// Formatting

const num = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toPrecision(2));
const ms = (r) => (r && Number.isFinite(r.ms) ? `${num(r.ms)}${r.check && !r.check.ok ? ' (void)' : ''}` : '—');
const x = (v) => (v === null || v === undefined ? '—' : `${v.toFixed(v >= 10 ? 0 : 1)}×`);
const mb = (b) => (b ? `${(b / 2 ** 20).toFixed(0)}` : '—');
const LABEL = {
  rope: '`applyRope`, T×d = 1024×64 (tables + rotation)',
  alibi_softmax: 'scores + ALiBi + causal mask + softmax, T=1024, d=64',
  t5_softmax: 'scores + T5 bias + causal mask + softmax, T=1024, d=64',
  qkt: 'QKᵀ, T=1024, d=64',
  matmul_256x256x64: 'matmul 256×256 · 256×64',
  matmul_1024x64x256: 'matmul 1024×64 · 64×256',
  attention: 'causal attention softmax(QKᵀ/√d)V, T=1024, d=64',
  forward_128: 'tiny-model forward, T=128',
  forward_512: 'tiny-model forward, T=512',
  forward_1024: 'tiny-model forward, T=1024',
  forward_4096: 'tiny-model forward, T=4096',
  train: 'training step, batch 32 × T=32, d=32 (the explorer\'s defaults)',
};
const ENV_NAME = { chromium: `Chromium ${results.chromium?.version ?? ''}`.trim(), node: `Node ${machine.node}` };

// What limits each target (the measured ratios are in the table next to it).
const LIMITS = {
  forward: forwardLimit(),
  forward128: 'At T = 128 the attention is a small part; tfjs pays its per-op overhead (about 170 ops per forward in the per-head form) while ours is one call.',
  sweep: `An absolute time, at this run's load average of ${machine.loadAverageAtStart[0]} on 2 cores (bench/explorer.js also gives 1 Worker against the pool, in one run, with the load at that moment). What it is made of: the forward passes, ${results.explorer?.encodings.length ?? 12} encodings × 2 sequences × T = 512 (4 sequences up to T = 256, fewer beyond: a forward costs T²; attention with head_dim 8 is exp- and bookkeeping-bound; FIRE, which cannot stream and runs its bias MLP for every pair, ${fireShare()}), with the maps of the drawn layer only (the later layers stream, the last layer skips its unscored queries), then the pictures (pooled in the module, coloured in the Worker: about a sixth). Two sweep Workers split the encodings; on 2 shared cores they gain less than 2×.`,
  attention: 'SIMD128 has 4 lanes, so 4× is the ceiling. The scalar build is the same source on a 4-float struct (and libm expf), and Chromium\'s newer V8 runs that scalar code faster than Node 20, so the ratio is lower there. Besides the two block products, exp and the online-softmax bookkeeping take a fifth to a third of the SIMD time.',
  qkt: 'The same ceiling as matmul below (0.5: 4 lanes and no FMA). The ratio is higher than for matmul because the native QKᵀ runs below its peak: it transposes K and stores a 1024×1024 result (4 MB, past L2).',
  matmul: 'Not reachable on this CPU: wasm SIMD128 has 4 float lanes and no fused multiply-add, so its peak is 2 mul + 2 add per cycle × 4 lanes = 16 flop/cycle, against 32 for AVX2 FMA (2 × 8 lanes × 2); the native kernel runs near its peak, so the ratio cannot pass 0.5. The wasm micro-kernel (4×8 register tile, the largest V8 keeps in its 15 xmm registers without spilling) reaches about 80% of its own peak.',
  train: 'The plain-JS step does the same arithmetic with scalar float64 loops; the gap is SIMD, register tiling, and skipping masked and unscored work.',
  frame: `The main thread only draws cached ImageBitmaps; the forward passes run in the sweep Worker, once per length (see below). An absolute time: this run's load average was ${machine.loadAverageAtStart[0]} on 2 cores, so the page got a fraction of one core (the run of 2026-11-30, at load 0.9, measured 4.10 ms).`,
};

// FIRE's share of one Worker's sweep of a length, from bench/explorer.js in this run.
function fireShare() {
  const w = results.explorer?.worker;
  if (!w?.perEncoding?.fire || !w.total) return 'a large share';
  return `${Math.round((100 * w.perEncoding.fire) / w.total)}% of one Worker's ${num(w.total)} ms`;
}

// What limits the forward ratio, from the profile of the same run (bench/profile_forward.cpp).
function forwardLimit() {
  const p = results.profile?.wasm?.lengths?.find((l) => l.T === 1024);
  if (!p) return 'See "Where the forward pass goes" (not profiled in this run).';
  const pct = (re) => Math.round((100 * p.stages.filter((s) => re.test(s.stage)).reduce((a, s) => a + s.ms, 0)) / p.stages_sum_ms);
  const probe = results.profile?.native?.fmaProbe;
  return `In wasm at T = 1024, attention is ${pct(/^attention:/)}% of the forward (exp ${pct(/exp/)}%, the two block products ${pct(/blocks/)}%), the projections and MLP ${pct(/projection|MLP|lm head/)}%, GELU ${pct(/GELU/)}% (see "Where the forward pass goes"). The matrix products already run near SIMD128's mul + add peak (the 4×8 micro-kernel's loop, read in V8's machine code with perf: 16 vector mul/add, 6 loads and about 8 address instructions per step; keeping the loads at constant offsets did not make it faster), so only fewer instructions would help, and an FMA would not: ${probe ? `natively on this CPU a 128-bit FMA micro-kernel runs ${(probe.fma_gflops / probe.mul_add_gflops).toFixed(2)}× the mul + add one (${probe.fma_gflops} vs ${probe.mul_add_gflops} GFLOP/s), ` : ''}and Node 20's V8 (11.3) has no relaxed SIMD without a flag, while clang 14 emits a pre-standard FMA opcode that Chromium rejects.`;
}

// Where the forward pass goes: stage times of one forward (wasm SIMD and native), from profile_forward.
function profileSection() {
  const prof = results.profile;
  if (!prof?.wasm) return '_Not profiled in this run._';
  const envs = ['wasm', 'native'].filter((e) => prof[e]);
  const Ts = prof.wasm.lengths.map((l) => l.T);
  const head = ['stage', ...envs.flatMap((e) => Ts.map((T) => `${e} T=${T} ms`)), ...envs.map((e) => `${e} T=${Ts.at(-1)} share`)];
  const rows = prof.wasm.lengths[0].stages.map((st, i) => {
    const cells = envs.flatMap((e) => prof[e].lengths.map((l) => num(l.stages[i].ms)));
    const share = envs.map((e) => { const l = prof[e].lengths.at(-1); return `${Math.round((100 * l.stages[i].ms) / l.stages_sum_ms)}%`; });
    return `| ${st.stage} | ${cells.join(' | ')} | ${share.join(' | ')} |`;
  });
  const sums = envs.flatMap((e) => prof[e].lengths.map((l) => num(l.stages_sum_ms)));
  const whole = envs.flatMap((e) => prof[e].lengths.map((l) => num(l.forward_ms)));
  const expRatio = prof.wasm.lengths.map((l) => `${(l.exp_nonpositive_ms / l.exp_natural_ms).toFixed(2)}× at T=${l.T}`).join(', ');
  const probe = prof.native?.fmaProbe;
  return [
    '`bench/profile_forward.cpp` times the tiny model\'s forward pass (`Model::forward`, no JS) and then each of its stages alone on buffers of the same shapes (L=2, H=4, C=64, head_dim 16, MLP 256, V=16), attention cut into its two block products (the same `matmul_strided` calls the streamed kernel makes), exp over the same number of scores, and the rest (row max, rescaling, masking, the transpose of K: the whole kernel minus those). Median of 7 samples after 100 ms of warm-up each; wasm run by Node with \`--no-liftoff\`; run in the same \`npm run bench\` as the tables above.',
    '',
    `| ${head.join(' | ')} |`, `|---|${head.slice(1).map(() => '---:').join('|')}|`, ...rows,
    `| **sum of the stages** | ${sums.join(' | ')} | ${envs.map(() => '100%').join(' | ')} |`,
    `| **Model::forward, whole** | ${whole.join(' | ')} | ${envs.map(() => '').join(' | ')} |`,
    '',
    `The whole forward costs a little more than its stages (the embedding, the RoPE tables, copies between layouts). The public API adds the JS boundary (tokens in, logits out, validation): compare "Model::forward, whole" with the forward rows of the tables above. The softmax's exp is \`exp_nonpositive\` (2^(x log₂e), degree-5 minimax, no range reduction: the argument is ≤ 0); its time is ${expRatio} that of the general \`simd::exp\` on the same scores in wasm (compiled by TurboFan: node --no-liftoff).`,
    '\nmax and min: Emscripten lowers SSE\'s `_mm_max_ps` (xsimd\'s max on the SSE4.1 arch the wasm build uses) to a compare and a `v128.bitselect`, about five instructions in V8. The kernels\' max and min (the softmax\'s row max, exp\'s clamp, GELU\'s tanh clamp) are wasm\'s `f32x4.pmax` / `pmin` instead, one instruction each: the forward at T = 1024 went from 19.5-20.8 ms to 15.9-17.2 ms in Node.',
    probe ? `\nFMA: the matrix products are bound by SIMD128's arithmetic (no fused multiply-add: a mul and an add per 4 MACs). Natively on this CPU, the same 4×8 register tile with a 128-bit FMA runs at ${probe.fma_gflops} GFLOP/s against ${probe.mul_add_gflops} for mul + add (${(probe.fma_gflops / probe.mul_add_gflops).toFixed(2)}×): this core issues two 128-bit multiplies and two adds per cycle, the same peak as two FMAs, so relaxed SIMD's FMA would not raise the ceiling here even where the engine accepts it.` : '',
  ].join('\n');
}

// onnxruntime-web: from this run (results.ort), or from a separate `node bench/ort.js` run.
const ortRun = results.ort ? { ...results.ort, separate: false }
  : existsSync(`${root}bench/results-ort.json`) ? { ...JSON.parse(readFileSync(`${root}bench/results-ort.json`, 'utf8')), separate: true } : null;
function ortSection() {
  if (!ortRun) return '_Not measured._';
  const when = ortRun.separate ? `Measured by \`node bench/ort.js\` in a separate run (${ortRun.date.slice(0, 16).replace('T', ' ')} UTC, Node ${ortRun.node}, load average ${ortRun.loadAverageAtStart.join(' / ')} at its start and ${ortRun.loadAverageAtEnd.join(' / ')} at its end); ours was timed in the same rounds, so the ratio is within that run.` : 'Measured in this run (bench/ort.js), ours timed in the same rounds.';
  return [
    `onnxruntime-web ${ortRun.version ?? ''}, wasm backend (its SIMD build), 1 thread, in Node, running the same tiny model (L=2, H=4, d=64, RoPE, our weights) exported to ONNX by the project's own code (bench/lib/onnx-export.js, with onnx-proto: ONNX's onnx.proto compiled by protobufjs; standard opset-17 ops, the heads as a batch dimension, RoPE's rotate-half as a MatMul, T symbolic; ${ortRun.graphKB} KB). Made fast as ORT documents: graph optimisation level "all" (fusing LayerNorm, GELU and MatMul + Add), one session for every length, input tensors (tokens, RoPE tables, causal mask) made once per length, outside the timing. Its logits are checked against ours before timing (tolerance ${TOLERANCE.forward}). ${when}`,
    '',
    '| T | ours, wasm SIMD ms | onnxruntime-web ms | ours faster by | max abs difference |', '|---:|---:|---:|---:|---:|',
    ...ortRun.lengths.map((r) => `| ${r.T} | ${num(r.ours.ms)} | ${num(r.ort.ms)} | ${r.ratio === null ? 'void' : `${r.ratio.toFixed(2)}×`} | ${r.check.maxErr ?? "—"} |`),
    ...(!ortRun.separate && existsSync(`${root}bench/results-ort.json`) ? (() => {
      const o = JSON.parse(readFileSync(`${root}bench/results-ort.json`, 'utf8'));
      return ['', `A separate \`node bench/ort.js\` run (${o.date.slice(0, 16).replace('T', ' ')} UTC, load average ${o.loadAverageAtStart.join(' / ')} at its start) gave: ours ${o.lengths.map((r) => `${r.ratio === null ? 'void' : `${r.ratio.toFixed(2)}×`} faster at T=${r.T}`).join(', ')}. On this loaded machine the two runs differ by more than the ratio itself at T=128, so only the larger lengths are a usable comparison.`];
    })() : []),
  ].join('\n');
}

// The tfjs formulations of the forward pass, side by side (the ratios use the fastest).
function tfjsForms() {
  const out = ['| environment | T | per head, 2-D matMuls (fastest form) ms | per head, column slices ms | heads as a batch dim (3-D matMuls) ms | ours, wasm SIMD ms |', '|---|---:|---:|---:|---:|---:|'];
  for (const e of ENVS.filter((env) => results[env]))
    for (const n of KERNEL_ORDER.filter((k) => k.startsWith('forward_') && results[e].kernels[k])) {
      const v = results[e].kernels[n].variants;
      out.push(`| ${ENV_NAME[e]} | ${n.slice(8)} | ${ms(v.tfjs)} | ${ms(v.tfjsSliced)} | ${ms(v.tfjsBatched)} | ${ms(v.simd)} |`);
    }
  return out.join('\n');
}

// ---------------------------------------------------------------------------
// The figure: forward time and peak memory against T.

const SERIES = [
  { key: 'simd', label: 'ours, wasm SIMD (streamed attention)', colour: '#1f77b4' },
  { key: 'simdMaps', label: 'ours, wasm SIMD, with attention maps (T×T)', colour: '#17becf', dash: '5 3' },
  { key: 'scalar', label: 'ours, wasm scalar', colour: '#9467bd' },
  { key: 'native', label: 'ours, native AVX2', colour: '#2ca02c' },
  { key: 'tfjs', label: 'tfjs-backend-wasm', colour: '#d62728' },
  { key: 'js', label: 'plain JS', colour: '#ff7f0e' },
];

function sweepSeries(env) {
  const rows = results[env]?.sweep ?? [];
  const out = {};
  for (const s of SERIES) {
    if (s.key === 'native') {
      out.native = (results.native?.sweep ?? []).map((r) => ({ T: r.T, ms: r.ms, bytes: r.peakRssBytes }));
      continue;
    }
    // memory of ours: the allocator's high-water mark (the wasm memory itself starts at 16 MB)
    out[s.key] = rows.filter((r) => r[s.key]?.ms).map((r) => ({ T: r.T, ms: r[s.key].ms, bytes: r[s.key].heapPeakBytes }));
    const failed = rows.find((r) => r[s.key]?.error);
    if (failed) out[`${s.key}Failed`] = { T: failed.T, error: failed[s.key].error };
  }
  return out;
}

function panel({ x0, title, yLabel, series, value, yDomain, reference = null }) {
  const W = 430, H = 300, m = { l: 56, r: 12, t: 28, b: 40 };
  const sx = scaleLog().base(2).domain([128, 16384]).range([x0 + m.l, x0 + W - m.r]);
  const sy = scaleLog().domain(yDomain).range([H - m.b, m.t]).nice();
  const parts = [`<text x="${x0 + m.l}" y="16" font-weight="600">${title}</text>`];
  for (const t of sy.ticks(6).filter((v) => /^(1|2|5)/.test(String(v)))) {
    parts.push(`<line x1="${x0 + m.l}" x2="${x0 + W - m.r}" y1="${sy(t)}" y2="${sy(t)}" stroke="#ddd"/>`,
      `<text x="${x0 + m.l - 6}" y="${sy(t) + 4}" text-anchor="end">${t >= 1000 ? `${t / 1000}k` : t}</text>`);
  }
  for (const t of [128, 256, 512, 1024, 2048, 4096, 8192, 16384])
    parts.push(`<line x1="${sx(t)}" x2="${sx(t)}" y1="${H - m.b}" y2="${H - m.b + 4}" stroke="#555"/>`,
      `<text x="${sx(t)}" y="${H - m.b + 16}" text-anchor="middle">${t >= 1024 ? `${t / 1024}k` : t}</text>`);
  parts.push(`<text x="${x0 + (m.l + W - m.r) / 2}" y="${H - 6}" text-anchor="middle">sequence length T</text>`,
    `<text transform="translate(${x0 + 14},${(m.t + H - m.b) / 2}) rotate(-90)" text-anchor="middle">${yLabel}</text>`,
    `<rect x="${x0 + m.l}" y="${m.t}" width="${W - m.l - m.r}" height="${H - m.t - m.b}" fill="none" stroke="#555"/>`);
  const path = line().x((d) => sx(d.T)).y((d) => sy(value(d)));
  const clip = `clip${x0}`;
  parts.push(`<clipPath id="${clip}"><rect x="${x0 + m.l}" y="${m.t}" width="${W - m.l - m.r}" height="${H - m.t - m.b}"/></clipPath>`);
  if (reference) {
    const pts = [128, 16384].map((T) => ({ T, v: reference.value(T) }));
    parts.push(`<path d="${line().x((d) => sx(d.T)).y((d) => sy(d.v))(pts)}" stroke="#999" stroke-dasharray="2 3" fill="none" clip-path="url(#${clip})"/>`,
      `<text x="${sx(8192)}" y="${sy(reference.value(8192)) - 6}" fill="#777" text-anchor="end" transform="rotate(-33 ${sx(8192)} ${sy(reference.value(8192)) - 6})">${reference.label}</text>`);
  }
  for (const s of SERIES) {
    const pts = (series[s.key] ?? []).filter((d) => value(d) > 0);
    if (!pts.length) continue;
    parts.push(`<path d="${path(pts)}" fill="none" stroke="${s.colour}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    for (const d of pts) parts.push(`<circle cx="${sx(d.T)}" cy="${sy(value(d))}" r="2.5" fill="${s.colour}"/>`);
    const f = series[`${s.key}Failed`];
    if (f) {
      const last = pts.at(-1);
      parts.push(`<text x="${sx(f.T)}" y="${sy(value(last)) + 4}" fill="${s.colour}" text-anchor="middle" font-weight="700">×</text>`);
    }
  }
  return parts.join('\n');
}

function figure(env) {
  const s = sweepSeries(env);
  const all = Object.values(s).flat().filter((d) => d && d.T);
  const times = all.map((d) => d.ms).filter((v) => v > 0), bytes = all.map((d) => d.bytes / 2 ** 20).filter((v) => v > 0);
  const left = panel({ x0: 0, title: 'forward pass time (ms, log)', yLabel: 'ms per forward', series: s, value: (d) => d.ms,
    yDomain: [Math.min(...times) * 0.8, Math.max(...times) * 1.25] });
  const ttMB = (T) => (T * T * 4) / 2 ** 20;
  const right = panel({ x0: 450, title: 'peak memory (MB, log)', yLabel: 'MB', series: { simd: s.simd, simdMaps: s.simdMaps, native: s.native },
    value: (d) => d.bytes / 2 ** 20, yDomain: [Math.min(...bytes) * 0.8, Math.max(...bytes, ttMB(16384)) * 1.25],
    reference: { label: 'one T×T float32 matrix', value: ttMB } });
  const legend = SERIES.map((l, i) => `<g transform="translate(${(i % 3) * 300 + 10},${322 + Math.floor(i / 3) * 18})"><line x1="0" x2="22" y1="-4" y2="-4" stroke="${l.colour}" stroke-width="2"${l.dash ? ` stroke-dasharray="${l.dash}"` : ''}/><text x="28" y="0">${l.label}</text></g>`).join('\n');
  const failed = Object.keys(s).some((k) => k.endsWith('Failed'));
  const note = `<text x="10" y="368" fill="#555">Tiny model (L=2, H=4, d=64, RoPE), batch 1, ${ENV_NAME[env]} on ${machine.cpu}, ${machine.cores} cores.</text>
<text x="10" y="381" fill="#555">Memory: ours, the wasm heap's high-water mark; native, the process's peak RSS.${failed ? ' × = failed (see docs/performance.md).' : ''}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="890" height="390" viewBox="0 0 890 390" font-family="system-ui, sans-serif" font-size="11">
<rect width="890" height="390" fill="#fff"/>
${left}
${right}
${legend}
${note}
</svg>
`;
}

// ---------------------------------------------------------------------------
// Markdown

function kernelTable(env, { columns = 'full' } = {}) {
  const k = results[env]?.kernels ?? {};
  const rows = KERNEL_ORDER.filter((n) => k[n]);
  const out = [];
  if (columns === 'full') {
    out.push('| kernel | wasm SIMD ms | wasm scalar ms | native ms | plain JS ms | tfjs-wasm ms | SIMD vs scalar | vs plain JS | vs tfjs | GFLOP/s SIMD / native |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  } else {
    out.push('| kernel | wasm SIMD | vs wasm scalar | vs plain JS | vs tfjs-backend-wasm | native AVX2 |', '|---|---:|---:|---:|---:|---:|');
  }
  for (const n of rows) {
    const v = k[n].variants, tf = bestTfjs(k[n]), nat = results.native?.kernels[n];
    const gf = v.simd?.gflops && nat?.gflops ? `${v.simd.gflops.toFixed(1)} / ${nat.gflops.toFixed(1)}` : '';
    if (columns === 'full')
      out.push(`| ${LABEL[n] ?? n} | ${ms(v.simd)} | ${ms(v.scalar)} | ${ms(nat)} | ${ms(v.js)} | ${ms(tf)} | ${x(speedup(v.simd, v.scalar))} | ${x(speedup(v.simd, v.js))} | ${x(speedup(v.simd, tf))} | ${gf} |`);
    else
      out.push(`| ${LABEL[n] ?? n} | ${ms(v.simd)} ms | ${x(speedup(v.simd, v.scalar))} | ${x(speedup(v.simd, v.js))} | ${x(speedup(v.simd, tf))} | ${ms(nat)} ms |`);
  }
  return out.join('\n');
}

function targetsTable() {
  const out = ['| target | goal | measured | met | what limits it |', '|---|---:|---|---|---|'];
  for (const t of results.targets) {
    const m = ENVS.filter((e) => e in t.measured).map((e) => `${t.measured[e] === null ? '—' : t.measured[e].toFixed(2)} (${e})`).join(', ');
    out.push(`| ${t.name} | ${t.goal} | ${m} | ${t.met === null ? 'not measured' : t.met ? 'yes' : '**no**'} | ${LIMITS[t.id] ?? ''} |`);
  }
  return out.join('\n');
}

function sweepTable(env) {
  const rows = results[env]?.sweep ?? [];
  if (!rows.length) return '_not run_';
  const nat = new Map((results.native?.sweep ?? []).map((r) => [r.T, r]));
  const cell = (r) => (r?.ms ? num(r.ms) : r?.error ? `failed: ${r.error.split('\n')[0].slice(0, 60)}` : '—');
  const out = ['| T | SIMD ms | SIMD wasm memory MB | SIMD heap peak MB | with maps ms | with maps memory MB | scalar ms | native ms | native peak RSS MB | tfjs ms | plain JS ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows)
    out.push(`| ${r.T} | ${cell(r.simd)} | ${mb(r.simd?.memoryBytes)} | ${mb(r.simd?.heapPeakBytes)} | ${cell(r.simdMaps)} | ${mb(r.simdMaps?.memoryBytes)} | ${cell(r.scalar)} | ${nat.get(r.T) ? num(nat.get(r.T).ms) : '—'} | ${mb(nat.get(r.T)?.peakRssBytes)} | ${cell(r.tfjs)} | ${cell(r.js)} |`);
  return out.join('\n');
}

function checksTable(env) {
  const k = results[env]?.kernels ?? {};
  const out = ['| kernel | tolerance | scalar | plain JS | tfjs | native |', '|---|---:|---:|---:|---:|---:|'];
  const c = (r) => {
    if (!r?.check) return '—';
    const e = r.check.maxErr ?? r.check.maxRelErr;
    return `${r.check.ok ? '' : '**void** '}${e === undefined ? '' : e}`;
  };
  for (const n of KERNEL_ORDER.filter((n) => k[n])) {
    const v = k[n].variants;
    out.push(`| ${n} | ${k[n].tol} | ${c(v.scalar)} | ${c(v.js)} | ${c(bestTfjs(k[n]))} | ${c(results.native?.kernels[n])} |`);
  }
  return out.join('\n');
}

function explorerSection() {
  const e = results.explorer;
  if (!e) return '_Not measured in this run._';
  return e.markdown;
}

const primary = results.chromium ? 'chromium' : 'node';
const when = results.date.slice(0, 10);
const machineLine = `${machine.cpu} (${machine.cores} cores${machine.avx512f ? ', AVX-512 present but unused' : ''}), ${machine.memoryGB} GB, ${machine.os}; load average ${machine.loadAverageAtStart.join(' / ')} at the start and ${machine.loadAverageAtEnd?.join(' / ')} at the end (a shared machine: figures move between runs, ratios within a run are what count)`;

const perf = `# Performance

Generated by \`npm run bench\` (bench/run.js → bench/report.js) from [bench/results.json](../bench/results.json) on ${when} — do not edit by hand.

**Machine:** ${machineLine}. ${ENV_NAME.chromium ? `**Browser:** ${ENV_NAME.chromium} (headless). ` : ''}**Node:** ${machine.node}. tfjs-core + tfjs-backend-wasm ${results.node?.tfjs?.version ?? ''} (XNNPACK, SIMD ${results.node?.tfjs?.simd ? 'on' : 'off'}, threads ${results.node?.tfjs?.threads ? 'on' : 'off'}: no cross-origin isolation, so single-threaded like ours).

**Method.** Every kernel runs in every variant on the same inputs (bench/lib/inputs.js; the native bench generates the same numbers). Each variant's output is compared with ours (wasm SIMD) first; a variant whose max |difference| exceeds the tolerance × max(1, max |ours|) is void, and its time is never used in a ratio. Each variant is warmed up (V8 tiers wasm and JS up only after many calls), then the variants run in interleaved rounds; a figure is the median of 3 to 7 samples, each averaging enough calls to last 50 ms. Ours: the raw kernels run on data already in wasm memory; the forward pass and the training step go through the public API (tokens in, logits out). Plain JS: bench/lib/plain.js and plain-model.js, straightforward typed-array loops. tfjs: bench/lib/tfjs.js, the same computation in tfjs ops with our weights, each ratio against tfjs in its fastest form: QKᵀ, the softmax kernels and attention take the faster of \`matMul(q, k, false, true)\` and \`matMul(q, transpose(k))\`; the forward pass takes the fastest of three layouts (below), which is always the per-head one with 2-D matMuls (the shape tfjs-backend-wasm hands to XNNPACK; its batched 3-D matMul is a generic loop, and its column slices are slow copies, so the heads' weights are cut once, RoPE's rotate-half is folded into a second weight matrix, and the output projection is a sum over heads).

## Targets

${targetsTable()}

## ${ENV_NAME.chromium ?? 'Chromium'}

${kernelTable('chromium')}

## ${ENV_NAME.node}

${kernelTable('node')}

The public API around the same kernels (validation, copies in and out, and for \`applyRope\` the frequencies), wasm SIMD:

| environment | kernel | raw kernel ms | public API ms | public API with \`out\` ms |
|---|---|---:|---:|---:|
${ENVS.filter((e) => results[e]).flatMap((e) => ['rope', 'alibi_softmax', 't5_softmax'].filter((n) => results[e].kernels[n]?.variants.simdApi).map((n) => {
  const v = results[e].kernels[n].variants;
  return `| ${ENV_NAME[e]} | ${n} | ${ms(v.simd)} | ${ms(v.simdApi)} | ${ms(v.simdApiOut)} |`;
})).join('\n')}

A fresh T×T result array costs more to allocate and zero than the copy out of wasm memory, hence the \`out\` option
(and \`attentionOut\` for a model's maps).

### tfjs in each layout

${tfjsForms()}

### onnxruntime-web

${ortSection()}

## Where the forward pass goes

${profileSection()}

## Time and memory against length

![Forward time and peak memory against T](figures/bench-length.png)

${results.sweepFrom ? `_This sweep is from the run of ${results.sweepFrom.date.slice(0, 10)} (load average ${results.sweepFrom.loadAverageAtStart.join(' / ')} at its start; \`--reuse-sweep\`), without its tfjs column (that run timed tfjs with the heads as a batch dimension, not its fastest form); the kernel tables above are from this run._

` : ''}The forward pass of the tiny model (L=2, H=4, d=64, RoPE) at batch 1. Without attention maps, ours streams attention (online softmax over 64×64 blocks; no T×T buffer) and inference reuses one set of activations for every layer, so memory grows linearly with T; asking for the maps materialises L·H·T² floats (timed with \`attentionOut\`, one reused result array). Memory of ours: the wasm memory of a fresh module instance after the run (it starts at 16 MB and never shrinks) and the allocator's high-water mark; native: the process's peak RSS.

### ${ENV_NAME.chromium ?? 'Chromium'}

${sweepTable('chromium')}

### ${ENV_NAME.node}

${sweepTable('node')}

## Animation budget

${explorerSection()}

## Correctness of each variant (max |difference| from ours)

Tolerances (bench/lib/cases.js): ${Object.entries(TOLERANCE).map(([k, v]) => `${k} ${v}`).join(', ')}; training compares the loss, the gradient norm and the loss after the step, relative.

### ${ENV_NAME.chromium ?? 'Chromium'}

${checksTable('chromium')}

### ${ENV_NAME.node}

${checksTable('node')}
`;

const section = `## Sizes and speed

Sizes: see [What the package contains](#what-the-package-contains). Speed, from \`npm run bench\` (Node and headless
Chromium, single thread; [docs/performance.md](docs/performance.md) has every figure, the method, the length sweep
and the correctness checks). Median ms per call in ${ENV_NAME[primary]} on ${machine.cpu} (${machine.cores} cores, ${machine.memoryGB} GB,
${machine.os}; the native build uses AVX2+FMA); the ratios say how many times faster our wasm SIMD build is, measured
in the same run (load average ${machine.loadAverageAtStart.join(' / ')} at its start: a shared machine, so the milliseconds move between
runs and the ratios are what count). tfjs-backend-wasm is timed in its fastest form (the forward pass per head with 2-D
matMuls, the layout tfjs hands to XNNPACK; the other layouts are in docs/performance.md). Targets and what limits them:
[docs/performance.md#targets](docs/performance.md#targets).

${kernelTable(primary, { columns: 'short' })}

${ortRun ? `onnxruntime-web (wasm backend, SIMD, 1 thread, in Node) on the same tiny model exported to ONNX: ours is ${ortRun.lengths.map((r) => `${r.ratio === null ? 'void' : r.ratio >= 1 ? `${r.ratio.toFixed(1)}× faster` : `${(1 / r.ratio).toFixed(1)}× slower`} at T=${r.T}`).join(', ')} (${ortRun.separate ? `a separate run, load average ${ortRun.loadAverageAtStart[0]}` : 'same run'}; [docs/performance.md#onnxruntime-web](docs/performance.md#onnxruntime-web)).

` : ''}Streaming attention keeps memory linear in T: a forward pass at T = 16384 takes ${(() => {
  // the primary engine's sweep, else another's (a --reuse-sweep run may have swept in Node only)
  const env = [primary, ...Object.keys(ENV_NAME)].find((e) => results[e]?.sweep?.find((s) => s.T === 16384)?.simd?.ms);
  const r = env && results[env].sweep.find((s) => s.T === 16384).simd;
  return r ? `${(r.ms / 1000).toFixed(1)} s and ${mb(r.memoryBytes)} MB of wasm memory in ${ENV_NAME[env]}` : '— (not measured)';
})()}, where one T×T float32 matrix alone would be 1 GB.

![Forward time and peak memory against T](docs/figures/bench-length.png)

`;

writeFileSync(`${root}docs/performance.md`, perf);
// the length sweep of the primary engine, else of one that has it (a --reuse-sweep run may have swept in Node only)
const swept = [primary, ...Object.keys(ENV_NAME)].find((e) => results[e]?.sweep?.some((r) => r.simd?.ms)) ?? primary;
const svg = figure(swept);
writeFileSync(`${root}docs/figures/bench-length.svg`, svg);
const readme = readFileSync(`${root}README.md`, 'utf8');
const start = readme.indexOf('## Sizes and speed');
const end = readme.indexOf('\n## ', start + 1);
if (start < 0 || end < 0) throw new Error('README has no "## Sizes and speed" section');
writeFileSync(`${root}README.md`, readme.slice(0, start) + section + readme.slice(end + 1));

// PNG of the figure, rendered by Chromium.
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 890, height: 390 });
  await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
  await (await page.$('svg')).screenshot({ path: `${root}docs/figures/bench-length.png` });
} finally {
  await browser.close();
}
console.log('wrote docs/performance.md, docs/figures/bench-length.{svg,png} and the README section "Sizes and speed"');
