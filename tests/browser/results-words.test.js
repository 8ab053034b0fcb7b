// The page's words about measured results (issue 14) are the ones web/app/shared/results-words.js computes from the
// shipped web/checkpoints/results.json: the header summary, each sweep row's offline verdict (also after the
// rows change), the retrieval view's depth sentences and the literature verdicts. None is hand-written in the HTML.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useBrowser, screenshotDir } from './harness.js';
import { literatureWords } from '../../web/app/story/literature-view.js';
import { waitFor, waitReady } from './page-helpers.js';
import { headerWords, rowWords } from '../../web/app/shared/claims.js';
import { retrievalGrids, retrievalWords } from '../../web/app/story/retrieval.js';

const browser = useBrowser();
const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/results.json', import.meta.url), 'utf8'));

test('header, row and retrieval words equal what results-words computes from the shipped results.json', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1200, height: 1600 });
  await page.goto(`${browser.url}/?play=0&steps=20&encodings=rope,alibi,none`);
  await waitReady(page);
  await waitFor(page, () => document.querySelector('#measured-claims').textContent.length > 0, { what: 'the header words' });
  expect(await page.textContent('#measured-claims')).toBe(headerWords(shipped, 'copy'));
  const rows = await page.$$eval('#sweep .sweep-row', (els) => els.map((e) => [e.dataset.encoding, e.querySelector('.offline').textContent]));
  expect(rows.length).toBe(3);
  for (const [enc, text] of rows) {
    expect(text).toBe(rowWords(shipped, 'copy', enc));
    expect(text).toMatch(/^Measured offline: /);
  }
  // a row added later gets its words too
  await page.check('fieldset.encodings input[value=shaw]');
  await waitFor(page, () => document.querySelector('.sweep-row[data-encoding=shaw] .offline')?.textContent.length > 0, { what: 'the shaw row words' });
  expect(await page.textContent('.sweep-row[data-encoding=shaw] .offline')).toBe(rowWords(shipped, 'copy', 'shaw'));
  // retrieval: the plain-words gradient and the notice
  const words = retrievalWords(shipped, retrievalGrids(shipped));
  await waitFor(page, () => document.querySelector('#retrieval-note').textContent.length > 0, { what: 'the retrieval words' });
  expect(await page.textContent('#retrieval-note')).toBe([words.head, ...words.rows].join(''));
  expect(await page.textContent('#retrieval .notice')).toBe(words.notice);
  // no hand-written claim about results left in the page's static text
  const html = readFileSync(new URL('../../web/app/index.html', import.meta.url), 'utf8');
  for (const claim of [/ALiBi stays local/, /no middle dip/, /RoPE drifts/, /\brecency\b/]) expect(html).not.toMatch(claim);
  expect(page.errors).toEqual([]);
});

// Issue 29: each row's "what to notice" compares the accuracy shown against the row's accuracy at the training
// length and the task's floor, with the very numbers of the page's evaluations (never attention alone); readouts do not go
// stale; the training text states the batch trained with; the length label keeps one line.
import { EXPERIMENT } from '../../web/app/shared/experiment.js';
import { taskInfo, floorNear, pct1 } from '../../web/app/shared/results-words.js';

test('row words agree with the sweep\'s numbers at every length, and the readouts and labels do not go stale', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 3200 }); // every row on screen (rows off screen are drawn when they come into view)
  await page.goto(`${browser.url}/?play=0&encodings=alibi,rope,fire,learned`);
  await waitReady(page);
  expect(await page.textContent('#train-batch')).toBe(String(EXPERIMENT.batch));
  const labelHeights = new Set();
  for (const T of [32, 64, 128, 512]) {
    await page.evaluate((t) => posenc.setLength(t), T);
    await waitFor(page, (t) => posenc.state.encodings.every((e) => posenc.evaluations.at(e, t) && posenc.evaluations.at(e, posenc.state.trainLength)),
      { arg: T, what: `the sweep at ${T}` });
    await page.waitForTimeout(300);
    labelHeights.add(await page.$eval('#length-out', (el) => el.getBoundingClientRect().height));
    const rows = await page.evaluate((t) => posenc.state.encodings.map((e) => {
      // the page's evaluations (evaluations.js: the shipped measurement where it applies, else the live sweep's)
      const el = document.querySelector(`.sweep-row[data-encoding=${e}]`), at = (L) => posenc.evaluations.at(e, L);
      return { e, notice: el.querySelector('.notice').textContent, measured: el.querySelector('.measured').textContent,
        now: at(t).accuracy, train: at(posenc.state.trainLength).accuracy };
    }), T);
    // each score against copy's floor at its own length: the bag guess measured there, or (512) at 256
    const info = taskInfo(shipped, 'copy'), f1 = floorNear(info, 32).accuracy, fT = floorNear(info, T);
    const floorWords = `${pct1(fT.accuracy)}% for always guessing the most common token${T === 512 ? ' (measured at T = 256)' : ''}`;
    expect(fT.measuredAt).toBe(T === 512 ? 256 : undefined);
    for (const r of rows) {
      const pct = (x) => `${Math.round(100 * x)}%`;
      expect(r.measured).toContain(`accuracy ${pct(r.train)} at the training length 32, ${pct(r.now)} at ${T}`);
      if (r.train < 0.95) { expect(r.notice).toContain('did not learn the task'); continue; }
      if (T === 32) { expect(r.notice).toContain(`scores accuracy ${pct(r.now)}, against ${floorWords}`); continue; }
      expect(r.notice).toContain(`scores accuracy ${pct(r.now)}, against ${pct(r.train)} at T = 32 and ${floorWords}`);
      const kept = (r.now - fT.accuracy) / (r.train - f1);
      if (r.now <= fT.accuracy) expect(r.notice).toContain('no better than the guess');
      else expect(r.notice).toContain(`keeps ${Math.round(100 * kept)}% of its skill`);
      expect(r.notice).not.toMatch(/focus|sharpest/);
    }
  }
  expect(labelHeights.size).toBe(1); // the length label never wraps onto a second line
  // a readout read at one length does not stay once the pointer leaves and the length changes
  const box = await page.$eval('.sweep-row[data-encoding=alibi] canvas.maps', (c) => { const b = c.getBoundingClientRect(); return { x: b.x, y: b.y }; });
  await page.mouse.move(box.x + 60, box.y + 100);
  await waitFor(page, () => /T = 512/.test(document.querySelector('.sweep-row[data-encoding=alibi] .readout').textContent), { what: 'the readout at 512' });
  await page.mouse.move(5, 5);
  await page.evaluate(() => posenc.setLength(16));
  await waitFor(page, () => !/T = 512/.test(document.querySelector('.sweep-row[data-encoding=alibi] .readout').textContent), { what: 'the readout to drop T = 512' });
  expect(page.errors).toEqual([]);
});

// Issue 38: every sentence the page generates is plain words (tests/js/plain-words.js): the header, each row's words at
// several lengths (the words of a row below the guess included), the story's steps, the retrieval view, the curves'
// titles and the hero's guess label; the terms that stay (loss, nats) are explained in the lab's text, and the maps'
// dotted correct-key channel has its legend entry there.
import { jargonIn } from '../js/plain-words.js';

test('plain words: no sentence the page generates uses jargon; loss and its unit are explained; the dotted channel has a legend entry', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 3200 });
  await page.goto(`${browser.url}/?play=0&encodings=rope,alibi,none,learned,shaw`);
  await waitReady(page);
  await waitFor(page, () => document.querySelectorAll('#story .story-steps button').length > 2 && document.querySelector('#retrieval-note').textContent, { what: 'the story and the retrieval words' });
  const texts = [];
  const read = () => page.evaluate(() => [
    document.querySelector('#measured-claims').textContent, document.querySelector('#story .story-text').textContent,
    ...[...document.querySelectorAll('#sweep .sweep-row')].flatMap((r) => ['.offline', '.measured', '.notice', '.reason', '.source'].map((q) => r.querySelector(q).textContent)),
    ...[...document.querySelectorAll('#sweep canvas.curve')].map((c) => c.dataset.yAxis ?? ''),
    document.querySelector('#hero canvas.hero-chart').dataset.floorLabel ?? '',
    document.querySelector('#retrieval-note').textContent, document.querySelector('#retrieval .notice').textContent,
  ].filter(Boolean));
  for (const T of [32, 128, 512]) {
    await page.evaluate((t) => posenc.setLength(t), T);
    await waitFor(page, (t) => posenc.state.encodings.every((e) => posenc.client.results(e).some((r) => r.length === t)), { arg: T, what: `the sweep at ${T}` });
    await page.waitForTimeout(300);
    texts.push(...await read());
  }
  const steps = await page.$$('#story .story-steps button');
  for (const b of steps) {
    await b.click();
    await page.waitForTimeout(150);
    texts.push(...await read());
  }
  expect(texts.some((t) => /scores below|no better than/.test(t))).toBe(true); // (a row below the guess was read)
  expect(texts.some((t) => /^accuracy —/.test(t))).toBe(true); // (the curves' titles were read)
  const bad = [...new Set(texts)].map((t) => [t, jargonIn(t)]).filter(([, j]) => j.length);
  expect(bad).toEqual([]);
  // the terms that stay are explained where the lab first shows them, and the dotted channel is in its legend
  const explain = (await page.textContent('#sweep .explain')).replace(/\s+/g, ' ');
  expect(explain).toMatch(/loss is how unsure the model is of the right token, in nats/);
  expect(await page.$$eval('#sweep .explain .answer-swatch, #hero .hero-note .answer-swatch', (e) => e.length)).toBe(2);
  expect(explain).toMatch(/Dotted lines run either side of the correct key/);
  expect(page.errors).toEqual([]);
});

test('the literature section shows each paper’s verdict as literature.js computes it, near the line included', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1200, height: 1600 });
  await page.goto(`${browser.url}/?play=0&steps=20&encodings=rope,alibi`);
  await waitFor(page, () => document.querySelectorAll('#literature .literature-list li').length > 0, { what: 'the literature words' });
  const words = literatureWords(shipped);
  const items = await page.$$eval('#literature .literature-list li', (els) => els.map((e) => [e.dataset.paper, e.querySelector('.literature-verdict').textContent, e.querySelector('.literature-verdict').classList.contains('near-line')]));
  expect(items).toEqual(words.map((w) => [w.id, w.sentence, w.near]));
  expect(items.some(([, text]) => text.includes('near the line'))).toBe(words.some((w) => w.near));
  await page.locator('#literature').screenshot({ path: join(screenshotDir(), 'literature.png') });
  // no verdict word is hand-written in the page's static text
  const html = readFileSync(new URL('../../web/app/index.html', import.meta.url), 'utf8');
  expect(html.slice(html.indexOf('id="literature"'))).not.toMatch(/\bagrees\b|does not agree/);
  expect(page.errors).toEqual([]);
});
