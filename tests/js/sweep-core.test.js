// The sweep core's pictures and peaks (web/app/lab/sweep-core.js, run here in Node with a stand-in
// ImageData / createImageBitmap): each picture is the per-pixel max-pool of the exact maps that
// its 'attention' message returns (the same forward pass), sqrt-scaled through the colour table,
// transparent above the diagonal; each peak is the mean over query rows of the row's largest weight.
import { loadPosenc } from '../../web/lib/index.js';
import { createSweepCore } from '../../web/app/lab/sweep-core.js';
import { poolByDefinition } from './reference.js';

let pe;
const saved = {};
beforeAll(async () => {
  pe = await loadPosenc();
  for (const k of ['ImageData', 'createImageBitmap']) saved[k] = globalThis[k];
  globalThis.ImageData = class { constructor(data, width, height) { Object.assign(this, { data, width, height }); } };
  globalThis.createImageBitmap = async (image) => ({ image, close() {} });
});
afterAll(() => Object.assign(globalThis, saved));

// The definition (reference.js poolByDefinition), coloured as the page is: sqrt-scaled through the LUT,
// transparent where the cell has no key below the diagonal.
function reference(probs, offset, T, px, lut) {
  const { pixels, peaks } = poolByDefinition(probs.subarray(offset, offset + T * T), T, px);
  const rgba = new Uint8ClampedArray(px * px * 4);
  pixels.forEach((m, p) => {
    if (m < 0) return;
    const k = Math.min(255, Math.round(Math.sqrt(m) * 255)) * 3;
    rgba.set([lut[k], lut[k + 1], lut[k + 2], 255], p * 4);
  });
  return { rgba, peak: peaks[0] };
}

test('pictures and peaks are the max-pooled exact maps of the chosen layer', async () => {
  const messages = [];
  const handle = createSweepCore(async () => pe, (msg) => messages.push(msg));
  const lut = Uint8Array.from({ length: 768 }, (_, i) => (i * 37) % 256);
  const maxPx = 24;
  await handle({ type: 'init', lut, maxPx });
  const model = pe.createModel({ encoding: 'alibi', layers: 3, heads: 2, dModel: 16, vocabSize: 11, seed: 9 });
  await handle({ type: 'model', encoding: 'alibi', bytes: model.save() });
  model.delete();
  const lengths = [9, 24, 25, 61];
  let checked = 0;
  for (const [layer, head] of [[0, -1], [2, 1], [1, -1]]) {
    messages.length = 0;
    const view = { scaling: null, layer, head, task: 'copy', seed: 4 };
    await handle({ type: 'sweep', encoding: 'alibi', gen: 1, lengths, ...view });
    for (let t = 0; t < 200 && messages.filter((m) => m.type === 'result').length < lengths.length; t++) await new Promise((r) => setTimeout(r, 10));
    for (const T of lengths) {
      const result = messages.find((m) => m.type === 'result' && m.length === T);
      await handle({ type: 'attention', encoding: 'alibi', id: T, length: T, ...view });
      const exact = messages.find((m) => m.type === 'attention' && m.id === T);
      expect(exact.layer).toBe(layer);
      expect(result.heads).toEqual(exact.heads);
      const px = Math.min(T, maxPx);
      result.heads.forEach((h, k) => {
        const ref = reference(exact.probs, k * T * T, T, px, lut);
        expect(result.bitmaps[k].image.width).toBe(px);
        expect(Array.from(result.bitmaps[k].image.data)).toEqual(Array.from(ref.rgba));
        expect(result.peaks[k]).toBe(Math.fround(ref.peak));
        checked++;
      });
    }
  }
  expect(checked).toBe(4 * 2 + 4 * 1 + 4 * 2);
  await handle({ type: 'drop', encoding: 'alibi' }); // (the core's own model: deleted, not left to the GC)
});

test('each length is evaluated on evalBatch(length) sequences: 4, fewer from 512 on, the shipped count at the training length; a result says how many', async () => {
  const { evalBatch } = await import('../../web/app/lab/sweep-core.js');
  const { evalTask, EXPERIMENT } = await import('../../web/app/shared/experiment.js');
  expect([32, 256, 512, 1024].map((L) => evalBatch(L))).toEqual([4, 4, 2, 1]);
  expect([evalBatch(32, 32), evalBatch(64, 32)]).toEqual([EXPERIMENT.evalSequences, 4]);
  const messages = [];
  const handle = createSweepCore(async () => pe, (msg) => messages.push(msg));
  await handle({ type: 'init', lut: new Uint8Array(768), maxPx: 16 });
  const model = pe.createModel({ encoding: 'rope', layers: 2, heads: 2, dModel: 16, vocabSize: 11, seed: 3 });
  await handle({ type: 'model', encoding: 'rope', bytes: model.save({ weights: 'float32' }) });
  const lengths = [40, 512];
  await handle({ type: 'sweep', encoding: 'rope', gen: 1, lengths, scaling: null, layer: 1, head: 0, task: 'copy', seed: 6 });
  for (let t = 0; t < 300 && messages.filter((m) => m.type === 'result').length < lengths.length; t++) await new Promise((r) => setTimeout(r, 10));
  for (const length of lengths) {
    const task = pe.createTask({ ...evalTask('copy'), seed: 6 * 7919 + length });
    const { tokens, targets } = task.sample({ batch: evalBatch(length), length });
    task.delete();
    const want = model.evaluate(tokens, targets, { batch: evalBatch(length), length });
    const got = messages.find((m) => m.type === 'result' && m.length === length);
    expect([got.loss, got.accuracy]).toEqual([want.loss, want.accuracy]);
    expect(got.sequences).toBe(evalBatch(length));
  }
  model.delete();
  await handle({ type: 'drop', encoding: 'rope' });
});

test('a held sweep runs only the first length of each request (the one on screen) until released (foreground.js)', async () => {
  const { holdBackground, onBackgroundHold } = await import('../../web/app/shared/foreground.js');
  const messages = [];
  const handle = createSweepCore(async () => pe, (msg) => messages.push(msg));
  await handle({ type: 'init', lut: new Uint8Array(768), maxPx: 16 });
  const told = []; // what the page's registry told its listeners
  const off = onBackgroundHold((on) => { told.push(on); handle({ type: 'hold', on }); }); // as sweep-client.js wires its Workers
  const model = pe.createModel({ encoding: 'rope', layers: 1, heads: 2, dModel: 16, vocabSize: 11, seed: 3 });
  await handle({ type: 'model', encoding: 'rope', bytes: model.save({ weights: 'float32' }) });
  model.delete();
  const lengths = () => messages.filter((m) => m.type === 'result').map((m) => m.length);
  const settle = () => new Promise((r) => setTimeout(r, 150));
  const view = { scaling: null, layer: 0, head: 0, task: 'copy', seed: 1 };
  // two holders: the background waits until both have released (each release counts once)
  const [a, b] = [holdBackground(), holdBackground()];
  await handle({ type: 'sweep', encoding: 'rope', gen: 1, lengths: [8, 16, 24], ...view });
  await settle();
  expect(lengths()).toEqual([8]);
  // a new request while held (the reader moved the length): its first length runs at once
  await handle({ type: 'sweep', encoding: 'rope', gen: 2, lengths: [12, 16, 24], ...view });
  await settle();
  expect(lengths()).toEqual([8, 12]);
  a();
  a();
  await settle();
  expect(told).toEqual([false, true]); // (at subscription, then at the first hold; not again for the second)
  expect(lengths()).toEqual([8, 12]);
  b();
  expect(told).toEqual([false, true, false]);
  for (let t = 0; t < 200 && lengths().length < 4; t++) await new Promise((r) => setTimeout(r, 10));
  expect(lengths()).toEqual([8, 12, 16, 24]);
  off();
  await handle({ type: 'drop', encoding: 'rope' });
});
