// The frozen literature rules (docs/rules/*.json, issue 43): the newest version decides, the one before is shown, and
// every verdict is read under the best seed, the mean and the floor-clipped mean, with "near the line" where they
// differ. Checked on the shipped results against numbers computed here from the raw runs, and by mutation.
import { readResults, readRules } from '../../scripts/results-load.js';
import * as Lit from '../../web/app/story/literature.js';
import * as W from '../../web/app/shared/results-words.js';
import { render } from '../../scripts/results-md.js';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url).pathname;
const results = readResults(`${root}docs/results.json`);
const clone = (x) => JSON.parse(JSON.stringify(x));
const paper = (r, id) => Lit.literature(r).find((p) => p.id === id);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('the rules files are dated, each paper has its claim, counted comparison, statistic, thresholds and setting', () => {
  const vs = readRules();
  expect(vs.map((v) => v.version)).toEqual([...vs.map((v) => v.version)].sort());
  for (const v of vs) {
    expect(v.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const id of Lit.PAPERS.map((p) => p.id)) {
      const r = v.papers[id];
      expect(r).toBeDefined();
      for (const k of ['claim', 'source', 'form', 'counted', 'statistic', 'thresholds', 'setting', 'rule']) expect(r[k]).toBeDefined();
      expect(Object.keys(v.statistics)).toContain(r.statistic);
    }
  }
  // the literature table reads them: the rule column is the file's text
  const lit = Lit.literature(results), newest = vs.at(-1);
  for (const p of lit) expect(p.rule).toBe(newest.papers[p.id].rule);
  expect(() => Lit.literature({ ...results, rules: [] })).toThrow(TypeError);
});

// Ruoss et al.'s majority-symbol floor, computed here from the binomial (independent of literature-ruoss.js)
function majority(n) {
  let s = 0;
  for (let k = 0; k <= n; k++) {
    let c = 1;
    for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
    s += c * Math.max(k, n - k) / 2 ** n;
  }
  return s / n;
}

test('Ruoss: the max clears the 10-point line, the floor-clipped mean does not: near the line', () => {
  const exp = results.experiments.ruoss, floor = mean(exp.config.testLengths.map(majority));
  const scores = (task, enc) => exp.runs.filter((r) => r.task === task && r.encoding === enc).map((r) => r.testAccuracy);
  const pairs = [['rope_random', 'rope'], ['learned_random', 'learned']];
  const gain = (f) => mean(exp.config.tasks.flatMap((t) => pairs.map(([a, b]) => f(scores(t, a)) - f(scores(t, b)))));
  const meanGain = gain(mean), clipped = gain((xs) => mean(xs.map((x) => Math.max(x, floor))));
  const p = paper(results, 'ruoss2023');
  const by = Object.fromEntries(p.byStat.map((b) => [b.stat, b]));
  expect(by.mean.value).toBe(`+${(100 * meanGain).toFixed(1)} points`);
  expect(by.clipped.value).toBe(`+${(100 * clipped).toFixed(1)} points`);
  expect(by.max.holds).toBe(true);
  expect(by.clipped.holds).toBe(clipped > 0.1);
  expect(p.near).toBe(by.max.holds !== by.clipped.holds || by.max.holds !== by.mean.holds);
  expect(p.label).toBe(`${p.verdict}${p.near ? ', near the line' : ''}`);
  expect(by.mean.interval.low).toBeLessThan(meanGain);
  expect(by.mean.interval.high).toBeGreaterThan(meanGain);
  // mutation: every plain row 20 points lower: all three statistics clear the line, nothing near it
  const m = clone(results);
  for (const r of m.experiments.ruoss.runs.filter((x) => x.encoding === 'rope' || x.encoding === 'learned')) r.testAccuracy -= 0.2;
  expect(paper(m, 'ruoss2023').near).toBe(false);
});

test('Kazemnejad: a task where every row of ours sits at the exact-match floor is not counted', () => {
  const p = paper(results, 'kazemnejad2023');
  const exp = results.experiments.kazemnejad;
  const best = (task) => Math.max(...['none', 't5', 'sinusoidal'].map((e) => mean(exp.runs.filter((r) => r.task === task && r.encoding === e).map((r) => r.test.exact))));
  const informative = ['cmc', 'rsc', 'rdc'].filter((t) => best(t) > 0.1);
  expect(p.text).toContain(`agreement on ${informative.length} of ${informative.length} tasks counted`);
  if (!informative.includes('cmc')) expect(p.text).toContain('cmc: not informative');
  expect(p.text).toMatch(/our NoPE scores \d+\.\d× theirs/);
  expect(p.previous.text).toContain('agreement on 3 of 3 tasks counted'); // the rule of 2026-12-05 counted cmc
  // mutation: lift one cmc NoPE seed to 60% exact: cmc becomes informative and counts
  const m = clone(results);
  for (const r of m.experiments.kazemnejad.runs.filter((x) => x.task === 'cmc' && x.encoding === 'none')) r.test.exact = 0.6;
  expect(paper(m, 'kazemnejad2023').text).toContain(`of ${informative.length + 1} tasks counted`);
});

test('a fine-tuned run has its own "learned": above the floor at its fine-tune length, not its pretrained model’s flag', () => {
  const r = results.runs.find((x) => x.task === 'kth_retrieval' && x.finetune && x.scaling === 'yarn' && x.seed === 2);
  const info = W.taskInfo(results, 'kth_retrieval'), L = r.finetune.length, acc = r.lengths.find((l) => l.length === L).accuracy;
  expect(r.learned).toBe(true); // the flag it inherited
  expect(W.learnedRun(results, r, info)).toBe(acc - W.floorOf(info, L).accuracy > 0.1);
  const m = clone(r);
  m.lengths.find((l) => l.length === L).accuracy = W.floorOf(info, L).accuracy + 0.2;
  expect(W.learnedRun(results, m, info)).toBe(true);
  m.lengths.find((l) => l.length === L).accuracy = W.floorOf(info, L).accuracy + 0.05;
  expect(W.learnedRun(results, m, info)).toBe(false);
});

test('results.md shows both versions’ verdicts, the rules as frozen, and a run that differs from the frozen setting', () => {
  const md = render(results);
  const [prev, cur] = readRules().slice(-2);
  expect(md).toContain(`verdict (rules of ${cur.version})`);
  expect(md).toContain(`verdict under the rules of ${prev.version}`);
  expect(md).toContain(`### The rules as frozen (${cur.version})`);
  expect(md).toContain('near the line');
  const m = clone(results);
  m.experiments.spectrum.config.finetune.steps = 50;
  expect(paper(m, 'peng2023').drift).toEqual(['config.finetune.steps 50 (frozen: 34)']);
  expect(render(m)).toContain('the runs differ from the frozen setting: config.finetune.steps 50 (frozen: 34)');
});

test('the page’s literature words are computed from its shipped results and match results.md’s verdicts', async () => {
  const { literatureWords } = await import('../../web/app/story/literature-view.js');
  const page = JSON.parse(readFileSync(`${root}web/checkpoints/results.json`, 'utf8'));
  const words = literatureWords(page), lit = Lit.literature(results);
  expect(words.map((w) => w.id)).toEqual(lit.map((p) => p.id));
  for (const [w, p] of words.map((x, i) => [x, lit[i]])) {
    expect(w.verdict).toBe(p.label);
    expect(w.sentence).toContain(Lit.sensitivityText(p));
    expect(w.near).toBe(p.near);
  }
  const ruoss = words.find((w) => w.id === 'ruoss2023');
  expect(ruoss.sentence).toContain('near the line');
  expect(literatureWords({ ...page, rules: [] })).toEqual([]);
});

test('a task’s induction baseline is shown beside its floors, with the verdicts that would stand under it', async () => {
  const { v2Fixture } = await import('./results-fixtures.js');
  const r = v2Fixture(['none', 'alibi', 'rope']);
  const withBaseline = (acc) => {
    const x = clone(r);
    x.tasks.copy.baselines = [{ name: 'induction', note: 'content matching', byLength: [32, 64, 128, 256].map((length) => ({ length, accuracy: acc })) }];
    return x;
  };
  const high = render(withBaseline(0.99));
  const now = W.rowsOf(r, 'copy').filter((row) => W.verdict(r, row).level != null).length;
  expect(high).toContain(`With matching the last few tokens by content, with no positions as the floor (99% at 1×), 0 of ${W.rowsOf(r, 'copy').length} rows would keep a verdict (${now} do now).`);
  expect(high).toContain('baseline, not a floor: induction 99%');
  // the verdicts themselves still read the floors
  expect(W.verdict(withBaseline(0.99), W.rowsOf(r, 'copy')[0]).level).toBe(W.verdict(r, W.rowsOf(r, 'copy')[0]).level);
  // mutation: a baseline at chance leaves every verdict standing
  expect(render(withBaseline(0.125))).toContain(`${now} of ${W.rowsOf(r, 'copy').length} rows would keep a verdict (${now} do now)`);
});
