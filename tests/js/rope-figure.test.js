// The RoPE figures' parameters before the model is loaded are those of the model the page trains
// (trainer.js trainRequest): the experiment's RoPE base (16, not the formula's 10000) and dModel / heads.
import { ropeFigureModel, scalingWords } from '../../web/app/lab/rope-figure.js';
import { EXPERIMENT } from '../../web/app/shared/experiment.js';

const state = (o = {}) => ({ task: 'copy', seed: 1, trainLength: 32, layers: 3, heads: 4, dModel: 32, steps: 100, ropeScaling: 'none', factor: 4, ...o });

test.each([[32, 4, 8], [64, 4, 16], [128, 2, 64], [32, 1, 32]])('dModel %i, %i heads: head dim %i and the experiment\'s base', (dModel, heads, dim) => {
  expect(ropeFigureModel(state({ dModel, heads }))).toEqual({ base: EXPERIMENT.model.ropeBase, headDim: dim, source: 'experiment' });
  expect(EXPERIMENT.model.ropeBase).toBe(16);
});

test('a loaded model\'s config wins over the experiment', () => {
  expect(ropeFigureModel(state(), { ropeBase: 500, dModel: 64, heads: 2 })).toEqual({ base: 500, headDim: 32, source: 'loaded' });
});

test('scaling words name the type and the factor, and are empty without scaling', () => {
  expect(scalingWords(state())).toBe('');
  expect(scalingWords(state({ ropeScaling: 'linear', factor: 4 }))).toBe('scaled: linear (position interpolation) ×4, applied to the trained model with no fine-tuning');
  expect(scalingWords(state({ ropeScaling: 'yarn', factor: 8, betaFast: 32, betaSlow: 1 }))).toMatch(/^scaled: YaRN ×8/);
});
