// The explorer: the length sweep (animation past the training length, maps,
// curves), training in Workers, RoPE scaling sliders acting on the trained RoPE
// model, URL state, keyboard, reduced motion, themes, 375 px, exports, and the
// frame time while sweeping to T=512 with every encoding visible (measured and
// reported, not asserted). Screenshots explorer-{1,4,8}x.png (docs/ under `npm run docs`).
import { jest } from '@jest/globals';
import { useBrowser, docsShot } from './harness.js';
import { waitFor, waitReady, waitSwept, waitTrained, canvasStats, canvasHash } from './page-helpers.js';
import { readFileSync } from 'node:fs';

jest.setTimeout(240000);
const browser = useBrowser();

test('the sweep advances past the training length, drawing maps and curves', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 2400 }); // the lab's rows on screen too (rows off screen are drawn when they come into view)
  await page.goto(`${browser.url}/?steps=20&encodings=rope,alibi,learned&speed=4`);
  await waitReady(page);
  const trainLength = await page.evaluate(() => posenc.state.trainLength);
  const seen = await waitFor(page, (T) => (posenc.state.length > T ? posenc.state.length : 0), { arg: trainLength, timeout: 15000,
    what: 'the sweep to pass the training length' });
  expect(seen).toBeGreaterThan(trainLength);
  expect(await page.$eval('#length-out', (o) => o.value)).toMatch(/T = \d+/);
  await page.click('#play'); // pause
  await page.evaluate(() => posenc.setLength(4 * posenc.state.trainLength));
  await waitSwept(page);
  await page.waitForTimeout(100);
  for (const s of await canvasStats(page, '#sweep canvas.maps')) {
    expect(s.painted).toBeGreaterThan(0.2);
    expect(s.colours).toBeGreaterThan(8);
  }
  for (const s of await canvasStats(page, '#sweep canvas.curve')) {
    expect(s.painted).toBeGreaterThan(0.01);
    expect(s.colours).toBeGreaterThan(3);
  }
  // the learned row marks positions past its table (status 2), the others only never-trained ones
  const status = await page.evaluate(() => ({
    learned: Array.from(posenc.client.get('learned', posenc.state.length).status),
    rope: Array.from(posenc.client.get('rope', posenc.state.length).status),
  }));
  expect(status.learned.at(-1)).toBe(2);
  expect(status.rope.at(-1)).toBe(1);
  expect(page.errors).toEqual([]);
});

test('the default view starts from the shipped checkpoints, with no training needed', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?play=0`);
  await waitReady(page);
  // Every encoding with a shipped checkpoint of the default task loads it (one added to the registry since the
  // last `npm run train` trains instead).
  const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/index.json', import.meta.url), 'utf8'))
    .filter((f) => f.startsWith('copy-')).map((f) => f.slice(5, -5));
  expect(shipped.length).toBeGreaterThanOrEqual(7);
  await waitFor(page, (names) => names.every((e) => posenc.trainer.runs.get(e)?.status === 'checkpoint'), { arg: shipped, timeout: 15000, what: 'checkpoints' });
  // Wait for the checkpoint model's own result: get() may still show the untrained model's pictures meanwhile.
  const acc = await waitFor(page, () => posenc.client.fresh('rope', posenc.state.trainLength)?.accuracy,
    { timeout: 30000, what: "the RoPE checkpoint's sweep" });
  expect(acc).toBeGreaterThan(0.9); // the shipped copy-task RoPE model copies at its training length
  // The training panel draws each checkpoint row's recorded curve (curves.json, fetched when the panel comes near)
  const curves = JSON.parse(readFileSync(new URL('../../web/checkpoints/curves.json', import.meta.url), 'utf8')).curves;
  await page.evaluate(() => document.querySelector('#train').scrollIntoView());
  const drawn = await waitFor(page, (names) => {
    const rows = names.map((e) => document.querySelector(`.train-row[data-encoding="${e}"] canvas.loss`));
    return rows.every((c) => c.dataset.curve === 'shipped') && rows.map((c) => Number(c.dataset.points));
  }, { arg: shipped, what: 'the shipped training curves' });
  expect(drawn).toEqual(shipped.map((e) => curves[`copy-${e}.ckpt`].loss.length));
  for (const s of await canvasStats(page, '.train-row canvas.loss')) expect(s.colours).toBeGreaterThan(3);
  expect(await page.textContent('.train-row[data-encoding=rope] .tstat'))
    .toContain(`stopped early at step ${curves['copy-rope.ckpt'].stepsToTarget}`);
  // the panel's data export gives the same recorded curve for a checkpoint row
  const exported = await page.evaluate(() => posenc.dataFor('train').runs.rope);
  expect([exported.loss.length, exported.loss.at(-1)[1], exported.stepsToTarget, exported.lossFrom])
    .toEqual([curves['copy-rope.ckpt'].loss.length, curves['copy-rope.ckpt'].loss.at(-1), curves['copy-rope.ckpt'].stepsToTarget, 'the shipped checkpoint\'s training run']);
  expect(page.errors).toEqual([]);
});

test('a Worker training run lowers the loss, with progress, and stop works', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?play=0&steps=400&encodings=rope,alibi`);
  await waitReady(page);
  // The page starts from the shipped checkpoints; "Retrain" trains in a Worker.
  await waitFor(page, () => ['checkpoint', 'trained'].includes(posenc.trainer.runs.get('rope').status), { what: 'RoPE to load' });
  await page.evaluate(() => document.querySelector('#train').scrollIntoView());
  await waitFor(page, () => document.querySelector('.train-row[data-encoding=rope] canvas.loss').dataset.curve === 'shipped',
    { what: 'the shipped RoPE curve' });
  await page.evaluate(() => {
    posenc.trainer.retrainOne('rope');
    posenc.trainer.retrainOne('alibi');
  });
  await waitFor(page, () => posenc.trainer.runs.get('rope').status === 'trained', { timeout: 90000, what: 'RoPE training' });
  const rope = await page.evaluate(() => posenc.trainer.runs.get('rope').losses.map((p) => p[1]));
  // the live curve replaced the shipped one in the panel
  expect(await waitFor(page, () => { const c = document.querySelector('.train-row[data-encoding=rope] canvas.loss');
    return c.dataset.curve === 'live' && Number(c.dataset.points); }, { what: 'the live curve' })).toBe(rope.length);
  console.log(`RoPE training loss: ${rope[0].toFixed(3)} -> ${rope.at(-1).toFixed(3)} over ${rope.length} reports`);
  expect(rope.at(-1)).toBeLessThan(rope[0] * 0.5);
  expect(await page.$eval('.train-row[data-encoding=rope] progress', (p) => p.value / p.max)).toBe(1);
  // stop the other one (if still running) and it ends as stopped
  await page.evaluate(() => posenc.trainer.runs.get('alibi').status === 'training' && posenc.trainer.stop('alibi'));
  await waitFor(page, () => ['stopped', 'trained'].includes(posenc.trainer.runs.get('alibi').status), { timeout: 60000, what: 'ALiBi to stop' });
  expect(page.errors).toEqual([]);
});

test('the RoPE scaling sliders change the trained RoPE model\'s attention and accuracy', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?play=0&steps=120&encodings=rope&length=128`);
  await waitReady(page);
  await waitFor(page, () => ['checkpoint', 'trained'].includes(posenc.trainer.runs.get('rope').status), { timeout: 90000, what: 'the trained RoPE model' });
  await waitSwept(page);
  await page.waitForTimeout(200);
  const before = { hash: await canvasHash(page, '#sweep canvas.maps'), acc: await page.evaluate(() => posenc.client.get('rope', 128).accuracy) };
  const spectrumBefore = await canvasHash(page, 'canvas.spectrum');
  await page.selectOption('select[name=ropeScaling]', 'linear');
  await page.fill('input[name=factor]', '4');
  await page.dispatchEvent('input[name=factor]', 'input');
  await waitSwept(page);
  await page.waitForTimeout(200);
  const after = { hash: await canvasHash(page, '#sweep canvas.maps'), acc: await page.evaluate(() => posenc.client.get('rope', 128).accuracy) };
  console.log(`RoPE at T=128 (4x training): accuracy ${before.acc.toFixed(3)} plain, ${after.acc.toFixed(3)} with linear interpolation x4`);
  expect(after.hash).not.toBe(before.hash);
  expect(await canvasHash(page, 'canvas.spectrum')).not.toBe(spectrumBefore);
  await waitFor(page, () => location.search.includes('ropeScaling=linear'), { timeout: 10000, what: 'the URL to hold the scaling' });
  expect(page.errors).toEqual([]);
});

test('the URL holds the state (validated), keyboard, reduced motion, themes, 375 px and exports work', async () => {
  const page = await browser.newPage();
  const query = '?play=0&steps=20&seed=7&trainLength=16&layer=1&head=2&speed=2&ropeScaling=yarn&factor=8&theme=dark&encodings=rope,t5';
  await page.goto(`${browser.url}/${query}&bogus=1&heads=3&sweepFactor=99`);
  await waitReady(page);
  const s = await page.evaluate(() => ({ ...posenc.state }));
  expect(s).toMatchObject({ seed: 7, trainLength: 16, layer: 1, head: 2, speed: 2, ropeScaling: 'yarn', factor: 8, theme: 'dark',
    encodings: ['rope', 't5'], heads: 4, sweepFactor: 16, play: false, length: 16 }); // rows in the order the URL gives
  expect(await page.$$eval('.sweep-row', (r) => r.map((x) => x.dataset.encoding))).toEqual(['rope', 't5']);
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(20, 20, 23)');
  // round trip: the written URL, loaded again, gives the same state
  await page.evaluate(() => posenc.setLength(64));
  // the URL is written 150 ms after the last change (debounced): poll, since a loaded machine can delay the timer
  await waitFor(page, () => location.search.includes('length=64'), { timeout: 10000, what: 'the URL to hold length=64' });
  const url = page.url();
  expect(url).toContain('length=64');
  const again = await browser.newPage();
  await again.goto(url);
  await waitReady(again);
  expect(await again.evaluate(() => ({ ...posenc.state }))).toEqual(await page.evaluate(() => ({ ...posenc.state })));
  // keyboard: arrows step the length, space plays
  await again.focus('body');
  await again.keyboard.press('ArrowRight');
  expect(await again.evaluate(() => posenc.state.length)).toBeGreaterThan(64);
  await again.keyboard.press('Home');
  expect(await again.evaluate(() => posenc.state.length)).toBe(await again.evaluate(() => posenc.grid()[0]));
  await again.keyboard.press(' ');
  expect(await again.evaluate(() => posenc.state.play)).toBe(true);
  // exports
  const sizes = await again.evaluate(async () => {
    const out = {};
    for (const f of ['png', 'svg', 'json']) out[f] = (await posenc.exportView('sweep', f)).blob.size;
    out.alibiSvg = await (await posenc.exportView('alibi', 'svg')).blob.text();
    return out;
  });
  expect(sizes.png).toBeGreaterThan(2000);
  expect(sizes.svg).toBeGreaterThan(2000);
  expect(sizes.json).toBeGreaterThan(100);
  expect(sizes.alibiSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  // reduced motion: no autoplay
  const calm = await browser.newPage();
  await calm.emulateMedia({ reducedMotion: 'reduce' });
  await calm.goto(`${browser.url}/?steps=20&encodings=alibi`);
  await waitReady(calm);
  expect(await calm.evaluate(() => posenc.state.play)).toBe(false);
  // 375 px: nothing wider than the screen
  await calm.setViewportSize({ width: 375, height: 800 });
  await calm.waitForTimeout(300);
  expect(await calm.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  for (const p of [page, again, calm]) expect(p.errors).toEqual([]);
});

test('sweeping to T=512 with every encoding: frame time measured; screenshots at 1x, 4x and 8x', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 1600 });
  await page.goto(`${browser.url}/?play=0&perf=1`);
  await waitReady(page);
  const t0 = Date.now();
  await waitTrained(page, 200000);
  console.log(`all encodings trained or loaded in the page in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // precompute every length (the Worker caches them), then sweep and measure
  await waitFor(page, () => posenc.state.encodings.every((e) => posenc.client.results(e).length === posenc.grid().length),
    { timeout: 120000, interval: 250, what: 'every length to be cached' });
  expect(await page.evaluate(() => posenc.grid().at(-1))).toBe(512);
  await page.evaluate(() => { posenc.setLength(0); posenc.perf.reset(); posenc.setPlay(true); });
  await page.waitForTimeout(4000);
  const perf = await page.evaluate(() => ({ ...posenc.perf.stats(), length: posenc.state.length }));
  console.log(`frame time while sweeping (${(await page.evaluate(() => posenc.state.encodings.length))} encodings, to T=512): mean ${perf.frames.mean.toFixed(2)} ms ` +
    `(${(1000 / perf.frames.mean).toFixed(1)} fps), p95 ${perf.frames.p95.toFixed(2)} ms, max ${perf.frames.max.toFixed(2)} ms over ` +
    `${perf.count} frames; main-thread draw mean ${perf.draws.mean.toFixed(2)} ms, max ${perf.draws.max.toFixed(2)} ms`);
  expect(perf.count).toBeGreaterThan(10);
  expect(await page.textContent('#perf-readout')).toMatch(/fps/);
  await page.evaluate(() => posenc.setPlay(false));
  for (const x of [1, 4, 8]) {
    await page.evaluate((k) => posenc.setLength(k * posenc.state.trainLength), x);
    await waitSwept(page);
    await page.waitForTimeout(150);
    await page.evaluate(() => posenc.drawAll()); // (rows off screen are drawn only when they come into view)
    for (const st of await canvasStats(page, '#sweep canvas.maps')) expect(st.colours).toBeGreaterThan(8);
    await page.locator('#sweep').screenshot({ path: docsShot(`explorer-${x}x.png`) });
  }
  expect(page.errors).toEqual([]);
});

test('a paused page with nothing arriving runs no frames; playing, it draws once per length', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?play=0&perf=1`);
  await waitReady(page);
  await waitTrained(page, 200000);
  await waitFor(page, () => posenc.state.encodings.every((e) => posenc.client.results(e).length === posenc.grid().length),
    { timeout: 120000, interval: 250, what: 'every length to be cached' });
  await page.waitForTimeout(500); // the last arrivals drawn
  await page.evaluate(() => posenc.perf.reset());
  await page.waitForTimeout(1500);
  // (perf counts intervals: a frame after the reset and another make one)
  expect(await page.evaluate(() => posenc.perf.stats().count)).toBe(0);
  // the keyboard still draws at once (the first row on screen: rows off screen are drawn when they come into view)
  await page.evaluate(() => document.getElementById('sweep-rows').scrollIntoView());
  await page.waitForTimeout(300);
  const before = await page.evaluate(() => posenc.state.length);
  await page.keyboard.press('ArrowRight');
  await waitFor(page, (T) => posenc.state.length > T && document.querySelector('.sweep-row canvas.maps').getAttribute('aria-label').includes(`T = ${posenc.state.length}`),
    { arg: before, what: 'the next length drawn' });
  // playing: frames when the length changes (the playhead moves 32 lengths in 8 s), not at every vsync
  await page.evaluate(() => { posenc.setLength(0); posenc.perf.reset(); posenc.setPlay(true); });
  await page.waitForTimeout(2000);
  const { count, length } = await page.evaluate(() => ({ count: posenc.perf.stats().count, length: posenc.state.length }));
  await page.evaluate(() => posenc.setPlay(false));
  expect(length).toBeGreaterThan(await page.evaluate(() => posenc.grid()[2]));
  expect(count).toBeGreaterThanOrEqual(4);
  expect(count).toBeLessThan(60); // 2 s at 60 Hz would be 120
  expect(page.errors).toEqual([]);
});
