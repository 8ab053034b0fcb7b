// The main thread's side of the sweep: hands models to the sweep Worker(s),
// asks for the lengths it does not have yet, and caches what comes back per
// (encoding, model version, view) -> length. While a new model version is
// being swept, the previous version's pictures are served, so rows never blank.
//
// `workers` is a count (the client starts and owns its Workers; default sweepConcurrency(), and each
// encoding's model lives in one of them, dealt out in turn) or an array
// of worker-like objects shared with other clients (several <posenc-explorer>
// elements on one page share one pool); `prefix` keeps clients' encodings
// apart in a shared worker.
import { startWorker, sweepConcurrency } from '../shared/workers.js';
import { SWEEP_WORKER } from './sweep-kind.js';
import { ENCODING_INFO } from '../../lib/model.js';
import { onBackgroundHold } from '../shared/foreground.js';

// Relative cost of one length, for dealing encodings out to Workers: an encoding the streaming kernel
// cannot express materialises every [T, T] attention (FIRE also builds its bias with an MLP per pair):
// about 4x the others' forward at T = 512 (measured natively on the shipped checkpoints).
const costOf = (encoding) => (ENCODING_INFO.find((e) => e.name === encoding)?.streaming === false ? 4 : 1);

// `api()` gives the page's posenc API (a promise), for running the sweep on this thread when an owned
// Worker cannot start; `onNotice(message)` is told why.
export function createSweepClient({ lut, workers: given = sweepConcurrency(), prefix = '', onUpdate = () => {}, onError = () => {}, api, onNotice = () => {} }) {
  const owned = typeof given === 'number';
  const workers = owned ? Array.from({ length: given }, () => startWorker(SWEEP_WORKER, { api, onFallback: onNotice })) : given;
  const { workerFor, assigned } = dealer(workers);
  const state = new Map(); // encoding -> {version, view, gen, cur: Map, prev: Map, info}
  let weightsId = 0;

  const entry = (encoding) => {
    if (!state.has(encoding)) state.set(encoding, { version: 0, gen: 0, view: '', cur: new Map(), prev: new Map(), info: null, weights: null, viewArgs: null });
    return state.get(encoding);
  };

  const onMessage = ({ data }) => {
    if (typeof data.encoding !== 'string' || !data.encoding.startsWith(prefix)) return;
    const encoding = data.encoding.slice(prefix.length);
    applyMessage(entry(encoding), encoding, data, { onUpdate, onError });
  };
  const onWorkerError = (ev) => onError(null, ev.message ?? 'the sweep worker failed');
  for (const w of workers) {
    w.postMessage({ type: 'init', lut });
    w.addEventListener('message', onMessage);
    w.addEventListener('error', onWorkerError);
  }
  // While the reader waits on the page's foreground work, only the length on screen runs, the others wait (in a
  // shared pool every client says the same, which the Worker takes once)
  const offHold = onBackgroundHold((on) => workers.forEach((w) => w.postMessage({ type: 'hold', on })));

  return {
    /** Give an encoding a model: checkpoint bytes, or a config for an untrained one. */
    setModel(encoding, { bytes, config }) {
      const e = entry(encoding);
      e.version++;
      e.gen++;
      closeAll(e.prev);
      [e.prev, e.cur] = [e.cur, e.prev];
      e.view = '';
      e.weights = null;
      const msg = { type: 'model', encoding: prefix + encoding, bytes, config };
      workerFor(encoding).postMessage(msg, bytes ? [bytes.buffer] : []);
    },

    /** Make sure every length of `lengths` is (being) computed for this view; the first ones first. */
    request(encoding, view) {
      const e = entry(encoding);
      const key = JSON.stringify([view.scaling, view.layer, view.head, view.task, view.seed]);
      if (key !== e.view) {
        if (e.view) {
          closeAll(e.prev);
          [e.prev, e.cur] = [e.cur, e.prev];
        }
        e.view = key;
        e.scalingKey = view.scaling ? JSON.stringify(view.scaling) : '';
        e.weights = null;
      }
      e.viewArgs = view;
      const missing = view.lengths.filter((T) => !e.cur.has(T));
      const pending = e.pending;
      if (pending && pending.key === key && pending.version === e.version && missing.every((T) => pending.lengths.includes(T))) return;
      if (!missing.length) return;
      e.gen++;
      e.pending = { key, version: e.version, lengths: missing };
      workerFor(encoding).postMessage({ type: 'sweep', encoding: prefix + encoding, gen: e.gen, lengths: missing, scaling: view.scaling, layer: view.layer,
        head: view.head, task: view.task, seed: view.seed });
    },

    /** The result at `length` (or the nearest shorter one computed), from this version or the last. */
    get(encoding, length) {
      const e = state.get(encoding);
      if (!e) return null;
      return nearestAtOrBelow(e.cur, length) ?? nearestAtOrBelow(e.prev, length);
    },

    /** The current model's result at exactly this length, or null (no fallback to older pictures). */
    fresh(encoding, length) {
      return state.get(encoding)?.cur.get(length) ?? null;
    },

    /** Every computed result of the current version (for the curves), sorted by length. */
    results(encoding) {
      const e = state.get(encoding);
      if (!e) return [];
      const map = e.cur.size ? e.cur : e.prev;
      return [...map.values()].sort((a, b) => a.length - b.length);
    },

    /**
     * The exact attention weights of the current model's map at `length` for the current view
     * ({length, layer, heads, tokens, probs: [head, query, key]}), or null while they are fetched (onUpdate(encoding,
     * 'attention') says when they arrive). One length per encoding is kept: the one asked for last.
     */
    weights(encoding, length) {
      const e = state.get(encoding);
      if (!e?.viewArgs || !e.cur.has(length)) return null;
      const key = `${e.version}|${e.view}|${length}`;
      if (e.weights?.key !== key) {
        e.weights = { key, id: ++weightsId, data: null };
        const v = e.viewArgs;
        workerFor(encoding).postMessage({ type: 'attention', encoding: prefix + encoding, id: e.weights.id, length, scaling: v.scaling,
          layer: v.layer, head: v.head, task: v.task, seed: v.seed });
      }
      return e.weights.data;
    },

    info: (encoding) => state.get(encoding)?.info ?? null,
    /** The RoPE scaling of the view last asked for (JSON, '' for none): each result carries the one it was computed with. */
    scalingKey: (encoding) => state.get(encoding)?.scalingKey ?? '',
    /** The version of the encoding's current model (each result carries the one it was computed with). */
    version: (encoding) => state.get(encoding)?.version ?? 0,
    /** How many lengths of the current view are cached, over all encodings. */
    cachedCount: () => [...state.values()].reduce((n, e) => n + e.cur.size, 0),
    done(encoding, lengths) {
      const e = state.get(encoding);
      return !!e && lengths.every((T) => e.cur.has(T));
    },
    /** Stop: an owned pool is terminated; in a shared one this client's models are dropped. */
    terminate() {
      offHold();
      for (const w of workers) {
        w.removeEventListener('message', onMessage);
        w.removeEventListener('error', onWorkerError);
      }
      if (owned) workers.forEach((w) => w.terminate());
      else for (const [encoding, w] of assigned) w.postMessage({ type: 'drop', encoding: prefix + encoding });
      for (const e of state.values()) {
        closeAll(e.cur);
        closeAll(e.prev);
      }
    },
  };
}

const closeAll = (map) => {
  for (const r of map.values()) for (const b of r.bitmaps) b.close();
  map.clear();
};

/** The result in `map` (length -> result) at `length`, or the longest shorter one, or null. */
function nearestAtOrBelow(map, length) {
  if (map.has(length)) return map.get(length);
  let best = null;
  for (const [T, r] of map) if (T <= length && (!best || T > best.length)) best = r;
  return best;
}

/**
 * Deals encodings out to `workers`: each encoding stays with one Worker (its model lives there), the least loaded
 * one when first seen. {workerFor(encoding), assigned: Map encoding -> worker}.
 */
function dealer(workers) {
  const assigned = new Map(); // encoding -> worker
  const load = new Map(workers.map((w) => [w, 0])); // worker -> cost of the encodings it holds
  const workerFor = (encoding) => {
    if (!assigned.has(encoding)) {
      const w = workers.reduce((best, w) => (load.get(w) < load.get(best) ? w : best));
      load.set(w, load.get(w) + costOf(encoding));
      assigned.set(encoding, w);
    }
    return assigned.get(encoding);
  };
  return { workerFor, assigned };
}

/** A sweep Worker's message `data` about `encoding` applied to its entry `e` (the client's state), with the client's callbacks. */
function applyMessage(e, encoding, data, { onUpdate, onError }) {
  if (data.type === 'ready') {
    e.info = { trainedLength: data.trainedLength, config: data.config };
    onUpdate(encoding, 'ready');
  } else if (data.type === 'result') {
    if (data.gen !== e.gen) return data.bitmaps.forEach((b) => b.close());
    data.encoding = encoding;
    data.scalingKey = e.scalingKey; // the RoPE scaling it was computed with ('' none): evaluations.js never mixes them
    data.version = e.version; // and the model it was computed with (evaluations.js uses only the current one's)
    e.cur.get(data.length)?.bitmaps.forEach((b) => b.close());
    e.cur.set(data.length, data);
    onUpdate(encoding, 'result', data.length);
  } else if (data.type === 'attention') {
    const w = e.weights;
    if (!w || w.id !== data.id) return;
    if (data.error) {
      w.error = data.error;
      onError(encoding, data.error);
    } else w.data = { length: data.length, layer: data.layer, heads: data.heads, tokens: data.tokens, probs: data.probs };
    onUpdate(encoding, 'attention', data.length);
  } else if (data.type === 'error') {
    onError(encoding, data.message);
  }
}
