// The Ruoss et al. 2023 replication (results.experiments.ruoss, written by posenc_ruoss): its floors, which seeds
// learned, the randomized-against-plain comparisons and the verdict. Read by the literature row (literature.js) and
// the results.md section (scripts/results-md-ruoss.js). Pure functions: no DOM, no fetch.
import { RULES, pct } from '../shared/results-words.js';
import { combine, diffInterval } from './verdict-stats.js';

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The best score without position on a binary blank-slot task at input length n: predict the input's majority
 * symbol at every output slot, E[max(k, n - k)] / n with k ~ Binomial(n, 1/2) (duplicate and reverse alike).
 */
export function majorityFloor(n) {
  let p = 0.5 ** n, sum = 0; // p = C(n, k) / 2^n, from k = 0
  for (let k = 0; k <= n; k++) {
    sum += p * Math.max(k, n - k);
    p = (p * (n - k)) / (k + 1);
  }
  return sum / n;
}

/** The floors the experiment's scores are read against: mean over the training lengths and over the test lengths. */
export function ruossFloors(exp) {
  const [lo, hi] = exp.config.trainLengths, train = [];
  for (let n = lo; n <= hi; n++) train.push(majorityFloor(n));
  return { train: mean(train), test: mean(exp.config.testLengths.map(majorityFloor)) };
}

/** A seed learned when its accuracy at the training lengths beats that floor by more than RULES.floorMargin. */
export const ruossLearned = (exp, run) => run.trainAccuracy > ruossFloors(exp).train + RULES.floorMargin;

// The pairs the paper's claim is about: each randomized encoding against its plain version at the same settings
// (posenc_ruoss trains rope and rope_random at one RoPE base). paper-set
const PAIRS = [['rope_random', 'rope'], ['learned_random', 'learned']];

/** One (task, encoding) row: per-seed test scores, mean and max over every seed and over the learned seeds. */
export function ruossRow(exp, task, encoding) {
  const runs = exp.runs.filter((r) => r.task === task && r.encoding === encoding).sort((a, b) => a.seed - b.seed);
  if (!runs.length) return null;
  const learned = runs.filter((r) => ruossLearned(exp, r)), test = runs.map((r) => r.testAccuracy);
  return {
    task, encoding, seeds: runs.length, perSeed: test, trainPerSeed: runs.map((r) => r.trainAccuracy),
    learned: learned.length, mean: mean(test), max: Math.max(...test),
    learnedMean: learned.length ? mean(learned.map((r) => r.testAccuracy)) : null,
    learnedMax: learned.length ? Math.max(...learned.map((r) => r.testAccuracy)) : null,
  };
}

/**
 * The comparisons and the verdict. For each task and pair with both rows learned on at least one seed, and one of
 * them above the floor at the test lengths by more than `floorMargin` (over their learned seeds' max): the gain
 * = randomized - plain under `stat` (verdict-stats.js: max over the learned seeds, as the paper reports the best
 * model; mean over every seed; the floor-clipped mean over every seed), and the mean over the learned seeds beside it.
 * agrees when the gain averaged over the comparisons exceeds `margin` (the paper: +12.0 points on average over its
 * 15 tasks). {comparisons, skipped, gain, meanGain, interval (of the mean statistic's gain), holds} (holds null when
 * nothing compares).
 */
export function ruossComparisons(exp, { stat = 'max', margin = RULES.paperMargin, floorMargin = RULES.floorMargin } = {}) {
  const comparisons = [], skipped = [], floor = ruossFloors(exp).test;
  for (const task of exp.config.tasks)
    for (const [rand, plain] of PAIRS) {
      const a = ruossRow(exp, task, rand), b = ruossRow(exp, task, plain);
      if (!a || !b) continue;
      if (a.learnedMax == null || b.learnedMax == null) {
        skipped.push(`${task}: ${a.learnedMax == null ? rand : plain} did not learn (0 of ${(a.learnedMax == null ? a : b).seeds} seeds)`);
        continue;
      }
      // as for Peng et al.'s rule: two rows that both stay at the floor past the training lengths say nothing about the claim
      if (Math.max(a.learnedMax, b.learnedMax) <= floor + floorMargin) {
        skipped.push(`${task}: ${rand} ${pct(a.learnedMax)}% and ${plain} ${pct(b.learnedMax)}% both within ${pct(floorMargin)} points of the ${pct(floor)}% floor at the test lengths`);
        continue;
      }
      const score = (row) => (stat === 'max' ? row.learnedMax : combine(row.perSeed, stat, floor));
      comparisons.push({ task, rand: a, plain: b, gain: score(a) - score(b), meanGain: a.learnedMean - b.learnedMean, floor });
    }
  if (!comparisons.length) return { comparisons, skipped, gain: null, meanGain: null, interval: null, holds: null };
  const gain = mean(comparisons.map((c) => c.gain)), meanGain = mean(comparisons.map((c) => c.meanGain));
  const interval = diffInterval(comparisons.map((c) => [c.rand.perSeed, c.plain.perSeed]));
  return { comparisons, skipped, gain, meanGain, interval, holds: gain > margin };
}
