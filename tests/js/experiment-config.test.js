// The page's experiment settings (web/app/shared/experiment.js) must equal the ones
// `npm run train` recorded, or shipped checkpoints stop matching the page and
// "Retrain" stops reproducing the experiment.
import { readFileSync } from 'node:fs';
import { EXPERIMENT } from '../../web/app/shared/experiment.js';
import { OPTIMIZER_SCHEMA } from '../../web/lib/index.js';
import { SCHEMA } from '../../web/app/shared/state.js';

const { config, tasks } = JSON.parse(readFileSync(new URL('../../docs/results.json', import.meta.url), 'utf8'));

test('page training settings equal the recorded experiment', () => {
  expect(EXPERIMENT.mlpRatio).toBe(config.model.mlpRatio);
  expect(EXPERIMENT.lr).toBe(config.lr);
  expect(EXPERIMENT.minLr).toBe(config.minLr);
  expect(EXPERIMENT.warmup).toBe(config.warmup);
  expect(EXPERIMENT.batch).toBe(config.batch);
  expect(EXPERIMENT.steps).toBe(config.steps);
  expect(EXPERIMENT.checkEvery).toBe(config.earlyStop.checkEvery);
  expect(EXPERIMENT.stopMargin).toBe(config.earlyStop.margin);
  expect(EXPERIMENT.evalSequences).toBe(config.evaluation.sequences);
  for (const [k, v] of Object.entries(EXPERIMENT.model)) expect([k, v]).toEqual([k, config.model[k]]);
  expect(EXPERIMENT.modelByEncoding).toEqual(config.modelByEncoding);
  // the page's default model shape is the shipped checkpoints' (else no default setting has a checkpoint)
  for (const k of ['layers', 'heads', 'dModel']) expect([k, SCHEMA[k].def]).toEqual([k, config.model[k]]);
  expect(SCHEMA.trainLength.def).toBe(config.trainLength);
  // AdamW: the page and train() use the module's defaults (the C++ AdamWOptions), which must be the
  // recorded ones (float32 values, recorded exactly).
  const adamw = Object.fromEntries(OPTIMIZER_SCHEMA.map((f) => [f.name, f.default]));
  expect(adamw.beta2).toBe(Math.fround(config.beta2));
  expect(adamw.weightDecay).toBe(Math.fround(config.weightDecay));
  for (const task of config.tasks) {
    const { vocabSize, ...recorded } = config.taskOptions[task];
    expect(EXPERIMENT.taskOptions[task]).toEqual(recorded);
    // the early stop's target (results.json tasks[task].target)
    if (tasks[task].metric === 'loss') expect(EXPERIMENT.markovMargin).toBe(tasks[task].target.marginOverOracle);
    else expect(EXPERIMENT.targets[task]).toBe(tasks[task].target);
  }
  expect(Object.keys(EXPERIMENT.taskOptions).sort()).toEqual([...config.tasks].sort());
});

test('the early stop\'s held-out batch equals the recorded one (config.earlyStop.batch, in words)', () => {
  // "1024 full-length sequences (retrievals), else 64; seed 6000 + seed"
  const m = /^(\d+) full-length sequences \(retrievals\), else (\d+); seed (\d+) \+ seed$/.exec(config.earlyStop.batch);
  expect(m).not.toBeNull();
  const [, retrievals, others, seed] = m.map(Number);
  for (const task of config.tasks)
    expect([task, EXPERIMENT.checkSequences[task]]).toEqual([task, task.includes('retrieval') ? retrievals : others]);
  expect(Object.keys(EXPERIMENT.checkSequences).sort()).toEqual([...config.tasks].sort());
  expect(EXPERIMENT.checkSeed).toBe(seed);
});
