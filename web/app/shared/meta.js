// Names and one-line explanations of each encoding, in plain words, for the
// sweep rows and the training panel: the registry's labels and blurbs (cpp/src/encodings.cpp).
// Reader-facing names of tasks and of measured rows (an encoding with a variant or a scaling) too:
// no internal id reaches the page's words.
import { ENCODING_INFO } from '../../lib/index.js';

export const NAMES = Object.freeze(Object.fromEntries(ENCODING_INFO.map((e) => [e.name, e.label])));
export const BLURBS = Object.freeze(Object.fromEntries(ENCODING_INFO.map((e) => [e.name, e.blurb])));

/** The tasks as a reader reads them (lib/tasks.js TASKS are ids). */
export const TASK_NAMES = Object.freeze({ copy: 'copy', reverse: 'reverse', retrieval: 'retrieval', markov: 'Markov chain',
  kth_retrieval: 'k-th occurrence retrieval' });
export const taskName = (t) => TASK_NAMES[t] ?? t;
/** What a model of the task learned to do, as the first screen says it. */
export const TASK_PHRASES = Object.freeze({ copy: 'copy a string', reverse: 'reverse a string', retrieval: 'look up the value of a key',
  markov: 'predict the next symbol of a Markov chain', kth_retrieval: 'find the value after the k-th occurrence of a key' });

const SCALING_NAMES = { linear: 'position interpolation', ntk: 'NTK-aware scaling', dynamic: 'dynamic NTK', yarn: 'YaRN', llama3: 'Llama 3 scaling' };
const variantWords = (v) => (v === 'finetuned' ? 'fine-tuned' : /^base(\d+)$/.test(v) ? `base ${v.slice(4)}` : v);

/** A measured row (results.json: encoding, variant, scaling, finetune) as a reader reads it: "RoPE (base 10000)". */
export function rowLabel(row) {
  let s = NAMES[row.encoding] ?? row.encoding;
  if (row.variant) s += ` (${variantWords(row.variant)})`;
  if (row.scaling && row.scaling !== 'none') s += ` + ${SCALING_NAMES[row.scaling] ?? row.scaling}`;
  return s;
}
