// What "Your model, past its context" computes, as plain data (no DOM, no wasm): the scaling blocks, the lengths,
// the forwards to run (in the order the figure wants them), and the perplexity by position bucket.
import { scalingBlock as block } from '../lib/index.js';
import { ROPE_SCALINGS } from './state.js';
import { SCALING_LABELS } from './rope-scaling.js';

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
 * The forwards for the current settings, in the order the figure wants them: first the chosen scaling's loss at the
 * chosen length with the chosen layer's maps and its attention statistics at every stat length (the means over the
 * first n query rows of the same forward: the streamed attention gives them per row), then the other scalings' losses.
 * Dynamic NTK's frequencies follow the input's length, so when it is the chosen scaling its statistics at the shorter
 * lengths take a forward each, after the five.
 * Each: {key, type, length, scaling, stats (false, or the lengths), mapLayer, cost} (cost ~ length², for progress and
 * for the cut below); a forward cut in two for `workers` (splitOne) adds {part 1, from, keep, whole (its length)} to
 * its part 1 and {part 2, from, after} to its part 2.
 */
export function planForwards({ type, factor, length, context, layer }, workers = 1) {
  const lengths = statLengths(length, context);
  const chosen = { key: key('nll', type, factor, length, context, `map${layer}`), type, length, scaling: scalingBlock(type, factor),
    stats: type === 'dynamic' ? [length] : lengths, mapLayer: layer, cost: cost(length) * (1 + CHOSEN_EXTRA) };
  let jobs = [chosen, ...ROPE_SCALINGS.filter((t) => t !== type).map((t) => ({ key: key('nll', t, factor, length, context), type: t, length,
    scaling: scalingBlock(t, factor), stats: false, mapLayer: null }))];
  if (workers === 2 && jobs.length % 2 === 1 && length >= SPLIT_FROM) jobs = splitOne(jobs, factor, context);
  if (type === 'dynamic')
    for (const n of lengths.slice(0, -1))
      jobs.push({ key: key('stats', type, factor, n, context), type, length: n, scaling: scalingBlock(type, factor), stats: [n], mapLayer: null });
  for (const j of jobs) j.cost ??= cost(j.length);
  return jobs;
}

/** The relative cost of a forward over n tokens (attention ~ n², the rest ~ n), for progress and for cutting one in two. */
const cost = (n) => (n / 1024) ** 2 + n / 1024;
/**
 * What the chosen scaling's maps and statistics add to its forward: measured on stories260K at 4,096 tokens (wasm SIMD,
 * Node, medians of 7), 646 ms without them and 791 ms with them.
 */
export const CHOSEN_EXTRA = 0.22;
/** From this many tokens a forward may be cut in two (below, a part's fixed costs would eat what it saves). */
export const SPLIT_FROM = 1024;

/**
 * On two Workers an odd number of forwards leaves one Worker idle for a whole forward at the end (five: 3 + 2). So
 * the last forward that may be cut (not dynamic NTK's, whose frequencies follow the whole length) runs in two parts:
 * part 1 over tokens [0, a] keeps the keys and values of rows [0, a) (`keep`), part 2 over [a, length) continues from
 * them (`past`, its key `after` part 1's), on whichever Worker is free. With the chosen forward (cost C) first and
 * part 1 beside it, then two forwards, then the third beside part 2, the Workers end together when part 1 costs C / 2:
 * one runs C, a forward and part 2, the other part 1 and two forwards. Part 2 carries the forward's own key; its NLL
 * is part 1's followed by its own.
 */
function splitOne([chosen, ...rest], factor, context) {
  const i = rest.findLastIndex((j) => j.type !== 'dynamic');
  if (i < 0) return [chosen, ...rest];
  const j = rest[i], whole = cost(j.length);
  const a = Math.round(1024 * ((Math.sqrt(1 + 2 * chosen.cost) - 1) / 2)); // cost(a) = C / 2
  const first = { ...j, key: key('part', j.type, factor, j.length, context, a), length: a + 1, from: 0, keep: a, cost: cost(a), part: 1, whole: j.length };
  const second = { ...j, from: a, after: first.key, cost: whole - cost(a), part: 2 };
  const others = rest.filter((_, k) => k !== i);
  return [chosen, first, ...others, second];
}

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
