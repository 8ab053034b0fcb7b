// `npm run bench`: the whole benchmark, from a clean clone (after
// scripts/setup.sh has built the wasm modules and the native tree).
//
//  1. builds the native bench (CMake target posenc_bench_kernels, AVX2+FMA);
//  2. runs the suite in Node (bench/lib/suite.js): ours in wasm SIMD and scalar,
//     plain JS and tfjs-backend-wasm, each output checked against ours;
//  3. runs the native bench on the same inputs and checks its outputs against Node's;
//  4. runs the same suite in headless Chromium (bench/page.html), and measures the
//     explorer's per-frame work at T = 512 (bench/explorer.js);
//     plus the profile of the forward pass (bench/profile_forward.cpp) and onnxruntime-web (bench/ort.js);
//     a real language model's prefill against llama.cpp in wasm (@wllama/wllama) and `npm run model` (bench/lm.js);
//     models of SmolLM2-135M's and Qwen2.5-0.5B's shapes against wllama per format and thread count (bench/lm-wllama.js);
//     what the sample blog post transfers (bench/page-weight.js), and training in the page against
//     Node plus the time to learned (bench/train-page.js, in its own process: minutes);
//  5. writes bench/results.json, prints the tables, and regenerates the README's
//     "Sizes and speed" table, docs/performance.md and docs/figures/bench-*.svg.
//
//   node bench/run.js [--only rope,qkt,...] [--no-browser] [--no-native] [--no-sweep] [--reuse-sweep] [--no-ort] [--no-lm]
//                     [--no-browser-suite] [--no-train-page] [--out file]   (--no-browser-suite: the explorer in Chromium, not the kernel suite)
//     --reuse-sweep: skip the time / memory sweep and keep the previous run's (from bench/results.json,
//     its date and load recorded; its tfjs column dropped, since that run may have timed another layout)
//                     [--wasm-dir DIR]   (our .mjs/.wasm from DIR, inside the repository, instead of web/wasm)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import sirv from 'sirv';
import { runSuite } from './lib/suite.js';
import { compare, compareScalars } from './lib/check.js';
import { TOLERANCE, SWEEP_LENGTHS } from './lib/cases.js';
import { summarise, printTables } from './lib/summary.js';
import { measureExplorer } from './explorer.js';
import { runOrt } from './ort.js';
import { runLmBench } from './lm.js';
import { runWllamaBench } from './lm-wllama.js';
import { measurePost } from './page-weight.js';

const root = new URL('..', import.meta.url).pathname;
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const arg = (name, def) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : def);
const only = arg('only', null)?.split(',') ?? null;
const outFile = arg('out', join(root, 'bench/results.json'));
const log = (s) => console.log(s);

// ---------------------------------------------------------------------------
function buildNative() {
  const dir = join(root, 'build/native');
  if (!existsSync(join(dir, 'CMakeCache.txt'))) {
    const c = spawnSync('cmake', ['-S', root, '-B', dir, '-DCMAKE_BUILD_TYPE=Release'], { stdio: 'inherit' });
    if (c.status !== 0) throw new Error('cmake configure failed');
  }
  const b = spawnSync('cmake', ['--build', dir, '--target', 'posenc_bench_kernels', '-j2'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0) throw new Error('building posenc_bench_kernels failed');
  return join(dir, 'posenc_bench_kernels');
}

async function nodeSuite() {
  const require = createRequire(import.meta.url);
  const tf = await import('@tensorflow/tfjs-core');
  const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
  setWasmPaths(require.resolve('@tensorflow/tfjs-backend-wasm').replace(/[^/]+$/, ''));
  await tf.setBackend('wasm');
  await tf.ready();
  log(`\n== Node ${process.version}: tfjs ${tf.version_core} (wasm, SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')})`);
  // --wasm-dir: another build of ours (e.g. a private CMake tree) instead of web/wasm.
  const dir = arg('wasm-dir', null);
  const wasm = dir
    ? { read: (file) => readFile(join(dir, file)), glue: (file) => import(pathToFileURL(join(dir, file)).href) }
    : { read: (file) => readFile(join(root, 'web/wasm', file)) };
  const r = await runSuite({ wasm, tf, log, only, sweep: !flag('no-sweep') && !flag('reuse-sweep') });
  r.tfjs = { version: tf.version_core, simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'), threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') };
  return r;
}

// The native bench on the same inputs; its outputs checked against Node's wasm SIMD outputs.
function nativeSuite(binary, outputs) {
  log('\n== native (AVX2+FMA)');
  const dir = mkdtempSync(join(os.tmpdir(), 'posenc-bench-'));
  try {
    const run = (args) => {
      const r = spawnSync(binary, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (r.status !== 0) throw new Error(`native bench failed: ${r.stderr}`);
      return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    };
    const lines = run(['--out', dir, ...(only ? ['--only', only.join(',')] : [])]);
    // the sweep: one process per length, so each peak RSS is that length's own
    if (!flag('no-sweep') && !flag('reuse-sweep') && (!only || only.includes('sweep')))
      for (const T of SWEEP_LENGTHS) lines.push(...run(['--only', 'sweep', '--sweep', String(T), '--reps', '3']).filter((l) => !l.arch));
    const kernels = {}, sweepRows = [];
    let arch = '';
    for (const line of lines) {
      if (line.arch) { arch = line.arch; continue; }
      if (line.kernel.startsWith('sweep_')) {
        sweepRows.push({ T: Number(line.kernel.slice(6)), ms: line.ms, peakRssBytes: line.peakBytes });
        continue;
      }
      const file = join(dir, `${line.kernel}.f32`);
      let check = { ok: false, reason: 'no reference output from Node' };
      const ref = outputs[line.kernel];
      if (ref && existsSync(file)) {
        const buf = readFileSync(file);
        const out = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
        const tolKey = line.kernel.startsWith('forward') ? 'forward' : line.kernel.startsWith('matmul') ? 'matmul' : line.kernel;
        check = line.kernel === 'train' ? compareScalars(ref, out, TOLERANCE.train) : compare(ref, out, TOLERANCE[tolKey]);
      }
      kernels[line.kernel] = { ms: line.ms, calls: line.inner, runs: line.runs, check, ...(line.flops ? { gflops: +(line.flops / line.ms / 1e6).toFixed(2) } : {}) };
      log(`  ${line.kernel}: ${line.ms.toPrecision(3)} ms${check.ok ? '' : ` (VOID: ${JSON.stringify(check)})`}`);
    }
    for (const row of sweepRows) log(`  sweep T=${row.T}: ${row.ms.toPrecision(3)} ms, peak RSS ${(row.peakRssBytes / 2 ** 20).toFixed(0)} MB`);
    return { arch, kernels, sweep: sweepRows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Where the forward pass goes (bench/profile_forward.cpp), in wasm SIMD (run by Node) and natively;
// the native run also compares a 128-bit FMA micro-kernel with mul + add.
function profileForward() {
  log('\n== profile of the forward pass (bench/profile_forward.cpp)');
  const builds = [['wasm', join(root, 'build/wasm-simd'), [process.execPath, '--no-liftoff', join(root, 'build/wasm-simd/posenc_profile_forward.cjs')]],
    ['native', join(root, 'build/native'), [join(root, 'build/native/posenc_profile_forward')]]];
  const out = {};
  for (const [name, dir, [cmd, ...pre]] of builds) {
    if (name === 'native' && flag('no-native')) continue;
    const b = spawnSync('cmake', ['--build', dir, '--target', 'posenc_profile_forward', '-j2'], { stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(':') } });
    if (b.status !== 0) throw new Error(`building posenc_profile_forward in ${dir} failed`);
    const r = spawnSync(cmd, [...pre, '--T', '128,1024'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`posenc_profile_forward (${name}) failed: ${r.stderr}`);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    out[name] = { lengths: lines.filter((l) => l.T), fmaProbe: lines.find((l) => l.fma_probe)?.fma_probe ?? null };
    for (const l of out[name].lengths) log(`  ${name} T=${l.T}: forward ${l.forward_ms.toPrecision(3)} ms, attention ${l.attention_ms.toPrecision(3)} ms`);
    if (out[name].fmaProbe) log(`  128-bit 4x8 tile: mul+add ${out[name].fmaProbe.mul_add_gflops} GFLOP/s, FMA ${out[name].fmaProbe.fma_gflops} GFLOP/s`);
  }
  return out;
}

// The same suite in headless Chromium, served from the repository root.
async function browserSuite() {
  const { chromium } = await import('playwright-core');
  const serve = sirv(root, { dev: true });
  const server = createServer((req, res) => serve(req, res, () => { res.statusCode = 404; res.end(); }));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const userDataDir = mkdtempSync(join(os.tmpdir(), 'posenc-bench-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--js-flags=--max-old-space-size=4096'],
  });
  try {
    const version = context.browser()?.version() ?? '';
    const page = await context.newPage();
    log(`\n== Chromium ${version}`);
    page.on('console', (m) => m.text().startsWith('[bench] ') && log(m.text().slice(8)));
    page.on('pageerror', (e) => log(`page error: ${e}`));
    const dir = arg('wasm-dir', null);
    if (dir && !join(dir, '/').startsWith(root)) throw new Error(`--wasm-dir must be inside ${root} for the browser run`);
    const query = new URLSearchParams({ ...(only ? { only: only.join(',') } : {}), ...(flag('no-sweep') || flag('reuse-sweep') ? { sweep: '0' } : {}),
      ...(dir ? { wasm: `/${join(dir, '/').slice(root.length)}` } : {}) });
    await page.goto(`http://127.0.0.1:${server.address().port}/bench/page.html?${query}`);
    let result = null;
    while (!(result = await page.evaluate(() => window.benchResult ?? null))) await new Promise((r) => setTimeout(r, 500));
    if (result.error) throw new Error(`browser suite failed: ${result.error}`);
    result.version = version;
    return result;
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
    server.close();
  }
}

function machine() {
  const cpus = os.cpus();
  const flags = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  return {
    cpu: cpus[0]?.model ?? 'unknown', cores: cpus.length, memoryGB: +(os.totalmem() / 2 ** 30).toFixed(1),
    avx2: /\bavx2\b/.test(flags), avx512f: /\bavx512f\b/.test(flags),
    os: `${os.type()} ${os.release()}`, node: process.version, loadAverageAtStart: os.loadavg().map((x) => +x.toFixed(2)),
  };
}

// ---------------------------------------------------------------------------
const results = { date: new Date().toISOString(), machine: machine() };
const previous = flag('reuse-sweep') ? JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) : null;
const binary = flag('no-native') ? null : buildNative();
const node = await nodeSuite();
results.native = binary ? nativeSuite(binary, node.outputs) : null;
results.profile = !only || only.includes('profile') ? profileForward() : null;
results.ort = flag('no-ort') || (only && !only.includes('ort')) ? null : await runOrt(log);
results.lm = flag('no-lm') || (only && !only.includes('lm')) ? null : await runLmBench(log);
results.lmReal = flag('no-lm') || (only && !only.includes('lm-real')) ? null : await runWllamaBench(log);
delete node.outputs;
results.node = node;
results.chromium = flag('no-browser') || flag('no-browser-suite') ? null : await browserSuite();
results.explorer = flag('no-browser') || (only && !only.includes('explorer')) ? null : await measureExplorer(log);
const wanted = (name) => !flag('no-browser') && (!only || only.includes(name));
if (wanted('page-weight')) {
  const { total, raw, gzip, byKind } = await measurePost();
  results.pageWeight = { total, raw, gzip, byKind };
  log(`blog post: ${(total / 1024).toFixed(0)} KB over the wire (brotli), ${(gzip / 1024).toFixed(0)} KB with gzip, ${(raw / 1024).toFixed(0)} KB of files`);
}
if (wanted('train-page') && !flag('no-train-page')) {
  const dir = mkdtempSync(join(os.tmpdir(), 'posenc-train-page-'));
  try {
    const out = join(dir, 'train-page.json');
    const r = spawnSync(process.execPath, [join(root, 'bench/train-page.js'), '--out', out], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`bench/train-page.js failed (exit ${r.status})`);
    results.trainPage = JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
results.machine.loadAverageAtEnd = os.loadavg().map((x) => +x.toFixed(2));
if (previous) {
  for (const env of ['node', 'chromium']) if (results[env] && previous[env]?.sweep) results[env].sweep = previous[env].sweep.map(({ tfjs, ...row }) => row);
  if (results.native && previous.native?.sweep) results.native.sweep = previous.native.sweep;
  results.sweepFrom = { date: previous.sweepFrom?.date ?? previous.date, loadAverageAtStart: previous.sweepFrom?.loadAverageAtStart ?? previous.machine.loadAverageAtStart };
}
results.targets = summarise(results);
writeFileSync(outFile, `${JSON.stringify(results, null, 1)}\n`);
printTables(results);
log(`\nwrote ${outFile}`);
if (outFile === join(root, 'bench/results.json')) {
  const r = spawnSync(process.execPath, [join(root, 'bench/report.js')], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
}
