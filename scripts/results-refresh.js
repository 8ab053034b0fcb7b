// Recomputes the members of docs/results.json that need no training, in place, from the C++ core
// (build/native/posenc_train), keeping every other byte of the file:
//   "tasks"            chance, floors (with the bag-of-tokens floor of copy and reverse at each evaluation
//                      length), oracle and target: `posenc_train --print-tasks`;
//   "checkpointProbe"  the shipped checkpoints (web/checkpoints, seed 0) through the same evaluation, plain and
//                      with log-length logit scaling, with attention entropy and first-token (sink) mass per
//                      length: `posenc_train --probe-checkpoints`.
// The flags passed come from the file's own config, so the numbers are those of its evaluation sequences.
// Run by `npm run train` after training; also alone: node scripts/results-refresh.js [results.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';

const RUNS = '\n"runs":[';

/** posenc_train's flags that fix the evaluation data and the tasks of a results.json. */
export function flagsOf(results, root) {
  const c = results.config;
  return ['--out', root, '--length', String(c.trainLength), '--eval-sequences', String(c.evaluation.sequences),
    '--tasks', c.tasks.join(','), '--encodings', c.encodings.join(',')];
}

/** `text` (a results.json as posenc_train writes it) with its tasks and checkpointProbe members replaced. */
export function splice(text, tasks, probe) {
  const start = text.indexOf('\n"tasks":{'), runs = text.indexOf(RUNS);
  if (start < 0 || runs < 0 || runs < start) throw new Error('results.json: no "tasks" member before "runs" at the start of a line');
  return `${text.slice(0, start + 1)}${tasks},\n${probe ? `${probe},\n` : ''}${text.slice(runs + 1)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = new URL('..', import.meta.url).pathname;
  const file = process.argv[2] ?? `${root}docs/results.json`;
  const text = readFileSync(file, 'utf8'), before = JSON.parse(text);
  const bin = `${root}build/native/posenc_train`, flags = flagsOf(before, root);
  const run = (what) => execFileSync(bin, [...flags, what], { encoding: 'utf8', maxBuffer: 1 << 28 }).trim();
  const t0 = process.hrtime.bigint();
  const tasks = run('--print-tasks'), probe = run('--probe-checkpoints');
  const next = splice(text, tasks, probe), after = JSON.parse(next);
  for (const k of ['version', 'config', 'runs']) {
    if (!isDeepStrictEqual(before[k], after[k])) throw new Error(`results-refresh: "${k}" would change; nothing written`);
  }
  writeFileSync(file, next);
  console.log(`wrote ${file} (tasks and checkpointProbe; ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} s)`);
}
