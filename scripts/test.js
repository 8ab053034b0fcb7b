// Runs every suite: C++ (GoogleTest through CTest) and Jest (the wasm module
// in Node, and the browser tests in Chromium, Firefox and WebKit). Ends with
// one line over all suites: "N passed, N failed". The C++ suites run beside Jest, their output printed whole
// before Jest's.
//   node scripts/test.js [jest args]   everything (npm test: after building everything)
//   node scripts/test.js --quick       npm run test:quick: the native unit tests and the Node (JS) unit tests,
//                                      no ASan, fuzzing or browsers; builds build/native only if it is missing
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
const jestArgs = process.argv.slice(2).filter((a) => a !== '--quick');
const totals = { passed: 0, failed: 0 };
let ok = true;

// Where the time goes: each step's wall time and the CPU time (user + sys) of its processes, as Linux counts the
// children this process waited for (/proc/self/stat). That misses the browsers' processes their drivers do not wait
// for (measured in a cgroup: webgpu-fallback.test.js used 24.5 CPU-s, of which 14.6 were counted so), so the
// machine's own count is printed too: the CPU time all its cores were busy (/proc/stat), whoever used it.
const phases = [];
const machineBusy = () => {
  try {
    const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    return (f.slice(0, 8).reduce((a, b) => a + b, 0) - f[3] - f[4]) / 100; // all but idle and iowait, in USER_HZ ticks
  } catch {
    return NaN;
  }
};
const busyAtStart = machineBusy();
const childCpu = () => {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[13]) + Number(f[14])) / 100; // cutime + cstime, in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
};

function run(cmd, args, opts = {}) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`);
  const t0 = Date.now(), c0 = childCpu();
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, ...opts });
  phases.push({ what: `${cmd.replace(/^.*\//, '')} ${args.slice(0, 3).join(' ')}`, wall: (Date.now() - t0) / 1000, cpu: childCpu() - c0 });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  return r;
}

/**
 * run(), but in the background, so that steps overlap: resolves to { status, stdout, stderr } when it ends, and
 * `show()` prints its command and output then (steps' outputs are never interleaved). The step's CPU time is its
 * own (bash's `times` for its children), since /proc/self/stat sums every step that ran meanwhile.
 */
function runAsync(cmd, args, { env } = {}) {
  const t0 = Date.now();
  const p = spawn('bash', ['-c', '"$@"; s=$?; times >&3; exit $s', 'step', cmd, ...args],
    { cwd: root, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  const out = { stdout: [], stderr: [], times: [] };
  p.stdout.on('data', (d) => out.stdout.push(d));
  p.stderr.on('data', (d) => out.stderr.push(d));
  p.stdio[3].on('data', (d) => out.times.push(d));
  return new Promise((resolve) => p.on('close', (status) => {
    // `times`: the shell's own user and sys time, then its children's: "0m12.340s 0m1.200s"
    const kids = Buffer.concat(out.times).toString().trim().split('\n').pop() ?? '';
    const cpu = [...kids.matchAll(/(\d+)m([\d.]+)s/g)].reduce((n, m) => n + 60 * Number(m[1]) + Number(m[2]), 0);
    const r = { status, stdout: Buffer.concat(out.stdout).toString(), stderr: Buffer.concat(out.stderr).toString() };
    r.show = () => {
      console.log(`\n$ ${cmd} ${args.join(' ')}`);
      process.stdout.write(r.stdout);
      process.stderr.write(r.stderr);
    };
    phases.push({ what: `${cmd.replace(/^.*\//, '')} ${args.slice(0, 3).join(' ')}`, wall: (Date.now() - t0) / 1000, cpu, from: (t0 - started) / 1000 });
    resolve(r);
  }));
}
const started = Date.now();

// Tests never write into the tree: what `git status` lists must be the same after the run as before it.
const gitStatus = () => {
  const r = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null; // null: not a git checkout (an unpacked tarball)
};
const statusBefore = gitStatus();

// --- C++ and Jest, side by side ----------------------------------------------
// The C++ suites run beside Jest rather than before it: they need about 220 CPU-s, and Jest leaves a core idle
// whenever its files wait (on pages, drivers, timers and the WebKit slot) and while its last file runs alone. They
// run at the normal priority: niced, the ASan gtest (one 70 CPU-s process, with a 900 s limit) could starve on a
// machine loaded by other work.

// A CTest run's "N% tests passed, F tests failed out of T" line goes into the totals.
function ctestArgs(dir, extra = []) {
  return ['--test-dir', dir, '--output-on-failure', '-j2', ...extra];
}
function ctestTally(dir, r) {
  r.show();
  const m = /(\d+)% tests passed, (\d+) tests failed out of (\d+)/.exec(r.stdout ?? '');
  if (m) {
    const failed = Number(m[2]);
    totals.passed += Number(m[3]) - failed;
    totals.failed += failed;
  } else {
    console.error(`posenc: could not read the CTest summary of ${dir}`);
    totals.failed += 1;
  }
  if (r.status !== 0) ok = false;
}

// libFuzzer's final count of each bounded, seeded fuzz run (tests/fuzz/run-fuzz.sh check keeps the logs).
function fuzzSummary(dir, since) {
  const logs = join(root, dir, 'fuzz-logs');
  const counts = [];
  for (const name of existsSync(logs) ? readdirSync(logs).sort() : []) {
    const m = /^(fuzz_\w+)\.check\.log$/.exec(name);
    if (!m || statSync(join(logs, name)).mtimeMs < since) continue;  // not run this time
    const runs = /stat::number_of_executed_units:\s*(\d+)/.exec(readFileSync(join(logs, name), 'utf8'));
    counts.push(`${m[1]} ${runs ? runs[1] : 'no count (crashed?)'}`);
  }
  if (counts.length) console.log(`\nfuzz executions (seeded, the same every run): ${counts.join(', ')}`);
}

if (quick && !existsSync(join(root, 'web/wasm/posenc-simd.wasm'))) {
  // the Node tests load the wasm builds (built once, then kept)
  if (run('bash', ['scripts/setup.sh', 'wasm']).status !== 0) ok = false;
}
if (quick && !existsSync(join(root, 'build/native/CTestTestfile.cmake'))) {
  // the one native build test:quick may need (configured once, then kept)
  const configure = run('cmake', ['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release']);
  const build = configure.status === 0 && run('cmake', ['--build', 'build/native', '-j2']);
  if (!build || build.status !== 0) ok = false;
}

// C++: the hardening build (the GoogleTest suite under ASan+UBSan, and bounded fuzz runs), then the GoogleTest suites
// (quick: these only, without posenc_train.reproducible, which trains twice). One after the other, beside Jest; the
// ASan gtest first, as the one long process with a time limit.
const fuzzStart = Date.now();
const cpp = (async () => {
  const asan = quick ? null : await runAsync('ctest', ctestArgs('build/asan'));
  const native = await runAsync('ctest', ctestArgs('build/native', quick ? ['-E', '^posenc_train\\.'] : []));
  return { native, asan };
})();

// Jest (Node + browser)
const outDir = join(root, 'build', 'jest');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const report = join(outDir, 'results.json');
// the browser sessions' log (scripts/engines.js logSession), outside the tree
const timingsDir = mkdtempSync(join(tmpdir(), 'posenc-timings-'));
const timings = join(timingsDir, 'sessions.jsonl');
// quick: the Node unit tests (tests/js) without the JS fuzz
const selection = quick ? ['--testPathPatterns=/tests/js/', '--testPathIgnorePatterns=/tests/js/fuzz\\.test\\.js$'] : [];
const jestDone = runAsync(process.execPath, ['node_modules/jest/bin/jest.js', '--json', `--outputFile=${report}`, ...selection, ...jestArgs], {
  env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim(), POSENC_TIMINGS: timings },
});

const { native, asan } = await cpp;
ctestTally('build/native', native);
if (asan) {
  ctestTally('build/asan', asan);
  fuzzSummary('build/asan', fuzzStart);
}
const jest = await jestDone;
jest.show();
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  totals.passed += r.numPassedTests;
  totals.failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
  timeSummary(r);
} catch {
  console.error('posenc: Jest wrote no results');
  totals.failed += 1;
}
rmSync(timingsDir, { recursive: true, force: true });
if (jest.status !== 0) ok = false;

// The steps' times, the slowest Jest files, and the browser sessions: launches per engine, WebKit slot waits.
function timeSummary(results) {
  const s = (x) => `${x.toFixed(1)} s`;
  console.log(`\ntime by step: ${phases.map((p) => `${p.what}: ${s(p.wall)} wall, ${s(p.cpu)} CPU${p.from !== undefined ? ` (from ${s(p.from)})` : ''}`).join('; ')}; all ${s((Date.now() - started) / 1000)} wall, the machine's cores busy ${s(machineBusy() - busyAtStart)} in that time`);
  const files = results.testResults.map((t) => ({ file: t.name.slice(root.length), wall: (t.endTime - t.startTime) / 1000 }))
    .sort((a, b) => b.wall - a.wall);
  console.log(`Jest files: ${files.length}, ${s(files.reduce((n, f) => n + f.wall, 0))} in all; the slowest: ${files.slice(0, 10).map((f) => `${f.file} ${s(f.wall)}`).join(', ')}`);
  const sessions = existsSync(timings) ? readFileSync(timings, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  if (!sessions.length) return;
  const by = {};
  for (const x of sessions) (by[x.engine] ??= []).push(x);
  const sum = (xs, k) => xs.reduce((n, x) => n + x[k], 0) / 1000;
  const shared = (xs) => xs.filter((x) => x.shared).length;
  console.log(`browser sessions: ${Object.entries(by).map(([e, xs]) => `${e} ${xs.length}${shared(xs) ? `, ${shared(xs)} of them contexts in a worker's shared browser` : ''} (start ${s(sum(xs, 'startMs') / xs.length)} each, held ${s(sum(xs, 'heldMs'))} in all)`).join(', ')}`);
  const waits = (by.webkit ?? []).filter((x) => x.waitMs > 1000).sort((a, b) => b.waitMs - a.waitMs);
  if (by.webkit) console.log(`WebKit slots: waited ${s(sum(by.webkit, 'waitMs'))} in all${waits.length ? ` (${waits.slice(0, 5).map((x) => `${x.file} ${s(x.waitMs / 1000)}`).join(', ')})` : ''}`);
}

const statusAfter = gitStatus();
if (statusBefore !== null && statusAfter !== statusBefore) {
  const before = new Set(statusBefore.split('\n'));
  console.error(`posenc: the tests changed the tree (git status):\n${statusAfter.split('\n').filter((l) => l && !before.has(l)).join('\n')}`);
  totals.failed += 1;
}
if (totals.failed > 0) ok = false;
console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(ok ? 0 : 1);
