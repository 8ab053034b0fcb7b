// The "Kazemnejad et al.'s copy tasks at their small size" section of docs/results.md (scripts/results-md.js):
// results.experiments.kazemnejad (posenc_kazemnejad) task × encoding, ours beside the paper's own small-model rows,
// and sentences computed from them (the comparison itself is web/app/story/kazemnejad.js's, as the literature row's).
import { KZ_TASKS, KZ_TASK_WORDS, kzExperiment, kzPaperRow, kzRow, kzVerdict } from '../web/app/story/kazemnejad.js';

const p1 = (x) => (x == null ? '–' : `${(100 * x).toFixed(1)}`);
const NAMES = { none: 'NoPE', sinusoidal: 'sinusoidal (APE)', t5: 'T5 bias', alibi: 'ALiBi', rope: 'RoPE' };
const SHOWN_LENGTHS = [21, 25, 30, 35, 40];

/** The section's lines; empty without the experiment. */
export function kazemnejadSection(results) {
  const exp = kzExperiment(results);
  if (!exp) return [];
  const lines = [], out = (s = '') => lines.push(s);
  const s = exp.setup, encs = [...new Set(exp.runs.map((r) => r.encoding))];
  const tasks = KZ_TASKS.filter((t) => exp.tasks[t]);
  const cpu = s.cpuSeconds;

  out('## Kazemnejad et al.’s copy tasks at their small size');
  out();
  out(`Their three copy tasks in their own formats and length splits: cmc (${KZ_TASK_WORDS.cmc}), rsc (${KZ_TASK_WORDS.rsc}) and rdc ` +
    `(${KZ_TASK_WORDS.rdc}), trained on lengths ${s.trainLengths[0]}–${s.trainLengths[1]} and tested on ${s.testLengths[0]}–${s.testLengths[1]}, ` +
    `at their smallest model size (${s.layers} layers, d_model ${s.dModel}, ${s.heads} heads), ${s.seeds} seeds per row, ${s.steps.toLocaleString('en-US')} steps of ${s.batch}. ` +
    'A test example counts only if the whole answer is right, its end included (exact match). Scored with teacher forcing, which gives greedy ' +
    'decoding’s exact match: greedy decoding first goes wrong exactly where teacher forcing first does. `npm run train:kazemnejad` reruns it' +
    `${cpu != null ? ` (${Math.round(cpu / 60)} CPU-minutes, one thread)` : ''}.`);
  out();
  out('Theirs: the paper’s own small-model rows (the same size, from the results table in their repository, which has no ALiBi or RoPE rows at any size). ' +
    '“At 4–20”: exact match on held-in examples of the training lengths; a seed has learned when it is above 10%.');
  out();
  out('| task | encoding | ours at 21–40: mean (max) | per seed | ours at 4–20 | learned | ours per token | theirs at 21–40 | theirs at 4–20 |');
  out('|---|---|---:|---|---:|---:|---:|---:|---:|');
  for (const task of tasks) {
    for (const enc of encs) {
      const row = kzRow(exp, task, enc);
      if (!row) continue;
      const th = kzPaperRow(exp, task, enc);
      out(`| ${task} | ${NAMES[enc] ?? enc} | ${p1(row.mean)} (${p1(row.max)}) | ${row.perSeed.map(p1).join(', ')} | ${p1(row.train)} | ` +
        `${row.learned} of ${row.seeds} | ${p1(row.token)} | ${th ? `${p1(th.testExact)} ± ${p1(th.testExactStd)} (${th.seeds} seeds)` : '–'} | ${th ? p1(th.trainExact) : '–'} |`);
    }
  }
  out();
  out('Exact match (%) by test length, mean over seeds:');
  out();
  out(`| task | encoding | ${SHOWN_LENGTHS.join(' | ')} |`);
  out(`|---|---|${SHOWN_LENGTHS.map(() => '---:').join('|')}|`);
  for (const task of tasks) {
    for (const enc of encs) {
      const row = kzRow(exp, task, enc);
      if (!row) continue;
      out(`| ${task} | ${NAMES[enc] ?? enc} | ${SHOWN_LENGTHS.map((L) => p1(row.lengths.find((l) => l.length === L)?.exact)).join(' | ')} |`);
    }
  }
  out();

  // the newest frozen rule (docs/rules/*.json): a task counts only when it is informative
  const rule = [...(results.rules ?? [])].sort((a, b) => a.version.localeCompare(b.version)).at(-1)?.papers.kazemnejad2023;
  const v = kzVerdict(exp, { stat: rule?.statistic ?? 'mean', informative: rule?.form === 'kazemnejad-informative' ? rule.thresholds.informative : null });
  for (const t of v.tasks) {
    if (t.skipped) {
      out(`- ${t.task}: ${t.skipped}, so it is not compared.`);
      continue;
    }
    const list = (scores) => Object.entries(scores).map(([e, x]) => `${NAMES[e]} ${p1(x.mean)} ± ${p1(x.std)}%`).join(', ');
    out(`- ${t.task}: NoPE is ${t.oursFirst ? '' : 'not '}first beyond the seeds’ spread here (learned seeds: ${list(t.ours)}) ` +
      `and ${t.theirsFirst ? '' : 'not '}first in their small rows (${list(t.theirs)}): ` +
      `${t.agree ? 'the same' : 'not the same'}.`);
  }
  const c = v.control;
  if (c) {
    out(`- rsc is NoPE’s positive control: its answer needs no order, only the number of repeats, which a causal model without positions can ` +
      `read from its context. NoPE learned it on ${c.learned} of ${c.seeds} seeds (${p1(c.train)}% exact at the training lengths, ${p1(c.test)}% at 21–40)` +
      `${c.learned ? '' : ', so no task is compared'}.`);
  }
  const levels = tasks.map((t) => ({ t, ours: kzRow(exp, t, 'none'), theirs: kzPaperRow(exp, t, 'none') })).filter((x) => x.ours && x.theirs);
  if (levels.length) {
    out(`- The agreement is in which encoding comes first, not in the levels: NoPE’s exact match at 21–40 is ` +
      `${levels.map((x) => `${p1(x.ours.mean)}% on ${x.t} (theirs ${p1(x.theirs.testExact)}%)`).join(', ')}, ` +
      `from ${(100 * (s.steps * s.batch) / (exp.paper.training.steps * exp.paper.training.batch)).toFixed(2)}% of their training examples and a smaller vocabulary.`);
  }
  out(`- Verdict: **${v.verdict === 'not tested here' ? v.verdict : `${v.verdict} with the paper’s small-model rows in this setup`}**` +
    `${v.compared ? ` (${v.agreeing} of ${v.compared} tasks compared answer as theirs)` : ''}. Their 138M-parameter rows ` +
    `(${tasks.map((t) => `${t}: NoPE ${p1(kzPaperRow(exp, t, 'none', 'base')?.testExact)}%`).join(', ')}) are not tested here.`);
  out();
  return lines;
}

/** The closing note's line for this experiment (results-md.js addedRuns): its runs and CPU seconds. */
export function kazemnejadAdded(exp) {
  const s = exp.setup;
  return { what: `Kazemnejad et al.’s copy tasks at their small size (${exp.tasks?.length ?? 3} tasks × ${new Set(exp.runs.map((r) => r.encoding)).size} encodings × ${s.seeds} seeds; CPU time on one thread, not wall time)`,
    runs: exp.runs.length, seconds: s.cpuSeconds };
}
