// What the view says while its figure streams in, as plain data (no DOM, no wasm): how much of the work a chunk of
// rows is, the time left in words, and the memory a run needs (or why it cannot run).
import { cost } from './plan.js';
import { bytesWords } from './words.js';

/** The share of job `j`'s cost (plan.js's planForwards) in its rows [from, to): attention ~ n², the rest ~ n. */
export const rowsCost = (j, from, to) => (j.cost * (cost(to) - cost(from))) / cost(j.length);

/**
 * The time left in plain words, from the work done so far (`done`, in cost units, in `ms` since the run began) and the
 * work `left`: null until a first chunk has landed (there is no rate yet); then "a few seconds left", "about 40 s
 * left" (to 5 s; to 1 s under 10 s), or "about 3 min left".
 */
export function timeLeftWords(done, ms, left) {
  if (!(done > 0) || !(ms > 0)) return null;
  const s = (left * ms) / done / 1000;
  if (s < 5) return 'a few seconds left';
  if (s < 10) return `about ${Math.round(s)} s left`;
  if (s < 90) return `about ${Math.round(s / 5) * 5} s left`;
  return `about ${Math.round(s / 60)} min left`;
}

const tokens = (n) => n.toLocaleString('en-US');

/**
 * The memory a run over `length` tokens needs, in a sentence, from lm.memory's {weights, cache, work, total, kv,
 * available}; `fits`: whether what the run adds to the weights (its cache and working memory) fits in what the
 * model's memory still has.
 */
export function memoryWords(m, length) {
  const adds = m.cache + m.work, fits = adds <= m.available;
  const kv = m.kv === 'float16' ? 'in 16-bit, as the cache is above 64 MB in 32-bit' : 'in 32-bit';
  const parts = `${bytesWords(m.weights)} of weights, ${bytesWords(m.cache)} of keys and values (${kv}) and ${bytesWords(m.work)} of working memory`;
  return {
    fits,
    text: fits
      ? `A run over ${tokens(length)} tokens needs about ${bytesWords(m.total)} at its peak: ${parts}.`
      : `A run over ${tokens(length)} tokens would need about ${bytesWords(m.total)} at its peak (${parts}), but the model's ` +
        `memory has ${bytesWords(m.available)} left beside its weights: choose a shorter length.`,
  };
}
