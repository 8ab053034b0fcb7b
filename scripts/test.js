// Runs every suite: C++ (GoogleTest through CTest) and Jest (the wasm module
// in Node, and the browser tests in headless Chromium). Ends with one line
// over all suites: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const totals = { passed: 0, failed: 0 };
let ok = true;

function run(cmd, args, opts = {}) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  return r;
}

// --- C++ ---------------------------------------------------------------------
const ctest = run('ctest', ['--test-dir', 'build/native', '--output-on-failure', '-j2']);
const m = /(\d+)% tests passed, (\d+) tests failed out of (\d+)/.exec(ctest.stdout ?? '');
if (m) {
  const failed = Number(m[2]);
  totals.passed += Number(m[3]) - failed;
  totals.failed += failed;
} else {
  console.error('posenc: could not read the CTest summary');
  totals.failed += 1;
}
if (ctest.status !== 0) ok = false;

// --- Jest (Node + browser) ---------------------------------------------------
const outDir = join(root, 'build', 'jest');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const report = join(outDir, 'results.json');
const jest = run(process.execPath, ['node_modules/jest/bin/jest.js', '--json', `--outputFile=${report}`, ...process.argv.slice(2)], {
  env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() },
});
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  totals.passed += r.numPassedTests;
  totals.failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
} catch {
  console.error('posenc: Jest wrote no results');
  totals.failed += 1;
}
if (jest.status !== 0) ok = false;

if (totals.failed > 0) ok = false;
console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(ok ? 0 : 1);
