// A forward pass at the longest length (T = 16384) runs in headless Chromium
// without running out of memory: attention is streamed (no T×T buffer), so
// the wasm memory stays far below what one [T, T] float matrix would take
// (1 GiB), and the logits agree with Node's over the last positions.
import { useBrowser } from './harness.js';
import { loadPosenc } from '../../web/lib/index.js';

const browser = useBrowser();
const T = 16384;
const CONFIG = { encoding: 'alibi', layers: 2, heads: 4, dModel: 64, vocabSize: 16, maxLength: 64, seed: 1 };

test(`forward at T = ${T} in Chromium: linear memory, same logits as Node`, async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/app/blank.html`);
  const r = await page.evaluate(async ({ T, CONFIG }) => {
    const { loadPosenc } = await import('/lib/index.js');
    const pe = await loadPosenc();
    const before = pe.memoryBytes();
    const m = pe.createModel(CONFIG);
    const tokens = Int32Array.from({ length: T }, (_, i) => (i * 7919) % CONFIG.vocabSize);
    const t0 = performance.now();
    const { logits } = m.forward(tokens, { length: T });
    const ms = performance.now() - t0;
    m.delete();
    return { before, after: pe.memoryBytes(), ms, finite: logits.every(Number.isFinite), tail: Array.from(logits.subarray(logits.length - 64)) };
  }, { T, CONFIG });
  console.log(`T=${T} forward in Chromium: ${r.ms.toFixed(0)} ms, wasm memory ${(r.before / 2 ** 20).toFixed(0)} -> ${(r.after / 2 ** 20).toFixed(0)} MB`);
  expect(r.finite).toBe(true);
  expect(r.after).toBeLessThan(256 * 2 ** 20); // one T×T float32 matrix alone is 1024 MB
  const pe = await loadPosenc();
  const m = pe.createModel(CONFIG);
  const { logits } = m.forward(Int32Array.from({ length: T }, (_, i) => (i * 7919) % CONFIG.vocabSize), { length: T });
  m.delete();
  r.tail.forEach((x, i) => expect(x).toBeCloseTo(logits[logits.length - 64 + i], 5));
  expect(page.errors).toEqual([]);
});
