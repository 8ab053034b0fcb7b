// The parameters of the figures about the trained RoPE model ("Stretching RoPE": the spectrum, the
// scaled maps, their words): the model's own base and head dim, never a default. While the model is not
// loaded yet, they are those of the model the experiment trains or ships (trainer.js trainRequest), which
// the loaded one then confirms (tests/js/rope-figure.test.js, tests/browser/figures-model.test.js).
import { trainRequest } from './trainer.js';
import { scalingObject, SCALING_LABELS } from '../rope/rope-scaling.js';

/** {base, headDim, source}: of `config` (a loaded model's config) if given, else of the experiment's model for state `s`. */
export function ropeFigureModel(s, config = null) {
  const m = config ?? trainRequest('rope', s, { vocabSize: 1 }).model;
  return { base: m.ropeBase, headDim: m.dModel / m.heads, source: config ? 'loaded' : 'experiment' };
}


/** What a scaled row says it is: "scaled: linear (position interpolation) ×4, no fine-tuning", or '' with none. */
export function scalingWords(s) {
  const sc = scalingObject(s);
  if (!sc) return '';
  return `scaled: ${SCALING_LABELS[sc.rope_type]} ×${sc.factor}, applied to the trained model with no fine-tuning`;
}
