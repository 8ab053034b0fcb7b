// The "Ruoss et al. 2023 in its own setup" section of docs/results.md (scripts/results-md.js): the replication that
// posenc_ruoss writes (docs/experiments/ruoss.json, results.experiments.ruoss), its table and the comparisons the
// literature row's verdict rests on (web/app/story/literature-ruoss.js).
import { ruossComparisons, ruossFloors, ruossRow } from '../web/app/story/literature-ruoss.js';

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (x) => `${Math.round(100 * x)}`;
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(Math.round(100 * x))}`;

/** The section's lines; empty without the experiment. */
export function ruossSection(results) {
  const exp = results.experiments?.ruoss;
  if (!exp) return [];
  const c = exp.config, m = c.model, lines = [], out = (s = '') => lines.push(s);
  const floors = ruossFloors(exp);
  out('## Ruoss et al. 2023 in its own setup (randomized positions)');
  out();
  out(`A bidirectional encoder (${m.layers} layers, d_model ${m.dModel}, ${m.heads} heads, no causal mask) reads a binary string of n symbols followed by one blank slot per output symbol ` +
    `and predicts every output at once at the blanks, as in the paper. Each training step draws one n from ${c.trainLengths[0]}–${c.trainLengths[1]} (${c.steps} steps of ${c.batch} strings, AdamW at lr ${c.lr}). ` +
    `The test lengths are n = ${c.testLengths.join(', ')}; the longest duplicate sequence is ${3 * c.testLengths.at(-1)} tokens. rope and rope_random use the same base (${m.ropeBase}). ` +
    `Randomized positions are sorted draws from [0, ${m.randomLength}), made for each example, fresh every step, and ${c.draws} draws per test length (${c.sequencesPerDraw} strings each). ` +
    `The learned tables have ${m.maxLength} rows. Score: ${c.score}. ` +
    `A model that ignores position can predict the input's majority symbol: ${pct(floors.train)}% at the training lengths, ${pct(floors.test)}% at the test lengths. ` +
    `A seed counts as learned when it beats the training-length floor by more than 10 points. \`npm run train:ruoss\` reproduces it (${exp.seconds != null ? `${exp.cpuSeconds != null ? `${Math.round(exp.cpuSeconds / 60)} CPU-minutes, ` : ''}${Math.round(exp.seconds)} s wall with ${exp.jobs} job${exp.jobs === 1 ? '' : 's'}` : 'timing not recorded'}).`);
  out();
  out('| task | encoding | test accuracy per seed | mean | max | training-length accuracy (mean) | seeds learned |');
  out('|---|---|---|---:|---:|---:|---:|');
  for (const task of c.tasks)
    for (const enc of c.encodings) {
      const r = ruossRow(exp, task, enc);
      if (!r) continue;
      out(`| ${task} | ${enc} | ${r.perSeed.map((x) => `${pct(x)}%`).join(', ')} | ${pct(r.mean)}% | ${pct(r.max)}% | ${pct(mean(r.trainPerSeed))}% | ${r.learned} of ${r.seeds} |`);
    }
  out();
  const k = ruossComparisons(exp);
  if (k.holds == null) out(`- No randomized encoding could be compared with its plain version: ${k.skipped.join('; ')}.`);
  for (const x of k.comparisons)
    out(`- ${x.task}: ${x.rand.encoding} against ${x.plain.encoding}, over the seeds that learned: max ${pct(x.rand.learnedMax)}% against ${pct(x.plain.learnedMax)}% (${signed(x.gain)} points), ` +
      `mean ${pct(x.rand.learnedMean)}% against ${pct(x.plain.learnedMean)}% (${signed(x.meanGain)}).`);
  if (k.holds != null) for (const s of k.skipped) out(`- Not compared: ${s}.`);
  const best = Math.max(...exp.runs.map((r) => r.testAccuracy));
  out(`- At the test lengths the majority floor is ${pct(floors.test)}%; the best test score of any run is ${pct(best)}% (${signed(best - floors.test)} points).`);
  if (k.holds != null)
    out(`- ${k.comparisons.length === 1 ? 'In the one comparison' : `Averaged over the ${k.comparisons.length} comparisons`}, the randomized encodings gain ${signed(k.gain)} points in the max over seeds and ${signed(k.meanGain)} in the mean. ` +
      `The paper reports +12.0 on average over its 15 tasks. The rule (more than 10 points) says this ${k.holds ? 'agrees' : 'does not agree'} with the paper's claim in this setup.`);
  out(`- Differences that remain: ${exp.differences.join('; ')}.`);
  out();
  return lines;
}

/** The closing note's line for this experiment (results-md.js addedRuns): its runs and their CPU time (wall time where an older file has no CPU time). */
export function ruossAdded(exp) {
  const c = exp.config, cpu = exp.cpuSeconds != null;
  return { what: `the Ruoss et al. replication (${c.tasks.length} binary tasks, bidirectional, ${c.encodings.length} encodings; ${cpu ? `CPU time, one thread a run (${Math.round(exp.seconds)} s wall with ${exp.jobs} at once)` : `wall time of ${exp.jobs} runs at once on a shared machine, not CPU time`})`,
    runs: exp.runs.length, seconds: cpu ? exp.cpuSeconds : exp.seconds };
}
