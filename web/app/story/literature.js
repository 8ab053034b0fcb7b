// The literature side by side (docs/results.md): each paper's claim, the setup differences that remain between the
// paper and these tiny models, and a rule that tests what the paper claims, computed from results.json. A verdict
// says whether our numbers agree with the paper's claim at this scale ("agrees" / "does not agree"), or that the
// claim is "not tested faithfully here" (the rule's outcome is still given) or "not tested here" (a row it needs is
// missing); never a refutation of the paper's own results. `previous` keeps the rule each paper had before issue 28,
// so the closing note can list the verdicts that changed. Pure functions: no DOM, no fetch.
import { kzExperiment, kzVerdict } from './kazemnejad.js';
import {
  RULES, pct, tasksOf, taskInfo, floorOf, rowsOf, verdict, meanKept, learnedRun, referenceRun, gridTasks, gridsOf, depthEffect,
} from '../shared/results-words.js';
import { rotarySpectrum, llmSpectrum, middleSpectrum, cellOf, aboveFloor as spectrumAbove, andList } from '../rope/spectrum.js';
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

/** Chen in the spectrum: per base, PI fine-tuned against the plain fine-tune, kept at the fine-tune length, and each one's 1x accuracy. */
function chenSpectrum(exp) {
  const T = exp.config.trainLength, L = exp.config.finetune.length, { ok, note } = learnedBases(exp), parts = [];
  let wins = 0;
  for (const b of ok) {
    const pi = cellOf(exp, b, 'finetuned', 'linear', L), plain = cellOf(exp, b, 'finetuned', 'none', L);
    const one = (sc) => pct(cellOf(exp, b, 'finetuned', sc, T).mean);
    if (pi.kept > plain.kept + RULES.paperMargin) wins++;
    parts.push(`base ${b}: PI ${keptText(pi)} vs plain ${keptText(plain)} (1×: ${pct(cellOf(exp, b, 'zeroShot', 'none', T).mean)}% before, PI ${one('linear')}%, plain ${one('none')}%; ${plural(pi.seeds, 'learned seed')})`);
  }
  if (!ok.length) return { verdict: 'not tested here', text: `spectrum experiment: no base learned${note}` };
  return { verdict: outcome(wins > ok.length / 2),
    text: `spectrum experiment (${spectrumSetting(exp)}), kept at the fine-tune length ${L}: ${parts.join('; ')}; PI keeps more than 10 points more at ${wins} of ${ok.length} bases${note}` };
}

/**
 * Peng in the spectrum, per base: the paper's comparisons with the earlier methods, YaRN against PI and against NTK and
 * NTK against PI zero shot past T, and fine-tuned YaRN against fine-tuned PI. A pair with both rows at the floor is not
 * counted. Plain RoPE is reported beside them, not counted: past T it sits at the floor, so every scaling would beat it.
 */
const PENG_PAIRS = { zeroShot: [['yarn', 'linear'], ['yarn', 'ntk'], ['ntk', 'linear']], finetuned: [['yarn', 'linear']] };
function pengSpectrum(exp) {
  const T = exp.config.trainLength, Lft = exp.config.finetune.length, { ok, note } = learnedBases(exp);
  const groups = ok.flatMap((b) => [
    ...exp.config.evalLengths.filter((L) => L > T).map((L) => ({ b, kind: 'zeroShot', L })),
    { b, kind: 'finetuned', L: Lft },
  ]);
  const parts = [], skipped = [], tally = new Map(); // "<kind> <m> vs <o>" -> [wins, counted]
  for (const g of groups) {
    const at = `${g.kind === 'zeroShot' ? 'zero shot' : 'fine-tuned'} at ${g.L / T}×`, cell = (sc) => cellOf(exp, g.b, g.kind, sc, g.L);
    const shown = [...new Set(PENG_PAIRS[g.kind].flat()), 'none'];
    parts.push(`base ${g.b} ${at}: ${shown.map((sc) => `${SCALING_NAMES[sc]} ${keptText(cell(sc))}`).join(', ')}`);
    for (const [m, o] of PENG_PAIRS[g.kind]) {
      const a = cell(m), c = cell(o), name = `${g.kind === 'zeroShot' ? '' : 'fine-tuned '}${SCALING_NAMES[m]} vs ${SCALING_NAMES[o]}`;
      if (!spectrumAbove(exp, a, g.L) && !spectrumAbove(exp, c, g.L)) { // both at or near the floor: noise against noise
        skipped.push(`base ${g.b} ${at}: ${SCALING_NAMES[m]} vs ${SCALING_NAMES[o]}`);
        continue;
      }
      const t = tally.get(name) ?? [0, 0];
      tally.set(name, [t[0] + (a.kept > c.kept + RULES.paperMargin ? 1 : 0), t[1] + 1]);
    }
  }
  const wins = [...tally.values()].reduce((x, t) => x + t[0], 0), total = [...tally.values()].reduce((x, t) => x + t[1], 0);
  if (!ok.length) return { verdict: 'not tested here', text: `spectrum experiment: no base learned${note}` };
  if (!total) return { verdict: 'not tested here', text: `spectrum experiment: no pair has a row above the floor${note}` };
  return { verdict: outcome(wins > total / 2),
    text: `spectrum experiment (${spectrumSetting(exp)}), kept share: ${parts.join('; ')}. More than 10 points more in ${wins} of ${total} counted pairs: ` +
      `${[...tally].map(([name, [w, n]]) => `${name} ${w} of ${n}`).join(', ')}` +
      `${skipped.length ? `; not counted (both rows at or near the floor): ${skipped.join('; ')}` : ''}${note}` };
}

/**
 * A paper whose rule has a spectrum form: with results.experiments.spectrum, its verdict and rule from there, and the
 * T = 32 rule's outcome as a second line; without it, the T = 32 rule alone.
 */
function withSpectrum(results, paper, spectrumRule, rule) {
  const exp = results.experiments?.spectrum, t32 = paper.ours32(results);
  if (!exp) return t32;
  const s = spectrumRule(exp), T = results.config.trainLength;
  return { ...s, rule: `${rule}. Second line, at T = ${T}: ${paper.rule}`, text: `${s.text}. At T = ${T} (the main experiment): ${t32.verdict} — ${t32.text}`,
    basis: `from the spectrum experiment; at T = ${T} the rule above gives: ${t32.verdict}` };
}
const CHEN_RULE = 'spectrum experiment, per base: RoPE fine-tuned with PI against RoPE fine-tuned without interpolation (same steps, same length), kept share at the fine-tune length over the learned seeds, with the 1× accuracy each keeps; agrees if PI keeps more than 10 points more at most bases';
const PENG_RULE = 'spectrum experiment, per base: the paper’s comparisons with earlier methods, YaRN against PI and against NTK and NTK against PI zero shot at each length past T, and YaRN against PI fine-tuned (kept share at the fine-tune length), over the learned seeds; plain RoPE is shown, not counted (past T it sits at the floor, so any scaling beats it); a pair counts unless both rows are at or within 10 points of the best floor (noise against noise), so a row far above a collapsed one is a win; agrees if the first keeps more than 10 points more in most counted pairs';

/**
 * The lost-in-the-middle test of one row at grid length L, over its learned seeds: the middle depth with the lowest
 * mean, and whether the middle is below BOTH ends beyond the seeds' spread (every seed's middle below every seed's
 * value at each end) and by more than RULES.gradient on average. Needs 2 or more learned seeds with grids.
 */
export function uShape(results, row, L, info = taskInfo(results, row.task)) {
  const runs = row.runs.filter((r) => r.grid && learnedRun(results, r, info));
  const li = runs[0]?.grid.lengths.indexOf(L) ?? -1;
  if (li < 0) return { seeds: runs.length, testable: false };
  const cols = runs.map((r) => r.grid.accuracy.map((d) => d[li])), D = cols[0].length;
  const at = (d) => mean(cols.map((c) => c[d]));
  let mid = 1;
  for (let d = 2; d < D - 1; d++) if (at(d) < at(mid)) mid = d;
  const ends = [0, D - 1];
  const below = ends.every((e) => Math.min(...cols.map((c) => c[e])) > Math.max(...cols.map((c) => c[mid])) && at(e) - at(mid) > RULES.gradient);
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

/** The Ruoss row from the replication: the rule on randomized against plain at the same settings (literature-ruoss.js). */
function ruossExperimentVerdict(exp) {
  const c = ruossComparisons(exp), p = (x) => `${x >= 0 ? '+' : ''}${pct(x)}`;
  const rule = `in the replication (posenc_ruoss), each randomized encoding against its plain version (rope_random against rope at the same base, learned_random against learned) on duplicate and reverse: test accuracy per output token, averaged over the test lengths; the max over the seeds that learned (above the majority-symbol floor at the training lengths by more than ${pct(RULES.floorMargin)} points), as the paper reports max; a comparison counts only when one of its two rows scores above the majority-symbol floor at the test lengths by more than ${pct(RULES.floorMargin)} points; agrees if the randomized encodings' gain, averaged over the comparisons, is more than ${pct(RULES.paperMargin)} points (the paper: +12.0 on average)`;
  if (c.holds == null) return { rule, verdict: 'not tested here', text: `no comparison with both rows learned and one above the floor at the test lengths: ${c.skipped.join('; ')}` };
  const parts = c.comparisons.map((x) => `${x.task}: ${x.rand.encoding} max ${pct(x.rand.learnedMax)}% (mean ${pct(x.rand.learnedMean)}%) vs ${x.plain.encoding} ${pct(x.plain.learnedMax)}% (mean ${pct(x.plain.learnedMean)}%)`);
  return { rule, verdict: outcome(c.holds),
    text: `test accuracy at ${exp.config.testLengths[0]}–${exp.config.testLengths.at(-1)}: ${parts.join('; ')}; gain of the max ${p(c.gain)} points on average (of the means ${p(c.meanGain)})${c.skipped.length ? `; not compared: ${c.skipped.join('; ')}` : ''}` };
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

/** The Kazemnejad row from the experiment: the rule above, its outcome per task, and the verdict. */
function kazemnejadComparison(exp) {
  const v = kzVerdict(exp), p1 = (x) => `${(100 * x).toFixed(1)}%`;
  const parts = v.tasks.map((t) => {
    if (t.skipped) return `${t.task}: ${t.skipped}, not compared`;
    const list = (scores) => Object.entries(scores).sort((a, b) => b[1].mean - a[1].mean).map(([e, s]) => `${kzName(e)} ${p1(s.mean)} ± ${p1(s.std)}`).join(', ');
    return `${t.task}: ours ${list(t.ours)}; theirs ${list(t.theirs)} — NoPE ${t.oursFirst ? 'first' : 'not first'} in ours, ${t.theirsFirst ? 'first' : 'not first'} in theirs`;
  });
  const c = v.control;
  const control = c ? `rsc control: NoPE learned ${c.learned} of ${c.seeds} seeds (${p1(c.train)} exact at the training lengths, ${p1(c.test)} at 21–40)` : 'no rsc control';
  const verdict = v.verdict === 'not tested here' ? v.verdict : `${v.verdict} with the paper’s small-model rows in this setup`;
  const text = `exact match at 21–40, mean ± seed standard deviation (ours: learned seeds): ${parts.join('; ')}; ${control}; ${v.compared ? `agreement on ${v.agreeing} of ${v.compared} tasks compared` : 'no task compared'}`;
  return { verdict, text, rule: KZ_RULE };
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
    rule: 'agrees if ALiBi’s perplexity at the longest measured length is within 10% of its 1× value and sinusoidal’s rises by more than 10%',
    ours(results) {
      const task = lossTask(results);
      if (!task) return { verdict: 'not measured', text: 'no loss-metric task in this results.json' };
      const T = results.config.trainLength, Lmax = results.config.evalLengths.filter((L) => L >= T).at(-1);
      const ppl = (enc) => {
        const row = plainRow(results, task, enc);
        const a = row && cellAt(row, T, 'loss'), b = row && cellAt(row, Lmax, 'loss');
        return a == null || b == null ? null : { a: Math.exp(a), b: Math.exp(b) };
      };
      const al = ppl('alibi'), si = ppl('sinusoidal');
      if (!al || !si) return { verdict: 'not measured', text: `${task}: alibi or sinusoidal rows missing` };
      const holds = al.b <= al.a * (1 + RULES.paperMargin) && si.b > si.a * (1 + RULES.paperMargin);
      return { verdict: outcome(holds),
        text: `${task} (T = ${T}): perplexity 1× → ${times(Lmax / T)}: ALiBi ${f2(al.a)} → ${f2(al.b)}, sinusoidal ${f2(si.a)} → ${f2(si.b)}` };
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
    rule: `the paper’s five encodings (${KAZEMNEJAD_SET.join(', ')}) ranked by kept share at 2× over their learned seeds; NoPE first (within 10 points of the best) on both copy and reverse would agree`,
    ours(results) {
      const exp = kzExperiment(results);
      if (exp) return kazemnejadComparison(exp);
      const k = kazemnejadRanking(results);
      if (!k) return { verdict: 'not measured', text: 'no copy or reverse task' };
      return { verdict: k.comparable ? unfaithful(k.holds) : 'not tested here', text: k.text };
    },
    previous(results) {
      const k = kazemnejadRanking(results);
      return k ? { verdict: !k.comparable ? 'not comparable' : k.holds ? 'agrees' : 'disagrees', text: k.text } : null;
    },
  },
  {
    id: 'ruoss2023', paper: 'Ruoss et al. 2023, randomized positions (ACL)',
    setup: '15 algorithmic reasoning tasks (e.g. duplicating a string), 6000 models, tested on longer inputs (abstract)',
    reported: 'abstract: randomized positional encodings raise test accuracy on unseen lengths by 12.0% on average. Per-task numbers for copy/reverse: not verified.',
    source: 'https://arxiv.org/abs/2305.16843 (abstract)',
    differences: (results) => (results.experiments?.ruoss ? ruossDifferences(results.experiments.ruoss) : `the paper: a bidirectional encoder that predicts every output at once into blank slots, a binary alphabet, training lengths drawn from 1–40 and test lengths 41–500, positions a sorted random draw from [0, 2048) made afresh for every example, also at evaluation; here: a causal decoder over 8 symbols, trained at T = ${results.config.trainLength} and tested up to ${times(Math.max(...results.config.evalLengths) / results.config.trainLength)}, drawn per example over its own length from [0, ${results.config.model?.randomLength ?? '?'})`),
    rule: 'each randomized row against its base at the SAME RoPE base (rope_random against rope at its base; learned_random against learned) on copy and reverse, kept at 4×; the randomized row keeping more than 10 points more on both tasks would agree',
    ours(results) {
      if (results.experiments?.ruoss) return ruossExperimentVerdict(results.experiments.ruoss);
      const c = ruossComparison(results, true);
      if (!c.parts.length) return { verdict: 'not measured', text: 'no randomized-position rows in this results.json' };
      if (!c.any) return { verdict: 'not tested here', text: `no randomized row learned and had a same-base row: ${c.parts.join('; ')}` };
      return { verdict: unfaithful(c.holds), text: `kept at 4×: ${c.parts.join('; ')}` };
    },
    previous(results) { // against the plain base row, whatever its RoPE base
      const c = ruossComparison(results, false);
      if (!c.parts.length || !c.any) return { verdict: 'not comparable', text: c.parts.join('; ') };
      return { verdict: c.holds ? 'agrees' : 'disagrees', text: `kept at 4× (across bases): ${c.parts.join('; ')}` };
    },
  },
  {
    id: 'liu2023', paper: 'Liu et al. 2023, Lost in the Middle (TACL)',
    setup: 'multi-document QA and key-value retrieval in language models, including explicitly long-context ones; the relevant item is moved through the input (abstract)',
    reported: 'abstract: accuracy is often highest when the relevant information is at the beginning or end of the context and degrades in the middle (a U-shape).',
    source: 'https://ar5iv.labs.arxiv.org/html/2307.03172 (abstract)',
    differences: (results) => `the paper: large pretrained language models on natural-language documents and key-value lists within their context windows; here: models of ${modelSize(results)} trained at T = ${results.config.trainLength} on a synthetic lookup that needs the order of two occurrences (kth_retrieval), with the needle at ${depthCount(results)} depths, read at the longest measured length, past the training length`,
    rule: `a row shows the paper’s U-shape when, at the longest measured length, its lowest middle depth is below BOTH ends beyond the seeds’ spread (every learned seed’s middle below every learned seed’s value at each end) and by more than ${pct(RULES.gradient)} points on average; rows with fewer than 2 learned seeds cannot be tested; agrees if most testable rows show it`,
    ours(results) {
      const main = liuTasks(results);
      if (!main.length) return { verdict: 'not tested here', text: 'no depth grid of a task that needs position (the content-only control cannot show it)' };
      const rows = main.flatMap((task) => {
        const info = taskInfo(results, task), Lmax = Math.max(...(results.runs.find((r) => r.task === task && r.grid)?.grid.lengths ?? [0]));
        return rowsOf(results, task).filter((row) => !row.finetune) // models trained at T only
          .map((row) => ({ name: row.name, ...uShape(results, row, Lmax, info) })).filter((x) => x.seeds > 0);
      });
      const testable = rows.filter((x) => x.testable), u = testable.filter((x) => x.u);
      const one = rows.filter((x) => !x.testable).map((x) => x.name);
      const list = testable.map((x) => `${x.name} ${pct(x.far)}% far, ${pct(x.mid)}% at depth ${x.depth}, ${pct(x.near)}% near${x.u ? ' (U)' : ''}`);
      if (!testable.length) return { verdict: 'not tested here', text: `no row of ${main.join(', ')} learned on 2 or more seeds${one.length ? ` (${one.join(', ')} on 1)` : ''}` };
      return { verdict: outcome(u.length > testable.length / 2),
        text: `${main.join(', ')}, longest length, learned seeds: U-shape in ${u.length} of ${testable.length} testable rows${u.length ? ` (${u.map((x) => x.name).join(', ')})` : ''}; ${list.join('; ')}${one.length ? `; not testable (1 learned seed): ${one.join(', ')}` : ''}` };
    },
    previous(results) { // no row "lost in the middle" on the seed-averaged grid, and most rows with a depth effect show recency
      const { main } = gridTasks(results), T = results.config.trainLength;
      const s = main.flatMap((task) => gridsOf(results, task).filter((g) => g.learnedSeeds !== 0).map((g) => ({ name: g.row.name, ...depthEffect(g, T).at(-1) })));
      if (!s.length) return null;
      const effect = s.filter((x) => x.shape !== 'no depth effect'), u = s.filter((x) => x.shape === 'lost in the middle');
      const holds = !u.length && effect.filter((x) => x.shape === 'recency').length > effect.length / 2;
      return { verdict: holds ? 'agrees' : 'disagrees', text: `lost in the middle on the seed means: ${u.map((x) => x.name).join(', ') || 'none'}` };
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
    rule: 'RoPE fine-tuned with PI against RoPE fine-tuned without interpolation (same steps, same length), kept at the fine-tune length, with the 1× accuracy each keeps; agrees if PI keeps more than 10 points more on most tasks',
    ours(results) { return withSpectrum(results, this, chenSpectrum, CHEN_RULE); },
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
        parts.push(`${task} at ${L}: PI ${kp == null ? '–' : pct(kp)}% vs plain ${kf == null ? '–' : pct(kf)}% (1×: PI ${pct(one(pi))}%, plain ${pct(one(plain))}%)`);
      }
      if (!keeps.length) return { verdict: 'not measured', text: 'no fine-tuned PI rows in this results.json' };
      if (!total) {
        return { verdict: 'not tested here',
          text: `the paper’s control, RoPE fine-tuned at the same length without interpolation, was not run, so fine-tuned PI is compared with nothing it claims to beat. Fine-tuned PI’s 1× accuracy (before → after fine-tuning): ${keeps.join(', ')}. A run that tests it: fine-tune each trained RoPE model ${results.config.finetune ? `${results.config.finetune.steps} steps at ${results.config.finetune.length}` : 'at the longer length'} with no scaling and evaluate it beside the PI row` };
      }
      return { verdict: outcome(wins > total / 2), text: `kept at the fine-tune length: ${parts.join('; ')}; PI wins on ${wins} of ${total}` };
    },
    previous(results) { // fine-tuned PI against zero-shot PI, kept at the fine-tune length
      let wins = 0, total = 0;
      for (const task of tasksOf(results)) {
        const info = taskInfo(results, task), scaled = rowsOf(results, task, { scaled: true }).filter((r) => r.encoding === 'rope' && r.scaling === 'linear');
        const zero = scaled.find((r) => !r.finetune && !r.variant);
        for (const ft of scaled.filter((r) => r.finetune)) {
          const kz = zero && meanKept(results, zero, ft.finetune.length, info), kt = meanKept(results, ft, ft.finetune.length, info);
          if (!zero || (kz == null && kt == null)) continue;
          total++;
          if (kt != null && (kz == null || kt > kz + RULES.paperMargin)) wins++;
        }
      }
      return total ? { verdict: wins > total / 2 ? 'agrees' : 'disagrees', text: `fine-tuned PI beat zero-shot PI on ${wins} of ${total}` } : null;
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
    rule: 'zero-shot NTK and YaRN against plain RoPE, kept at 2×, per (task, scaling) pair; a pair counts only when both rows score above the floor at 2× by more than 10 points (loss: 10% of the floor’s); agrees if most counted pairs keep more than 10 points more than plain RoPE',
    ours(results) { return withSpectrum(results, this, pengSpectrum, PENG_RULE); },
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
    previous(results) { // every (task, scaling) pair counted, above the floor or not
      const T = results.config.trainLength;
      let wins = 0, total = 0;
      for (const task of tasksOf(results)) {
        const info = taskInfo(results, task), base = plainRow(results, task, 'rope'), kb = base && meanKept(results, base, 2 * T, info);
        if (kb == null) continue;
        for (const sc of ['ntk', 'yarn']) {
          const row = findRow(results, task, (r) => r.encoding === 'rope' && !r.variant && r.scaling === sc && !r.finetune, { scaled: true });
          if (!row) continue;
          const ks = meanKept(results, row, 2 * T, info);
          total++;
          if (ks != null && ks > kb + RULES.paperMargin) wins++;
        }
      }
      return total ? { verdict: wins > total / 2 ? 'agrees' : 'disagrees', text: `better on ${wins} of ${total}` } : null;
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

/** The literature table: each paper with our side, its setup differences and the verdict, computed from `results`. */
export const literature = (results) => PAPERS.map((p) => ({ ...p, differences: p.differences(results), ...p.ours(results) }));

/** Papers whose verdict differs from the one their rule before issue 28 gave, or now rests on another experiment (now.basis): [{paper, old, now}]. */
export function changedLiterature(results) {
  return PAPERS.filter((p) => p.previous).map((p) => ({ paper: p.paper, old: p.previous(results), now: p.ours(results) }))
    .filter((x) => x.old && (x.old.verdict !== x.now.verdict || x.now.basis));
}
