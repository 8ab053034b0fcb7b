// The page served by `npm start`: it loads, draws the encoding views from the
// module (non-blank canvases), keeps its state in the URL, and logs no errors.
import { useBrowser, docsShot } from './harness.js';
import { waitFor, waitReady, waitSwept, canvasStats } from './page-helpers.js';

const browser = useBrowser();

test('every encoding view draws real content, with no console errors', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1000, height: 2400 });
  await page.goto(`${browser.url}/?play=0&steps=20&encodings=rope,alibi`);
  await waitReady(page);
  const stats = await canvasStats(page, '#sinusoid canvas, #rope canvas, #alibi canvas, #t5 canvas, #rope-scaling canvas.spectrum');
  expect(stats.length).toBeGreaterThanOrEqual(5 + 8); // sinusoid, clocks, offset, t5, spectrum, 8 ALiBi heads
  for (const s of stats) {
    expect(s.painted).toBeGreaterThan(0.01);
    expect(s.colours).toBeGreaterThan(3);
  }
  // the sinusoid heatmap uses most of the colour map
  const [sin] = await canvasStats(page, '#sinusoid canvas');
  expect(sin.colours).toBeGreaterThan(100);
  expect(await page.textContent('#build')).toContain('simd');
  await waitSwept(page);
  await page.screenshot({ path: docsShot('first-page.png'), fullPage: true }); // docs/ only under `npm run docs`
  expect(page.errors).toEqual([]);
});

test('state round-trips through the URL and bad values fall back to defaults', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?play=0&steps=20&encodings=alibi&alibiHeads=4&sinDim=9999&ropePos=%22%3E%3Cimg%20src%3Dx%3E`);
  await waitReady(page);
  expect(await page.$$eval('#alibi canvas', (c) => c.length)).toBe(4);
  expect(await page.inputValue('input[name=sinDim]')).toBe('64');
  expect(await page.inputValue('input[name=ropePos]')).toBe('10');
  await page.fill('input[name=alibiHeads]', '6');
  await page.dispatchEvent('input[name=alibiHeads]', 'input');
  // the URL is written 150 ms after the last change (debounced): poll, since a loaded machine can delay the timer
  await waitFor(page, () => location.search.includes('alibiHeads=6'), { timeout: 10000, what: 'the URL to hold alibiHeads=6' });
  expect(await page.$$eval('#alibi canvas', (c) => c.length)).toBe(6);
  expect(page.errors).toEqual([]);
});
