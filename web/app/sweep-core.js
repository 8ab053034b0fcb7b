// The length sweep's forward passes (run in sweep-worker.js, or on the main
// thread where Workers cannot start, e.g. a page opened from file://). Holds one model per
// encoding; for each requested length it evaluates the model on a fixed task
// batch (loss, accuracy), keeping the attention maps of the chosen layer only, and renders them
// (one head or all) into ImageBitmaps through the colour table the page sends.
// The page only draws what comes back.
//
//   {type: 'init', lut: Uint8Array(256*3), maxPx}
//   {type: 'model', encoding, bytes?: Uint8Array, config?: {...}}       replaces that encoding's model
//   {type: 'sweep', encoding, gen, lengths, scaling, layer, head, task, seed}
//   {type: 'cancel' | 'drop', encoding}                               stop its sweep | and free its model
//   {type: 'attention', encoding, id, length, scaling, layer, head, task, seed}   the exact weights of one map
//   -> {type: 'result', encoding, gen, length, loss, accuracy, status, trainedLength, bitmaps, px, heads, tokens, peaks}
//      tokens: Int32Array(length), the sequence drawn (sequence 0 of the batch); peaks: per head, the mean over
//      query rows of the row's largest weight (how sharp the head is)
//   -> {type: 'attention', encoding, id, length, layer, heads, tokens, probs}   probs: Float32Array(heads.length*length*length),
//      [head, query, key], the same forward pass as the result at that length (same batch, model and view)
//   -> {type: 'ready', encoding, trainedLength, config}  after 'model'
//   -> {type: 'error', encoding, message}
import { evalTask } from './experiment.js';

/**
 * The sweep's message handler. `api()` returns a promise of a loaded posenc API; `post(message, transfer)`
 * sends results back. Returns handle(message).
 */
export function createSweepCore(api, post) {
  const EVAL_BATCH = 4;
  let pe = null;
  let lut = null;
  let maxPx = 192;
  const models = new Map(); // encoding -> Model
  let mapsBuffer = new Float32Array(0); // the maps of every evaluate, reused (a fresh 8 MB array per length costs more than the copy)
  const jobs = new Map(); // encoding -> {gen, lengths, i, ...}
  let running = false;

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

  // Evaluation data for one length: the same sequences every time (seeded by length).
  function batchFor(job, length) {
    const task = pe.createTask({ ...evalTask(job.task), seed: job.seed * 7919 + length });
    try {
      return task.sample({ batch: EVAL_BATCH, length });
    } finally {
      task.delete();
    }
  }

  function scalingFor(job, model) {
    if (!job.scaling || model.config.encoding !== 'rope') return undefined;
    return job.scaling;
  }

  // T x T probabilities -> px x px RGBA (max-pooled when T > px), sqrt-scaled through the LUT, and the
  // map's peak: the mean over query rows of the row's largest weight. One pass over the map: each band
  // of query rows (one pixel row) is folded into its column maxima, which the pixels then pool.
  let colMax = new Float32Array(0);
  function render(maps, offset, T, px) {
    const rgba = new Uint8ClampedArray(px * px * 4);
    if (colMax.length < T) colMax = new Float32Array(T);
    const cell = T / px;
    let peakSum = 0;
    for (let y = 0; y < px; y++) {
      const i0 = Math.floor(y * cell), i1 = Math.max(i0 + 1, Math.floor((y + 1) * cell));
      colMax.fill(0, 0, i1);
      for (let i = i0; i < i1; i++) {
        const row = offset + i * T;
        let rowMax = 0;
        for (let j = 0; j <= i; j++) {
          const p = maps[row + j];
          if (p > rowMax) rowMax = p;
          if (p > colMax[j]) colMax[j] = p;
        }
        peakSum += rowMax;
      }
      for (let x = 0; x < px; x++) {
        const j0 = Math.floor(x * cell), j1 = Math.min(i1, Math.max(j0 + 1, Math.floor((x + 1) * cell)));
        if (j0 >= i1) break; // this and every later pixel of the row lie above the diagonal: masked, transparent
        let m = 0;
        for (let j = j0; j < j1; j++) if (colMax[j] > m) m = colMax[j];
        const k = Math.min(255, Math.round(Math.sqrt(m) * 255)) * 3, o = (y * px + x) * 4;
        rgba[o] = lut[k];
        rgba[o + 1] = lut[k + 1];
        rgba[o + 2] = lut[k + 2];
        rgba[o + 3] = 255;
      }
    }
    return { image: new ImageData(rgba, px, px), peak: peakSum / T };
  }

  // One length's forward pass for a view: loss, accuracy, the chosen layer's maps and the drawn sequence.
  function evaluateAt(model, job, length) {
    const { tokens, targets } = batchFor(job, length);
    const { layers, heads } = model.config;
    const layer = Math.min(job.layer, layers - 1);
    const nMaps = heads * length * length; // the maps of the drawn layer only: the others run without
    if (mapsBuffer.length !== nMaps) mapsBuffer = new Float32Array(nMaps);
    // r.attention is mapsBuffer: read it before the next evaluate (no await in between)
    const r = model.evaluate(tokens, targets, {
      batch: EVAL_BATCH, length, attention: true, attentionLayer: layer, attentionOut: mapsBuffer, ropeScaling: scalingFor(job, model),
    });
    const headList = job.head < 0 ? Array.from({ length: heads }, (_, h) => h) : [Math.min(job.head, heads - 1)];
    const offsetOf = (h) => h * length * length;
    return { r, layer, headList, offsetOf, tokens: tokens.slice(0, length) };
  }

  function attentionOf({ encoding, id, length, ...view }) {
    const model = models.get(encoding);
    if (!model) throw new RangeError(`no model for ${encoding}`);
    const { r, layer, headList, offsetOf, tokens } = evaluateAt(model, view, length);
    const probs = new Float32Array(headList.length * length * length);
    headList.forEach((h, k) => probs.set(r.attention.subarray(offsetOf(h), offsetOf(h) + length * length), k * length * length));
    post({ type: 'attention', encoding, id, length, layer, heads: headList, tokens, probs }, [probs.buffer, tokens.buffer]);
  }

  async function step(encoding, job) {
    const model = models.get(encoding);
    const length = job.lengths[job.i++];
    const { r, headList, offsetOf, tokens } = evaluateAt(model, job, length);
    const px = Math.min(length, maxPx);
    // Read everything from the model before awaiting: a 'model' message may replace (and delete) it meanwhile.
    const status = model.positionStatus(length);
    const trainedLength = model.trainedLength;
    const drawn = headList.map((h) => render(r.attention, offsetOf(h), length, px)); // before any await (mapsBuffer)
    const peaks = Float32Array.from(drawn, (d) => d.peak);
    const bitmaps = await Promise.all(drawn.map((d) => createImageBitmap(d.image)));
    if (models.get(encoding) !== model) return; // replaced while rendering: this result is stale
    post({
      type: 'result', encoding, gen: job.gen, length, loss: r.loss, accuracy: r.accuracy, status,
      trainedLength, bitmaps, px, heads: headList, tokens, peaks,
    }, [...bitmaps, status.buffer, tokens.buffer]);
  }

  // Round-robin over the encodings with pending lengths, one length at a time,
  // yielding between lengths so a newer request replaces an older one at once.
  async function pump() {
    if (running) return;
    running = true;
    try {
      for (;;) {
        const pending = [...jobs.entries()].filter(([enc, j]) => j.i < j.lengths.length && models.has(enc));
        if (!pending.length) break;
        for (const [encoding, job] of pending) {
          if (jobs.get(encoding) !== job) continue;
          try {
            await step(encoding, job);
          } catch (e) {
            jobs.delete(encoding);
            post({ type: 'error', encoding, message: e?.message ?? String(e) });
          }
          await new Promise((r) => setTimeout(r, 0));
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
        lut = data.lut;
        maxPx = data.maxPx ?? maxPx;
      } else if (data.type === 'model') {
        setModel(data);
      } else if (data.type === 'sweep') {
        jobs.set(data.encoding, { ...data, i: 0 });
        pump();
      } else if (data.type === 'attention') {
        try {
          attentionOf(data);
        } catch (e) {
          post({ type: 'attention', encoding: data.encoding, id: data.id, error: e?.message ?? String(e) });
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
