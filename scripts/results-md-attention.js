// The "Attention against length" section of docs/results.md (scripts/results-md.js): attention entropy and the
// attention mass on the first token (the sink) against length, and the effect of log-length logit scaling at
// evaluation. Every number comes from results.json: the runs' per-head statistics (lengths[].heads) and, for what
// the training run did not record, results.json's checkpointProbe (the shipped seed-0 checkpoints run through the
// same evaluation by `posenc_train --probe-checkpoints`, written there by scripts/results-probe.js).
import { MULTIPLES, RULES, pct, pct1, tasksOf, taskInfo, rowsOf, floorOf, guessWords } from '../web/app/shared/results-words.js';

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f2 = (x) => (x == null ? 'n/a' : x.toFixed(2));
const lengthOf = (r, L) => r.lengths?.find((l) => l.length === L);

/** Mean over a run's heads of one head statistic at length L, or null when the run did not record it. */
function headMean(r, L, field) {
  const hs = lengthOf(r, L)?.heads ?? [];
  const xs = hs.map((h) => h[field]).filter((x) => x != null);
  return xs.length ? mean(xs) : null;
}

/** A row's head statistic at L, averaged over its seeds (null when no seed recorded it). */
function rowHeadMean(row, L, field) {
  const xs = row.runs.map((r) => headMean(r, L, field)).filter((x) => x != null);
  return xs.length ? mean(xs) : null;
}

const probeRun = (results, task, encoding) => results.checkpointProbe?.runs?.find((p) => p.task === task && p.encoding === encoding);

/** The section's lines (empty when results.json holds no attention statistics). */
export function attentionSection(results) {
  const T = results.config.trainLength, lines = [], out = (s = '') => lines.push(s);
  const Ls = MULTIPLES.map((m) => m * T).filter((L) => results.config.evalLengths.includes(L));
  const tasks = tasksOf(results).filter((t) => rowsOf(results, t).some((row) => row.runs.some((r) => headMean(r, T, 'entropy') != null)));
  const probe = results.checkpointProbe;
  if (!tasks.length && !probe) return lines;
  out('## Attention against length');
  out();
  out(`Attention entropy in nats (−Σ p ln p over the keys a query attends to, averaged over the query rows and every head and layer, ` +
    `on ${results.config.evaluation?.attentionSequences ?? 'a few'} evaluation sequences per length), and the sink: the attention mass on the first token ` +
    `(BOS), averaged over the query rows after it and every head. Uniform attention over L keys has entropy ln L ` +
    `(${Ls.map((L) => `${f2(Math.log(L))} at ${L / T}×`).join(', ')}); the mean over query rows of uniform causal attention is lower. ` +
    `Entropy is averaged over every seed of a row; so is the sink where the runs recorded it${probe ? `, else it comes from the row’s shipped checkpoint (${probe.weights})` : ''}; — where neither has it.`);
  out();
  for (const task of tasks) {
    const rows = rowsOf(results, task).filter((row) => !row.finetune);
    const sinkOf = (row, L) => rowHeadMean(row, L, 'sink') ??
      (row.variant ? null : probeRun(results, task, row.encoding)?.lengths.find((l) => l.length === L)?.sink ?? null);
    const hasSink = rows.some((row) => sinkOf(row, T) != null);
    out(`| ${task} | ${Ls.map((L) => `entropy ${L / T}×`).join(' | ')}${hasSink ? ` | ${Ls.map((L) => `sink ${L / T}×`).join(' | ')}` : ''} |`);
    out(`|---|${Ls.map(() => '---:').join('|')}${hasSink ? `|${Ls.map(() => '---:').join('|')}` : ''}|`);
    for (const row of rows) {
      const e = Ls.map((L) => f2(rowHeadMean(row, L, 'entropy')));
      const s = hasSink ? ` | ${Ls.map((L) => { const x = sinkOf(row, L); return x == null ? '—' : `${pct(x)}%`; }).join(' | ')}` : '';
      out(`| ${row.name} | ${e.join(' | ')}${s} |`);
    }
    out();
    const grow = rows.map((row) => ({ name: row.name, a: rowHeadMean(row, T, 'entropy'), b: rowHeadMean(row, Ls.at(-1), 'entropy') }))
      .filter((x) => x.a != null && x.b != null).sort((x, y) => (y.b - y.a) - (x.b - x.a));
    if (grow.length > 1 && grow[0].b - grow[0].a > grow.at(-1).b - grow.at(-1).a) {
      out(`${task}: from 1× to ${Ls.at(-1) / T}× the entropy rises most for ${grow[0].name} (${f2(grow[0].a)} → ${f2(grow[0].b)} nats) ` +
        `and least for ${grow.at(-1).name} (${f2(grow.at(-1).a)} → ${f2(grow.at(-1).b)}).`);
      out();
    }
  }
  if (probe?.runs?.length) {
    out('### Log-length logit scaling at evaluation');
    out();
    out(`The shipped checkpoints (${probe.weights}) evaluated plain and with every attention logit’s q·k term multiplied by ln L / ln ${T} ` +
      'at lengths L past training (additive position biases unscaled), on the same evaluation sequences; no training. ' +
      `A row “helps” at a length when the scaled score beats the plain one by more than ${pct(RULES.paperMargin)} points (loss: by more than ${pct(RULES.paperMargin)}% of the plain loss).`);
    out();
    const longer = Ls.filter((L) => L > T);
    for (const task of tasksOf(results)) {
      const runs = probe.runs.filter((p) => p.task === task);
      if (!runs.length) continue;
      const loss = taskInfo(results, task).metric === 'loss', field = loss ? 'loss' : 'accuracy';
      const fmt = (x) => (x == null ? 'n/a' : loss ? f2(x) : pct(x));
      out(`| ${task} (${loss ? 'loss, nats' : 'accuracy, %'}; plain → scaled) | ${longer.map((L) => `${L / T}×`).join(' | ')} |`);
      out(`|---|${longer.map(() => '---:').join('|')}|`);
      let helps = 0, hurts = 0, cells = 0;
      for (const p of runs) {
        const cellsOf = longer.map((L) => {
          const a = p.lengths.find((l) => l.length === L)?.[field], b = p.logLength.find((l) => l.length === L)?.[field];
          if (a == null || b == null) return 'n/a';
          cells++;
          const d = loss ? (a - b) / a : b - a;
          if (d > RULES.paperMargin) helps++;
          else if (d < -RULES.paperMargin) hurts++;
          return `${fmt(a)} → ${fmt(b)}`;
        });
        out(`| ${p.encoding} | ${cellsOf.join(' | ')} |`);
      }
      out();
      const fl = floorOf(taskInfo(results, task), T);
      out(`${task}: the scaling helps in ${helps} and hurts in ${hurts} of ${cells} (encoding, length) cells` +
        `${loss ? '' : ` (${guessWords(fl.accuracyName)} scores ${pct1(fl.accuracy)}% at 1×)`}.`);
      out();
    }
  }
  return lines;
}
