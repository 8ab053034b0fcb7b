// Figures a reader can read (issue 16), in every engine with real input:
//   1. every chart on the page has labelled axes and every heatmap a colour legend (recorded by the shared
//      drawing helpers of web/app/shared/chart.js on each canvas they drew, data-x-axis / data-y-axis / data-legend)
//   2. a real mouse hover over an attention map reads out the weight of the cell under the pointer, and
//      keyboard focus plus arrow keys read another: both equal model.forward(tokens, {attention: true}) of the
//      same shipped checkpoint on the same tokens, and the readout names the row's strongest key (its argmax)
//   3. a clicked query row is charted (bars) and stays in sync when the length changes
//   4. every view's "what to notice" line is there, and a screenshot of each view (tmp dir, looked at by hand)
import { jest } from '@jest/globals';
import { ENGINES, useEngine, screenshotDir } from './harness.js';
import { canvasStatsInPage } from './page-helpers.js';

jest.setTimeout(240000);
afterAll(() => console.log(`figures: screenshots in ${screenshotDir()}`));

const HEATMAPS = ['#sweep canvas.maps', '#sinusoid canvas.heat', '#alibi .grid canvas', '#retrieval .retrieval-grid canvas', '#rope-scaling canvas.rope-live'];

// Every drawn, visible canvas: its axis titles and legend as its drawing recorded them.
const chartsInPage = (heatmaps) => [...document.querySelectorAll('main canvas')].filter((c) => c.width > 1 && c.getClientRects().length && !c.hidden)
  .map((c) => ({ where: `${c.closest('section')?.id} ${c.className}`, x: c.dataset.xAxis ?? '', y: c.dataset.yAxis ?? '',
    legend: c.dataset.legend ?? '', heatmap: heatmaps.some((s) => c.matches(s)) }));

// The exact weight of (layer, head, query, key) from a forward pass of the shipped checkpoint on the drawn tokens,
// and the argmax of that query's row.
async function forwardInPage({ file, tokens, layer, head, i, j }) {
  const { loadPosenc } = await import('/lib/index.js');
  const pe = await loadPosenc();
  const bytes = new Uint8Array(await (await fetch(`/checkpoints/${file}`)).arrayBuffer());
  const model = pe.loadModel(bytes);
  const T = tokens.length, { heads } = model.config;
  const { attention } = model.forward(Int32Array.from(tokens), { length: T, attention: true });
  const row = attention.subarray(((layer * heads + head) * T + i) * T, ((layer * heads + head) * T + i + 1) * T);
  let best = 0;
  for (let k = 1; k <= i; k++) if (row[k] > row[best]) best = k;
  model.delete();
  return { weight: row[j], best, bestWeight: row[best] };
}

const readout = () => {
  const p = document.querySelector('#sweep .sweep-row[data-encoding=rope] .readout');
  return { text: p.textContent, cell: p.dataset.cell ? JSON.parse(p.dataset.cell) : null, live: p.getAttribute('aria-live') };
};

describe.each(ENGINES)('%s', (engine) => {
  const env = useEngine(engine);

  test('labelled axes, legends, exact hover and keyboard readouts, a charted row, notices and screenshots', async () => {
    const page = await env.newPage();
    await page.setViewport(1400, 1000);
    await page.goto(`${env.url}/app/?encodings=rope,alibi&play=0&sweepFactor=4&length=128&layer=1&head=0`);
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page to be ready' });
    // the lab's rows on screen (rows off screen are drawn when they come into view)
    await page.evaluate(() => document.getElementById('sweep-rows').scrollIntoView({ block: 'start' }));
    await page.waitFor(() => [...document.querySelectorAll('#sweep canvas.maps')].every((c) => c.getAttribute('aria-label').endsWith('at T = 128')),
      { timeout: 90000, what: 'the maps at T = 128 (4× the training length)' });
    expect(await page.evaluate(() => document.querySelector('.sweep-row[data-encoding=rope] .source').textContent)).toBe('(shipped checkpoint)');
    await page.waitFor(() => document.querySelector('#your-rope canvas.wavelengths').dataset.xAxis, { what: "Your model's RoPE drawn" });

    // 1. axes and legends (the retrieval heatmaps are drawn once opened: retrieval.test.js opens them with a click)
    await page.evaluate(() => { document.querySelector('#retrieval details.retrieval-maps').open = true; });
    await page.waitFor(() => document.querySelectorAll('#retrieval .retrieval-grid canvas').length > 0, { what: 'the retrieval heatmaps' });
    const charts = await page.evaluate(chartsInPage, HEATMAPS);
    expect(charts.length).toBeGreaterThanOrEqual(12);
    for (const c of charts) {
      expect({ where: c.where, x: c.x.length > 2, y: c.y.length > 2 }).toEqual({ where: c.where, x: true, y: true });
      if (c.heatmap) expect({ where: c.where, legend: c.legend.length > 2 }).toEqual({ where: c.where, legend: true });
    }
    expect(charts.filter((c) => c.heatmap).length).toBeGreaterThanOrEqual(4);

    // 2a. real mouse hover over RoPE's head 2, query 40, key 20
    const sel = '#sweep .sweep-row[data-encoding=rope] canvas.maps';
    const geomOf = () => page.evaluate((s) => {
      const c = document.querySelector(s);
      return { ...JSON.parse(c.dataset.geom), w: c.clientWidth, h: c.clientHeight };
    }, sel);
    const g = await geomOf();
    expect(g).toMatchObject({ T: 128, n: 4 });
    const at = (k, i, j) => [(g.x0 + k * (g.size + g.gap) + ((j + 0.5) / g.T) * g.size) / g.w, (g.y0 + ((i + 0.5) / g.T) * g.size) / g.h];
    await page.hover(sel, ...at(1, 40, 20));
    const hovered = await page.waitFor(() => {
      const p = document.querySelector('#sweep .sweep-row[data-encoding=rope] .readout');
      const c = p.dataset.cell && JSON.parse(p.dataset.cell);
      return c && c.weight !== null && c.i === 40 ? { text: p.textContent, cell: c } : null;
    }, { what: 'the hover readout with its weight' });
    expect(hovered.cell).toMatchObject({ k: 1, head: 1, i: 40, j: 20, length: 128 });
    const tokens = await page.evaluate(() => Array.from(posenc.client.results('rope').find((r) => r.length === 128).tokens));
    expect(tokens.length).toBe(128);
    const ref = await page.evaluate(forwardInPage, { file: 'copy-rope.ckpt', tokens, layer: 0, head: 1, i: 40, j: 20 });
    expect(Math.abs(hovered.cell.weight - ref.weight)).toBeLessThan(1e-6);
    expect(hovered.text).toContain(`weight ${ref.weight.toFixed(3)}`);
    expect(hovered.text).toContain(`attends most to key ${ref.best} `);
    expect(hovered.text).toContain(`(weight ${ref.bestWeight.toFixed(3)})`);
    expect(hovered.text).toMatch(/head 2, T = 128: query 40 /);

    // 2b. keyboard: Tab to the map (head 1, query 0, key 0), ] to head 2, Page Down x4 + Down = query 41, Right x3 = key 3
    await page.hover('h1');
    // a real Tab: from the key hints (a click there sets where sequential focus starts) to the first map
    // (the lab's own play/length bar comes first: its controls, then the first map)
    await page.click('#sweep .keys');
    const trail = [];
    for (let n = 0; n < 6 && trail.at(-1) !== 'rope maps'; n++) {
      await page.press('Tab');
      trail.push(await page.evaluate(() => document.activeElement?.closest('.lab-bar') ? 'lab bar'
        : document.activeElement?.closest('.sweep-row')?.dataset.encoding + ' ' + document.activeElement?.className));
    }
    expect(trail.at(-1)).toBe('rope maps');
    expect(trail.slice(0, -1).every((f) => f === 'lab bar')).toBe(true);
    await page.press(']', 'PageDown', 'PageDown', 'PageDown', 'PageDown', 'ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowRight');
    const typed = await page.waitFor(() => {
      const p = document.querySelector('#sweep .sweep-row[data-encoding=rope] .readout');
      const c = p.dataset.cell && JSON.parse(p.dataset.cell);
      return c && c.i === 41 && c.j === 3 && c.weight !== null ? { text: p.textContent, cell: c, live: p.getAttribute('aria-live') } : null;
    }, { what: 'the keyboard readout at query 41, key 3' });
    expect(typed.cell).toMatchObject({ k: 1, head: 1 });
    expect(typed.live).toBe('polite');
    const ref2 = await page.evaluate(forwardInPage, { file: 'copy-rope.ckpt', tokens, layer: 0, head: 1, i: 41, j: 3 });
    expect(Math.abs(typed.cell.weight - ref2.weight)).toBeLessThan(1e-6);
    expect(typed.text).toContain(`attends most to key ${ref2.best} `);
    // the page's own keys did not act while the map had focus (the length is still 128)
    expect(await page.evaluate(() => posenc.state.length)).toBe(128);

    // 3. Enter charts query 41's row; it follows the length
    await page.press('Enter');
    await page.waitFor(() => {
      const b = document.querySelector('#sweep .sweep-row[data-encoding=rope] canvas.row-bars');
      return !b.hidden && /query 41 .* T = 128/.test(b.getAttribute('aria-label') ?? '');
    }, { what: 'the bar chart of query 41' });
    const bars = await page.evaluate(canvasStatsInPage, ['#sweep .sweep-row[data-encoding=rope] canvas.row-bars']);
    expect(bars[0].painted).toBeGreaterThan(0.02);
    await page.screenshot('figures-sweep-hover');
    await page.evaluate(() => posenc.setLength(96));
    await page.waitFor(() => /T = 96/.test(document.querySelector('#sweep .sweep-row[data-encoding=rope] canvas.row-bars').getAttribute('aria-label')),
      { timeout: 60000, what: 'the bar chart at T = 96' });

    // short lengths: token labels on the axes (one tick per position)
    const first = await page.evaluate(() => { posenc.setLength(posenc.grid()[0]); return posenc.grid()[0]; });
    await page.waitFor((t) => document.querySelector('#sweep .sweep-row[data-encoding=rope] canvas.maps').getAttribute('aria-label').endsWith(`at T = ${t}`),
      { arg: first, timeout: 60000, what: 'the maps at the shortest length' });
    await page.evaluate(() => document.getElementById('sweep-rows').scrollIntoView({ block: 'start' }));
    await page.screenshot('figures-sweep-short');
    await page.evaluate(() => posenc.setLength(96));
    await page.waitFor(() => /\(T = 96\) /.test(document.querySelector('#sweep .sweep-row[data-encoding=rope] .notice').textContent),
      { what: "RoPE's notice at T = 96" });

    // 4. what to notice: one line per view, from the data on screen
    const notices = await page.evaluate(() => [...document.querySelectorAll('main .notice')]
      .map((p) => ({ where: p.closest('.sweep-row')?.dataset.encoding ?? p.closest('section').id, text: p.textContent })));
    const grids = await page.evaluate(() => document.querySelectorAll('#retrieval .retrieval-grid canvas').length);
    const expected = ['rope', 'alibi', 'rope-scaling', 'your-rope', 'sinusoid', 'rope', 'alibi', 't5', ...(grids ? ['retrieval'] : [])];
    for (const where of expected) expect(notices.filter((n) => n.where === where && /^What to notice: .*\d/.test(n.text)).length).toBeGreaterThan(0);
    notices.rope = notices.find((n) => n.where === 'rope').text;
    expect(notices.rope).toMatch(/T = 96/);
    for (const id of ['sweep', 'rope-scaling', 'your-rope', 'sinusoid', 'rope', 'alibi', 't5', 'retrieval']) {
      await page.evaluate((s) => document.getElementById(s).scrollIntoView({ block: 'start' }), id);
      await new Promise((r) => setTimeout(r, 150));
      await page.screenshot(`figures-${id}`);
    }
    expect(await page.errors()).toEqual([]);
  });
});
