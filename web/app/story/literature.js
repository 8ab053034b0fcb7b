// The literature side by side (docs/results.md): each paper's claim, the setup differences that remain between the
// paper and these tiny models, and a rule that tests what the paper claims, computed from results.json. A verdict
// says whether our numbers agree with the paper's claim at this scale ("agrees" / "does not agree"), or that the
// claim is "not tested faithfully here" (the rule's outcome is still given) or "not tested here" (a row it needs is
// missing); never a refutation of the paper's own results. The rules themselves (claim, comparison counted, statistic,
// thresholds, setting) are frozen in dated files (docs/rules/*.json); each verdict is also given under the version
// before, so the closing note can list the verdicts that changed. Pure functions: no DOM, no fetch.
import { kzExperiment, kzVerdict } from './kazemnejad.js';
import {
  RULES, pct, pct1, tasksOf, taskInfo, floorOf, rowsOf, verdict, meanKept, learnedRun, referenceRun, gridTasks, gridsOf, depthEffect,
} from '../shared/results-words.js';
import { rotarySpectrum, llmSpectrum, middleSpectrum, cellOf, aboveFloor as spectrumAbove, andList, runsOf, keptOf, accuracyOf, spectrumFloor } from '../rope/spectrum.js';
import { STATS, STAT_WORDS, combine, meanInterval, diffInterval, settingDifferences } from './verdict-stats.js';
import { ruossComparisons } from './literature-ruoss.js';

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f2 = (x) => x.toFixed(2);
const times = (m) => `${m}×`;
const lengthOf = (r, L) => r.lengths?.find((l) => l.length === L);
const cellAt = (row, L, field) => {
  const xs = row.runs.map((r) => lengthOf(r, L)?.[field]).filter((x) => x != null);
  return xs.length ? mean(xs) : null;
};
const findRow = (results, task, pred, opts) => rowsOf(results, task, opts).find(pred);
const lossTask = (results) => tasksOf(results).find((t) => taskInfo(results, t).metric === 'loss');
/** `row` restricted to the seeds `other` has. */
const onSeedsOf = (row, other) => ({ ...row, runs: row.runs.filter((r) => other.runs.some((o) => o.seed === r.seed)) });
const plainRow = (results, task, enc) => findRow(results, task, (r) => r.encoding === enc && !r.variant);

export const VERDICTS = ['agrees', 'does not agree', 'not tested faithfully here', 'not tested here', 'not measured'];
/** A rule's outcome on a paper that the setup does not test faithfully: the outcome, kept in brackets. */
const unfaithful = (holds) => `not tested faithfully here (under this rule it ${holds ? 'would agree' : 'would not agree'})`;
const outcome = (holds) => (holds ? 'agrees' : 'does not agree');

/**
 * Above-floor skill of a row at length L, averaged over its learned seeds: accuracy above the floor at L (points),
 * or for a loss task the loss gain over the floor at L relative to that floor; null without a learned seed.
 */
export function aboveFloor(results, row, L, info = taskInfo(results, row.task)) {
  const fl = floorOf(info, L), xs = row.runs.filter((r) => learnedRun(results, r, info)).map((r) => lengthOf(r, L)).filter(Boolean)
    .map((l) => (info.metric === 'loss' ? (fl.loss - l.loss) / Math.abs(fl.loss) : l.accuracy - fl.accuracy));
  return xs.length ? mean(xs) : null;
}

/** RoPE's base of a row: from a "base<N>" variant, else the encoding's setting (config.modelByEncoding), else the model's. */
export function ropeBaseOf(results, row) {
  const m = /^base(\d+(?:\.\d+)?)$/.exec(row.variant ?? '');
  if (m) return Number(m[1]);
  return results.config.modelByEncoding?.[row.encoding]?.ropeBase ?? results.config.model?.ropeBase ?? null;
}

/** The RoPE spectrum of the model: pairs, pairs that turn within T (period 2π base^(2i/d) < T), slowest period / T. */
export function ropeSpectrum(results, base = results.config.model?.ropeBase) {
  const { dModel, heads } = results.config.model ?? {}, T = results.config.trainLength;
  if (!dModel || !heads || !base) return null;
  return rotarySpectrum(dModel / heads, base, T);
}

// ---- The spectrum experiment (results.experiments.spectrum): Chen's and Peng's rules in an LLM-like rotary spectrum.
const SCALING_NAMES = { none: 'plain', linear: 'PI', ntk: 'NTK', yarn: 'YaRN' };
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** Kept share in % over the learned seeds, or "–" (no learned seed). */
const keptText = (c) => (c.kept == null ? '–' : `${pct(c.kept)}%`);
/** The bases whose seeds learned, and a note on those that did not. */
function learnedBases(exp) {
  const bases = exp.config.bases, T = exp.config.trainLength;
  const ok = bases.filter((b) => cellOf(exp, b, 'zeroShot', 'none', T).seeds > 0);
  const not = bases.filter((b) => !ok.includes(b));
  return { ok, note: not.length ? `; no verdict at base ${andList(not)} (no seed learned: 1× accuracy not above the floor by ${pct(RULES.floorMargin)} points)` : '' };
}
const spectrumSetting = (exp) => {
  const c = exp.config, mid = middleSpectrum(exp);
  return `head_dim ${c.model.headDim} (${mid.pairs} pairs) at T = ${c.trainLength}, bases ${andList(c.bases)}`;
};
/** What remains between an LLM paper and the spectrum experiment (scale, tokens, task). */
function spectrumDifferences(exp) {
  const c = exp.config, mid = middleSpectrum(exp), llama = llmSpectrum('Llama 2');
  const params = exp.runs[0]?.parameters;
  return `the spectrum experiment: ${c.model.layers} layers, d_model ${c.model.dModel}${params ? ` (about ${Math.round(params / 1000)}k parameters)` : ''}, ` +
    `${spectrumSetting(exp)} (at base ${mid.base}: ${mid.turning} of ${mid.pairs} pairs turn within T, slowest period ${mid.slowest.toFixed(1)} T, ${mid.fast} pairs with 32 or more turns; Llama 2: ${llama.turning} of ${llama.pairs}, ${llama.slowest.toFixed(1)} T, ${llama.fast}), ` +
    `copy over ${c.symbols} symbols scored per token instead of language modelling, ${plural(c.seeds.length, 'seed')}, fine-tuned ${c.finetune.steps} steps at ${c.finetune.length} ` +
    `(${(100 * c.finetune.share).toFixed(1)}% of the pretraining tokens)`;
}

/** Per-seed numbers of one spectrum row at L over the learned seeds of a base: kept shares and accuracies. */
function spectrumSeeds(exp, b, kind, scaling, L) {
  const runs = runsOf(exp, b).filter((r) => r.learned);
  return { kept: runs.map((r) => keptOf(exp, r, kind, scaling, L)).filter((x) => x != null),
    acc: runs.map((r) => accuracyOf(exp, r, kind, scaling, L)).filter((x) => x != null) };
}
const signed = (x) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}`;
const span = (iv) => (iv ? `; 95% interval ${signed(iv.low)} to ${signed(iv.high)}` : '');

/**
 * Chen in the spectrum, per base over the learned seeds, under `stat`: extension = PI fine-tuned keeps more than
 * `margin` more at the fine-tune length than the plain fine-tune (kept shares, clipped at 0: the floor); retention =
 * PI fine-tuned's 1x accuracy within `retention` of the pretrained model's; the control = the plain fine-tune beats the
 * floor at its own length by more than `floorMargin`. Form "chen-both-halves" counts a base when both halves hold;
 * "chen-extension" (the rule before 2026-12-06) the extension alone, with no control check.
 */
function chenSpectrum(exp, rule, stat) {
  const T = exp.config.trainLength, L = exp.config.finetune.length, { ok, note } = learnedBases(exp), th = rule.thresholds;
  const both = rule.form === 'chen-both-halves', parts = [], ivs = [];
  let wins = 0, broken = 0;
  for (const b of ok) {
    const pi = spectrumSeeds(exp, b, 'finetuned', 'linear', L), plain = spectrumSeeds(exp, b, 'finetuned', 'none', L);
    const pi1 = spectrumSeeds(exp, b, 'finetuned', 'linear', T), pre1 = spectrumSeeds(exp, b, 'zeroShot', 'none', T);
    const f1 = spectrumFloor(exp, T).accuracy, fL = spectrumFloor(exp, L).accuracy;
    const gain = combine(pi.kept, stat, 0) - combine(plain.kept, stat, 0), drop = combine(pre1.acc, stat, f1) - combine(pi1.acc, stat, f1);
    const control = combine(plain.acc, stat, fL) - fL > th.floorMargin;
    const ext = gain > th.margin, ret = drop <= th.retention;
    if (both ? ext && ret : ext) wins++;
    if (!control) broken++;
    ivs.push(diffInterval([[pi.kept, plain.kept]]));
    parts.push(`base ${b}: extension PI ${pct(combine(pi.kept, stat, 0))}% vs plain ${pct(combine(plain.kept, stat, 0))}% kept at ${L} (${signed(gain)}${span(diffInterval([[pi.kept, plain.kept]]))}; ${ext ? 'holds' : 'fails'})` +
      `${both ? `; retention at 1× ${pct(combine(pre1.acc, stat, f1))}% before → ${pct(combine(pi1.acc, stat, f1))}% after PI (${ret ? 'holds' : 'fails'}: ${drop <= 0 ? 'no drop' : `${pct(drop)} points lost`})` : ''}` +
      `; the plain fine-tune scores ${pct(combine(plain.acc, stat, fL))}% at its own length ${L} against a ${pct1(fL)}% floor (${control ? 'learned' : 'did not learn: no fair control'}); ${plural(pi.kept.length, 'learned seed')}`);
  }
  if (!ok.length) return { status: 'not tested here', text: `spectrum experiment: no base learned${note}` };
  const holds = wins > ok.length / 2;
  return { holds, unfaithful: both && broken > ok.length / 2 ? `the plain fine-tune did not learn at its own length at ${broken} of ${ok.length} bases, so the extension half has no fair control` : null,
    value: `${wins} of ${ok.length} bases`,
    text: `spectrum experiment (${spectrumSetting(exp)}): ${parts.join('; ')}; ${both ? 'both halves hold' : 'PI keeps more than 10 points more'} at ${wins} of ${ok.length} bases${note}` };
}

/**
 * Peng in the spectrum: form "peng-finetuned" counts, per base over the learned seeds, fine-tuned YaRN against fine-tuned
 * PI (kept share at the fine-tune length, under `stat`), and shows zero shot as its own line (not counted); form
 * "peng-majority" (the rule before 2026-12-06) pools the zero-shot pairs and the fine-tuned one into one majority.
 * A pair with both rows at or near the floor is left out.
 */
const PENG_PAIRS = { zeroShot: [['yarn', 'linear'], ['yarn', 'ntk'], ['ntk', 'linear']], finetuned: [['yarn', 'linear']] };
function pengPairs(exp, stat, margin, kinds) {
  const T = exp.config.trainLength, Lft = exp.config.finetune.length, { ok } = learnedBases(exp);
  const groups = ok.flatMap((b) => [
    ...(kinds.includes('zeroShot') ? exp.config.evalLengths.filter((L) => L > T).map((L) => ({ b, kind: 'zeroShot', L })) : []),
    ...(kinds.includes('finetuned') ? [{ b, kind: 'finetuned', L: Lft }] : []),
  ]);
  const parts = [], skipped = [], tally = new Map(), ivs = [];
  for (const g of groups) {
    const at = `${g.kind === 'zeroShot' ? 'zero shot' : 'fine-tuned'} at ${g.L / T}×`, kept = (sc) => combine(spectrumSeeds(exp, g.b, g.kind, sc, g.L).kept, stat, 0);
    const shown = [...new Set(PENG_PAIRS[g.kind].flat()), 'none'];
    parts.push(`base ${g.b} ${at}: ${shown.map((sc) => `${SCALING_NAMES[sc]} ${kept(sc) == null ? '–' : `${pct(kept(sc))}%`}`).join(', ')}`);
    for (const [m, o] of PENG_PAIRS[g.kind]) {
      const name = `${g.kind === 'zeroShot' ? '' : 'fine-tuned '}${SCALING_NAMES[m]} vs ${SCALING_NAMES[o]}`;
      if (!spectrumAbove(exp, cellOf(exp, g.b, g.kind, m, g.L), g.L) && !spectrumAbove(exp, cellOf(exp, g.b, g.kind, o, g.L), g.L)) {
        skipped.push(`base ${g.b} ${at}: ${SCALING_NAMES[m]} vs ${SCALING_NAMES[o]}`);
        continue;
      }
      const t = tally.get(name) ?? [0, 0];
      tally.set(name, [t[0] + (kept(m) > kept(o) + margin ? 1 : 0), t[1] + 1]);
      if (g.kind === 'finetuned') ivs.push({ b: g.b, iv: diffInterval([[spectrumSeeds(exp, g.b, g.kind, m, g.L).kept, spectrumSeeds(exp, g.b, g.kind, o, g.L).kept]]), gain: kept(m) - kept(o) });
    }
  }
  const wins = [...tally.values()].reduce((x, t) => x + t[0], 0), total = [...tally.values()].reduce((x, t) => x + t[1], 0);
  return { parts, skipped, tally, wins, total, ivs, list: [...tally].map(([name, [w, n]]) => `${name} ${w} of ${n}`).join(', ') };
}
function pengSpectrum(exp, rule, stat) {
  const { ok, note } = learnedBases(exp), margin = rule.thresholds.margin;
  if (!ok.length) return { status: 'not tested here', text: `spectrum experiment: no base learned${note}` };
  if (rule.form === 'peng-majority') {
    const p = pengPairs(exp, stat, margin, ['zeroShot', 'finetuned']);
    if (!p.total) return { status: 'not tested here', text: `spectrum experiment: no pair has a row above the floor${note}` };
    return { holds: p.wins > p.total / 2, value: `${p.wins} of ${p.total} pairs`,
      text: `spectrum experiment, kept share: ${p.parts.join('; ')}. More than 10 points more in ${p.wins} of ${p.total} counted pairs: ${p.list}${note}` };
  }
  const f = pengPairs(exp, stat, margin, ['finetuned']), z = pengPairs(exp, stat, margin, ['zeroShot']);
  if (!f.total) return { status: 'not tested here', text: `spectrum experiment: fine-tuned YaRN and PI both at the floor at every base${note}` };
  return { holds: f.wins > f.total / 2, value: `${f.wins} of ${f.total} bases`,
    text: `spectrum experiment (${spectrumSetting(exp)}), counted: fine-tuned YaRN against fine-tuned PI, kept share at the fine-tune length: ` +
      `${f.ivs.map((x) => `base ${x.b}: ${signed(x.gain)} points${span(x.iv)}`).join('; ')}; YaRN keeps more than ${pct(margin)} points more at ${f.wins} of ${f.total} bases${note}. ` +
      `Zero shot, shown separately and not counted: ${z.list || 'no pair above the floor'}${z.skipped.length ? ` (left out, both rows at or near the floor: ${z.skipped.length} pairs)` : ''}; kept shares: ${[...f.parts, ...z.parts].join('; ')}` };
}

/**
 * The lost-in-the-middle test of one row at grid length L, over its learned seeds: the middle depth with the lowest
 * mean, and whether the middle is below BOTH ends beyond the seeds' spread (every seed's middle below every seed's
 * value at each end) and by more than RULES.gradient on average. Needs 2 or more learned seeds with grids.
 */
export function uShape(results, row, L, info = taskInfo(results, row.task), stat = 'mean', gradient = RULES.gradient) {
  const runs = row.runs.filter((r) => r.grid && learnedRun(results, r, info));
  const li = runs[0]?.grid.lengths.indexOf(L) ?? -1;
  if (li < 0) return { seeds: runs.length, testable: false };
  const cols = runs.map((r) => r.grid.accuracy.map((d) => d[li])), D = cols[0].length, fl = floorOf(info, L).accuracy;
  const at = (d) => combine(cols.map((c) => c[d]), stat, fl);
  let mid = 1;
  for (let d = 2; d < D - 1; d++) if (at(d) < at(mid)) mid = d;
  const ends = [0, D - 1];
  // under the mean, also beyond the seeds' spread; under the max and the clipped mean, on the combined depths alone
  const beyond = (e) => stat !== 'mean' || Math.min(...cols.map((c) => c[e])) > Math.max(...cols.map((c) => c[mid]));
  const below = ends.every((e) => beyond(e) && at(e) - at(mid) > gradient);
  return {
    seeds: runs.length, testable: runs.length >= 2 && D >= 3, depth: runs[0].grid.depths[mid],
    far: at(0), mid: at(mid), near: at(D - 1), u: runs.length >= 2 && D >= 3 && below,
    dipMean: Math.min(at(0), at(D - 1)) - at(mid),
  };
}

// The encodings Kazemnejad et al. 2023 compared (a fact about the paper, not a list of ours; paper-set).
const KAZEMNEJAD_SET = ['none', 'sinusoidal', 't5', 'alibi', 'rope'];

function kazemnejadRanking(results) {
  const tasks = ['copy', 'reverse'].filter((t) => tasksOf(results).includes(t));
  if (!tasks.length) return null;
  const T = results.config.trainLength, parts = [];
  let holds = true, comparable = true;
  for (const task of tasks) {
    const info = taskInfo(results, task);
    const scores = KAZEMNEJAD_SET.map((enc) => {
      const row = plainRow(results, task, enc);
      if (!row) return null;
      const learned = row.runs.filter((r) => learnedRun(results, r, info)).length;
      return { enc, learned, seeds: row.runs.length, kept: meanKept(results, row, 2 * T, info) };
    }).filter(Boolean);
    const nope = scores.find((s) => s.enc === 'none');
    const ranked = scores.filter((s) => s.kept != null).sort((a, b) => b.kept - a.kept);
    if (!nope || nope.kept == null) {
      comparable = false;
      parts.push(nope ? `${task}: NoPE did not learn (${nope.learned} of ${nope.seeds} seeds)` : `${task}: no NoPE row`);
      continue;
    }
    holds &&= nope.kept >= ranked[0].kept - RULES.paperMargin;
    parts.push(`${task}: NoPE ranks ${ranked.indexOf(nope) + 1} of ${ranked.length} (${ranked.map((s) => `${s.enc} ${pct(s.kept)}%`).join(', ')}; NoPE learned on ${nope.learned} of ${nope.seeds} seeds)`);
  }
  return { holds, comparable: comparable || parts.some((p) => p.includes('ranks')), text: `kept at 2×: ${parts.join('; ')}` };
}

/**
 * Each randomized row (<base>_random, copy and reverse) against its base, kept at 4×: with `sameBase`, the base row
 * at the same RoPE base (none: not compared); else the plain base row. {parts, any (a randomized row measured), holds}.
 */
function ruossComparison(results, sameBase) {
  const parts = [];
  let holds = true, any = false;
  for (const task of ['copy', 'reverse'].filter((t) => tasksOf(results).includes(t))) {
    const info = taskInfo(results, task);
    for (const v of rowsOf(results, task).filter((r) => r.encoding.endsWith('_random') && !r.variant)) {
      const baseEnc = v.encoding.replace(/_random$/, ''), b0 = sameBase && baseEnc === 'rope' ? ropeBaseOf(results, v) : null;
      const base = findRow(results, task, (r) => r.encoding === baseEnc && (b0 == null ? !r.variant : ropeBaseOf(results, r) === b0));
      const at = b0 == null ? '' : ` (base ${b0})`;
      if (!base) {
        if (sameBase) parts.push(`${task}: ${v.encoding}${at}: no ${baseEnc} row at the same base, not compared`);
        continue;
      }
      const a = verdict(results, v, info), b = verdict(results, base, info);
      if (a.kept != null) {
        any = true;
        holds &&= b.kept == null || a.kept > b.kept + RULES.paperMargin;
      }
      parts.push(`${task}: ${v.encoding}${at} ${a.kept == null ? 'did not learn' : `${pct(a.kept)}%`} vs ${sameBase ? base.name : base.encoding} ${b.kept == null ? 'did not learn' : `${pct(b.kept)}%`}`);
    }
  }
  return { parts, any, holds };
}

/** The setup differences that remain in the Ruoss replication (results.experiments.ruoss). */
function ruossDifferences(exp) {
  const c = exp.config, m = c.model;
  return `the paper’s own setup, at small scale: a bidirectional encoder (${m.layers} layers, d_model ${m.dModel}, ${m.heads} heads) predicting every output at once into blank slots, binary duplicate and reverse, one input length per step drawn from ${c.trainLengths[0]}–${c.trainLengths[1]}, tested at ${c.testLengths.length} lengths from ${c.testLengths[0]} to ${c.testLengths.at(-1)}, ${c.draws} fresh position draws per test length, RoPE at one base for both rope rows. Differences that remain: ${exp.differences.join('; ')}`;
}

/** The Ruoss row from the replication: randomized against plain at the same settings (literature-ruoss.js), under `stat`. */
function ruossExperiment(exp, rule, stat) {
  const c = ruossComparisons(exp, { stat, margin: rule.thresholds.margin, floorMargin: rule.thresholds.floorMargin });
  if (c.holds == null) return { status: 'not tested here', text: `no comparison with both rows learned and one above the floor at the test lengths: ${c.skipped.join('; ')}` };
  const score = (row) => (stat === 'max' ? row.learnedMax : combine(row.perSeed, stat, c.comparisons[0].floor));
  const parts = c.comparisons.map((x) => `${x.task}: ${x.rand.encoding} ${pct(score(x.rand))}% vs ${x.plain.encoding} ${pct(score(x.plain))}% (${signed(x.gain)}; ${x.rand.learned} and ${x.plain.learned} of ${x.rand.seeds} seeds learned)`);
  return { holds: c.holds, value: `${signed(c.gain)} points`, interval: stat === 'mean' ? c.interval : null,
    text: `test accuracy at ${exp.config.testLengths[0]}–${exp.config.testLengths.at(-1)} under ${STAT_WORDS[stat]}: ${parts.join('; ')}; gain ${signed(c.gain)} points on average over ${c.comparisons.length} comparisons${c.skipped.length ? `; not compared: ${c.skipped.join('; ')}` : ''}` };
}

/** Fine-tune tokens as a share of each pretraining run's tokens (steps × batch × length), over the RoPE runs. */
function finetuneShare(results) {
  const c = results.config, ft = c.finetune;
  if (!ft) return null;
  const tokens = ft.steps * ft.batch * ft.length;
  const shares = results.runs.filter((r) => r.encoding === 'rope' && !r.variant && (r.scaling ?? 'none') === 'none')
    .map((r) => tokens / (r.steps * c.batch * c.trainLength)).filter((x) => Number.isFinite(x));
  return shares.length ? { min: Math.min(...shares), max: Math.max(...shares) } : null;
}

const KZ_NAMES = { none: 'NoPE', t5: 'T5 bias', sinusoidal: 'sinusoidal' };
const kzName = (e) => KZ_NAMES[e] ?? e;
const KZ_RULE = 'their small-model rows and ours (3 seeds or more, learned seeds only) compared per task by exact match at test lengths 21–40 over the encodings both ran (NoPE, T5 bias, sinusoidal); NoPE is first when its mean minus one seed standard deviation is above every other encoding’s mean plus one (theirs: their seed standard deviation); agrees with the paper’s small-model rows if NoPE is first in ours exactly where it is first in theirs, on most tasks compared. A task is compared when our NoPE and one other encoding learned it (exact match at the training lengths above 10%); rsc is NoPE’s positive control (its answer needs no order, only the count of repeats, which a causal model without positions can read), so a NoPE that learns no rsc seed leaves nothing compared';

/** The Kazemnejad row from the experiment under `stat`: per task, NoPE first in ours where first in theirs; uninformative tasks left out. */
function kazemnejadComparison(exp, rule, stat) {
  const v = kzVerdict(exp, { stat, informative: rule.form === 'kazemnejad-informative' ? rule.thresholds.informative : null }), p1 = (x) => `${(100 * x).toFixed(1)}%`;
  const parts = v.tasks.map((t) => {
    if (t.skipped) return `${t.task}: ${t.skipped}, not counted`;
    const list = (scores) => Object.entries(scores).sort((a, b) => b[1].mean - a[1].mean).map(([e, s]) => `${kzName(e)} ${p1(s.mean)} ± ${p1(s.std)}`).join(', ');
    return `${t.task}: ours ${list(t.ours)}; theirs ${list(t.theirs)} — NoPE ${t.oursFirst ? 'first' : 'not first'} in ours, ${t.theirsFirst ? 'first' : 'not first'} in theirs` +
      `${t.ratio != null ? `; our NoPE scores ${t.ratio.toFixed(1)}× theirs` : ''}`;
  });
  const c = v.control;
  const control = c ? `rsc control: NoPE learned ${c.learned} of ${c.seeds} seeds (${p1(c.train)} exact at the training lengths, ${p1(c.test)} at 21–40)` : 'no rsc control';
  const ratios = v.tasks.filter((t) => t.ratio != null).map((t) => t.ratio);
  const level = ratios.length ? `; levels differ: our NoPE scores ${Math.min(...ratios).toFixed(1)}–${Math.max(...ratios).toFixed(1)}× theirs on the tasks counted, so only the order is compared, not the numbers` : '';
  const text = `exact match at 21–40 under ${STAT_WORDS[stat]}, ± the seed standard deviation (ours: learned seeds): ${parts.join('; ')}; ${control}; ${v.compared ? `agreement on ${v.agreeing} of ${v.compared} tasks counted` : 'no task counted'}${level}`;
  if (v.verdict === 'not tested here') return { status: 'not tested here', text };
  return { holds: v.verdict === 'agrees', value: `${v.agreeing} of ${v.compared} tasks`, text };
}

/** The setup differences between their small runs and the experiment. */
function kazemnejadDifferences(exp) {
  const s = exp.setup, pm = exp.paper.model, pt = exp.paper.training, runs = exp.runs;
  const params = runs.map((r) => r.parameters), lo = Math.min(...params), hi = Math.max(...params);
  const share = (s.steps * s.batch) / (pt.steps * pt.batch);
  const rsc = exp.tasks.rsc, rscTheirs = Math.floor((1.15 * pt.trainExamples) / (s.trainLengths[1] - s.trainLengths[0] + 1));
  return `their small runs: a T5-style decoder (${pm.layers} layers, d_model ${pm.dModel}, ${pm.heads} heads, ReLU, dropout ${pm.dropout}, ` +
    `RMS norm, no biases) over the ${pm.vocabulary.toLocaleString('en-US')}-token T5 vocabulary (${(pm.parameters / 1e6).toFixed(2)}M parameters), ` +
    `${pt.steps.toLocaleString('en-US')} steps of ${pt.batch} at lr ${pt.lr.toExponential()}, ${pt.testPerLength} test examples per length, text through the T5 tokenizer ` +
    `(a word may be several pieces); here: posenc’s decoder of the same shape (${s.layers} layers, d_model ${s.dModel}, ${s.heads} heads, MLP ${s.mlpRatio}×) ` +
    `with LayerNorm, biases and GELU, no dropout, every word one token (${Math.round(lo / 1000) === Math.round(hi / 1000) ? `about ${Math.round(lo / 1000)}k` : `${Math.round(lo / 1000)}k–${Math.round(hi / 1000)}k`} parameters), ` +
    `${s.steps.toLocaleString('en-US')} steps of ${s.batch} at lr ${s.lr} (${(100 * share).toFixed(2)}% of their training examples), ${s.testPerLength} test examples per length, ` +
    `${s.seeds} seeds${rsc ? `; rsc over ${rsc.symbols} symbols (theirs: ${rscTheirs.toLocaleString('en-US')} T5 tokens)` : ''}. ` +
    'The same task formats, length splits (train 4–20, test 21–40) and exact-match scoring; their 138M-parameter results are not tested here';
}

export const PAPERS = [
  {
    id: 'press2022', paper: 'Press et al. 2022, ALiBi (ICLR)',
    setup: 'WikiText-103 LMs trained at L = 512 and 1024, perplexity evaluated at longer inputs',
    reported: 'Fig. 1: as the input grows past L, sinusoidal, rotary and T5 perplexity degrades and ALiBi’s does not; abstract: a 1.3B model trained at L = 1024 and run at 2048 matches the perplexity of a sinusoidal model trained at 2048. Exact perplexities per length (appendix Tables 2–3): not verified.',
    source: 'https://ar5iv.labs.arxiv.org/html/2108.12409 (abstract, Figure 1 caption)',
    differences: (results) => `the paper: word-level language models of natural text trained at 512 and 1024 tokens; here: models of ${modelSize(results)} on a synthetic order-2 Markov chain over 8 symbols (only the last two tokens matter), trained at T = ${results.config.trainLength}`,
    judge(results, rule, stat) {
      const task = lossTask(results);
      if (!task) return { status: 'not measured', text: 'no loss-metric task in this results.json' };
      const info = taskInfo(results, task), T = results.config.trainLength, Lmax = results.config.evalLengths.filter((L) => L >= T).at(-1);
      const seeds = (row, L) => row.runs.filter((r) => stat !== 'max' || learnedRun(results, r, info)).map((r) => lengthOf(r, L)?.loss);
      const ppl = (enc) => {
        const row = plainRow(results, task, enc);
        const a = row && combine(seeds(row, T), stat, floorOf(info, T).loss, { lower: true }), b = row && combine(seeds(row, Lmax), stat, floorOf(info, Lmax).loss, { lower: true });
        return a == null || b == null ? null : { a: Math.exp(a), b: Math.exp(b), ratios: row.runs.map((r) => Math.exp((lengthOf(r, Lmax)?.loss ?? NaN) - (lengthOf(r, T)?.loss ?? NaN))) };
      };
      const al = ppl('alibi'), si = ppl('sinusoidal'), m = rule.thresholds.margin;
      if (!al || !si) return { status: 'not measured', text: `${task}: alibi or sinusoidal rows missing` };
      const iv = (x) => meanInterval(x.ratios), ratio = (x) => `×${(x.b / x.a).toFixed(2)}${iv(x) && stat === 'mean' ? ` (95% interval ×${iv(x).low.toFixed(2)} to ×${iv(x).high.toFixed(2)})` : ''}`;
      return { holds: al.b <= al.a * (1 + m) && si.b > si.a * (1 + m), value: `ALiBi ×${(al.b / al.a).toFixed(2)}, sinusoidal ×${(si.b / si.a).toFixed(2)}`,
        text: `${task} (T = ${T}), under ${STAT_WORDS[stat]}: perplexity 1× → ${times(Lmax / T)}: ALiBi ${f2(al.a)} → ${f2(al.b)} ${ratio(al)}, sinusoidal ${f2(si.a)} → ${f2(si.b)} ${ratio(si)}` };
    },
  },
  {
    id: 'kazemnejad2023', paper: 'Kazemnejad et al. 2023, NoPE (NeurIPS)',
    setup: 'decoder-only Transformers on reasoning and mathematical tasks, tested on longer inputs; APE, T5 relative, ALiBi, Rotary and NoPE (abstract)',
    reported: 'abstract: NoPE outperforms the explicit position encodings on length generalisation. Their own small runs (3 layers, d_model 64, 2.25M parameters, results table in their repository): exact match at test lengths 21–40 on copy (cmc), repeat (rsc) and replace (rdc): NoPE 1.6 / 5.5 / 23.7%, T5 bias 7.3 / 0.7 / 2.1%, sinusoidal 1.4 / 1.4 / 1.6%, means over 3 seeds; that table has no ALiBi or Rotary rows at any size.',
    source: 'https://papers.nips.cc/paper_files/paper/2023/hash/4e85362c02172c0c6567ce593122d31c-Abstract-Conference.html (abstract); https://github.com/McGill-NLP/length-generalization (results/len_gen_experiments.csv, the t5a_dec_xsmall rows)',
    differences(results) {
      const exp = kzExperiment(results);
      if (exp) return kazemnejadDifferences(exp);
      return `the paper: T5-style decoders of about 138M parameters on its own task formats (e.g. copy with repeated symbols, reversal), scored by exact match of the whole answer, trained on short and tested on longer instances; here: ${modelSize(results)} on copy and reverse over 8 symbols, scored per token, trained at T = ${results.config.trainLength}. This is not the paper’s experiment, so its 138M-parameter results are not tested here; a comparison with its small-model runs needs their task formats and splits`;
    },
    judge(results, rule, stat) {
      const exp = kzExperiment(results);
      if (exp) return kazemnejadComparison(exp, rule, stat);
      const k = kazemnejadRanking(results);
      if (!k) return { status: 'not measured', text: 'no copy or reverse task' };
      return k.comparable ? { holds: k.holds, unfaithful: 'copy and reverse here are not the paper’s tasks', text: k.text } : { status: 'not tested here', text: k.text };
    },
  },
  {
    id: 'ruoss2023', paper: 'Ruoss et al. 2023, randomized positions (ACL)',
    setup: '15 algorithmic reasoning tasks (e.g. duplicating a string), 6000 models, tested on longer inputs (abstract)',
    reported: 'abstract: randomized positional encodings raise test accuracy on unseen lengths by 12.0% on average. Per-task numbers for copy/reverse: not verified.',
    source: 'https://arxiv.org/abs/2305.16843 (abstract)',
    differences: (results) => (results.experiments?.ruoss ? ruossDifferences(results.experiments.ruoss) : `the paper: a bidirectional encoder that predicts every output at once into blank slots, a binary alphabet, training lengths drawn from 1–40 and test lengths 41–500, positions a sorted random draw from [0, 2048) made afresh for every example, also at evaluation; here: a causal decoder over 8 symbols, trained at T = ${results.config.trainLength} and tested up to ${times(Math.max(...results.config.evalLengths) / results.config.trainLength)}, drawn per example over its own length from [0, ${results.config.model?.randomLength ?? '?'})`),
    judge(results, rule, stat) {
      if (results.experiments?.ruoss) return ruossExperiment(results.experiments.ruoss, rule, stat);
      const c = ruossComparison(results, true);
      if (!c.parts.length) return { status: 'not measured', text: 'no randomized-position rows in this results.json' };
      if (!c.any) return { status: 'not tested here', text: `no randomized row learned and had a same-base row: ${c.parts.join('; ')}` };
      return { holds: c.holds, unfaithful: 'a causal decoder on 8 symbols, not the paper’s setup', text: `kept at 4×: ${c.parts.join('; ')}` };
    },
  },
  {
    id: 'liu2023', paper: 'Liu et al. 2023, Lost in the Middle (TACL)',
    setup: 'multi-document QA and key-value retrieval in language models, including explicitly long-context ones; the relevant item is moved through the input (abstract)',
    reported: 'abstract: accuracy is often highest when the relevant information is at the beginning or end of the context and degrades in the middle (a U-shape).',
    source: 'https://ar5iv.labs.arxiv.org/html/2307.03172 (abstract)',
    differences: (results) => `the paper: large pretrained language models on natural-language documents and key-value lists within their context windows; here: models of ${modelSize(results)} trained at T = ${results.config.trainLength} on a synthetic lookup that needs the order of two occurrences (kth_retrieval), with the needle at ${depthCount(results)} depths, read at the longest measured length, past the training length`,
    judge(results, rule, stat) {
      const main = liuTasks(results);
      if (!main.length) return { status: 'not tested here', text: 'no depth grid of a task that needs position (the content-only control cannot show it)' };
      const rows = main.flatMap((task) => {
        const info = taskInfo(results, task), Lmax = Math.max(...(results.runs.find((r) => r.task === task && r.grid)?.grid.lengths ?? [0]));
        return rowsOf(results, task).filter((row) => !row.finetune) // models trained at T only
          .map((row) => ({ name: row.name, ...uShape(results, row, Lmax, info, stat, rule.thresholds.gradient) })).filter((x) => x.seeds > 0);
      });
      const testable = rows.filter((x) => x.testable), u = testable.filter((x) => x.u);
      const one = rows.filter((x) => !x.testable).map((x) => x.name);
      const list = testable.map((x) => `${x.name} ${pct(x.far)}% far, ${pct(x.mid)}% at depth ${x.depth}, ${pct(x.near)}% near${x.u ? ' (U)' : ''}`);
      if (!testable.length) return { status: 'not tested here', text: `no row of ${main.join(', ')} learned on 2 or more seeds${one.length ? ` (${one.join(', ')} on 1)` : ''}` };
      return { holds: u.length > testable.length / 2, value: `${u.length} of ${testable.length} rows`,
        text: `${main.join(', ')}, longest length, learned seeds, under ${STAT_WORDS[stat]}: U-shape in ${u.length} of ${testable.length} testable rows${u.length ? ` (${u.map((x) => x.name).join(', ')})` : ''}; ${list.join('; ')}${one.length ? `; not testable (1 learned seed): ${one.join(', ')}` : ''}` };
    },
  },
  {
    id: 'chen2023', paper: 'Chen et al. 2023, position interpolation',
    setup: 'LLaMA 7B–65B extended from 2048 to up to 32768 tokens',
    reported: 'abstract: extended with at most 1000 fine-tuning steps; extrapolating instead gives catastrophically high attention scores; the interpolation bound is ~600× smaller than extrapolation’s. Zero-shot PI perplexities: not verified.',
    source: 'https://arxiv.org/abs/2306.15595 (abstract)',
    differences: (results) => {
      const s = ropeSpectrum(results), sh = finetuneShare(results), ft = results.config.finetune, exp = results.experiments?.spectrum;
      const t32 = `RoPE with ${s ? `head_dim ${s.headDim} at base ${s.base}, ${s.pairs} pairs of which ${s.turning} turn within T = ${results.config.trainLength} (slowest period ${s.slowest.toFixed(2)} T)` : 'this model'}` +
        `${ft ? `, fine-tuned ${ft.steps} steps at ${ft.length}` : ''}${sh ? `, ${pct(sh.min)}–${pct(sh.max)}% of each model’s pretraining tokens` : ''}`;
      return exp ? `the paper: LLaMA (head_dim 128, 64 RoPE pairs) on language modelling, fine-tuned with at most 1000 steps, a small share of its pretraining tokens; here, ${spectrumDifferences(exp)}; the second line, at T = ${results.config.trainLength}: ${t32}`
        : `the paper: LLaMA (head_dim 128, 64 RoPE pairs) fine-tuned with at most 1000 steps, a small share of its pretraining; here: ${t32}`;
    },
    judge(results, rule, stat) {
      const exp = results.experiments?.spectrum;
      if (!exp) return { ...this.ours32(results), shownOnly: true };
      const s = chenSpectrum(exp, rule, stat), t32 = this.ours32(results);
      return { ...s, text: `${s.text}. Shown, not counted — at T = ${results.config.trainLength} (the main experiment, head_dim ${ropeSpectrum(results)?.headDim ?? '?'}): ${t32.text}` };
    },
    ours32(results) {
      const parts = [], keeps = [];
      let wins = 0, total = 0;
      for (const task of tasksOf(results)) {
        const info = taskInfo(results, task), T = results.config.trainLength;
        const pi = findRow(results, task, (r) => r.encoding === 'rope' && r.scaling === 'linear' && r.finetune, { scaled: true });
        const plain = rowsOf(results, task).find((r) => r.encoding === 'rope' && r.finetune);
        if (!pi) continue;
        const L = pi.finetune.length, one = (row) => cellAt(row, T, 'accuracy'), before = cellAt({ runs: pi.runs.map((r) => referenceRun(results, r)) }, T, 'accuracy');
        keeps.push(`${task} ${pct(before)}% → ${pct(one(pi))}%`);
        if (!plain) continue;
        const kp = meanKept(results, pi, L, info), kf = meanKept(results, plain, L, info);
        if (kp == null && kf == null) continue;
        total++;
        if (kp != null && (kf == null || kp > kf + RULES.paperMargin)) wins++;
        parts.push(`${task} at ${L}: PI ${kp == null ? "did not learn at this length" : `${pct(kp)}%`} vs plain ${kf == null ? "did not learn at this length" : `${pct(kf)}%`} (1×: PI ${pct(one(pi))}%, plain ${pct(one(plain))}%)`);
      }
      if (!keeps.length) return { verdict: 'not measured', text: 'no fine-tuned PI rows in this results.json' };
      if (!total) {
        return { verdict: 'not tested here',
          text: `the paper’s control, RoPE fine-tuned at the same length without interpolation, was not run, so fine-tuned PI is compared with nothing it claims to beat. Fine-tuned PI’s 1× accuracy (before → after fine-tuning): ${keeps.join(', ')}. A run that tests it: fine-tune each trained RoPE model ${results.config.finetune ? `${results.config.finetune.steps} steps at ${results.config.finetune.length}` : 'at the longer length'} with no scaling and evaluate it beside the PI row` };
      }
      return { verdict: outcome(wins > total / 2), text: `kept at the fine-tune length: ${parts.join('; ')}; PI wins on ${wins} of ${total}` };
    },
  },
  {
    id: 'peng2023', paper: 'Peng et al. 2023, YaRN (ICLR 2024)',
    setup: 'RoPE context extension of LLaMA / Llama 2: PI, NTK-aware, dynamic NTK (for models without fine-tuning, §1) and YaRN',
    reported: 'abstract: YaRN needs 10× fewer tokens and 2.5× fewer training steps than earlier methods; §1: dynamic NTK is the method for pre-trained models without fine-tuning. Zero-shot perplexities: not verified.',
    source: 'https://arxiv.org/abs/2309.00071 (abstract; §1 introduction)',
    differences: (results) => {
      const s = ropeSpectrum(results), exp = results.experiments?.spectrum;
      const t32 = `${s ? `head_dim ${s.headDim} at base ${s.base}, ${s.pairs} pairs of which ${s.turning} turn within T = ${results.config.trainLength} (slowest period ${s.slowest.toFixed(2)} T), so the ramp spans every pair` : 'this model'}, zero-shot only`;
      return exp ? `the paper: Llama 2 (head_dim 128, 64 RoPE pairs, base 10000, a 4096-token context) on language modelling, where YaRN’s ramp leaves the fast pairs alone; here, ${spectrumDifferences(exp)}; YaRN’s ramp (beta_fast 32, beta_slow 1) leaves the pairs with 32 or more turns within T alone and fully interpolates those that do not turn once; NTK is applied at the full length in one forward, not per token as dynamic NTK generates; the second line, at T = ${results.config.trainLength}: ${t32}`
        : `the paper: Llama 2 (head_dim 128, 64 RoPE pairs, base 10000, a 4096-token context), where YaRN’s ramp leaves the fast pairs alone and fine-tuning follows; here: ${t32}`;
    },
    judge(results, rule, stat) {
      const exp = results.experiments?.spectrum;
      if (!exp) return { ...this.ours32(results), shownOnly: true };
      const s = pengSpectrum(exp, rule, stat), t32 = this.ours32(results);
      return { ...s, text: `${s.text}. Shown, not counted — at T = ${results.config.trainLength} (the main experiment): ${t32.verdict}: ${t32.text}` };
    },
    ours32(results) {
      const T = results.config.trainLength, parts = [], skipped = [];
      let wins = 0, total = 0;
      for (const task of tasksOf(results)) {
        const info = taskInfo(results, task), plain = plainRow(results, task, 'rope');
        if (!plain) continue;
        for (const sc of ['ntk', 'yarn']) {
          const row = findRow(results, task, (r) => r.encoding === 'rope' && !r.variant && r.scaling === sc && !r.finetune, { scaled: true });
          if (!row) continue;
          const base = onSeedsOf(plain, row); // the same trained models (plain RoPE may have more seeds than its scalings)
          const kb = meanKept(results, base, 2 * T, info), ab = aboveFloor(results, base, 2 * T, info);
          const ks = meanKept(results, row, 2 * T, info), as = aboveFloor(results, row, 2 * T, info);
          const margin = RULES.floorMargin;
          if (!(ab > margin && as > margin)) {
            skipped.push(`${task} ${sc}`);
            continue;
          }
          total++;
          if (ks > kb + RULES.paperMargin) wins++;
          parts.push(`${task} ${sc} ${pct(ks)}% vs ${pct(kb)}%`);
        }
      }
      if (!total) return { verdict: 'not tested here', text: `no (task, scaling) pair has both rows above the floor at 2×${skipped.length ? ` (below: ${skipped.join(', ')})` : ''}` };
      return { verdict: outcome(wins > total / 2),
        text: `kept at 2× (scaled vs plain RoPE), pairs above the floor: ${parts.join('; ')} — better on ${wins} of ${total}${skipped.length ? `; not counted (a row at or near the floor at 2×): ${skipped.join(', ')}` : ''}` };
    },
  },
];

const modelSize = (results) => {
  const m = results.config.model ?? {};
  const p = results.runs.find((r) => r.parameters)?.parameters;
  return `${m.layers} layers, d_model ${m.dModel}${p ? `, about ${Math.round(p / 1000)}k parameters` : ''}`;
};
const depthCount = (results) => results.runs.find((r) => r.grid)?.grid.depths.length ?? 0;
/** Tasks with depth grids that need position (the Liu test's). */
function liuTasks(results) {
  return tasksOf(results).filter((t) => results.runs.some((r) => r.task === t && r.grid) &&
    taskInfo(results, t).role !== 'control' && taskInfo(results, t).needsPosition !== false);
}

/** The frozen rule versions (docs/rules/*.json, attached by scripts/results-load.js as results.rules), oldest first. */
export function ruleVersions(results) {
  const vs = [...(results.rules ?? [])].sort((a, b) => a.version.localeCompare(b.version));
  if (!vs.length) throw new TypeError('results.rules: no frozen rules (docs/rules/*.json; read results through scripts/results-load.js)');
  return vs;
}

/**
 * One paper under one version's rule: the verdict under the rule's own statistic, and under every statistic of
 * STATS (verdict-stats.js) for sensitivity; a verdict that differs between them is near the line. A rule marked
 * not faithful (or a run that cannot test the claim) gives "not tested faithfully here" with the outcome in brackets.
 */
export function judgePaper(results, paper, rule) {
  if (!rule) return { verdict: 'not tested here', text: 'no rule for this paper in the frozen rules', byStat: [] };
  const run = (stat) => {
    const j = paper.judge(results, rule, stat);
    if (j.status || j.holds == null) return { stat, verdict: j.status ?? j.verdict ?? 'not tested here', text: j.text, holds: null };
    const why = rule.faithful === false ? rule.unfaithful : j.unfaithful;
    return { stat, holds: j.holds, value: j.value, interval: j.interval, text: j.text, verdict: why ? unfaithful(j.holds) : outcome(j.holds), why };
  };
  const main = run(rule.statistic), byStat = STATS.map((st) => (st === rule.statistic ? main : run(st)));
  const outcomes = new Set(byStat.map((b) => b.holds).filter((h) => h != null));
  const near = main.holds != null && outcomes.size > 1, drift = settingDifferences(results, rule.setting);
  return {
    verdict: main.verdict, near, why: main.why, byStat, text: main.text, value: main.value, rule: rule.rule, claim: rule.claim, claimSource: rule.source,
    counted: rule.counted, shown: rule.shown ?? [], statistic: rule.statistic, thresholds: rule.thresholds, drift,
    label: `${main.verdict}${near ? ', near the line' : ''}`,
  };
}

/** "max: agrees (+18 points); mean: agrees (+13 points; 95% interval …); floor-clipped mean: does not agree (+10 points)". */
export function sensitivityText(j) {
  return j.byStat.filter((b) => b.holds != null).map((b) => `${STAT_WORDS[b.stat]}: ${outcome(b.holds)}${b.value ? ` (${b.value}` : ''}` +
    `${b.interval ? `${b.value ? '; ' : ' ('}95% interval ${signed(b.interval.low)} to ${signed(b.interval.high)} points` : ''}${b.value || b.interval ? ')' : ''}`).join('; ');
}

/**
 * The literature table: each paper with our side, its setup differences and the verdict under the newest frozen rules,
 * and `previous`: its verdict under the version before (when there is one). Computed from `results`.
 */
export function literature(results) {
  const vs = ruleVersions(results), cur = vs.at(-1), prev = vs.length > 1 ? vs.at(-2) : null;
  return PAPERS.map((p) => ({
    ...p, differences: p.differences(results), version: cur.version, ...judgePaper(results, p, cur.papers[p.id]),
    previous: prev ? { version: prev.version, ...judgePaper(results, p, prev.papers[p.id]) } : null,
  }));
}

/**
 * Papers whose verdict (its words, near the line included) or counted number under the newest rules differs from the
 * one under the version before: [{paper, old, now}].
 */
export function changedLiterature(results) {
  return literature(results).filter((p) => p.previous && (p.previous.label !== p.label || p.previous.value !== p.value))
    .map((p) => ({ paper: p.paper, old: p.previous, now: p }));
}
