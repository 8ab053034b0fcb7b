// The first page served by `npm start`: it loads, draws every view from the
// module (non-blank canvases), keeps its state in the URL, and logs no errors.
import { useBrowser } from './harness.js';
import { mkdirSync } from 'node:fs';

const browser = useBrowser();

async function waitReady(page) {
  for (let i = 0; i < 100; i++) {
    if (await page.evaluate(() => document.body.dataset.ready === 'true')) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`page never became ready: ${await page.textContent('#status')}`);
}

// Distinct colours and non-background pixels in a canvas.
const canvasStats = (page, selector) =>
  page.$$eval(selector, (canvases) =>
    canvases.map((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const colours = new Set();
      let painted = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (d[i + 3] > 0) painted++;
        colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      }
      return { painted: painted / (d.length / 4), colours: colours.size };
    }));

test('every view draws real content, with no console errors', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1000, height: 2400 });
  await page.goto(`${browser.url}/`);
  await waitReady(page);
  const stats = await canvasStats(page, 'canvas');
  expect(stats.length).toBeGreaterThanOrEqual(4 + 8); // sinusoid, clocks, offset, t5, 8 ALiBi heads
  for (const s of stats) {
    expect(s.painted).toBeGreaterThan(0.01);
    expect(s.colours).toBeGreaterThan(3);
  }
  // the sinusoid heatmap uses most of the colour map
  const [sin] = await canvasStats(page, '#sinusoid canvas');
  expect(sin.colours).toBeGreaterThan(100);
  expect(await page.textContent('#build')).toContain('simd');
  mkdirSync('docs', { recursive: true });
  await page.screenshot({ path: 'docs/first-page.png', fullPage: true });
  expect(page.errors).toEqual([]);
});

test('state round-trips through the URL and bad values fall back to defaults', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?alibiHeads=4&sinDim=9999&ropePos=%22%3E%3Cimg%20src%3Dx%3E`);
  await waitReady(page);
  expect(await page.$$eval('#alibi canvas', (c) => c.length)).toBe(4);
  expect(await page.inputValue('input[name=sinDim]')).toBe('64');
  await page.fill('input[name=alibiHeads]', '6');
  await page.dispatchEvent('input[name=alibiHeads]', 'input');
  expect(page.url()).toContain('alibiHeads=6');
  expect(await page.$$eval('#alibi canvas', (c) => c.length)).toBe(6);
  expect(page.errors).toEqual([]);
});
