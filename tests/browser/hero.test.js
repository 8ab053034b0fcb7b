// The first screen (issue 29): at 1400 x 900 the hero figure (accuracy against length, one line per encoding,
// drawn whole from the shipped sweep), its legend with each encoding's accuracy at the cursor, the picked
// encodings' attention maps and the story's steps are all on screen without scrolling; dragging on the chart
// moves the length; curves persist when the length moves back; a story step sets the view and states the
// numbers story.js computes from the shipped results. On a phone (390 x 844) the chart and the first pair of maps
// are on screen without scrolling.
import { readFileSync, readdirSync } from 'node:fs';
import { useBrowser, docsShot } from './harness.js';
import { waitFor, waitReady, canvasStats } from './page-helpers.js';
import { storySteps, shippedSweep, contrastPicks } from '../../web/app/story/story.js';
import { ENCODING_INFO } from '../../web/lib/index.js';

const browser = useBrowser();
const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/results.json', import.meta.url), 'utf8'));
const names = Object.fromEntries(ENCODING_INFO.map((e) => [e.name, e.label]));

test('the first screen answers the question, and its words and numbers are the shipped ones', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${browser.url}/?play=0&length=128`);
  await waitReady(page);
  // every line drawn, from the shipped sweep, before any live result is needed
  const lines = await waitFor(page, () => { const l = document.querySelector('canvas.hero-chart').dataset.lines; return l && JSON.parse(l); }, { what: 'the hero lines' });
  // a line per encoding with a shipped checkpoint (a registry row with none yet is added by name, not shown by default)
  const withCheckpoints = readdirSync(new URL('../../web/checkpoints/', import.meta.url)).filter((f) => /^copy-.*\.ckpt$/.test(f)).map((f) => f.slice(5, -5));
  expect(Object.keys(lines).sort()).toEqual(withCheckpoints.sort());
  expect(withCheckpoints.length).toBeGreaterThanOrEqual(12);
  for (const n of Object.values(lines)) expect(n).toBeGreaterThanOrEqual(shipped.config.evalLengths.length);
  await waitFor(page, () => [...document.querySelectorAll('.hero-map canvas')].every((c) => /at T = 128/.test(c.getAttribute('aria-label'))),
    { timeout: 60000, what: 'the maps at 128' });
  await page.screenshot({ path: docsShot('first-screen.png') }); // the first screen at 1400 x 900 (docs/ only under `npm run docs`)
  const [stats] = await canvasStats(page, 'canvas.hero-chart');
  expect(stats.colours).toBeGreaterThan(12);
  // on screen without scrolling: chart, legend, the maps, the story's steps
  const rects = await page.evaluate(() => ['canvas.hero-chart', '.hero-legend', '.hero-maps', '#story .story-steps']
    .map((s) => { const r = document.querySelector(s).getBoundingClientRect(); return { s, top: r.top, bottom: r.bottom, h: r.height }; }));
  for (const r of rects) {
    expect(r.h).toBeGreaterThan(20);
    expect(r.bottom).toBeLessThanOrEqual(900);
  }
  // the legend's value at the cursor (T = 128, a measured length) is the shipped accuracy
  const sweep = shippedSweep(shipped, 'copy');
  const legend = await page.$$eval('.hero-key', (b) => b.map((x) => [x.dataset.encoding, x.querySelector('.value').textContent]));
  for (const [enc, text] of legend) expect(text).toBe(`${Math.round(100 * sweep[enc].find(([L]) => L === 128)[1])}%`);
  // the picked maps are drawn at the cursor's length, with their accuracy in large type
  await waitFor(page, () => [...document.querySelectorAll('.hero-map canvas')].every((c) => /at T = 128, accuracy \d+%/.test(c.getAttribute('aria-label'))),
    { timeout: 60000, what: 'the picked maps at 128' });
  expect(await page.$$eval('.hero-map', (f) => f.map((x) => x.dataset.encoding))).toEqual(contrastPicks(sweep, 32, ENCODING_INFO.map((e) => e.name)));
  // the large accuracy beside each map is its line's, the legend's: they never disagree
  const pairs = await page.$$eval('.hero-map', (f) => f.map((x) => [x.querySelector('.acc').textContent,
    document.querySelector(`.hero-key[data-encoding="${x.dataset.encoding}"] .value`).textContent]));
  for (const [a, b] of pairs) expect(a).toBe(b);
  // a legend key toggles a pick
  await page.click('.hero-key[data-encoding=t5]');
  await waitFor(page, () => document.querySelector('.hero-map[data-encoding=t5]'), { what: 'the T5 map' });
  expect(await page.getAttribute('.hero-key[data-encoding=t5]', 'aria-pressed')).toBe('true');
  // dragging on the chart moves the length (and pauses)
  const box = await page.$eval('canvas.hero-chart', (c) => { const b = c.getBoundingClientRect(); return { x: b.x, y: b.y, w: b.width, h: b.height }; });
  await page.mouse.move(box.x + box.w * 0.3, box.y + box.h / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.w * 0.9, box.y + box.h / 2, { steps: 5 });
  await page.mouse.up();
  const far = await page.evaluate(() => posenc.state.length);
  expect(far).toBeGreaterThan(256);
  // curves persist: back to the training length, every line keeps its points
  await page.evaluate(() => posenc.setLength(32));
  await page.waitForTimeout(300);
  const after = JSON.parse(await page.$eval('canvas.hero-chart', (c) => c.dataset.lines));
  for (const [enc, n] of Object.entries(lines)) expect(after[enc]).toBeGreaterThanOrEqual(n);
  // the story: each step sets the view and says what story.js computes
  const steps = storySteps(shipped, 'copy', names, ENCODING_INFO.map((e) => e.name));
  expect(await page.$$eval('#story .story-steps button', (b) => b.map((x) => x.textContent))).toEqual(steps.map((s) => s.title));
  for (const [i, st] of steps.entries()) {
    await page.click(`#story .story-steps li:nth-child(${i + 1}) button`);
    expect(await page.textContent('#story .story-text')).toBe(st.text);
    const s = await page.evaluate(() => ({ ...posenc.state }));
    expect(s).toMatchObject({ length: st.view.length, picks: st.view.picks, step: i + 1, ropeScaling: st.view.ropeScaling ?? 'none', layer: 0 });
  }
  // the stretch step's RoPE row says it is scaled
  expect(await page.textContent('.sweep-row[data-encoding=rope] .scaling')).toContain('linear (position interpolation) ×4');
  // its words state the scaled model's live accuracy at the training length against the floor
  await page.evaluate(() => document.querySelector('.sweep-row[data-encoding=rope]').scrollIntoView());
  const live = await waitFor(page, () => posenc.client.fresh('rope', 32)?.accuracy, { what: 'the scaled RoPE at 32', timeout: 60000 });
  await waitFor(page, (a) => document.querySelector('.sweep-row[data-encoding=rope] .notice').textContent.includes(`accuracy ${Math.round(100 * a)}%`),
    { arg: live, what: 'the scaled row words' });
  const words = await page.textContent('.sweep-row[data-encoding=rope] .notice');
  if (live < 0.95) expect(words).toContain('the scaling breaks the trained model before any extrapolation');
  console.log(`RoPE with linear x4 at T = 32, no fine-tuning: accuracy ${live.toFixed(3)}`);
  expect(page.errors).toEqual([]);
});

test('on a phone (390 x 844) the first screen shows the chart and a pair of maps without scrolling', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${browser.url}/?play=0`);
  await waitReady(page);
  await waitFor(page, () => { const c = [...document.querySelectorAll('.hero-map canvas')]; return c.length >= 2 && c.every((x) => /accuracy \d+%/.test(x.getAttribute('aria-label'))); },
    { timeout: 60000, what: 'the picked maps' });
  const boxes = await page.evaluate(() => [document.querySelector('canvas.hero-chart'), ...[...document.querySelectorAll('.hero-map')].slice(0, 2)]
    .map((e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; }));
  expect(await page.evaluate(() => scrollY)).toBe(0);
  for (const b of boxes) {
    expect(b.top).toBeGreaterThanOrEqual(0);
    expect(b.bottom).toBeLessThanOrEqual(844);
    expect(b.right).toBeLessThanOrEqual(390);
  }
  const [chart, a, b] = boxes;
  expect(chart.bottom - chart.top).toBeGreaterThan(150);
  expect(a.top).toBe(b.top); // the pair side by side, under the chart
  expect(a.top).toBeGreaterThanOrEqual(chart.bottom);
  const [stats] = await canvasStats(page, '.hero-map canvas');
  expect(stats.colours).toBeGreaterThan(8);
  expect(page.errors).toEqual([]);
});
