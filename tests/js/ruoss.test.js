// The Ruoss et al. 2023 replication's rule (web/app/story/literature-ruoss.js), its literature row and its results.md
// section, on fixtures built here (nothing written to the tree): the majority-symbol floor computed independently
// by enumeration, the learned-seed gate, the max-over-seeds gain and, by mutation, a verdict that follows the numbers.
import { render } from '../../scripts/results-md.js';
import { ruossSection } from '../../scripts/results-md-ruoss.js';
import * as R from '../../web/app/story/literature-ruoss.js';
import * as Lit from '../../web/app/story/literature.js';
import { v2Fixture } from './results-fixtures.js';

const clone = (x) => JSON.parse(JSON.stringify(x));
const paper = (r, id) => Lit.literature(r).find((p) => p.id === id);

// Test scores per seed (training-length accuracy 0.99 unless given): randomized well above plain.
const SCORES = {
  duplicate: { rope: [0.55, 0.6, 0.58], rope_random: [0.8, 0.9, 0.85], learned: [0.52, 0.5, 0.51], learned_random: [0.7, 0.75, 0.72], none: [0.5, 0.5, 0.5] },
  reverse: { rope: [0.6, 0.62, 0.61], rope_random: [0.95, 0.9, 0.93], learned: [0.55, 0.53, 0.54], learned_random: [0.8, 0.82, 0.79], none: [0.5, 0.51, 0.5] },
};
function experiment(scores = SCORES, train = {}) {
  const tasks = Object.keys(scores), encodings = Object.keys(scores[tasks[0]]);
  const runs = tasks.flatMap((task) => encodings.flatMap((encoding) => scores[task][encoding].map((testAccuracy, seed) => ({
    task, encoding, seed, testAccuracy, trainAccuracy: train[`${task}/${encoding}/${seed}`] ?? 0.99, byLength: [testAccuracy, testAccuracy], finalLoss: 0.1, steps: 100,
  }))));
  return {
    experiment: 'ruoss',
    config: { tasks, encodings, seeds: 3, steps: 100, batch: 32, lr: 0.001, trainLengths: [1, 16], testLengths: [17, 128], draws: 8, sequencesPerDraw: 8, symbols: 2,
      model: { layers: 4, heads: 8, dModel: 64, mlpRatio: 4, ropeBase: 10000, randomLength: 512, maxLength: 512, causal: false, dropout: 0 },
      score: 'per-token accuracy at the output slots, mean per test length, then over the test lengths' },
    differences: ['100 steps of batch 32 instead of 10,000 of batch 128', 'randomLength 512 instead of 2048'],
    runs, jobs: 1, seconds: 12,
  };
}
const withExperiment = (exp) => ({ ...v2Fixture(['none', 'rope', 'rope_random', 'learned_random']), experiments: { ruoss: exp } });

// E[max(k, n - k)] / n by enumerating all 2^n binary strings (independent of the binomial recurrence).
function floorByEnumeration(n) {
  let sum = 0;
  for (let s = 0; s < 2 ** n; s++) {
    let ones = 0;
    for (let b = s; b; b >>= 1) ones += b & 1;
    sum += Math.max(ones, n - ones);
  }
  return sum / 2 ** n / n;
}

describe('the majority-symbol floor', () => {
  test('matches enumeration, and the floors average it over the training and test lengths', () => {
    for (const n of [1, 2, 3, 7, 12, 16]) expect(R.majorityFloor(n)).toBeCloseTo(floorByEnumeration(n), 12);
    expect(R.majorityFloor(1)).toBe(1);
    expect(R.majorityFloor(3)).toBeCloseTo(0.75, 12);
    const f = R.ruossFloors(experiment());
    let train = 0;
    for (let n = 1; n <= 16; n++) train += floorByEnumeration(n) / 16;
    expect(f.train).toBeCloseTo(train, 12);
    expect(f.test).toBeCloseTo((R.majorityFloor(17) + R.majorityFloor(128)) / 2, 12);
  });
});

describe('randomized against plain, max over the learned seeds', () => {
  test('the gain averages the four comparisons; a change of numbers changes the verdict', () => {
    const exp = experiment();
    const c = R.ruossComparisons(exp);
    expect(c.comparisons.map((x) => `${x.task}/${x.rand.encoding}/${x.plain.encoding}`)).toEqual([
      'duplicate/rope_random/rope', 'duplicate/learned_random/learned', 'reverse/rope_random/rope', 'reverse/learned_random/learned']);
    const gain = ((0.9 - 0.6) + (0.75 - 0.52) + (0.95 - 0.62) + (0.82 - 0.55)) / 4;
    expect(c.gain).toBeCloseTo(gain, 12);
    expect(c.holds).toBe(true);
    const p = paper(withExperiment(exp), 'ruoss2023');
    expect(p.verdict).toBe('agrees');
    expect(p.text).toContain('duplicate: rope_random 90% vs rope 60% (+30.0; 3 and 3 of 3 seeds learned)');
    expect(p.text).toContain(`gain +${(100 * gain).toFixed(1)} points on average over 4 comparisons`);
    expect(p.differences).toContain('randomLength 512 instead of 2048');
    expect(p.rule).toContain('read under the max over seeds');
    // mutation: the randomized maxima fall to within a few points of the plain ones (all well above the floor)
    const m = clone(SCORES);
    m.duplicate.rope_random = [0.62, 0.6, 0.6];
    m.duplicate.learned_random = [0.55, 0.5, 0.5];
    m.reverse.rope_random = [0.65, 0.6, 0.6];
    m.reverse.learned_random = [0.57, 0.5, 0.5];
    for (const t of ['duplicate', 'reverse']) for (const e of ['rope', 'rope_random', 'learned', 'learned_random']) m[t][e] = m[t][e].map((x) => x + 0.2);
    expect(R.ruossComparisons(experiment(m)).comparisons).toHaveLength(4);
    expect(R.ruossComparisons(experiment(m)).holds).toBe(false);
    expect(paper(withExperiment(experiment(m)), 'ruoss2023').verdict).toBe('does not agree');
  });

  test('a pair whose two rows both stay within 10 points of the floor at the test lengths is not compared', () => {
    const fl = R.ruossFloors(experiment()).test; // about 56%
    const m = clone(SCORES);
    m.reverse.rope = [fl - 0.05, fl, fl - 0.02];
    m.reverse.rope_random = [fl + 0.06, fl + 0.04, fl]; // +6 points over the floor at best: near it
    const c = R.ruossComparisons(experiment(m));
    expect(c.comparisons.map((x) => `${x.task}/${x.rand.encoding}`)).toEqual(['duplicate/rope_random', 'duplicate/learned_random', 'reverse/learned_random']);
    expect(c.skipped).toEqual([`reverse: rope_random ${Math.round(100 * (fl + 0.06))}% and rope ${Math.round(100 * fl)}% both within 10 points of the ${Math.round(100 * fl)}% floor at the test lengths`]);
    // with only that pair left, the row gets no verdict
    const only = { reverse: { rope: m.reverse.rope, rope_random: m.reverse.rope_random, learned: [0.9, 0.9, 0.9], learned_random: [0.9, 0.9, 0.9], none: [0.5, 0.5, 0.5] } };
    const none = {};
    for (const s of [0, 1, 2]) none[`reverse/learned_random/${s}`] = R.ruossFloors(experiment()).train;
    const p = paper(withExperiment(experiment(only, none)), 'ruoss2023');
    expect(p.verdict).toBe('not tested here');
    expect(p.text).toContain('both within 10 points of the');
    // one row clearly above the floor: the pair counts again
    m.reverse.rope_random = [fl + 0.3, fl + 0.25, fl + 0.2];
    expect(R.ruossComparisons(experiment(m)).comparisons).toHaveLength(4);
  });

  test('a seed that did not learn is left out of the max; a row with none is not compared', () => {
    const fl = R.ruossFloors(experiment()).train;
    // seed 1 of duplicate/rope_random (the best, 0.9) stays at the floor at the training lengths: the max is 0.85
    const exp = experiment(SCORES, { 'duplicate/rope_random/1': fl + 0.05 });
    const row = R.ruossRow(exp, 'duplicate', 'rope_random');
    expect(row.learned).toBe(2);
    expect(row.max).toBe(0.9); // over every seed (the table)
    expect(row.learnedMax).toBe(0.85); // over the learned seeds (the rule)
    const none = {};
    for (const s of [0, 1, 2]) {
      none[`duplicate/learned/${s}`] = fl;
      none[`reverse/learned/${s}`] = fl + 0.09;
    }
    const c = R.ruossComparisons(experiment(SCORES, none));
    expect(c.comparisons).toHaveLength(2);
    expect(c.skipped).toEqual(['duplicate: learned did not learn (0 of 3 seeds)', 'reverse: learned did not learn (0 of 3 seeds)']);
    const all = {};
    for (const t of ['duplicate', 'reverse']) for (const e of ['rope', 'learned']) for (const s of [0, 1, 2]) all[`${t}/${e}/${s}`] = fl;
    expect(paper(withExperiment(experiment(SCORES, all)), 'ruoss2023').verdict).toBe('not tested here');
  });

  test('without the experiment the row keeps its rule on results.json', () => {
    const r = v2Fixture(['none', 'rope', 'rope_random', 'learned_random']);
    const p = paper(r, 'ruoss2023');
    expect(p.text).toContain('kept at 4×');
    expect(p.differences).toContain('a causal decoder over 8 symbols');
    expect(ruossSection(r)).toEqual([]);
  });
});

describe('the results.md section', () => {
  test('one table row per task and encoding with per-seed, mean and max, and the comparisons', () => {
    const md = render(withExperiment(experiment()));
    expect(md).toContain('## Ruoss et al. 2023 in its own setup (randomized positions)');
    expect(md).toContain('| duplicate | rope_random | 80%, 90%, 85% | 85% | 90% | 99% | 3 of 3 |');
    expect(md).toContain('| reverse | none | 50%, 51%, 50% | 50% | 51% | 99% | 3 of 3 |');
    expect(md).toContain('- reverse: rope_random against rope, over the seeds that learned: max 95% against 62% (+33 points), mean 93% against 61% (+32).');
    expect(md).toContain('The rule (more than 10 points) says this agrees with the paper\'s claim in this setup.');
    expect(md).toContain('- Averaged over the 4 comparisons, the randomized encodings gain');
    const f = Math.round(100 * R.ruossFloors(experiment()).test);
    expect(md).toContain(`- At the test lengths the majority floor is ${f}%; the best test score of any run is 95% (+${95 - f} points).`);
  });
});
