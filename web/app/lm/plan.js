// What "Your model, past its context" computes, as plain data (no DOM, no wasm): the scaling blocks, the lengths,
// the forwards to run (in the order the figure wants them), and the perplexity by position bucket.
import { scalingBlock as block } from '../../lib/index.js';
import { ROPE_SCALINGS } from '../shared/state.js';
import { SCALING_LABELS } from '../rope/rope-scaling.js';

export const SCALING_NAMES = SCALING_LABELS;

/**
 * The HF rope_scaling block of `type` at `factor` (null for none). The original context comes from the model's
 * (settable) context, which the API fills in for the keys left out; a key with no HF default takes the page's
 * default (Llama 3's band factors: Llama 3.1's).
 */
export const scalingBlock = (type, factor) => block(type, { factor });

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
 * The forwards for the current settings, in the order the reader looks at them: first the chosen scaling's loss at
 * the chosen length with the chosen layer's maps and its attention statistics at every stat length (the means over
 * the first n query rows of the same forward: the streamed attention gives them per row), then no scaling's (the line
 * every other is read against), then the other scalings' in the menu's order. Each streams in (its line grows left
 * to right), and the Workers take them in this order.
 * Dynamic NTK's frequencies follow the input's length, so when it is the chosen scaling its statistics at the shorter
 * lengths take a forward each, after the five.
 * Each: {key, type, length, scaling, stats (false, or the lengths), mapLayer, cost} (cost ~ length², for progress).
 */
export function planForwards({ type, factor, length, context, layer }) {
  const lengths = statLengths(length, context);
  const chosen = { key: key('nll', type, factor, length, context, `map${layer}`), type, length, scaling: scalingBlock(type, factor),
    stats: type === 'dynamic' ? [length] : lengths, mapLayer: layer, cost: cost(length) * (1 + CHOSEN_EXTRA) };
  const others = ['none', ...ROPE_SCALINGS.filter((t) => t !== 'none')].filter((t) => t !== type);
  const jobs = [chosen, ...others.map((t) => ({ key: key('nll', t, factor, length, context), type: t, length,
    scaling: scalingBlock(t, factor), stats: false, mapLayer: null }))];
  if (type === 'dynamic')
    for (const n of lengths.slice(0, -1))
      jobs.push({ key: key('stats', type, factor, n, context), type, length: n, scaling: scalingBlock(type, factor), stats: [n], mapLayer: null });
  for (const j of jobs) j.cost ??= cost(j.length);
  return jobs;
}

/** The relative cost of a forward over n tokens (attention ~ n², the rest ~ n), for progress. */
export const cost = (n) => (n / 1024) ** 2 + n / 1024;
/**
 * What the chosen scaling's maps and statistics add to its forward: measured on stories260K at 4,096 tokens (wasm SIMD,
 * Node, medians of 7), 646 ms without them and 791 ms with them.
 */
export const CHOSEN_EXTRA = 0.22;
/** Where the loss of scaling `t` at the settings' length may be found (computed with the maps or without). */
export const nllKeys = ({ factor, length, context, layer }, t, type) =>
  [key('nll', t, factor, length, context, ''), ...(t === type ? [key('nll', t, factor, length, context, `map${layer}`)] : [])];
/**
 * The loss of scaling `t` at the settings' length from `results` (a Map of computed forwards by key): its own forward,
 * or, for every scaling but dynamic NTK (whose frequencies follow the input's length), the first part of a longer one
 * (a causal model's loss at position i does not depend on what follows). null when none is computed.
 */
export function findNll(results, s, t) {
  for (const k of nllKeys(s, t, s.type)) if (results.has(k)) return results.get(k).nll;
  if (t === 'dynamic') return null;
  const prefix = `nll|${t}|${t === 'none' ? 1 : s.factor}|`;
  for (const [k, r] of results) {
    if (!k.startsWith(prefix)) continue;
    const [, , , n, ctx] = k.split('|');
    if (Number(ctx) === s.context && Number(n) > s.length) return r.nll.subarray(0, s.length - 1);
  }
  return null;
}

/** Where the chosen scaling's maps are. */
export const mapsKey = ({ factor, length, context, layer }, type) => key('nll', type, factor, length, context, `map${layer}`);
/** Where dynamic NTK's statistics at a length `n` shorter than the figure's have a forward of their own. */
export const statsKey = ({ factor, context }, type, n) => key('stats', type, factor, n, context);

/**
 * The attention statistics ({entropy, sink}, per layer and head) of scaling `type` at length `n` from `results`: from
 * any forward of that scaling, factor and context that measured them at n (for dynamic NTK, only one over n tokens).
 * null when none has.
 */
export function findStats(results, { factor, context }, type, n) {
  const prefix = `nll|${type}|${type === 'none' ? 1 : factor}|`;
  const own = results.get(statsKey({ factor, context }, type, n));
  const at = (r) => r?.statsByLength?.find((x) => x.length === n) ?? null;
  if (at(own)) return at(own);
  for (const [k, r] of results) {
    if (!k.startsWith(prefix)) continue;
    const [, , , len, ctx] = k.split('|');
    if (Number(ctx) !== context || (type === 'dynamic' && Number(len) !== n)) continue;
    if (at(r)) return at(r);
  }
  return null;
}

/**
 * Perplexity by position bucket: `nll` (nll[i] predicts token i+1) in `count` equal buckets of positions 1..total
 * (total: the whole line's count of losses, when `nll` is the start of a line still streaming in: its buckets are the
 * whole line's, the last one cut where the losses stop). [{from, to, ppl}] with `from`/`to` token positions (to exclusive).
 */
export function bucketPerplexity(nll, count = 32, total = nll.length) {
  const n = total, b = Math.max(1, Math.min(count, Math.floor(n / 8)));
  const out = [];
  for (let k = 0; k < b; k++) {
    const lo = Math.floor((k * n) / b), hi = Math.min(nll.length, Math.floor(((k + 1) * n) / b));
    if (hi <= lo) break;
    let s = 0;
    for (let i = lo; i < hi; i++) s += nll[i];
    out.push({ from: lo + 1, to: hi + 1, ppl: Math.exp(s / (hi - lo)) });
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
