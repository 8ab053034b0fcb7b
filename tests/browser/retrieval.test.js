// Lost in the middle, read as one line per encoding (issue 29): accuracy against needle depth at the input length the
// reader picks (the longest measured by default), each line's far / middle / near accuracy in the key as
// depthLines/lineReadout compute them from the shipped grids, rows that did not learn greyed and said so, the length
// in the URL, and the per-encoding heatmaps drawn only when the reader opens them.
import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { useEngine } from './harness.js';
import { retrievalGrids, depthLines, lineReadout } from '../../web/app/story/retrieval.js';

jest.setTimeout(180000);
const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/results.json', import.meta.url), 'utf8'));
const view = retrievalGrids(shipped);
const lengths = Object.values(view.grids)[0].lengths;
// One lab row: the lines come from the shipped grids of every encoding, whatever the lab shows, and the lab's
// background sweep of all twelve encodings at every length would run beside the whole test.
const LAB = 'encodings=alibi';
const keyText = (length) => depthLines(view, length).lines.map((l) => ` ${l.label}: ${lineReadout(l)}${l.learned ? '' : ' (did not learn at 1×: greyed)'}`);

const state = (page) => page.evaluate(() => {
  const s = document.querySelector('#retrieval');
  const c = s.querySelector('canvas.retrieval-lines');
  return { lines: c.dataset.lines, x: c.dataset.xAxis, y: c.dataset.yAxis, label: c.getAttribute('aria-label'), value: s.querySelector('select.retrieval-length').value,
    key: [...s.querySelectorAll('.retrieval-key li')].map((li) => li.textContent), maps: s.querySelectorAll('.retrieval-grid canvas').length,
    drawn: (() => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; const seen = new Set(); for (let i = 0; i < d.length; i += 4 * 97) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`); return seen.size; })() };
});

describe.each(['chromium', 'firefox', 'webkit'])('%s', (engine) => {
  const env = useEngine(engine);

  test('one line per encoding at the picked length, the key from the grids, heatmaps on demand', async () => {
    const page = await env.newPage();
    await page.setViewport(1400, 900);
    const shortest = lengths[1];
    await page.goto(`${env.url}/app/?play=0&${LAB}&retrievalLength=${shortest}`);
    await page.waitFor(() => !!document.querySelector('#retrieval canvas.retrieval-lines')?.dataset.lines, { what: 'the depth lines', timeout: 60000 });
    await page.evaluate(() => document.getElementById('retrieval').scrollIntoView());
    const s = await state(page);
    expect(Number(s.lines)).toBe(Object.keys(view.grids).length);
    expect(s.value).toBe(String(shortest));
    expect(s.key).toEqual(keyText(shortest));
    expect(s.x).toMatch(/needle depth/);
    expect(s.y).toContain(`T = ${shortest}`);
    expect(s.drawn).toBeGreaterThan(8); // lines in many colours, not a blank canvas
    expect(s.maps).toBe(0); // the heatmaps wait until asked for
    await page.screenshot(`retrieval-lines-${engine}`);

    // the heatmaps, on a real Enter key on the summary (a key, not a click: rows drawn as they come into view may
    // still move the page under a mouse, as in your-rope-errors.test.js)
    await page.evaluate(() => document.querySelector('#retrieval details.retrieval-maps summary').focus());
    await page.press('Enter');
    await page.waitFor(() => document.querySelectorAll('#retrieval .retrieval-grid canvas').length > 0, { what: 'the heatmaps' });
    expect((await state(page)).maps).toBe(Object.keys(view.grids).length);
    expect(await page.errors()).toEqual([]);
  });

  if (engine === 'chromium') test('picking a length redraws the lines and their key, and goes into the URL', async () => {
    const page = await env.newPage();
    await page.setViewport(390, 844);
    await page.goto(`${env.url}/app/?play=0&${LAB}`);
    await page.waitFor(() => !!document.querySelector('#retrieval canvas.retrieval-lines')?.dataset.lines, { what: 'the depth lines', timeout: 60000 });
    expect((await state(page)).key).toEqual(keyText(lengths.at(-1))); // the longest by default
    await page.evaluate(() => document.getElementById('retrieval').scrollIntoView());
    await page.raw.selectOption('#retrieval select.retrieval-length', String(lengths[2]));
    await page.waitFor((L) => document.querySelector('#retrieval canvas.retrieval-lines').dataset.yAxis.includes(`T = ${L} `), { arg: lengths[2], what: 'the new length' });
    const s = await state(page);
    expect(s.key).toEqual(keyText(lengths[2]));
    // the URL is written 150 ms after the last change
    await page.waitFor((L) => new URLSearchParams(location.search).get('retrievalLength') === String(L), { arg: lengths[2], what: 'the length in the URL' });
    await page.screenshot('retrieval-lines-390');
  });
});
