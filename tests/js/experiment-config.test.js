// The page's experiment settings (web/app/experiment.js) must equal the ones
// `npm run train` recorded, or shipped checkpoints stop matching the page and
// "Retrain" stops reproducing the experiment.
import { readFileSync } from 'node:fs';
import { EXPERIMENT } from '../../web/app/experiment.js';

const { config } = JSON.parse(readFileSync(new URL('../../docs/results.json', import.meta.url), 'utf8'));

test('page training settings equal the recorded experiment', () => {
  expect(EXPERIMENT.mlpRatio).toBe(config.model.mlpRatio);
  expect(EXPERIMENT.lr).toBe(config.lr);
  expect(EXPERIMENT.minLr).toBe(config.minLr);
  expect(EXPERIMENT.warmup).toBe(config.warmup);
  expect(EXPERIMENT.batch).toBe(config.batch);
  for (const task of config.tasks) {
    const { vocabSize, ...recorded } = config.taskOptions[task];
    expect(EXPERIMENT.taskOptions[task]).toEqual(recorded);
  }
});
