// The sentences under "Your model, past its context", computed from the numbers drawn beside them (never a claim
// written in advance: which scaling does best, and whether entropy rises, is read off the results).
import { SCALING_NAMES, rangePerplexity, meanOf } from './plan.js';

const nameOf = (t) => (t === 'none' ? 'no scaling' : SCALING_NAMES[t]);
const p3 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
export const count = (n) => n.toLocaleString('en-US');

/** Perplexity inside the original context and past it, per scaling: {type: {inside, past}} (past null when length <= context). */
export function splitPerplexity(series, context, length) {
  return Object.fromEntries(Object.entries(series).map(([t, nll]) => [t, {
    inside: rangePerplexity(nll, 1, Math.min(context, length)), past: length > context ? rangePerplexity(nll, context, length) : null }]));
}

/** Words for the perplexity figure: `series` {type: nll} (the scalings computed so far). */
export function perplexityWords(series, { context, length, factor }) {
  const split = splitPerplexity(series, context, length);
  const types = Object.keys(split);
  if (!types.length) return '';
  const out = [];
  const none = split.none;
  if (length <= context) {
    out.push(`At ${count(length)} tokens the passage stays within the original context of ${count(context)}` +
      (none ? `: perplexity ${p3(none.inside)} with no scaling.` : '.'));
  } else if (none) {
    out.push(`With no scaling, perplexity is ${p3(none.inside)} over the first ${count(context)} tokens (the original context) and ` +
      `${p3(none.past)} past it, up to token ${count(length)}.`);
  }
  if (length > context && types.length > 1) {
    const ranked = types.filter((t) => split[t].past != null).sort((a, b) => split[a].past - split[b].past);
    const best = ranked[0], worst = ranked.at(-1);
    out.push(`Past the context, with factor ${factor}, ${nameOf(best)} does best (${p3(split[best].past)}) and ` +
      `${nameOf(worst)} worst (${p3(split[worst].past)}).`);
  }
  const dyn = series.dynamic, base = series.none;
  if (dyn && base && dyn.length === base.length && dyn.every((x, i) => Math.abs(x - base[i]) < 1e-6))
    out.push('Dynamic NTK scales only once the input outgrows the original context, so here its line lies on no scaling\'s.');
  if (none && types.length > 1) {
    const moved = types.filter((t) => t !== 'none').map((t) => [t, split[t].inside / none.inside]).sort((a, b) => Math.abs(Math.log(b[1])) - Math.abs(Math.log(a[1])));
    const [t, r] = moved[0];
    out.push(Math.abs(r - 1) < 0.05
      ? `Inside the context every scaling computed stays within 5% of no scaling.`
      : `Inside the context, ${SCALING_NAMES[t]} moves perplexity the most: ${p3(split[t].inside)} against ${p3(none.inside)} with none` +
        `${r > 1 ? ', the price of changing angles the model was trained on' : ''}.`);
  }
  return out.join(' ');
}

const direction = (a, b, rel = 0.03) => (Math.abs(b - a) <= rel * Math.max(Math.abs(a), 1e-9) ? 'stays near' : b > a ? 'rises' : 'falls');

/** Words for attention entropy and sink mass against length: `points` [{length, entropy, sink}] (means over layers and heads). */
export function statsWords(points, { type, factor }) {
  if (!points.length) return '';
  const a = points[0], b = points.at(-1);
  const how = type === 'none' ? 'with no scaling' : `with ${SCALING_NAMES[type]} ×${factor}`;
  // How widely attention spreads, in plain words: as wide as an even split over e^entropy tokens (the chart plots the
  // entropy itself, the log of that number)
  const over = (p) => count(Math.round(10 * Math.exp(p.entropy)) / 10);
  if (points.length === 1)
    return `At ${count(a.length)} tokens, ${how}, a head's attention is spread about as widely as an even split over ${over(a)} tokens ` +
      `(the chart plots the log of that number, ${a.entropy.toFixed(2)}), and the first token draws ${(100 * a.sink).toFixed(1)}% of the attention.`;
  const widens = { 'stays near': 'stays about as wide', rises: 'widens', falls: 'narrows' }[direction(a.entropy, b.entropy)];
  return `Averaged over layers and heads, ${how}: attention ${widens}, from about as wide as an even split over ${over(a)} tokens at ` +
    `${count(a.length)} tokens to ${over(b)} at ${count(b.length)} (an even split over all ${count(b.length)} would be ${count(b.length)}; ` +
    `the chart plots the log of these numbers, ${a.entropy.toFixed(2)} to ${b.entropy.toFixed(2)}); the share of attention on the first token ` +
    `${direction(a.sink, b.sink, 0.05)} from ${(100 * a.sink).toFixed(1)}% to ${(100 * b.sink).toFixed(1)}%.`;
}

/** One point of the statistics plot from a forward's per-layer-and-head arrays. */
export const statPoint = (length, r) => ({ length, entropy: meanOf(r.entropy), sink: meanOf(r.sink) });

const andList = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);
export const bytesWords = (n) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} MB` : `${(n / 1e3).toFixed(1)} kB`);

/**
 * One sentence on what a loaded model is, from its description (the API's lm.describe(): every number is the loaded
 * model's): its family (as readers know it, from the core's family table), its file's format, its weights' types (tensors per type, most first) and the memory they take.
 * The page's view and `npm run model` print it.
 */
export function modelWords(d) {
  const types = [...d.dtypes].sort((a, b) => b.tensors - a.tensors).map((t) => `${count(t.tensors)} ${t.dtype}`);
  return `A ${d.familyLabel} model from a ${d.formatLabel} file: ${count(d.parameters)} parameters in ` +
    `${andList(types)} tensor${d.dtypes.length === 1 && d.dtypes[0].tensors === 1 ? '' : 's'}, whose weights take ${bytesWords(d.weightBytes)} of memory here.`;
}

// Why the model runs on one thread (the library's threadsUnavailable), in the reader's words.
const ONE_THREAD = {
  'not-isolated': "this page is not cross-origin isolated (its server does not send the two headers that let a page share memory between threads), so the browser allows it only one",
  'no-shared-memory': 'this browser gives web pages no shared memory between threads',
  'no-simd': 'this browser has no WebAssembly SIMD, and the build without it runs on one',
  'given-module': 'the page asked for the single-thread build',
};
/** How many threads the model's forwards run on, and, on one, why (lm.threads, lm.threadsUnavailable). */
export function threadsWords({ threads, threadsUnavailable }) {
  if (threads > 1) return `It runs on ${count(threads)} threads here.`;
  return `It runs on one thread here: ${ONE_THREAD[threadsUnavailable] ?? 'this device reports one processor core'}.`;
}

/**
 * Why a file's context needs the reader (its converter's default, not the trained one): the file's number, what the
 * suggestion rests on (or that nothing points to one), and what the number changes.
 */
export function contextQuestion(d) {
  return `The file says its context is ${count(d.context)} tokens, but that number is its converter's default, not the ` +
    `context the model was trained at. ${d.suggestedContext ? `Suggested: ${count(d.suggestedContext)} tokens, since ${d.suggestionReason}.`
      : `${d.suggestionReason[0].toUpperCase()}${d.suggestionReason.slice(1)}: if you know it, enter it.`} ` +
    'Every figure measures lengths against this context, so confirm or correct it before they are drawn.';
}
