// Kazemnejad et al. 2023's copy tasks at their smallest model size (results.experiments.kazemnejad, written by
// posenc_kazemnejad): each task × encoding over its seeds, the paper's own small-model rows beside them, and the
// rule that compares the two. Pure functions: no DOM, no fetch. Read by the literature row (literature.js) and
// the results.md section (scripts/results-md-kazemnejad.js).
import { combine } from './verdict-stats.js';

export const KZ_TASKS = ['cmc', 'rsc', 'rdc'];
/** The encodings their csv has small-model rows for (NoPE, T5's relative bias, sinusoidal APE): the ones compared. */
export const KZ_COMPARED = ['none', 't5', 'sinusoidal'];
export const KZ_TASK_WORDS = {
  cmc: 'copy a string of symbols',
  rsc: 'repeat one symbol as often as given',
  rdc: 'replace one symbol by another, as often as given',
};

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const max = (xs) => (xs.length ? Math.max(...xs) : null);
/** Sample standard deviation (0 for a single value), as their seeds' spread. */
const std = (xs) => {
  if (xs.length < 2) return xs.length ? 0 : null;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

/** The experiment, or null when results.json has none. */
export const kzExperiment = (results) => results?.experiments?.kazemnejad ?? null;

/**
 * One task × encoding over its seeds: per-seed test exact match; mean and max over all seeds and over the learned
 * ones; mean training-length exact match and test per-token accuracy; mean exact match per test length.
 */
export function kzRow(exp, task, encoding) {
  const runs = exp.runs.filter((r) => r.task === task && r.encoding === encoding).sort((a, b) => a.seed - b.seed);
  if (!runs.length) return null;
  const learned = runs.filter((r) => r.learned), exact = runs.map((r) => r.test.exact);
  const lengths = runs[0].test.lengths.map((l, i) => ({ length: l.length, exact: mean(runs.map((r) => r.test.lengths[i].exact)) }));
  return {
    task, encoding, seeds: runs.length, learned: learned.length, perSeed: exact,
    mean: mean(exact), max: max(exact),
    learnedMean: mean(learned.map((r) => r.test.exact)), learnedMax: max(learned.map((r) => r.test.exact)),
    learnedStd: std(learned.map((r) => r.test.exact)),
    train: mean(runs.map((r) => r.train.exact)), token: mean(runs.map((r) => r.test.token)), lengths,
  };
}

/** Their row (size 'xsmall' or 'base') for a task and encoding, or null. */
export const kzPaperRow = (exp, task, encoding, size = 'xsmall') =>
  exp.paper.rows.find((r) => r.size === size && r.task === task && r.encoding === encoding) ?? null;

/**
 * Whether `encoding` is first beyond the seeds' spread among `scores` ({encoding: {mean, std}}): its mean minus one
 * standard deviation above every other encoding's mean plus one.
 */
const firstBeyondSpread = (scores, encoding) =>
  Object.entries(scores).every(([e, s]) => e === encoding || scores[encoding].mean - scores[encoding].std > s.mean + s.std);

/**
 * The rule, per task: is NoPE first beyond the seeds' spread (mean exact match at the test lengths minus one seed
 * standard deviation above every other encoding's mean plus one) among the encodings both sides ran (NoPE, T5 bias,
 * sinusoidal), in their small rows (their csv's mean and seed std) and in ours (learned seeds only)? A task
 * is compared when our NoPE and at least one other compared encoding learned on a seed; agrees when ours answers
 * as theirs on most compared tasks. rsc is NoPE's positive control: if NoPE learned rsc on no seed, nothing is
 * compared. {verdict, tasks: [{task, ours, theirs, agree} | {task, skipped}], control}.
 */
export function kzVerdict(exp, { stat = 'mean', informative = null } = {}) {
  const tasks = [];
  // a task is informative when some row of ours scores more than `informative` above the exact-match floor
  // (setup.floor, 0); null: every task counts (the rule before 2026-12-06)
  const floor = exp.setup?.floor ?? 0;
  const rsc = kzRow(exp, 'rsc', 'none');
  const control = rsc ? { learned: rsc.learned, seeds: rsc.seeds, train: rsc.train, test: rsc.mean } : null;
  for (const task of KZ_TASKS) {
    const encs = KZ_COMPARED.filter((e) => kzPaperRow(exp, task, e) && kzRow(exp, task, e));
    if (!encs.includes('none')) continue;
    const rows = Object.fromEntries(encs.map((e) => [e, kzRow(exp, task, e)]));
    const learned = encs.filter((e) => rows[e].learned > 0);
    if (!learned.includes('none') || learned.length < 2) {
      tasks.push({ task, skipped: learned.includes('none') ? 'no other encoding learned' : 'NoPE did not learn', rows });
      continue;
    }
    const learnedExact = (e) => exp.runs.filter((r) => r.task === task && r.encoding === e && r.learned).map((r) => r.test.exact);
    const ours = Object.fromEntries(learned.map((e) => [e, { mean: combine(learnedExact(e), stat, floor), std: rows[e].learnedStd }]));
    const best = Math.max(...encs.map((e) => combine(exp.runs.filter((r) => r.task === task && r.encoding === e).map((r) => r.test.exact), stat === 'max' ? 'max' : 'mean')));
    if (informative != null && !(best - floor > informative)) {
      tasks.push({ task, skipped: `not informative: every row of ours within ${Math.round(100 * informative)} points of the ${Math.round(100 * floor)}% exact-match floor (best ${(100 * best).toFixed(1)}%)`, rows, uninformative: true });
      continue;
    }
    const theirs = Object.fromEntries(learned.map((e) => {
      const p = kzPaperRow(exp, task, e);
      return [e, { mean: p.testExact, std: p.testExactStd }];
    }));
    const o = firstBeyondSpread(ours, 'none'), t = firstBeyondSpread(theirs, 'none');
    const ratio = theirs.none.mean > 0 ? ours.none.mean / theirs.none.mean : null; // the level of ours against theirs
    tasks.push({ task, ours, theirs, oursFirst: o, theirsFirst: t, agree: o === t, rows, ratio });
  }
  const compared = tasks.filter((t) => !t.skipped);
  let verdict;
  if (control && control.learned === 0) verdict = 'not tested here';
  else if (!compared.length) verdict = 'not tested here';
  else verdict = compared.filter((t) => t.agree).length > compared.length / 2 ? 'agrees' : 'does not agree';
  return { verdict, tasks, compared: compared.length, agreeing: compared.filter((t) => t.agree).length, control };
}
