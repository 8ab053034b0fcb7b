// What "Your model, past its context" computes, as plain data (no DOM, no wasm): the scaling blocks, the lengths,
// the forwards to run (in the order the figure wants them), and the perplexity by position bucket.
import { ROPE_SCALINGS } from './state.js';

export const SCALING_NAMES = { none: 'none', linear: 'linear (PI)', dynamic: 'dynamic NTK', yarn: 'YaRN', llama3: 'Llama 3' };

/**
 * The HF rope_scaling block of `type` at `factor` (null for none). The original context comes from the model's
 * (settable) context, which the API fills in for the keys left out; Llama 3 takes Llama 3.1's band factors.
 */
export function scalingBlock(type, factor) {
  if (type === 'none') return null;
  if (type === 'llama3') return { rope_type: 'llama3', factor, low_freq_factor: 1, high_freq_factor: 4 };
  return { rope_type: type, factor };
}

/** The longest length, as a multiple of the context, the passage allows (1 to 8; 1 when it is shorter than one context). */
export const maxTimes = (tokens, context) => Math.max(1, Math.min(8, Math.floor(tokens / context)));

/** The length the figure is computed at: `times` the context, within the passage (at least 2 tokens). */
export const lengthFor = (times, tokens, context) => Math.max(2, Math.min(tokens, times * context));

/** The lengths attention entropy and sink mass are measured at: the context times 1, 2, 4, 8 up to `length`, and `length`. */
export function statLengths(length, context) {
  const out = [1, 2, 4, 8].map((k) => k * context).filter((n) => n < length && n >= 2);
  return [...out, length];
}

const key = (kind, type, factor, length, context, extra = '') => `${kind}|${type}|${type === 'none' ? 1 : factor}|${length}|${context}|${extra}`;

/**
 * The forwards for the current settings, cheapest first where it matters: each scaling's loss at the chosen length
 * (the chosen scaling's with statistics and the chosen layer's maps), then the chosen scaling's statistics at
 * shorter lengths. Each: {key, type, length, scaling, stats, mapLayer, cost} (cost ~ length², for progress).
 */
export function planForwards({ type, factor, length, context, layer }) {
  const jobs = [];
  for (const t of ROPE_SCALINGS) {
    if (t === type) continue;
    jobs.push({ key: key('nll', t, factor, length, context), type: t, length, scaling: scalingBlock(t, factor), stats: false, mapLayer: null });
  }
  jobs.push({ key: key('all', type, factor, length, context, layer), type, length, scaling: scalingBlock(type, factor), stats: true, mapLayer: layer });
  for (const n of statLengths(length, context).slice(0, -1))
    jobs.push({ key: key('stats', type, factor, n, context), type, length: n, scaling: scalingBlock(type, factor), stats: true, mapLayer: null });
  for (const j of jobs) j.cost = (j.length / 1024) ** 2 * (j.stats ? 3 : 1) + j.length / 1024;
  return jobs;
}

/** Where a result for (kind, type, length) lives among computed jobs: the loss of any job for that scaling and length. */
export const nllKeys = ({ factor, length, context, layer }, t, type) =>
  [key('nll', t, factor, length, context), ...(t === type ? [key('all', t, factor, length, context, layer)] : [])];
export const statsKey = ({ factor, length, context, layer }, type, n) =>
  (n === length ? key('all', type, factor, n, context, layer) : key('stats', type, factor, n, context));

/**
 * Perplexity by position bucket: `nll` (nll[i] predicts token i+1) in `count` equal buckets of positions 1..T-1.
 * [{from, to, ppl}] with `from`/`to` token positions (to exclusive).
 */
export function bucketPerplexity(nll, count = 32) {
  const n = nll.length, b = Math.max(1, Math.min(count, Math.floor(n / 8)));
  const out = [];
  for (let k = 0; k < b; k++) {
    const lo = Math.floor((k * n) / b), hi = Math.floor(((k + 1) * n) / b);
    let s = 0;
    for (let i = lo; i < hi; i++) s += nll[i];
    out.push({ from: lo + 1, to: hi + 1, ppl: Math.exp(s / Math.max(1, hi - lo)) });
  }
  return out;
}

/** Perplexity over the predicted positions [from, to) (token positions; nll[i] predicts position i+1); null if none. */
export function rangePerplexity(nll, from, to) {
  const lo = Math.max(0, from - 1), hi = Math.min(nll.length, to - 1);
  if (hi <= lo) return null;
  let s = 0;
  for (let i = lo; i < hi; i++) s += nll[i];
  return Math.exp(s / (hi - lo));
}

/** The mean over layers and heads of a [layers*heads] statistic. */
export const meanOf = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
