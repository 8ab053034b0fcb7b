// Training in a module Web Worker in headless Chromium: progress arrives,
// the loss falls, the checkpoint loads on the main thread, stop() cancels.
import { useBrowser } from './harness.js';

const browser = useBrowser();

test('a Worker trains the copy task and the loss falls', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/app/blank.html`);
  const out = await page.evaluate(async () => {
    const worker = new Worker('/lib/train-worker.js', { type: 'module' });
    const progress = [];
    const done = await new Promise((resolve, reject) => {
      worker.onmessage = ({ data }) => {
        if (data.type === 'progress') progress.push(data);
        else if (data.type === 'done') resolve(data);
        else reject(new Error(`${data.name}: ${data.message}`));
      };
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage({ type: 'train', model: { encoding: 'rope', layers: 2, heads: 2, dModel: 32, vocabSize: 11, maxLength: 16, seed: 1 },
        train: { task: 'copy', symbols: 8, steps: 120, batch: 8, length: 16, lr: 3e-3, progressEvery: 10 } });
    });
    worker.terminate();
    const { loadPosenc } = await import('/lib/index.js');
    const pe = await loadPosenc();
    const model = pe.loadModel(done.checkpoint);
    const encoding = model.config.encoding;
    model.delete();
    return { losses: progress.map((p) => p.loss), steps: done.result.steps, encoding, bytes: done.checkpoint.length };
  });
  expect(out.steps).toBe(120);
  expect(out.losses.length).toBe(12);
  expect(out.losses.at(-1)).toBeLessThan(out.losses[0] * 0.8);
  expect(out.encoding).toBe('rope');
  expect(out.bytes).toBeGreaterThan(1000);
  expect(page.errors).toEqual([]);
});

test('stop cancels a Worker run between steps', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/app/blank.html`);
  const result = await page.evaluate(() => new Promise((resolve, reject) => {
    const worker = new Worker('/lib/train-worker.js', { type: 'module' });
    worker.onmessage = ({ data }) => {
      if (data.type === 'progress' && data.step === 5) worker.postMessage({ type: 'stop' });
      if (data.type === 'done') resolve(data.result);
      if (data.type === 'error') reject(new Error(data.message));
    };
    worker.postMessage({ type: 'train', model: { encoding: 'alibi', vocabSize: 11, maxLength: 16, dModel: 32, heads: 2 },
      train: { steps: 100000, batch: 4, length: 16, progressEvery: 1 } });
  }));
  expect(result.stopped).toBe(true);
  expect(result.steps).toBeLessThan(1000);
});
