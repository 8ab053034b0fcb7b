// The length sweep's forward passes (run in sweep-worker.js, or on the main
// thread where Workers cannot start, e.g. a page opened from file://). Holds one model per
// encoding; for each requested length it evaluates the model on a fixed task
// batch (evalBatch: 4 sequences, fewer from 512 on, the shipped count at the training length; loss, accuracy), keeping the attention maps of the chosen layer only, has the module
// max-pool them to pictures (evaluate's attentionPool) and colours them
// (one head or all) into ImageBitmaps through the colour table the page sends.
// The page only draws what comes back.
//
//   {type: 'init', lut: Uint8Array(256*3), maxPx}
//   {type: 'model', encoding, bytes?: Uint8Array, config?: {...}}       replaces that encoding's model
//   {type: 'sweep', encoding, gen, lengths, scaling, layer, head, task, seed}
//   {type: 'cancel' | 'drop', encoding}                               stop its sweep | and free its model
//   {type: 'hold', on}          on: only each request's first length runs until {type: 'hold', on: false} (foreground.js)
//   {type: 'attention', encoding, id, length, scaling, layer, head, task, seed}   the exact weights of one map
//   -> {type: 'result', encoding, gen, length, loss, accuracy, sequences, status, trainedLength, bitmaps, px, layer, heads, tokens, peaks}
//      layer -1 in a request: each model's own layer and head that best mark the correct key (pickView)
//      tokens: Int32Array(length), the sequence drawn (sequence 0 of the batch); peaks: per head, the mean over
//      query rows of the row's largest weight (how sharp the head is)
//   -> {type: 'attention', encoding, id, length, layer, heads, tokens, probs}   probs: Float32Array(heads.length*length*length),
//      [head, query, key], the same forward pass as the result at that length (same batch, model and view)
//   -> {type: 'ready', encoding, trainedLength, config}  after 'model'
//   -> {type: 'error', encoding, message}
import { evalTask, EXPERIMENT } from '../shared/experiment.js';
import { yieldToEventLoop } from '../../lib/yield.js';
import { answerKeys, headScores } from './answer-key.js';

// Sequences evaluated at each length: 4, and from 512 on as many as make about EVAL_TOKENS tokens, since a
// forward pass costs T^2 (4 sequences at 512 cost 16 times those at 128): 4 up to 256, 2 at 512, 1 from 1024.
const EVAL_TOKENS = 1024;
const MAX_EVAL_BATCH = 4;
// At the model's training length, where the one "learned" verdict is read (evaluations.js), as many as the shipped
// evaluation used (EXPERIMENT.evalSequences): the verdict of a model trained here rests on the same count as a
// shipped one's.
export function evalBatch(length, trainedLength = 0) {
  if (length === trainedLength) return EXPERIMENT.evalSequences;
  return Math.min(MAX_EVAL_BATCH, Math.max(1, Math.round(EVAL_TOKENS / length)));
}

/**
 * The sweep's message handler. `api()` returns a promise of a loaded posenc API; `post(message, transfer)`
 * sends results back. Returns handle(message).
 */
export function createSweepCore(api, post) {
  let pe = null;
  let lut32 = null; // the colour table as opaque RGBA pixels, in the platform's byte order
  let maxPx = 192;
  const models = new Map(); // encoding -> Model
  let mapsBuffer = new Float32Array(0); // the exact maps of every 'attention' message, reused (a fresh 8 MB array costs more than the copy)
  const jobs = new Map(); // encoding -> {gen, lengths, i, ...}
  let running = false;
  let hold = null; // while held: {wait: a promise that resolves when released, release}
  // While held, only the first length of each request runs (the one on screen: the page asks for it first); the
  // others wait for the release.
  const held = (job) => hold !== null && job.i > 0;
  let kick = () => {}; // wakes a pump that waits for the release, when a new request comes
  const picks = new WeakMap(); // model -> Map(task|seed -> the view "auto"'s {layer, head, score, kind}: pickView)

  function setModel({ encoding, bytes, config }) {
    models.get(encoding)?.delete();
    models.delete(encoding); // if the new model fails to load, no deleted one is left behind
    jobs.delete(encoding);
    let model;
    if (bytes) model = pe.loadModel(bytes, { learnedPolicy: 'clamp' });
    else model = pe.createModel({ ...config, learnedPolicy: 'clamp' }); // learned: reuse the last row past the table
    models.set(encoding, model);
    post({ type: 'ready', encoding, trainedLength: model.trainedLength, config: model.config });
  }

  // One length's forward pass for a view: loss, accuracy, the chosen layer's maps (exact, or pooled to
  // px x px pictures when px is given) and the drawn sequence. Layer -1: the model's own pick (pickView).
  function evaluateAt(model, job, length, px = 0) {
    if (job.layer < 0) {
      const p = pickView(pe, picks, model, job);
      job = { ...job, layer: p.layer, head: p.head };
    }
    const batch = evalBatch(length, model.trainedLength);
    const { tokens, targets } = batchFor(pe, job, length, batch);
    const { layers, heads } = model.config;
    const layer = Math.min(job.layer, layers - 1);
    const nMaps = heads * length * length; // the maps of the drawn layer only: the others run without
    if (!px && mapsBuffer.length !== nMaps) mapsBuffer = new Float32Array(nMaps);
    // r.attention is mapsBuffer: read it before the next evaluate (no await in between)
    const r = model.evaluate(tokens, targets, {
      batch, length, attention: true, attentionLayer: layer, ropeScaling: job.scaling && model.config.encoding === 'rope' ? job.scaling : undefined,
      ...(px ? { attentionPool: px } : { attentionOut: mapsBuffer }),
    });
    const headList = job.head < 0 ? Array.from({ length: heads }, (_, h) => h) : [Math.min(job.head, heads - 1)];
    return { r, layer, headList, tokens: tokens.slice(0, length), batch };
  }

  function attentionOf({ encoding, id, length, ...view }) {
    const model = models.get(encoding);
    if (!model) throw new RangeError(`no model for ${encoding}`);
    const { r, layer, headList, tokens } = evaluateAt(model, view, length);
    const n = length * length, probs = new Float32Array(headList.length * n);
    headList.forEach((h, k) => probs.set(r.attention.subarray(h * n, (h + 1) * n), k * n));
    post({ type: 'attention', encoding, id, length, layer, heads: headList, tokens, probs }, [probs.buffer, tokens.buffer]);
  }

  async function step(encoding, job) {
    const model = models.get(encoding);
    const length = job.lengths[job.i++];
    const px = Math.min(length, maxPx);
    const { r, layer, headList, tokens, batch } = evaluateAt(model, job, length, px);
    // Read everything from the model before awaiting: a 'model' message may replace (and delete) it meanwhile.
    const status = model.positionStatus(length);
    const trainedLength = model.trainedLength;
    const pool = r.attentionPool;
    const peaks = Float32Array.from(headList, (h) => pool.peaks[h]);
    const bitmaps = await Promise.all(headList.map((h) => createImageBitmap(render(lut32, pool.maps, h * px * px, px))));
    if (models.get(encoding) !== model) return; // replaced while rendering: this result is stale
    post({
      type: 'result', encoding, gen: job.gen, length, loss: r.loss, accuracy: r.accuracy, sequences: batch, status,
      trainedLength, bitmaps, px, layer, heads: headList, tokens, peaks,
    }, [...bitmaps, status.buffer, tokens.buffer]);
  }

  // Round-robin over the encodings with pending lengths, one length at a time,
  // yielding between lengths so a newer request replaces an older one at once.
  async function pump() {
    if (running) return;
    running = true;
    try {
      for (;;) {
        const left = [...jobs.entries()].filter(([enc, j]) => j.i < j.lengths.length && models.has(enc));
        const pending = left.filter(([, j]) => !held(j));
        if (!pending.length) {
          if (!left.length) break;
          await Promise.race([hold.wait, new Promise((res) => { kick = res; })]); // released, or a new request
          continue;
        }
        for (const [encoding, job] of pending) {
          if (jobs.get(encoding) !== job || held(job)) continue;
          try {
            await step(encoding, job);
          } catch (e) {
            jobs.delete(encoding);
            post({ type: 'error', encoding, message: e?.message ?? String(e) });
          }
          await yieldToEventLoop(); // (a newer request can replace this job meanwhile)
        }
      }
    } finally {
      running = false;
    }
  }

  return async function handle(data) {
    try {
      pe ??= await api();
      if (data.type === 'init') {
        lut32 = opaqueLut(data.lut);
        maxPx = data.maxPx ?? maxPx;
      } else if (data.type === 'model') {
        setModel(data);
      } else if (data.type === 'sweep') {
        jobs.set(data.encoding, { ...data, i: 0 });
        kick();
        pump();
      } else if (data.type === 'attention') {
        try {
          attentionOf(data);
        } catch (e) {
          post({ type: 'attention', encoding: data.encoding, id: data.id, error: e?.message ?? String(e) });
        }
      } else if (data.type === 'hold') {
        if (data.on && !hold) hold = createHold();
        else if (!data.on && hold) {
          hold.release();
          hold = null;
        }
      } else if (data.type === 'cancel') {
        jobs.delete(data.encoding);
      } else if (data.type === 'drop') {
        jobs.delete(data.encoding);
        models.get(data.encoding)?.delete();
        models.delete(data.encoding);
      }
    } catch (e) {
      post({ type: 'error', encoding: data.encoding, message: e?.message ?? String(e) });
    }
  };
}

// Evaluation data for one length: the same sequences every time (seeded by length).
function batchFor(pe, job, length, batch) {
  const task = pe.createTask({ ...evalTask(job.task), seed: job.seed * 7919 + length });
  try {
    return task.sample({ batch, length });
  } finally {
    task.delete();
  }
}

// The colour table (256 RGB triples) as opaque RGBA pixels, in the platform's byte order.
function opaqueLut(lut) {
  const rgba = new Uint8ClampedArray(256 * 4);
  for (let k = 0; k < 256; k++) rgba.set([lut[3 * k], lut[3 * k + 1], lut[3 * k + 2], 255], 4 * k);
  return new Uint32Array(rgba.buffer);
}

// A hold: `wait` resolves when `release()` is called.
function createHold() {
  let release;
  const wait = new Promise((res) => { release = res; });
  return { wait, release };
}

// One head's pooled picture (the module's max-pool of its T x T map, model.evaluate's attentionPool; -1
// where no key lies below the diagonal) -> px x px RGBA, sqrt-scaled through the LUT, transparent at -1.
function render(lut32, pixels, offset, px) {
  const rgba = new Uint8ClampedArray(px * px * 4), out = new Uint32Array(rgba.buffer); // one write per pixel
  for (let p = 0; p < px * px; p++) {
    const m = pixels[offset + p];
    if (m >= 0) out[p] = lut32[Math.min(255, Math.round(Math.sqrt(m) * 255))];
  }
  return new ImageData(rgba, px, px);
}

// The view "auto" (layer -1): the layer and head of this model whose attention best marks the correct key
// (answer-key.js) at its training length, on the view's task and seed; for a task with no fixed answer
// place, the sharpest head. Computed once per model, task and seed (kept in `picks`): one forward pass per layer.
function pickView(pe, picks, model, job) {
  const key = `${job.task}|${job.seed}`;
  if (!picks.has(model)) picks.set(model, new Map());
  const cache = picks.get(model);
  if (cache.has(key)) return cache.get(key);
  const { layers, heads } = model.config, T = model.trainedLength || 32;
  const { tokens, targets } = batchFor(pe, job, T, 1);
  const keys = answerKeys(job.task, tokens.subarray(0, T));
  const maps = new Float32Array(heads * T * T);
  let best = { layer: layers - 1, head: 0, score: -1, kind: 'peak' };
  for (let l = 0; l < layers; l++) {
    model.evaluate(tokens, targets, { batch: 1, length: T, attention: true, attentionLayer: l, attentionOut: maps });
    const { scores, kind } = headScores(maps, heads, T, keys);
    scores.forEach((v, h) => { if (v > best.score) best = { layer: l, head: h, score: v, kind }; });
  }
  cache.set(key, best);
  return best;
}
