// docs/results.json -> docs/results.md: the measured length generalisation, verdicts corrected for each task's
// floor, Markov as loss against length, the depth grids in plain words, the literature side by side, and the
// verdicts that the floor correction changed. Every sentence is computed by web/app/shared/results-words.js from the
// numbers. Run by `npm run train` after training; also alone: node scripts/results-md.js [results.json] [out.md]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  RULES, MULTIPLES, pct, pct1, tasksOf, taskInfo, floorOf, rowsOf, seedValues, verdict, verdictLabel, verdictSentence,
  changedVerdicts, gridTasks, gridsOf, depthEffect, gradientSentence, allVerdicts, lengthFloorChanges, floorText, guessWords, trainingStops, nearTheLine,
} from '../web/app/shared/results-words.js';
import { literature, changedLiterature, sensitivityText } from '../web/app/story/literature.js';
import { STAT_WORDS } from '../web/app/story/verdict-stats.js';
import { attentionSection } from './results-md-attention.js';
import { zeroShotSection } from './results-md-lm.js';
import { spectrumSection, spectrumAdded } from './results-md-spectrum.js';
import { ruossSection, ruossAdded } from './results-md-ruoss.js';
import { readResults } from './results-load.js';
import { kazemnejadSection, kazemnejadAdded } from './results-md-kazemnejad.js';

// The seed article's comparison table (and its NoPE paragraph): what it claims per encoding. An encoding it
// does not rate (the registry's newer ones) is shown as not rated.
export const CLAIMS = {
  learned: ['none', 'Learned: “undefined beyond the maximum trained length — the model cannot extrapolate”'],
  sinusoidal: ['limited', 'Sinusoidal: extrapolation “Limited”'],
  t5: ['moderate', 'T5 relative bias: extrapolation “Moderate”'],
  rope: ['moderate', 'RoPE: extrapolation “Moderate; extendable”'],
  alibi: ['good', 'ALiBi: extrapolation “Good”'],
  none: ['partial', 'NoPE: “some studies found such models generalise reasonably to longer lengths”'],
};
const LEVELS = ['none', 'limited', 'moderate', 'good'];
const claimLevels = (c) => (c === 'partial' ? ['limited', 'moderate'] : [c]);

const f2 = (x) => (x == null ? 'n/a' : x.toFixed(2));
const thousands = (x) => String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * The experiments added after the main run: the plain fine-tune rows (from a rerun of the RoPE runs, whose
 * time they carry), the runs of seeds beyond config.seeds, and the shipped checkpoints' probe.
 */
function addedRuns(results) {
  const base = new Set(results.config.seeds ?? []), time = (rs) => rs.reduce((a, r) => a + (r.trainSeconds ?? 0) + (r.evalSeconds ?? 0), 0);
  const plainTune = results.runs.filter((r) => r.finetune && (r.scaling ?? 'none') === 'none');
  const extra = results.runs.filter((r) => !base.has(r.seed) && (r.scaling ?? 'none') === 'none' && !r.finetune);
  const out = [];
  if (plainTune.length) out.push({ what: 'RoPE fine-tuned without interpolation (Chen et al.’s control), from a rerun of the RoPE runs with all their scalings and fine-tunes', runs: plainTune.length, seconds: time(plainTune) });
  if (extra.length) out.push({ what: `more seeds (${[...new Set(extra.map((r) => r.seed))].sort((a, b) => a - b).join(', ')}) for the rows near a rule’s line, without the RoPE scalings`, runs: extra.length, seconds: time(extra) });
  if (results.experiments?.spectrum?.cost) out.push(spectrumAdded(results.experiments.spectrum));
  if (results.experiments?.kazemnejad?.setup?.cpuSeconds != null) out.push(kazemnejadAdded(results.experiments.kazemnejad));
  if (results.experiments?.ruoss?.seconds != null) out.push(ruossAdded(results.experiments.ruoss));
  if (results.checkpointProbe?.seconds != null) out.push({ what: 'the shipped checkpoints’ probe (sink mass, log-length logit scaling; no training)', runs: results.checkpointProbe.runs.length, seconds: results.checkpointProbe.seconds });
  return out;
}

/** ", 5 for 14 rows": rows trained on more seeds than the configuration's (merged in by scripts/results-merge.js). */
function moreSeeds(results, seeds) {
  const counts = tasksOf(results).flatMap((t) => rowsOf(results, t).map((row) => row.runs.length)).filter((n) => n > seeds);
  return counts.length ? `, ${Math.max(...counts)} for ${counts.length} rows (added where a verdict sat near a rule’s line)` : '';
}

/** "a budget of 5000 steps and an early stop …: 155 of 180 runs stopped early (median 1,900 steps; all runs: median 2,000)". */
function stopWords(results) {
  const { config } = results, s = trainingStops(results);
  if (!s.runs) return `a budget of ${config.steps} steps`;
  const check = config.earlyStop?.checkEvery ?? config.checkEvery;
  return `a budget of ${config.steps} steps and an early stop${check ? ` (a held-out batch checked every ${check} steps)` : ''}: ` +
    `${s.stopped} of ${s.runs} training runs stopped early${s.stopped ? ` (median ${thousands(s.medianStopped)} steps)` : ''}, ` +
    `the median over all runs is ${thousands(s.median)} steps`;
}
const dash = (x) => (x == null ? '—' : x);

/** A table cell: mean ± sd over seeds, or each seed's value where the seeds disagree (RULES.disagree). */
function cell(results, row, L, field, fmt) {
  const s = seedValues(results, row, L, field);
  if (!s) return 'n/a';
  if (s.disagree) return s.seeds.map((x) => `${fmt(x.value)}${x.learned ? '' : '*'}`).join(' / ');
  return `${fmt(s.mean)} ± ${fmt(s.sd)}`;
}
const accFmt = (x) => pct(x);
const lossFmt = (x) => x.toFixed(2);

/**
 * What a task's baselines (results.json tasks[task].baselines, e.g. content matching for copy and reverse) would do as
 * floors: how many rows' verdicts would stand. Lines for results.md (none without baselines).
 */
function baselineVerdicts(results, task, info) {
  return (info.baselines ?? []).map((b) => {
    const asFloor = { ...info, floors: [...info.floors, { name: b.name, accuracy: b.byLength[0].accuracy, loss: info.chance.loss,
      byLength: b.byLength.map((x) => ({ ...x, loss: info.chance.loss })) }] };
    const rows = rowsOf(results, task), now = rows.map((row) => verdict(results, row, info)), as = rows.map((row) => verdict(results, row, asFloor));
    const kept = as.filter((v) => v.level != null);
    return `With ${guessWords(b.name)} as the floor (${pct1(b.byLength.find((x) => x.length === results.config.trainLength)?.accuracy ?? NaN)}% at 1×), ` +
      `${kept.length} of ${rows.length} rows would keep a verdict (${now.filter((v) => v.level != null).length} do now)` +
      `${kept.length ? `: ${kept.map((v) => `${v.row.name} ${v.level}`).join(', ')}` : ''}. Content matching with no positions scores this much, so ` +
      'a score at or below it does not show that a model addresses positions; the verdicts above read the floors, not this baseline.';
  });
}

/** results.md from results.json; `zeroShot`: docs/lm-zero-shot.json's table, rendered as its own section when given. */
export function render(results, { zeroShot = null } = {}) {
  const { config } = results;
  const T = config.trainLength;
  const lines = [];
  const out = (s = '') => lines.push(s);
  const tasks = tasksOf(results);
  const info = Object.fromEntries(tasks.map((t) => [t, taskInfo(results, t)]));
  const seeds = config.seeds?.length ?? new Set(results.runs.map((r) => r.seed)).size;
  const { main: gridMain, control: gridControl } = gridTasks(results);

  out('# Length generalisation, measured');
  out();
  out(`Generated by \`npm run train\` from [results.json](results.json) (version ${results.version ?? 1}) by scripts/results-md.js — do not edit by hand. ` +
    `Tiny decoder-only models (${config.model.layers} layers, ${config.model.heads} heads, d_model ${config.model.dModel}) trained at length ` +
    `**T = ${T}** (batch ${config.batch}, lr ${config.lr}) on each task, ${seeds} seeds each${moreSeeds(results, seeds)}, with ${stopWords(results)}, then evaluated at ` +
    `${MULTIPLES.map((m) => `${m}×`).join(', ')} T. The full run took ${(config.seconds / 60).toFixed(1)} minutes on a 2-core machine.`);
  out();
  out('## How the verdicts are computed');
  out();
  out(`- **Floor.** Each task has a floor a model gets without the skill: chance (a uniform guess over the answer symbols)` +
    `${results.tasks ? ', and for Markov the unigram and bigram predictors' : ''}${Object.values(results.tasks ?? {}).some((t) => t.floors?.some((f) => f.byLength)) ? ', and for copy and reverse the bag-of-tokens predictor (the most frequent input symbol, measured on the evaluation sequences at each length: it falls as the input grows)' : ''}` +
    `${Object.values(results.tasks ?? {}).some((t) => t.floors?.some((f) => f.name === 'induction')) ? ' and the induction predictor (content matching with no positions, an algorithm: the last 1 to 4 tokens looked up in the input and the token after them, or before them for reverse, predicted; measured at each length, and listed where it beats the bag of tokens)' : ''}; ` +
    `the floor used at each length is the best of them there. A seed gets a verdict only when its 1× score beats the 1× floor by more than ${pct(RULES.floorMargin)} points (loss: ${pct(RULES.floorMargin)}% of the floor’s). ` +
    `${results.tasks ? 'Floors come from results.json `tasks`.' : 'This results.json (v1) records no floors: chance is computed from `config.taskOptions`, and the unigram/bigram floors are **unavailable**.'}`);
  out(`- **Kept.** kept = (score at ${RULES.verdictAt}× − floor at ${RULES.verdictAt}×) / (score at 1× − floor at 1×), per seed: accuracy for accuracy tasks; for loss tasks ` +
    `the gain in nats over the floor's loss. Verdict from the mean kept share over the seeds that learned: good ≥ ${pct(RULES.good)}%, ` +
    `moderate ≥ ${pct(RULES.moderate)}%, limited ≥ ${pct(RULES.limited)}%, none below (negative: worse than the floor).`);
  out(`- **Learned.** ${results.tasks ? 'A seed learned its task when it met `tasks[task].target` at 1× (results.json `learned`).' :
    `A seed learned its task when its held-out 1× score closed at least ${pct(RULES.learnedShare)}% of the gap from the floor to the oracle.`} ` +
    'A seed that did not learn gets no verdict; a row with no learned seed is labelled “did not learn at 1×”. ' +
    `A fine-tuned row’s seed has its own “learned”, not its pretrained model’s: it learned when, at its fine-tune length, it beats the floor there by more than ${pct(RULES.floorMargin)} points (loss: ${pct(RULES.floorMargin)}% of the floor’s); its kept share still divides by the pretrained model’s 1× score (the skill it is asked to keep).`);
  out(`- **Intervals.** A 95% interval of a mean over seeds is a Student t interval over the seeds (mean ± t × sd / √n); of a difference of two rows, the two standard errors added in quadrature with the smaller row’s seeds minus one degrees of freedom.`);
  out(`- **Seeds disagree** when their values at a length span more than ${pct(RULES.disagree)} points (loss: ${pct(RULES.disagree)}% of the floor's loss) ` +
    'or some learned and some did not; such cells list every seed (seed order; * = did not learn) instead of mean ± sd.');
  out();
  out('## Tasks');
  out();
  out('| task | role | needs position | metric | chance | floors | oracle at 1× | learned when | what it can show | what it cannot |');
  out('|---|---|---|---|---:|---|---:|---|---|---|');
  for (const t of tasks) {
    const byLength = (f) => (f.byLength ? ` at 1×; ${f.byLength.filter((x) => x.length > T && MULTIPLES.includes(x.length / T)).map((x) => `${pct1(x.accuracy)}% at ${x.length / T}×`).join(', ')}` : '');
    const i = info[t], fl = (i.floorsAvailable ? i.floors.map((f) => `${f.name} ${pct1(f.accuracy)}% / ${f2(f.loss)} nats${byLength(f)}`).join('; ') : 'unavailable (v1)') +
      (i.baselines ?? []).map((b) => `; baseline, not a floor: ${b.name} ${pct1(b.byLength.find((x) => x.length === T)?.accuracy ?? NaN)}%${byLength(b)}`).join('');
    const oracle = i.metric === 'loss' ? `${f2(i.oracleAt(T, 'oracleLoss') ?? i.oracle.loss)} nats` : `${pct(i.oracleAt(T, 'oracleAccuracy') ?? i.oracle.accuracy)}%`;
    const target = i.target != null ? (i.metric === 'loss' ? `loss ≤ ${f2(i.target.loss ?? i.target)}` : `accuracy ≥ ${pct(i.target.accuracy ?? i.target)}%`)
      : `${pct(RULES.learnedShare)}% of floor→oracle`;
    const role = i.role ?? (gridControl.includes(t) ? 'control (NoPE solves it: content alone)' : '—');
    out(`| ${t} | ${role} | ${i.needsPosition == null ? '—' : i.needsPosition ? 'yes' : 'no'} | ${i.metric} | ${pct1(i.chance.accuracy)}% / ${f2(i.chance.loss)} nats | ` +
      `${fl} | ${oracle} | ${target} | ${dash(i.what)} | ${dash(i.cannot)} |`);
  }
  out();

  out('![Accuracy against length, per task and encoding](figures/accuracy-vs-length.png)');
  out();
  for (const task of tasks) {
    const i = info[task], fl = floorOf(i), isLoss = i.metric === 'loss';
    out(`## ${task}${i.role === 'control' || gridControl.includes(task) ? ' (control)' : ''}`);
    out();
    if (isLoss) {
      out(`Loss in nats (perplexity = e^loss) against length, Press-style; the verdict reads the gain over the ${fl.lossName} floor (${f2(fl.loss)} nats).`);
      out();
      out(`![${task}: loss against length with oracle and floors](figures/${task}-loss.png)`);
    } else {
      out(`Accuracy in %; the verdict reads accuracy above ${floorText(results, i)}.`);
    }
    out();
    out(`| row | seed article says | learned (seeds) | ${MULTIPLES.map((m) => `${m}× (T=${m * T})`).join(' | ')} | kept at ${RULES.verdictAt}× | verdict |`);
    out(`|---|---|---:|${MULTIPLES.map(() => '---:').join('|')}|---:|---|`);
    for (const row of rowsOf(results, task)) {
      const v = verdict(results, row, i);
      const cells = MULTIPLES.map((m) => cell(results, row, m * T, isLoss ? 'loss' : 'accuracy', isLoss ? lossFmt : accFmt));
      const kept = v.kept == null ? '—' : `${pct(v.kept)}%${v.split ? ` (${v.perSeed.map((s) => (s.learned ? pct(s.kept) : '*')).join(' / ')})` : ''}`;
      out(`| ${row.name} | ${CLAIMS[row.encoding]?.[0] ?? 'not rated'} | ${v.learnedSeeds} of ${v.seeds} | ${cells.join(' | ')} | ${kept} | ${verdictLabel(v)} |`);
    }
    const oracle = MULTIPLES.map((m) => i.oracleAt(m * T, isLoss ? 'oracleLoss' : 'oracleAccuracy'));
    if (isLoss) {
      out(`| *oracle* | | | ${oracle.map((o) => `*${f2(o)}*`).join(' | ')} | | the best any predictor can do |`);
      out(`| *${guessWords('uniform')}* | | | ${MULTIPLES.map(() => `*${f2(i.chance.loss)}*`).join(' | ')} | | chance |`);
      for (const f of i.floors.filter((x) => x.name !== 'uniform')) out(`| *${guessWords(f.name)}* | | | ${MULTIPLES.map(() => `*${f2(f.loss)}*`).join(' | ')} | | ${f.note ?? ''} |`);
      if (!i.floorsAvailable) out('| *unigram / bigram floors* | | | unavailable (v1) | | | |');
      out();
      out(`Perplexity: ${rowsOf(results, task).map((row) => `${row.name} ${MULTIPLES.map((m) => {
        const s = seedValues(results, row, m * T, 'loss');
        return s ? Math.exp(s.mean).toFixed(2) : 'n/a';
      }).join(' → ')}`).join('; ')} (at ${MULTIPLES.map((m) => `${m}×`).join(', ')}); ${guessWords('uniform')} ${Math.exp(i.chance.loss).toFixed(2)}.`);
    } else {
      if (oracle.some((o) => o != null && o < 0.999)) out(`| *oracle* | | | ${oracle.map((o) => `*${o == null ? 'n/a' : pct(o)}*`).join(' | ')} | | the best any predictor can do |`);
      for (const f of [...i.floors.filter((x) => x.byLength), ...(i.baselines ?? [])]) {
        out(`| *${guessWords(f.name)}* | | | ${MULTIPLES.map((m) => { const x = f.byLength.find((b) => b.length === m * T); return `*${x ? pct1(x.accuracy) : 'n/a'}*`; }).join(' | ')} | | ${f.note ?? ''}${i.floors.includes(f) ? '' : ' (a baseline, not a floor)'} |`);
      }
      for (const line of baselineVerdicts(results, task, i)) { out(); out(line); }
    }
    // Parameters in use that training never reached (results.json lengths[].untrainedParameters), per row.
    const untrained = rowsOf(results, task).map((row) => {
      const ls = row.runs.flatMap((r) => (r.lengths ?? []).filter((l) => (l.untrainedParameters?.count ?? 0) > 0).map((l) => ({ seed: r.seed, ...l })));
      if (!ls.length) return null;
      const ids = [...new Set(ls.flatMap((l) => l.untrainedParameters.ids ?? []))].sort((a, b) => a - b);
      const kind = [...new Set(ls.map((l) => l.untrainedParameters.kind).filter(Boolean))].join(', ');
      const lengths = [...new Set(ls.map((l) => l.length))].sort((a, b) => a - b);
      return `${row.name}: ${kind || 'parameters'} ${ids.join(', ')} never trained, used at length${lengths.length > 1 ? 's' : ''} ${lengths.join(', ')} (${new Set(ls.map((l) => l.seed)).size} of ${row.runs.length} seeds)`;
    }).filter(Boolean);
    if (untrained.length) {
      out();
      out(`Untrained parameters in use: ${untrained.join('; ')}.`);
    }
    out();
  }

  out('## Where the measurements disagree with the article');
  out();
  out(`Verdicts as above (kept share at ${RULES.verdictAt}×, above the floor, learned seeds only); the article’s “partial” for NoPE counts as limited or moderate.`);
  out();
  let disagreements = 0;
  for (const v of allVerdicts(results)) {
    const [claim, text] = CLAIMS[v.row.encoding] ?? [];
    if (!claim || v.row.variant || v.level == null) continue;
    const levels = claimLevels(claim);
    if (levels.includes(v.level)) continue;
    disagreements++;
    const better = LEVELS.indexOf(v.level) > Math.max(...levels.map((c) => LEVELS.indexOf(c)));
    out(`- **${v.row.name}, ${v.task}:** the article says ${text}; measured ${better ? 'better' : 'worse'}. ${verdictSentence(results, v)}`);
  }
  if (!disagreements) out('- None: every verdict matches the article on every task these models learned.');
  const noVerdict = allVerdicts(results).filter((v) => v.level == null);
  if (noVerdict.length) {
    out();
    out(`No verdict (did not learn at 1×, or the floor reaches or comes within ${pct(RULES.floorMargin)} points of the 1× score):`);
    out();
    for (const v of noVerdict) out(`- ${verdictSentence(results, v)}`);
  }
  out();

  const scaledTasks = tasks.filter((t) => rowsOf(results, t, { scaled: true }).length);
  if (scaledTasks.length) {
    out('## Extending RoPE at evaluation time');
    out();
    out('The trained models with a scaling applied at evaluation, factor = length / T (see `config.ropeScalings`' +
      `${config.variants ? ' and `config.variants`' : ''}); rows marked fine-tuned were trained further at the longer length.`);
    out();
    out('![RoPE scalings against length](figures/rope-scaling.png)');
    out();
    for (const task of scaledTasks) {
      const isLoss = info[task].metric === 'loss';
      out(`| ${task} (${isLoss ? 'loss, nats' : 'accuracy, %'}) | ${MULTIPLES.map((m) => `${m}×`).join(' | ')} | kept at ${RULES.verdictAt}× | verdict |`);
      out(`|---|${MULTIPLES.map(() => '---:').join('|')}|---:|---|`);
      const base = rowsOf(results, task).filter((r) => rowsOf(results, task, { scaled: true }).some((s) => s.encoding === r.encoding && s.variant === r.variant));
      for (const row of [...base, ...rowsOf(results, task, { scaled: true })]) {
        const v = verdict(results, row, info[task]);
        out(`| ${row.name} | ${MULTIPLES.map((m) => cell(results, row, m * T, isLoss ? 'loss' : 'accuracy', isLoss ? lossFmt : accFmt)).join(' | ')} | ` +
          `${v.kept == null ? '—' : `${pct(v.kept)}%`} | ${verdictLabel(v)} |`);
      }
      out();
    }
  }
  if (config.variants?.length) {
    out('Variants: ' + config.variants.map((v) => `${v.encoding} [${v.variant}]${v.scaling ? ` + ${v.scaling}` : ''}: ${v.note ?? ''}`).join('; ') + '.');
    out();
  }

  if (gridMain.length || gridControl.length) {
    out('## Lost in the middle?');
    out();
    out(`Accuracy by where the needle sits (depth 0 = the start of the context, farthest from the question at the end; the last depth is nearest), ` +
      `averaged over seeds, at each length from T. “far → near” gives depth 0 and the last depth; a shape is read at each length: recency (near ` +
      `beats far by more than ${pct(RULES.gradient)} points), primacy (the reverse), lost in the middle (a middle depth below both ends by more ` +
      `than ${pct(RULES.gradient)}), no depth effect (all depths within ${pct(RULES.gradient)}), or uneven.`);
    out();
    out('![Needle depth × length accuracy per encoding](figures/needle-grid.png)');
    out();
    const gridTable = (task, label) => {
      out(`### ${task} — ${label}`);
      out();
      if (info[task].what) out(`What it can show: ${info[task].what}.${info[task].cannot ? ` What it cannot: ${info[task].cannot}.` : ''}`), out();
      const gs = gridsOf(results, task);
      const Ls = depthEffect(gs[0], T).map((e) => e.length);
      out(`| row | ${Ls.map((L) => `${L / T}× far → near`).join(' | ')} | shape at ${Ls.at(-1) / T}× |`);
      out(`|---|${Ls.map(() => '---:').join('|')}|---|`);
      for (const g of gs) {
        const eff = depthEffect(g, T);
        out(`| ${g.row.name}${g.learnedSeeds === 0 ? ' (did not learn)' : g.learnedSeeds < g.seeds ? ` (${g.learnedSeeds} of ${g.seeds} seeds)` : ''} | ${eff.map((e) => `${pct(e.far)} → ${pct(e.near)}`).join(' | ')} | ${g.learnedSeeds === 0 ? '—' : eff.at(-1).shape} |`);
      }
      out();
      for (const g of gs) out(`- ${gradientSentence(g, T)}`);
      out();
    };
    for (const t of gridMain) gridTable(t, 'needs position');
    for (const t of gridControl) gridTable(t, 'control: content alone solves it, so it cannot show position effects');
  }

  out('## The literature side by side');
  out();
  out('The papers’ numbers are quoted only where their text was checked (source given); anything else is marked not verified. ' +
    'Our number and the verdict are computed from results.json by the rule in the last column.');
  out();
  const lit = literature(results), cur = lit[0].version, prevVersion = lit[0].previous?.version;
  out('A verdict says whether these numbers agree with the paper’s claim at this scale (“agrees” / “does not agree”), or that the ' +
    'setup does not test the claim faithfully (the rule’s outcome is given in brackets), or that a row the rule needs was not run. ' +
    'None is a refutation of a paper’s own results: the setup differences that remain are listed in each row.');
  out();
  const [cv] = results.rules.filter((r) => r.version === cur);
  out(`The rules are the frozen version of ${cur} (the one source of each rule’s claim, comparison, statistic, thresholds, seeds and steps; listed below the table). ${cv.frozen}`);
  out();
  out(`Every verdict is computed under three statistics: ${Object.entries(cv.statistics).map(([k, v]) => `**${STAT_WORDS[k]}** (${v})`).join('; ')}. ` +
    `The verdict column gives the rule’s own statistic; a verdict that differs between the three says **near the line**. Intervals: ${cv.interval}.`);
  out();
  out(`| paper | claim as the paper states it | setup | reported | setup differences that remain | ours (this results.json) | verdict (rules of ${cur}) | under each statistic |${prevVersion ? ` verdict under the rules of ${prevVersion} |` : ''}`);
  out(`|---|---|---|---|---|---|---|---|${prevVersion ? '---|' : ''}`);
  for (const p of lit) {
    out(`| ${p.paper} | ${p.claim ?? '—'} Source: ${p.claimSource ?? p.source} | ${p.setup} | ${p.reported} Source: ${p.source} | ${p.differences}${p.why ? `. Not faithful: ${p.why}` : ''} | ${p.text} | ` +
      `**${p.label}** | ${sensitivityText(p) || '—'}${p.drift.length ? `; the runs differ from the frozen setting: ${p.drift.join(', ')}` : ''} |${prevVersion ? ` ${p.previous.verdict} |` : ''}`);
  }
  out();
  out(`### The rules as frozen (${cur})`);
  out();
  for (const p of lit) {
    const r = cv.papers[p.id];
    out(`- **${p.paper}** — counted: ${r.counted}. ${r.shown?.length ? `Shown, not counted: ${r.shown.join('; ')}. ` : ''}Statistic: ${STAT_WORDS[r.statistic]}. ` +
      `Thresholds: ${Object.entries(r.thresholds).map(([k, v]) => `${k} ${pct(v)} points`).join(', ')}. Setting: ${r.setting.experiment === 'main' ? 'the main experiment' : `the ${r.setting.experiment} experiment`}, ` +
      `${Object.entries(r.setting.expect).map(([k, v]) => `${k} = ${v}`).join(', ')}. Rule: ${r.rule}.`);
  }
  out();
  for (const line of attentionSection(results)) out(line);
  for (const line of spectrumSection(results.experiments?.spectrum, results)) out(line);
  for (const line of zeroShotSection(zeroShot)) out(line);
  for (const line of kazemnejadSection(results)) out(line);
  for (const line of ruossSection(results)) out(line);

  const near = nearTheLine(results);
  if (near.length) {
    out('## Rows that need more seeds');
    out();
    const few = near.filter((n) => n.seeds < 5).length;
    out(`Verdicts that sit near a rule’s line (kept within ${pct(RULES.nearLine)} points of a level’s threshold, seeds that disagree, or one learned seed): ` +
      `${near.length} rows; ${few ? `${few} of them have fewer than 5 seeds and need more before their verdict is cited` : 'each has 5 or more seeds'}. ` +
      'The 95% confidence interval of the mean kept share is a t interval over the learned seeds.');
    out();
    for (const n of near) {
      out(`- ${n.row}, ${n.task} (${n.seeds} seeds): ${n.why.join('; ')}` +
        `${n.ci ? `; 95% interval of the kept share ${pct(n.ci.low)}% to ${pct(n.ci.high)}% (${n.ci.seeds} learned seeds)` : ''}.`);
    }
    out();
    const byTask = new Map();
    for (const n of near) byTask.set(n.task, new Set([...(byTask.get(n.task) ?? []), n.encoding]));
    const seeds = Math.max(...near.map((n) => n.seeds)), extra = Math.max(0, 5 - seeds);
    if (extra) {
      out(`The runs that add seeds ${seeds}–${seeds + extra - 1} to them (no other run is repeated; without the RoPE scalings, whose rows keep their ${seeds} seeds), then the merge into results.json:`);
      out();
      out('```');
      for (const [task, encs] of byTask) {
        const variants = near.some((n) => n.task === task && n.variant) ? '' : ' --no-variants';
        out(`build/native/posenc_train --out /tmp/seeds-${task} --tasks ${task} --encodings ${[...encs].join(',')} --first-seed ${seeds} --seeds ${extra} --no-scalings${variants}`);
        out(`node scripts/results-merge.js /tmp/seeds-${task}/docs/results.json`);
      }
      out('node scripts/results-md.js && node scripts/page-results.js');
      out('```');
      out();
    }
  }

  out('## Closing note: what changed, and which results held');
  out();
  const changed = changedVerdicts(results);
  out(`The old rule (no floor: mean accuracy at ${RULES.verdictAt}× over mean accuracy at 1×, “learned” at half the oracle) against the ` +
    `floor-corrected, per-seed rule above: ${changed.length} of ${allVerdicts(results).length} verdicts change.`);
  out();
  for (const c of changed) {
    out(`- ${c.row}, ${c.task}: ${c.old}${c.oldKept == null ? '' : ` (${pct(c.oldKept)}% kept)`} → ${c.now}${c.kept == null ? '' : ` (${pct(c.kept)}% kept)`}: ${c.why}.`);
  }
  out();
  const byFloor = lengthFloorChanges(results);
  const word = (v) => (v.level ?? (v.floorSolves ? 'no verdict (floor within reach of 1×)' : v.learnedSeeds ? 'no verdict' : 'did not learn'));
  out(`The length-dependent floors (copy and reverse: the most frequent input symbol, and content matching where it is higher, measured at each length) against the ` +
    `length-independent floors alone: ${byFloor.length} verdict${byFloor.length === 1 ? '' : 's'} change.`);
  out();
  for (const c of byFloor) {
    out(`- ${c.row}, ${c.task}: ${word(c.old)}${c.old.kept == null ? '' : ` (${pct(c.old.kept)}% kept)`} → ${word(c.now)}` +
      `${c.now.kept == null ? '' : ` (${pct(c.now.kept)}% kept)`}: accuracy above ${floorText(results, c.now.info)}.`);
  }
  if (byFloor.length) out();
  const added = addedRuns(results);
  if (added.length) {
    out('Experiments added to this results.json after the main run (seconds: each run’s own wall time, summed over its runs; one thread a run, ' +
      'so on an idle machine this is its CPU time, on a shared one more):');
    out();
    for (const a of added) out(`- ${a.what}: ${a.runs} runs, ${Math.round(a.seconds)} s.`);
    out();
  }
  const litChanged = changedLiterature(results);
  out(`Literature verdicts under the frozen rules of ${cur} against the rules of ${prevVersion ?? '(none)'}: ${litChanged.length} change in their words or in what they count.`);
  out();
  const counted = (v) => (v.value ? ` (${v.value})` : '');
  for (const c of litChanged) out(`- ${c.paper}: ${c.old.label}${counted(c.old)} → ${c.now.label}${counted(c.now)}. Counted now: ${c.now.counted}.`);
  out();
  for (const p of lit) out(`- ${p.paper}: **${p.label}** — ${sensitivityText(p) || p.text}.`);
  out();
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = new URL('..', import.meta.url).pathname;
  const input = process.argv[2] ?? `${root}docs/results.json`;
  const output = process.argv[3] ?? `${root}docs/results.md`;
  const zeroShotFile = join(dirname(input), 'lm-zero-shot.json'); // beside the input (scripts/lm-zero-shot.js: needs ../shared)
  const zeroShot = existsSync(zeroShotFile) ? JSON.parse(readFileSync(zeroShotFile, 'utf8')) : null;
  writeFileSync(output, render(readResults(input), { zeroShot }));
  console.log(`wrote ${output}`);
}
