// What results.json (v1 or v2, see cpp/tools/train_main.cpp) lets us say, and the sentences that say it.
// One place for the verdict rules, read by scripts/results-md.js (docs/results.md), web/figures (the
// figures) and the page (web/app/shared/claims.js, story/retrieval.js), so every word about a measured
// result is computed from the numbers. Pure functions: no DOM, no fetch.

// The rules, stated once (docs/results.md prints them from here).
export const RULES = Object.freeze({
  // kept = (score at L - floor) / (score at 1x - floor): the share of the above-floor skill that survives at L.
  good: 0.8, moderate: 0.5, limited: 0.2, // kept >= good: "good", >= moderate: "moderate", >= limited: "limited", else "none"
  verdictAt: 4, // the verdict is read at 4x the training length
  learnedShare: 0.8, // v1 (no tasks[].target): learned = closed >= 80% of the gap from the floor to the oracle at 1x
  disagree: 0.15, // seeds disagree when their values span more than 15 points, or when some learned and some did not
  gradient: 0.1, // a depth effect is a difference of more than 10 points between depths
  paperMargin: 0.1, // literature rules: "more than" means by more than 10 points (or 10% in perplexity)
  nearLine: 0.1, // a verdict within 10 points of a level's threshold "sits near the line": it needs more seeds
  floorMargin: 0.1, // a seed gets a verdict only when its 1x score beats the floor by more than 10 points (loss: 10% of the floor's)
});
export const LEVELS = ['none', 'limited', 'moderate', 'good'];
export const MULTIPLES = [1, 2, 4, 8];

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs) => (xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)));
export const pct = (x) => `${Math.round(100 * x) || 0}`; // "-0" -> "0"
/** A floor or chance level in %, to one decimal where it has one (12.5). */
export const pct1 = (x) => `${Number((100 * x).toFixed(1))}`;
const f2 = (x) => x.toFixed(2);
const times = (m) => `${m}×`;

/** The id of a row: one encoding in one setting (v2: variant; scaling applied at evaluation). */
export const rowKey = (r) => `${r.encoding}|${r.variant ?? ''}|${r.scaling ?? 'none'}`;
/** A row's name in tables and sentences: the encoding, its variant in brackets, "+ scaling" when one is applied. */
export function rowName(r) {
  let s = r.encoding;
  if (r.variant) s += ` [${r.variant}]`;
  if (r.scaling && r.scaling !== 'none') s += ` + ${r.scaling}`;
  if (r.finetune) s += ` (fine-tuned at ${r.finetune.length})`;
  return s;
}

/** The tasks of a results file, in its order. */
export const tasksOf = (results) => results.config?.tasks ?? Object.keys(results.tasks ?? {});

// v1 results carry no `tasks`: the chance level is 1 / the number of answer symbols, from config.taskOptions.
// retrieval answers with a value; keys take the first ceil(symbols / 2) symbols (cpp/src/tasks.cpp).
function v1AnswerSymbols(task, o) {
  if (!o?.symbols) return null;
  return task === 'retrieval' ? o.symbols - Math.ceil(o.symbols / 2) : o.symbols;
}

const lengthOf = (r, L) => r.lengths?.find((l) => l.length === L);

/**
 * Chance, floors, oracle, target and metric of a task. v2: results.tasks[task]. v1: chance from
 * config.taskOptions, the oracle from the per-length oracle columns, floors marked unavailable.
 */
export function taskInfo(results, task) {
  const T = results.config.trainLength;
  const runs = results.runs.filter((r) => r.task === task);
  const oracleAt = (L, field) => {
    const xs = runs.map((r) => lengthOf(r, L)?.[field]).filter((x) => x != null);
    return xs.length ? mean(xs) : null;
  };
  const t = results.tasks?.[task];
  if (t) {
    const floors = Array.isArray(t.floors) ? t.floors : [];
    return { ...t, floors, floorsAvailable: floors.length > 0, source: 'tasks', oracleAt };
  }
  const n = v1AnswerSymbols(task, results.config.taskOptions?.[task]);
  const oAcc = oracleAt(T, 'oracleAccuracy') ?? 1, oLoss = oracleAt(T, 'oracleLoss') ?? 0;
  return {
    role: null, needsPosition: null, what: null, cannot: null,
    metric: oAcc < 0.999 ? 'loss' : 'accuracy', // random targets (the oracle cannot be sure): loss is the measure
    chance: n ? { accuracy: 1 / n, loss: Math.log(n) } : { accuracy: 0, loss: Infinity },
    floors: [], floorsAvailable: false, oracle: { accuracy: oAcc, loss: oLoss }, target: null,
    source: 'config', oracleAt,
  };
}

/**
 * A floor's value at length L: its byLength entry there (a floor that depends on the length, e.g. the bag-of-tokens
 * floor of copy and reverse), else its single value. Without L, only the floors that do not depend on the length.
 */
function floorAt(f, L) {
  if (!f.byLength) return f;
  const at = L == null ? null : f.byLength.find((x) => x.length === L);
  return at ? { ...f, accuracy: at.accuracy, loss: at.loss } : null;
}

/**
 * The floor a score at length L must beat: the best of chance and the task's floors at L (highest accuracy, lowest
 * loss). Without L: the best of the floors that do not depend on the length.
 */
export function floorOf(info, L) {
  const all = [{ name: 'uniform', ...info.chance }, ...info.floors.map((f) => floorAt(f, L)).filter(Boolean)];
  const acc = all.reduce((b, f) => (f.accuracy > b.accuracy ? f : b));
  const loss = all.reduce((b, f) => (f.loss < b.loss ? f : b));
  return { accuracy: acc.accuracy, accuracyName: acc.name, loss: loss.loss, lossName: loss.name };
}

/**
 * floorOf at L; where L was not measured (a length the page evaluates live), the floor at the nearest measured
 * length at or below L (a length-dependent floor falls as the input grows, so this one is the stricter), with
 * `measuredAt` that length. Below every measured length, the shortest one's.
 */
export function floorNear(info, L) {
  const lengths = [...new Set(info.floors.flatMap((f) => f.byLength?.map((x) => x.length) ?? []))].sort((a, b) => a - b);
  if (!lengths.length || L == null || lengths.includes(L)) return floorOf(info, L);
  const M = lengths.filter((x) => x <= L).at(-1) ?? lengths[0];
  return { ...floorOf(info, M), measuredAt: M };
}

/** Did this run learn its task at 1x? v2: run.learned. v1: closed RULES.learnedShare of the floor-to-oracle gap. */
export function learnedRun(results, r, info = taskInfo(results, r.task)) {
  if (r.finetune) return learnedFinetuned(results, r, info);
  if (typeof r.learned === 'boolean') return r.learned;
  const T = results.config.trainLength, at = lengthOf(r, T);
  if (!at) return false;
  const fl = floorOf(info, T);
  if (info.target != null) {
    return info.metric === 'loss' ? at.loss <= (info.target.loss ?? info.target) : at.accuracy >= (info.target.accuracy ?? info.target);
  }
  if (info.metric === 'loss') {
    const oracle = at.oracleLoss ?? info.oracle.loss;
    return fl.loss - at.loss >= RULES.learnedShare * (fl.loss - oracle);
  }
  const oracle = at.oracleAccuracy ?? info.oracle.accuracy;
  return at.accuracy - fl.accuracy >= RULES.learnedShare * (oracle - fl.accuracy);
}

/**
 * A fine-tuned run's own "learned" (not its pretrained model's): at its fine-tune length, the length it was trained
 * at last, it beats the floor there by more than RULES.floorMargin (loss: its gain over the floor's loss is more than
 * RULES.floorMargin of that loss). A fine-tune that fails this is no model of the task at that length.
 */
export function learnedFinetuned(results, r, info = taskInfo(results, r.task)) {
  const L = r.finetune.length, at = lengthOf(r, L);
  if (!at) return false;
  const fl = floorOf(info, L);
  return info.metric === 'loss' ? fl.loss - at.loss > RULES.floorMargin * Math.abs(fl.loss) : at.accuracy - fl.accuracy > RULES.floorMargin;
}

/**
 * The run whose 1x score a row is measured against: itself, or for a fine-tuned row (evaluated with its fixed
 * factor at every length) the untransformed model it was fine-tuned from (same task, encoding and seed).
 */
export function referenceRun(results, r) {
  if (!r.finetune) return r;
  return results.runs.find((x) => x.task === r.task && x.encoding === r.encoding && x.seed === r.seed && !x.finetune &&
    (x.scaling ?? 'none') === 'none' && !x.variant) ?? r;
}

/**
 * Share of the above-floor skill at 1x kept at length L (metric of the task), or null when a length is missing
 * or the 1x score is not above the floor (a floor that reaches the oracle, e.g. the content floor of a control).
 */
export function keptRun(results, r, L, info = taskInfo(results, r.task)) {
  const T = results.config.trainLength, a = lengthOf(referenceRun(results, r), T), b = lengthOf(r, L);
  if (!a || !b) return null;
  const f1 = floorOf(info, T), fL = floorOf(info, L);
  const gain = info.metric === 'loss' ? f1.loss - a.loss : a.accuracy - f1.accuracy;
  if (!(gain > RULES.floorMargin * (info.metric === 'loss' ? Math.abs(f1.loss) : 1))) return null;
  return (info.metric === 'loss' ? fL.loss - b.loss : b.accuracy - fL.accuracy) / gain;
}

/**
 * A floor in plain words, by what the guess does (results.json tasks[].floors[].name, 'uniform' for chance): the
 * sentences a reader meets never name a floor by its id ("bag floor"). "27% for always guessing the most common token".
 */
export const GUESS_WORDS = Object.freeze({
  uniform: 'a random guess', bag: 'always guessing the most common token', content: 'matching content alone',
  unigram: 'guessing by how often each token occurs', bigram: 'guessing from the token before',
  induction: 'matching the last few tokens by content, with no positions',
});
export const guessWords = (name) => GUESS_WORDS[name] ?? `the ${name} guess`;

/**
 * A floor in words at 1x and at the verdict's length: "what always guessing the most common token scores (26.7% at
 * 1×, 19.1% at 4×)", or one value when flat.
 */
export function floorText(results, info, L = RULES.verdictAt * results.config.trainLength) {
  const T = results.config.trainLength, a = floorOf(info, T), b = floorOf(info, L), loss = info.metric === 'loss';
  const v = (f) => (loss ? `${f2(f.loss)} nats` : `${pct1(f.accuracy)}%`);
  const name = loss ? a.lossName : a.accuracyName, nameL = loss ? b.lossName : b.accuracyName;
  if (v(a) === v(b) && name === nameL) return `what ${guessWords(name)} scores (${v(a)})`;
  return `${name === nameL ? `what ${guessWords(name)} scores` : 'what the best simple guess scores'} (${v(a)} at 1×, ${v(b)} at ${times(L / T)})`;
}

export function levelOf(kept) {
  return kept >= RULES.good ? 'good' : kept >= RULES.moderate ? 'moderate' : kept >= RULES.limited ? 'limited' : 'none';
}

const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y), m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};
/**
 * The training runs (one per task, encoding, variant and seed: the rows with no scaling and no fine-tune) and their
 * early stops: {runs, stopped (stepsToTarget set), median steps, medianStopped}.
 */
export function trainingStops(results) {
  const runs = results.runs.filter((r) => (r.scaling ?? 'none') === 'none' && !r.finetune && r.steps != null);
  const stopped = runs.filter((r) => r.stepsToTarget != null);
  return { runs: runs.length, stopped: stopped.length, median: runs.length ? median(runs.map((r) => r.steps)) : null,
    medianStopped: stopped.length ? median(stopped.map((r) => r.steps)) : null };
}

/** The rows (encoding, variant, scaling) of a task, in the order the runs list them; filter by scaling. */
export function rowsOf(results, task, { scaled = false } = {}) {
  const rows = new Map();
  for (const r of results.runs) {
    if (r.task !== task || (r.scaling !== 'none') !== scaled) continue;
    const k = rowKey(r);
    if (!rows.has(k)) rows.set(k, { key: k, task, encoding: r.encoding, variant: r.variant ?? '', scaling: r.scaling, finetune: r.finetune ?? null, runs: [] });
    rows.get(k).runs.push(r);
  }
  return [...rows.values()].map((row) => ({ ...row, name: rowName(row) }));
}

/** Per-seed values of a row at length L (field 'accuracy' or 'loss'), and whether the seeds disagree. */
export function seedValues(results, row, L, field, info = taskInfo(results, row.task)) {
  const seeds = row.runs.map((r) => ({ seed: r.seed, value: lengthOf(r, L)?.[field], learned: learnedRun(results, r, info) }))
    .filter((s) => s.value != null);
  if (!seeds.length) return null;
  const xs = seeds.map((s) => s.value);
  const spread = Math.max(...xs) - Math.min(...xs);
  const split = new Set(seeds.map((s) => s.learned)).size > 1;
  const range = field === 'loss' ? spread / Math.max(1e-9, Math.abs(floorOf(info, L).loss)) : spread; // loss: relative to the floor
  return { seeds, mean: mean(xs), sd: sd(xs), disagree: split || range > RULES.disagree, split };
}

/**
 * The verdict of a row: per seed (no verdict for a seed that did not learn at 1x), then over the learned
 * seeds (level of their mean kept share). `plain` is the old rule for comparison: mean accuracy at 4x over
 * mean accuracy at 1x, no floor, "learned" when the 1x mean reaches half the oracle.
 */
export function verdict(results, row, info = taskInfo(results, row.task)) {
  const T = results.config.trainLength, L = RULES.verdictAt * T;
  const perSeed = row.runs.map((r) => {
    const learned = learnedRun(results, r, info), kept = keptRun(results, r, L, info);
    return { seed: r.seed, learned, kept, level: learned && kept != null ? levelOf(kept) : null };
  });
  const ok = perSeed.filter((s) => s.learned && s.kept != null);
  const kept = ok.length ? mean(ok.map((s) => s.kept)) : null;
  const level = kept == null ? null : levelOf(kept);
  const split = ok.length > 0 && (ok.length < perSeed.length || new Set(ok.map((s) => s.level)).size > 1);
  const learnedSeeds = perSeed.filter((s) => s.learned).length;
  // learned, yet no seed scores above the floor at 1x: the floor (e.g. content alone) already solves the task
  const floorSolves = learnedSeeds > 0 && !ok.length;
  // for information where the floor solves the task: the share kept above chance alone
  const chanceInfo = { ...info, floors: [] };
  const aboveChance = floorSolves ? meanKept(results, row, L, chanceInfo) : null;
  return { task: row.task, trainLength: T, info, row, perSeed, learnedSeeds, floorSolves, aboveChance, seeds: perSeed.length, kept, level, split, plain: plainVerdict(results, row, info) };
}

function plainVerdict(results, row, info) {
  const T = results.config.trainLength;
  const at = (L) => {
    const xs = row.runs.map((r) => lengthOf(r, L)?.accuracy).filter((x) => x != null);
    return xs.length ? mean(xs) : null;
  };
  const a1 = at(T), a4 = at(RULES.verdictAt * T);
  const oracle = info.oracleAt(T, 'oracleAccuracy') ?? 1;
  if (a1 == null || a4 == null || a1 < 0.5 * oracle) return { level: null, kept: null };
  const kept = a4 / a1;
  return { level: levelOf(kept), kept };
}

/** Mean kept share at L over a row's learned seeds (those with a kept share), or null. */
export function meanKept(results, row, L, info = taskInfo(results, row.task)) {
  const ks = row.runs.filter((r) => learnedRun(results, r, info)).map((r) => keptRun(results, r, L, info)).filter((k) => k != null);
  return ks.length ? mean(ks) : null;
}

/** Every (task, row) verdict of the untransformed models (scaling none), in table order. */
export function allVerdicts(results) {
  return tasksOf(results).flatMap((task) => {
    const info = taskInfo(results, task);
    return rowsOf(results, task).map((row) => ({ task, info, ...verdict(results, row, info) }));
  });
}

/** "reaches" / "comes within 10 points of": how close the 1x floor is to the 1x score of a row it solves. */
const reachText = () => `reaches or comes within ${pct(RULES.floorMargin)} points of`;

function changeReason(results, v) {
  const fl = floorOf(v.info, results.config.trainLength);
  if (v.floorSolves) return `${guessWords(fl.accuracyName)} scores ${pct1(fl.accuracy)}% at 1×: it ${reachText()} the 1× score`;
  if (!v.learnedSeeds) return `learned on 0 of ${v.seeds} seeds`;
  const floor = v.info.metric === 'loss' ? `gain over ${floorText(results, v.info)}` : `accuracy above ${floorText(results, v.info)}`;
  return `${floor}${v.learnedSeeds < v.seeds ? `, over the ${v.learnedSeeds} of ${v.seeds} seeds that learned` : ''}`;
}

/** Verdicts whose level differs between the old plain rule and the floor-corrected one. */
export function changedVerdicts(results) {
  return allVerdicts(results).filter((v) => v.plain.level !== v.level).map((v) => ({
    task: v.task, row: v.row.name, old: v.plain.level ?? 'no verdict', oldKept: v.plain.kept,
    now: v.level ?? (v.floorSolves ? 'no verdict (floor within reach of 1×)' : v.learnedSeeds ? 'no verdict' : 'did not learn'), kept: v.kept,
    why: changeReason(results, v),
  }));
}

/**
 * Verdicts that the length-dependent floors change (the bag-of-tokens floor of copy and reverse): the same rule
 * with only the floors that do not depend on the length, against the rule with every floor at each length.
 */
export function lengthFloorChanges(results) {
  return tasksOf(results).flatMap((task) => {
    const info = taskInfo(results, task);
    if (!info.floors.some((f) => f.byLength)) return [];
    const flat = { ...info, floors: info.floors.filter((f) => !f.byLength) };
    return rowsOf(results, task).map((row) => ({ task, row: row.name, now: verdict(results, row, info), old: verdict(results, row, flat) }))
      .filter((x) => x.now.level !== x.old.level || (x.now.kept == null) !== (x.old.kept == null));
  });
}

/**
 * The rows whose verdict sits near a rule's line and so needs more seeds (issue 28: 5 or more): the mean kept share
 * within RULES.nearLine of a level's threshold, seeds in different levels or some not learned, or a verdict that rests on one learned
 * seed. [{task, row, encoding, variant, seeds, why}] in table order.
 */
export function nearTheLine(results) {
  const lines = [['limited', RULES.limited], ['moderate', RULES.moderate], ['good', RULES.good]];
  return allVerdicts(results).filter((v) => !v.row.finetune).flatMap((v) => { // (a fine-tuned row's seeds are its trained model's)
    const why = [];
    if (v.learnedSeeds === 1) why.push(`the verdict rests on 1 learned seed of ${v.seeds}`);
    if (v.kept != null) {
      const near = lines.filter(([, x]) => Math.abs(v.kept - x) < RULES.nearLine);
      if (near.length) why.push(`kept ${pct(v.kept)}% is within ${pct(RULES.nearLine)} points of the “${near[0][0]}” line (${pct(near[0][1])}%)`);
    }
    if (v.split && v.learnedSeeds > 1) why.push(`its seeds disagree (${perSeedText(v)})`);
    return why.length ? [{ task: v.task, row: v.row.name, encoding: v.row.encoding, variant: v.row.variant, seeds: v.seeds, why, ci: keptInterval(v) }] : [];
  });
}

// Two-sided 95% quantiles of Student's t for 1 .. 10 degrees of freedom (a table of the distribution).
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
/** The two-sided 95% quantile of Student's t with `df` degrees of freedom (1 .. 10), or null outside the table. */
export const t95 = (df) => T95[df - 1] ?? null;
/** A 95% confidence interval of a verdict's mean kept share over its learned seeds (t interval), or null under 2 seeds. */
export function keptInterval(v) {
  const ks = v.perSeed.filter((p) => p.learned && p.kept != null).map((p) => p.kept);
  if (ks.length < 2 || ks.length > T95.length + 1) return null;
  const h = T95[ks.length - 2] * sd(ks) / Math.sqrt(ks.length);
  return { low: mean(ks) - h, high: mean(ks) + h, seeds: ks.length };
}

export function verdictLabel(v) {
  if (!v.learnedSeeds) return 'did not learn at 1×';
  if (v.floorSolves) return `no verdict: ${guessWords(floorOf(v.info, v.trainLength).accuracyName)} ${reachText()} the 1× score${v.aboveChance == null ? '' : ` (above chance it keeps ${pct(v.aboveChance)}%)`}`;
  const tail = v.learnedSeeds < v.seeds ? ` (${v.learnedSeeds} of ${v.seeds} seeds learned)` : '';
  return `${v.level}${tail}`;
}

/** Per-seed kept shares, as "seed 0: 12%, seed 1: did not learn, …". */
export const perSeedText = (v) => v.perSeed.map((s) => `seed ${s.seed}: ${!s.learned ? 'did not learn' : s.kept == null ? 'no share (its 1× score is too near the guess)' : s.kept < 0 ? 'none (below the guess)' : `${pct(s.kept)}%`}`).join(', ');

/** One sentence about a row's verdict on a task (for the page's rows and the docs). */
export function verdictSentence(results, v, nameOf = (row) => row.name, taskName = (t) => t) {
  const name = nameOf(v.row), task = taskName(v.task);
  const T = results.config.trainLength, m = RULES.verdictAt;
  const fl = floorOf(v.info, T), measure = v.info.metric === 'loss' ? `its gain in loss over ${floorText(results, v.info)}`
    : `its accuracy above ${floorText(results, v.info)}`;
  if (!v.learnedSeeds) {
    const accs = v.perSeed.map((s) => f2(lengthOf(v.row.runs.find((r) => r.seed === s.seed), T)?.accuracy ?? NaN));
    return `${name} did not learn ${task} at the training length T = ${T} on any of ${v.seeds} seeds (accuracy on new sequences ${accs.join(', ')}): no verdict.`;
  }
  if (v.floorSolves) {
    return `${name} on ${task}: no verdict, because ${guessWords(v.info.metric === 'loss' ? fl.lossName : fl.accuracyName)} ` +
      `(${v.info.metric === 'loss' ? `${f2(fl.loss)} nats` : `${pct1(fl.accuracy)}%`} at 1×) ${reachText()} its 1× score: there is no position skill to keep${v.aboveChance == null ? '' : ` (above chance alone it keeps ${pct(v.aboveChance)}% at ${times(m)})`}.`;
  }
  // a share below 0 is no share: the model scores below the guess, and keeps none of what it had above it
  let s = v.kept < 0
    ? `${name} on ${task}: at ${times(m)} the training length (${m * T} tokens) it scores ${v.info.metric === 'loss' ? 'worse than' : 'below'} ${floorText(results, v.info)}, ` +
      `so it keeps none of its ${v.info.metric === 'loss' ? 'gain in loss' : 'accuracy'} over that guess: “${v.level}”`
    : `${name} on ${task}: at ${times(m)} the training length (${m * T} tokens) it keeps ${pct(v.kept)}% of ${measure}: “${v.level}”`;
  if (v.learnedSeeds < v.seeds) s += `; it learned the task on only ${v.learnedSeeds} of ${v.seeds} seeds, and the others get no verdict`;
  if (v.split) s += ` (${perSeedText(v)})`;
  return `${s}.`;
}

// ---------------------------------------------------------------- lost in the middle

/** Seed-averaged depth x length grids per row of a task (scaling none). */
export function gridsOf(results, task) {
  const info = taskInfo(results, task);
  return rowsOf(results, task).map((row) => {
    const all = row.runs.filter((r) => r.grid), learned = all.filter((r) => learnedRun(results, r, info));
    if (!all.length) return null;
    // the seeds that learned the task (a model that did not learn has no gradient to report); all if none did
    const gs = (learned.length ? learned : all).map((r) => r.grid);
    const { depths, lengths } = gs[0];
    const accuracy = depths.map((_, d) => lengths.map((_, l) => mean(gs.map((g) => g.accuracy[d][l]))));
    return { row, depths, lengths, accuracy, seeds: all.length, learnedSeeds: learned.length };
  }).filter(Boolean);
}

/** The task whose grid the "lost in the middle" claims rest on: a main task with grids that needs position. */
export function gridTasks(results) {
  const withGrids = tasksOf(results).filter((t) => results.runs.some((r) => r.task === t && r.grid));
  const role = (t) => taskInfo(results, t).role;
  const main = withGrids.filter((t) => role(t) !== 'control' && taskInfo(results, t).needsPosition !== false);
  const control = withGrids.filter((t) => !main.includes(t));
  // v1: no roles. A grid task whose NoPE row keeps its accuracy at the longest length is solved by content alone.
  const contentOnly = (t) => {
    const none = gridsOf(results, t).find((g) => g.row.encoding === 'none');
    return none ? Math.min(...none.accuracy.map((row) => row.at(-1))) >= RULES.good : false;
  };
  if (!results.tasks) return { main: withGrids.filter((t) => !contentOnly(t)), control: withGrids.filter(contentOnly) };
  return { main, control };
}

/**
 * The depth effect of one grid at each length >= T: accuracy with the needle far from the question (depth 0,
 * the start; the question is at the end) and near it (the last depth), the lowest middle depth, and a shape:
 * "recency" (near beats far), "primacy" (far beats near), "lost in the middle" (the middle is below both ends),
 * "no depth effect" (every depth within RULES.gradient), or "uneven".
 */
export function depthEffect(g, T) {
  return g.lengths.map((L, li) => ({ L, li })).filter(({ L }) => L >= T).map(({ L, li }) => {
    const col = g.accuracy.map((row) => row[li]);
    const far = col[0], near = col.at(-1), inner = col.slice(1, -1);
    const mid = inner.length ? Math.min(...inner) : Math.min(far, near);
    const span = Math.max(...col) - Math.min(...col), e = RULES.gradient;
    const shape = mid < Math.min(far, near) - e ? 'lost in the middle' : near - far > e ? 'recency' : far - near > e ? 'primacy'
      : span <= e ? 'no depth effect' : 'uneven';
    return { length: L, multiple: L / T, far, near, mid, shape };
  });
}

/** A depth effect's shape in plain words (the shapes are the literature's names: primacy, recency, lost in the middle). */
export const SHAPE_WORDS = Object.freeze({
  recency: 'best with the needle near the question', primacy: 'best with the needle far from the question',
  'lost in the middle': 'worst with the needle in the middle (“lost in the middle”)', 'no depth effect': 'the same at every depth', uneven: 'uneven across depths',
});

/** The plain-words depth effect of a grid: at the longest length, and at how many lengths each shape shows. */
export function gradientSentence(g, T, nameOf = (row) => row.name) {
  const eff = depthEffect(g, T), name = nameOf(g.row);
  if (!eff.length) return `${name}: no length at or above T = ${T} in the grid.`;
  if (g.learnedSeeds === 0) return `${name} did not learn the task at 1× on any seed: no depth effect to report.`;
  const last = eff.at(-1), x = Number.isInteger(last.multiple) ? times(last.multiple) : `${last.multiple.toFixed(1)}×`;
  const at = `at ${x} (T = ${last.length})`;
  let s = last.shape === 'no depth effect'
    ? `${name}: ${at} accuracy stays within ${pct(RULES.gradient)} points at every depth (${pct(last.far)}% with the needle far from the question, ${pct(last.near)}% with it near)`
    : `${name}: ${at} accuracy is ${pct(last.far)}% with the needle far from the question (depth ${g.depths[0]}) and ${pct(last.near)}% with it near (depth ${g.depths.at(-1)})` +
      `${last.shape === 'lost in the middle' ? `, and ${pct(last.mid)}% in the middle` : ''}: ${SHAPE_WORDS[last.shape]}`;
  const counts = {};
  for (const e of eff) counts[e.shape] = (counts[e.shape] ?? 0) + 1;
  const parts = Object.entries(counts).map(([k, n]) => `${SHAPE_WORDS[k]} at ${n}`);
  const seeds = g.learnedSeeds != null && g.learnedSeeds < g.seeds ? ` (the ${g.learnedSeeds} of ${g.seeds} seeds that learned)` : '';
  return `${s}; of the ${eff.length} lengths from 1× to ${times(eff.at(-1).multiple)}, it is ${parts.join(', ')}${seeds}.`;
}

// ---------------------------------------------------------------- the page's words

/**
 * The page's one-sentence summary of a task's verdicts (best and worst kept, rows that did not learn), over the
 * rows `only` keeps (the page: the encodings of its sweep, no variants), the task named by `taskName`.
 */
export function summarySentence(results, task, nameOf = (row) => row.name, { taskName = task, only = () => true } = {}) {
  const info = taskInfo(results, task), T = results.config.trainLength, m = RULES.verdictAt;
  const vs = rowsOf(results, task).filter(only).map((row) => verdict(results, row, info));
  if (!vs.length) return '';
  const ok = vs.filter((v) => v.kept != null).sort((a, b) => b.kept - a.kept);
  const lo = Math.min(...vs.map((v) => v.seeds)), hi = Math.max(...vs.map((v) => v.seeds));
  const seeds = lo === hi ? `${hi} seed${hi > 1 ? 's' : ''}` : `${lo}–${hi} seeds per row`; // rows near a rule's line have more
  let s = `Measured offline (${taskName}, trained at T = ${T}, ${seeds}; the share of each model's ` +
    `${info.metric === 'loss' ? 'gain in loss over' : 'accuracy above'} the best simple guess that it keeps at ${times(m)})`;
  // (a share below 0 is none: the row scores below the guess)
  const share = (k) => (k < 0 ? 'none: it scores below the guess' : `${pct(k)}%`);
  if (ok.length) s += `: ${nameOf(ok[0].row)} keeps the most (${share(ok[0].kept)}, “${ok[0].level}”) and ${nameOf(ok.at(-1).row)} the least (${share(ok.at(-1).kept)}, “${ok.at(-1).level}”)`;
  const not = vs.filter((v) => v.learnedSeeds < v.seeds);
  if (not.length) s += `; ${not.map((v) => `${nameOf(v.row)} learned on ${v.learnedSeeds} of ${v.seeds} seeds`).join(', ')}`;
  return `${s}.`;
}

/** The words of one sweep row (an encoding) for a task: its verdict sentence, or why there is none. */
export function rowSentence(results, task, encoding, nameOf = (row) => row.name, taskName = (t) => t) {
  const row = rowsOf(results, task).find((r) => r.encoding === encoding && !r.variant);
  if (!row) return `No offline measurement of ${nameOf({ encoding, name: encoding })} on ${taskName(task)}.`;
  return `Measured offline: ${verdictSentence(results, verdict(results, row), nameOf, taskName)}`;
}
