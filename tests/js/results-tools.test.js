// The tools that change docs/results.json without retraining (issue 28): the bag-of-tokens floor that
// `posenc_train --print-tasks` measures (against its exact expectation, computed here from the multinomial),
// scripts/results-refresh.js's splice and scripts/results-merge.js's merge (on texts built here; nothing is
// written to the tree).
import { execFileSync } from 'node:child_process';
import { splice } from '../../scripts/results-refresh.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readResults, readRules } from '../../scripts/results-load.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { merge, replace, blocksOf, runKey } from '../../scripts/results-merge.js';
import { run } from './results-fixtures.js';

const bin = new URL('../../build/native/posenc_train', import.meta.url).pathname;

/** Mean and variance of M / h, M the largest count among n equally likely symbols in h draws. */
function maxShare(h, n) {
  const cdf = (m) => { // P(M <= m) = h! / n^h [x^h] (sum_{k<=m} x^k / k!)^n, in the variable x / n
    let poly = [1];
    const term = Array.from({ length: m + 1 }, (_, k) => { let t = 1; for (let i = 1; i <= k; i++) t *= 1 / (n * i); return t; });
    for (let s = 0; s < n; s++) {
      const next = new Array(Math.min(h, poly.length + m) + 1).fill(0);
      poly.forEach((a, i) => term.forEach((b, k) => { if (i + k <= h) next[i + k] += a * b; }));
      poly = next;
    }
    let f = 1;
    for (let i = 2; i <= h; i++) f *= i;
    return (poly[h] ?? 0) * f;
  };
  let mean = 0, sq = 0, prev = 0;
  for (let m = 1; m <= h; m++) {
    const c = cdf(m), p = c - prev;
    mean += p * m;
    sq += p * m * m;
    prev = c;
  }
  return { mean: mean / h, variance: (sq - mean * mean) / (h * h) };
}

test('the bag-of-tokens floor of copy and reverse is the expected share of the most frequent input symbol, at every length', () => {
  const out = execFileSync(bin, ['--print-tasks', '--tasks', 'copy,reverse', '--encodings', 'none', '--eval-sequences', '64'], { encoding: 'utf8' });
  const { tasks } = JSON.parse(`{${out}}`);
  const bag = (t) => tasks[t].floors.find((f) => f.name === 'bag');
  expect(bag('reverse').byLength).toEqual(bag('copy').byLength); // the same draws, reversed
  expect(bag('copy').accuracy).toBe(bag('copy').byLength.find((x) => x.length === 32).accuracy);
  for (const { length, accuracy } of bag('copy').byLength) {
    const h = (length - 2) / 2, { mean, variance } = maxShare(h, 8);
    // 64 sequences: within 4 standard errors of the exact expectation
    expect([length, Math.abs(accuracy - mean) < 4 * Math.sqrt(variance / 64) + 5e-4]).toEqual([length, true]);
  }
  // the floor falls as the input grows (the expectation does: 31.7% at 16 tokens, 17.3% at 256)
  const accs = bag('copy').byLength.map((x) => x.accuracy);
  expect(accs[0]).toBeGreaterThan(accs.at(-1) + 0.1);
});

// A results.json text as posenc_train writes it, from runs.
const text = (runs, variants = [], config = {}) => `{\n"version":2,\n"config":${JSON.stringify({ trainLength: 32, ...config, variants })},\n"tasks":{\n"copy":{"metric":"accuracy"}},\n"runs":[\n` +
  `${runs.map((r) => JSON.stringify(r)).join(',\n')}\n]\n}\n`;
const runs = () => [run('copy', 'rope', 0, [1, 0.5, 0.2, 0.1]), run('copy', 'rope', 1, [1, 0.6, 0.2, 0.1]), run('copy', 'alibi', 0, [1, 0.9, 0.7, 0.4])]
  .map((r) => ({ ...r, variant: '', trainSeconds: 1 }));

test('results-refresh replaces tasks and checkpointProbe, and nothing else', () => {
  const t = text(runs());
  const once = splice(t, '"tasks":{\n"copy":{"metric":"accuracy","floors":[]}}', '"checkpointProbe":{"runs":[]}');
  const parsed = JSON.parse(once);
  expect(parsed.tasks.copy.floors).toEqual([]);
  expect(parsed.checkpointProbe).toEqual({ runs: [] });
  expect(parsed.runs).toEqual(JSON.parse(t).runs);
  expect(splice(once, '"tasks":{}', '"checkpointProbe":{"runs":[1]}')).toBe(splice(t, '"tasks":{}', '"checkpointProbe":{"runs":[1]}'));
  expect(() => splice('{"runs":[]}', '"tasks":{}', null)).toThrow('no "tasks" member');
});

test('results-merge adds new runs after their kin, checks shared ones, and refuses a partial that differs', () => {
  const full = text(runs(), [{ encoding: 'rope', variant: 'base10000' }]);
  const shared = { ...runs()[0], trainSeconds: 9 }; // timings may differ
  const tuned = { ...run('copy', 'rope', 0, [0.7, 0.6, 0.3, 0.2]), variant: 'finetuned', finetune: { length: 128, steps: 200 } };
  const m = merge(full, text([shared, tuned], [{ encoding: 'rope', variant: 'finetuned', scaling: 'none' }]));
  expect(m.added).toEqual([runKey(tuned)]);
  expect(m.checked).toEqual([runKey(shared)]);
  const merged = JSON.parse(m.text);
  expect(merged.runs.map(runKey)).toEqual([runKey(runs()[0]), runKey(tuned), runKey(runs()[1]), runKey(runs()[2])]);
  expect(merged.config.variants.map((v) => v.variant)).toEqual(['base10000', 'finetuned']);
  expect(blocksOf(m.text).blocks[0]).toBe(blocksOf(full).blocks[0]); // untouched runs keep their text
  // a shared run with other numbers: refused
  const other = { ...runs()[1] };
  other.lengths = other.lengths.map((l) => ({ ...l, accuracy: l.accuracy / 2 }));
  expect(() => merge(full, text([other]))).toThrow('1 run(s) in both files differ');
});

test('results-merge --replace puts a retrained encoding\'s runs in place of the old ones, keeping every other byte', () => {
  const full = text(runs());
  const retrained = { ...runs()[0], trainSeconds: 5 };
  retrained.lengths = retrained.lengths.map((l) => ({ ...l, accuracy: l.accuracy * 0.9 }));
  const seed2 = { ...run('copy', 'rope', 2, [1, 0.4, 0.2, 0.1]), variant: '', trainSeconds: 1 };
  const partial = text([retrained, seed2], [], { seeds: [0, 2], encodings: ['rope'], jobs: 2, seconds: 7 });
  const m = replace(full, partial, 'rope');
  expect([m.replaced, m.changed, m.added, m.kept]).toEqual([[runKey(retrained)], [runKey(retrained)], [runKey(seed2)], [runKey(runs()[1])]]);
  // the same text as if the retrained runs had been written in the first place (head, the other runs, the tail)
  expect(m.text).toBe(text([retrained, runs()[1], seed2, runs()[2]]));
  // a run retrained to the same numbers (timings aside) keeps its text and is not counted as changed
  const same = replace(full, text([{ ...runs()[1], trainSeconds: 3 }]), 'rope');
  expect([same.replaced.length, same.changed.length, same.kept.length, same.text]).toEqual([1, 0, 1, full]);
  // refused: a run of another encoding, other settings, an encoding results.json does not have
  expect(() => replace(full, text([retrained, runs()[2]]), 'rope')).toThrow('1 run(s) of other encodings (copy|alibi||none|0)');
  expect(() => replace(full, text([retrained], [], { steps: 100 }), 'rope')).toThrow('other settings (config.steps)');
  // the options of the partial's tasks must agree; those of tasks it did not train may be absent
  const options = { taskOptions: { copy: { symbols: 8 }, markov: { order: 2 } } };
  const withOptions = text(runs(), [], options);
  expect(replace(withOptions, text([retrained], [], { taskOptions: { copy: { symbols: 8 } } }), 'rope').replaced).toEqual([runKey(retrained)]);
  expect(() => replace(withOptions, text([retrained], [], { taskOptions: { copy: { symbols: 9 } } }), 'rope')).toThrow('config.taskOptions');
  expect(() => replace(full, text([retrained]), 'fire')).toThrow('no run of that encoding');
});

test('results-merge --replace on files: says what it replaced, writes only the results file it names; a usage error exits 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-merge-'));
  try {
    const script = new URL('../../scripts/results-merge.js', import.meta.url).pathname;
    const full = join(dir, 'results.json'), partial = join(dir, 'partial.json');
    const retrained = { ...runs()[2], trainSeconds: 2 };
    retrained.lengths = retrained.lengths.map((l) => ({ ...l, loss: l.loss + 0.5 }));
    writeFileSync(full, text(runs()));
    writeFileSync(partial, text([retrained]));
    const out = execFileSync('node', [script, '--replace', 'alibi', partial, full], { encoding: 'utf8' });
    expect(out).toContain('1 runs of alibi replaced (1 with other numbers), 0 added, 0 not in the partial kept');
    expect(readFileSync(full, 'utf8')).toBe(text([runs()[0], runs()[1], retrained]));
    let status = 0, stderr = '';
    try {
      execFileSync('node', [script, '--replace'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      ({ status, stderr } = e);
    }
    expect([status, stderr.trim()]).toEqual([2, 'usage: node scripts/results-merge.js [--replace ENCODING] PARTIAL.json [results.json]']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readResults attaches every experiments/<name>.json beside a results.json and the frozen rules, and leaves results otherwise unchanged', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-load-'));
  try {
    const file = join(dir, 'results.json');
    writeFileSync(file, JSON.stringify({ version: 2, runs: [] }));
    expect(readResults(file)).toEqual({ version: 2, runs: [], rules: readRules() }); // no rules/ beside it: the repository's
    expect(readRules().length).toBeGreaterThan(0);
    mkdirSync(join(dir, 'rules'));
    writeFileSync(join(dir, 'rules', 'literature-2030-01-02.json'), '{"version":"2030-01-02","papers":{}}');
    writeFileSync(join(dir, 'rules', 'literature-2030-01-01.json'), '{"version":"2030-01-01","papers":{}}');
    expect(readResults(file).rules.map((r) => r.version)).toEqual(['2030-01-01', '2030-01-02']); // oldest first
    mkdirSync(join(dir, 'experiments'));
    writeFileSync(join(dir, 'experiments', 'b.json'), '{"x":2}');
    writeFileSync(join(dir, 'experiments', 'a.json'), '{"x":1}');
    writeFileSync(join(dir, 'experiments', 'notes.txt'), 'not json');
    const r = readResults(file);
    expect(r.experiments).toEqual({ a: { x: 1 }, b: { x: 2 } });
    expect(Object.keys(r.experiments)).toEqual(['a', 'b']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--strings: content matching solves copy and reverse on distinct strings and fails on adversarial repeats', () => {
  const tasks = (strings) => JSON.parse(`{${execFileSync(bin, ['--print-tasks', '--tasks', 'copy,reverse', '--encodings', 'none', '--eval-sequences', '64', '--strings', strings], { encoding: 'utf8' })}}`).tasks;
  const induction = (t, task) => t[task].baselines.find((b) => b.name === 'induction').byLength;
  for (const task of ['copy', 'reverse']) {
    for (const x of induction(tasks('distinct'), task)) expect(x.accuracy).toBe(1);
    const rep = induction(tasks('repeats'), task), uni = induction(tasks('uniform'), task);
    expect(rep.find((x) => x.length === 128).accuracy).toBeLessThan(0.8);
    expect(uni.find((x) => x.length === 128).accuracy).toBeGreaterThan(0.95);
  }
  expect(() => execFileSync(bin, ['--print-tasks', '--strings', 'sorted'], { stdio: 'pipe' })).toThrow(/--strings must be one of 'uniform', 'distinct', 'repeats'/);
});
