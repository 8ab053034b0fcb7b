// Training-free context extensions through the JS API and the CLI, on the wasm build and stories260K (trained context
// 512): the core's table reaches the library; ReRoPE, Leaky ReRoPE and dynamic NTK as generated match the independent
// float64 reference (tests/lm/extend_reference.py) per position; a stream equals the forward; bad options are
// refused by name with nothing left allocated; `npm run model -- --extend/--dynamic` prints the numbers and exits 2
// with one line on bad input.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../../web/lib/index.js';
import { SHARED, readShared, sharedTest } from './lm-fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PASSAGE = join(root, 'web/app/lm/passage.txt');
const S = (f) => fileURLToPath(new URL(f, SHARED));
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const T = 576;
const dir = mkdtempSync(join(tmpdir(), 'posenc-lm-extend-'));

// The float64 reference's output for one case (its arguments), run once per case
const references = new Map();
function reference(...args) {
  if (!references.has(args.join(' '))) references.set(args.join(' '), runReference(args));
  return references.get(args.join(' '));
}
function runReference(args) {
  const out = join(dir, 'ref.txt');
  execFileSync('/usr/bin/python3', [join(root, 'tests/lm/extend_reference.py'), S('stories260K.bin'), S('tok512.bin'), PASSAGE, out, '--length', String(T), ...args]);
  const lines = Object.fromEntries(readFileSync(out, 'utf8').trim().split('\n').map((l) => [l.split(' ')[0], l.split(' ').slice(1).map(Number)]));
  return lines;
}

let pe, lm, ids;
beforeAll(async () => {
  pe = await loadPosenc();
});
afterAll(() => {
  lm?.delete();
  rmSync(dir, { recursive: true, force: true });
});
const load = async () => {
  lm ??= await pe.loadLanguageModel({ model: readShared('stories260K.bin'), tokenizer: readShared('tok512.bin') });
  ids ??= lm.encode(readFileSync(PASSAGE, 'utf8')).subarray(0, T);
  return lm;
};

sharedTest('the core\'s table of methods reaches the library', async () => {
  const { methods, dynamicForms } = await pe.contextExtensions();
  expect(methods.map((m) => m.name)).toEqual(['none', 'rerope']);
  const re = methods[1];
  expect(re.params.map((p) => [p.key, p.min, p.default, p.optional])).toEqual([
    ['window', 1, null, false], ['leak', 2, null, true], ['logn', 0, 1, false], ['context', 2, null, true]]);
  expect(re.scalings).toEqual(['default', 'linear']);
  expect(dynamicForms.map((f) => f.name)).toEqual(['call', 'cached']);
});

sharedTest('ReRoPE, Leaky ReRoPE and dynamic NTK as generated match the float64 reference per position; a stream equals the forward', async () => {
  await load();
  const cases = [
    [{ extend: { method: 'rerope', window: 128 } }, ['--rerope', '128']],
    [{ extend: { method: 'rerope', window: 128, leak: 16 } }, ['--rerope', '128', '--leak', '16']],
    [{ scaling: { rope_type: 'dynamic', factor: 4 }, dynamic: 'cached' }, ['--scaling', 'dynamic', '--dynamic', 'cached']],
  ];
  for (const [opts, args] of cases) {
    const ref = reference(...args);
    expect(Array.from(ids)).toEqual(ref.tokens);
    const r = lm.forward(ids, { ...opts, stats: true });
    const d = [maxDiff(r.nll, ref.nll), maxDiff(r.entropy, ref.entropy), maxDiff(r.sink, ref.sink)];
    process.stdout.write(`[${JSON.stringify(opts)}] max |wasm - float64|: NLL ${d[0].toExponential(2)}, entropy ${d[1].toExponential(2)}, sink ${d[2].toExponential(2)}\n`);
    expect(d[0]).toBeLessThan(5e-4);
    expect(Math.max(d[1], d[2])).toBeLessThan(2e-4);
    const s = lm.stream(ids, { ...opts, chunk: 200, kv: 'float32' });
    const parts = [];
    while (s.done < s.length) parts.push(...s.step().nll);
    s.delete();
    expect(maxDiff(Float32Array.from(parts), r.nll)).toBeLessThan(5e-5);
  }
  // a cache made with one method is not another's
  const part = lm.forward(ids.subarray(0, 101), { scaling: { rope_type: 'dynamic', factor: 4 }, dynamic: 'cached', keep: 100 });
  expect(() => lm.forward(ids.subarray(100), { scaling: { rope_type: 'dynamic', factor: 4 }, past: part.cache }))
    .toThrow(new RangeError('past was computed with another scaling than this forward\'s'));
}, 120000);

sharedTest('bad extend and dynamic options are refused by name, and nothing stays allocated', async () => {
  await load();
  const refusals = () => {
    for (const [opts, error] of [
    [{ extend: 5 }, new TypeError('extend must be an object such as {"method": "rerope", "window": 512} (got 5)')],
    [{ extend: { method: 'self' } }, new RangeError('extend.method must be one of \'none\', \'rerope\' (got "self")')],
    [{ extend: { method: 'rerope', window: 64, size: 3 } }, new RangeError('extend has an unknown option "size": allowed method, window, leak, logn, context')],
    [{ extend: { method: 'rerope', window: '64' } }, new TypeError('extend.window must be a number (got "64")')],
    [{ dynamic: 'stepwise' }, new RangeError('dynamic must be one of \'call\', \'cached\' (got "stepwise")')],
    ]) expect(() => lm.forward(ids, opts)).toThrow(error);
    for (const [opts, words] of [
    [{ extend: { method: 'rerope' } }, /extend\.window.*required by 'rerope'/],
    [{ extend: { method: 'rerope', window: 0 } }, /extend\.window must be an integer in \[1, 131072\] \(got 0\)/],
    [{ extend: { method: 'rerope', window: 64, leak: 1.5 } }, /extend\.leak must be an integer in \[2, 1024\]/],
    [{ extend: { method: 'rerope', window: 64 }, scaling: { rope_type: 'yarn', factor: 4 } }, /extend must be a RoPE scaling that 'rerope' composes with: .*transformers version.*\(got yarn\)/],
    [{ extend: { method: 'rerope', window: 64, leak: 8 }, scaling: { rope_type: 'linear', factor: 2 } }, /extend\.leak must be no RoPE scaling: Leaky ReRoPE builds its own linear table/],
    [{ dynamic: 'cached' }, /dynamic must be 'call' unless the scaling is dynamic NTK/],
    ]) {
      expect(() => lm.forward(ids, opts)).toThrow(RangeError);
      expect(() => lm.forward(ids, opts)).toThrow(words);
      expect(() => lm.stream(ids, opts)).toThrow(words);
    }
  };
  refusals(); // (the first pass may grow the module's own error text and scratch once)
  const heap = pe.heapBytes();
  refusals();
  refusals();
  expect(pe.heapBytes()).toBe(heap);
});

sharedTest('npm run model -- --extend JSON and --dynamic: the numbers, and exit status 2 with one line on bad input', () => {
  const run = (...args) => spawnSync(process.execPath, [join(root, 'scripts/model.js'), '--model', S('stories260K.bin'), '--tokenizer', S('tok512.bin'),
    '--text', PASSAGE, '--length', String(T), ...args], { encoding: 'utf8' });
  const j = run('--extend', '{"method":"rerope","window":128,"leak":16}', '--json');
  expect(j.status).toBe(0);
  expect(maxDiff(JSON.parse(j.stdout).nll, reference('--rerope', '128', '--leak', '16').nll)).toBeLessThan(5e-4);
  const t = run('--scaling', '{"rope_type":"dynamic","factor":4}', '--dynamic', 'cached');
  expect(t.status).toBe(0);
  expect(t.stdout).toMatch(/\(dynamic NTK: cached\); extension none;/);
  for (const [args, re] of [
    [['--extend', '{"method":'], /^npm run model: --extend is not valid JSON: .*\n$/],
    [['--extend', '{"method":"rerope","window":-1}'], /^npm run model: extend\.window must be an integer in \[1, 131072\] \(got -1\)\n$/],
    [['--dynamic', 'sometimes'], /^npm run model: dynamic must be one of 'call', 'cached' \(got "sometimes"\)\n$/],
    [['--dynamic', 'cached'], /^npm run model: dynamic must be 'call' unless the scaling is dynamic NTK.*\n$/],
  ]) {
    const r = run(...args);
    expect([args.join(' '), r.status, r.stdout]).toEqual([args.join(' '), 2, '']);
    expect(r.stderr).toMatch(re);
  }
}, 120000);
