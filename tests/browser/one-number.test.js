// Issue 38, items 1, 2, 3 and 8: one model, one number. With a RoPE scaling set (the story's step 5), every number
// the page shows for a model at a length is the same wherever it is shown: the hero's legend, the number beside
// the hero's map, the lab row's large number and its "Measured" line; the story's step quotes the shipped
// measurement where the view's scaling is the shipped run's. One "learned" verdict: the lab's grey-out, the
// training panel and step 1 agree, and follow the measured accuracy at the training length. Past 8x the RoPE
// line holds no unscaled point; while a length computes, no dash in the legend and no number over a map of
// another length; live points say how many sequences they rest on. The hero's maps give a hover readout that
// names the correct key. In Chromium, Firefox and WebKit, at 1400 and 390 px.
import { readFileSync } from 'node:fs';
import { useEngine, ENGINES } from './harness.js';

const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/results.json', import.meta.url), 'utf8'));
const T = shipped.config.trainLength;
const runOf = (enc, scaling = 'none') => shipped.runs.find((r) => r.task === 'copy' && r.seed === 0 && r.encoding === enc &&
  (r.scaling ?? 'none') === scaling && !r.variant && !r.finetune);
const accAt = (r, L) => r.lengths.find((l) => l.length === L).accuracy;
const pct = (x) => `${Math.round(100 * x)}%`;

// In the page: every number shown for each encoding at the current length (null where that place shows none);
// with `whole`, null until every place shows its number.
function shownAll(whole) {
  const L = posenc.state.length, q = (s) => document.querySelector(s);
  posenc.drawAll(); // (rows off screen are drawn when they come into view)
  const xs = posenc.state.encodings.map((enc) => {
    const row = q(`.sweep-row[data-encoding="${enc}"]`), train = q(`.train-row[data-encoding="${enc}"]`);
    const m = row.querySelector('.measured').textContent.match(new RegExp(`(\\d+)% at ${L} \\(`));
    const map = q(`.hero-map[data-encoding="${enc}"]`);
    return {
      enc, L,
      legend: q(`.hero-key[data-encoding="${enc}"] .value`).textContent,
      heroMap: map ? map.querySelector('.acc').textContent : null,
      big: row.querySelector('.big-acc').textContent,
      measured: m ? `${m[1]}%` : null,
      lab: row.dataset.learned ?? '', greyed: row.classList.contains('unlearned'), train: train?.dataset.learned ?? '',
      verdict: train?.querySelector('.verdict')?.textContent ?? '',
    };
  });
  const complete = xs.every((x) => x.legend.endsWith('%') && !/ at /.test(x.legend) && x.big && x.measured &&
    (x.heroMap === null || x.heroMap.endsWith('%')));
  return !whole || complete ? xs : null;
}

describe.each(ENGINES)('%s', (engine) => {
  const env = useEngine(engine);
  let page, titles;
  const settle = async (L) => {
    await page.evaluate((l) => posenc.setLength(l), L);
    return page.waitFor(shownAll, { arg: true, timeout: 120000, what: `every number at T = ${L}` });
  };
  const shot = async (name) => {
    await page.evaluate(() => new Promise((r) => { window.scrollTo({ top: 0, behavior: 'instant' }); setTimeout(r, 300); }));
    console.log(`${engine}: shot ${await page.screenshot(name)}`);
  };
  const toStep = async (title) => {
    const i = titles.indexOf(title);
    // (a real click; under load the maps above may still grow after the button stood still, and move it from under
    // the pointer: a click that missed is made again)
    for (let k = 0; k < 3; k++) {
      await page.click('#story .story-steps button', i);
      const on = await page.waitFor((n) => posenc.state.step === n, { arg: i + 1, timeout: 4000, what: `step ${i + 1}` }).catch(() => false);
      if (on) break;
    }
    return page.evaluate(() => document.querySelector('#story .story-text').textContent);
  };

  beforeAll(async () => {
    page = await env.newPage();
    await page.setViewport(1400, 900);
    await page.goto(`${env.url}/app/?play=0`);
    await page.waitFor(() => document.body.dataset.ready === 'true' && document.querySelectorAll('#story .story-steps button').length >= 5,
      { what: 'the page and its steps' });
    // every row holds its shipped checkpoint (until then a row may show an untrained stand-in's numbers)
    await page.waitFor(() => posenc.state.encodings.every((e) => posenc.trainer.runs.get(e)?.status === 'checkpoint'), { timeout: 60000, what: 'the checkpoints' });
    titles = await page.evaluate(() => [...document.querySelectorAll('#story .story-steps button')].map((b) => b.textContent));
  }, 120000);

  test('item 1: with step 5\'s PI x4 set, every number of a model at a length is the same in the hero, the lab and the step; past 8x no unscaled RoPE point', async () => {
    const step5 = await toStep('Stretching RoPE');
    await page.waitFor(() => posenc.state.ropeScaling === 'linear' && posenc.state.length === 32, { what: 'step 5 applied' });
    expect(await page.evaluate(() => posenc.state.factor)).toBe(4);
    // 1x: one number per model; RoPE's is the scaled model's
    let xs = await settle(T);
    console.log(`${engine} at T = ${T}, PI x4: ${xs.map((x) => `${x.enc} ${x.legend}`).join(', ')}`);
    for (const x of xs) {
      expect([x.enc, x.legend]).toEqual([x.enc, x.big]);
      expect([x.enc, x.measured]).toEqual([x.enc, x.big]);
      if (x.heroMap !== null) expect([x.enc, x.heroMap]).toEqual([x.enc, x.big]);
      if (x.enc !== 'rope') expect([x.enc, x.legend]).toEqual([x.enc, pct(accAt(runOf(x.enc), T))]); // the shipped measurement
    }
    const ropeLive = await page.evaluate((L) => posenc.client.fresh('rope', L), T);
    expect(xs.find((x) => x.enc === 'rope').legend).toBe(pct(ropeLive.accuracy)); // the scaled model's, not the unscaled 99%
    expect(xs.find((x) => x.enc === 'rope').legend).not.toBe(pct(accAt(runOf('rope'), T)));
    await shot('one-number-1x-1400');
    // 4x: PI x4 is the shipped PI run's scaling there (factor L/32 = 4): the shipped measurement, everywhere, and the step's
    xs = await settle(4 * T);
    const rope4 = xs.find((x) => x.enc === 'rope');
    const shipped4 = pct(accAt(runOf('rope', 'linear'), 4 * T));
    expect([rope4.legend, rope4.big, rope4.measured, rope4.heroMap]).toEqual([shipped4, shipped4, shipped4, shipped4]);
    expect(step5).toContain(`RoPE scores ${shipped4} at 4× (T = ${4 * T})`);
    expect(step5).not.toMatch(/at 2×/); // (the shipped ×2 at 2× is another scaling than the page's ×4)
    for (const x of xs) expect([x.enc, x.legend, x.measured]).toEqual([x.enc, x.big, x.big]);
    // past 8x: the RoPE line holds no unscaled point (its only measured point is the shipped PI run's at 4x)
    xs = await settle(9 * T);
    for (const x of xs) expect([x.enc, x.legend, x.measured]).toEqual([x.enc, x.big, x.big]);
    const line = await page.evaluate(() => JSON.parse(document.querySelector('canvas.hero-chart').dataset.points ?? 'null')?.rope);
    expect(line.filter(([, , , measured]) => measured).map(([L]) => L)).toEqual([4 * T]);
    const live = await page.evaluate(() => posenc.client.results('rope').map((r) => [r.length, r.accuracy, r.scalingKey]));
    for (const [L, a, , measured] of line) if (!measured) expect(live).toContainEqual([L, a, JSON.stringify({ rope_type: 'linear', factor: 4 })]);
  }, 300000);

  test('item 2: one verdict per model, from its accuracy at the training length on 64 sequences: the lab, the training panel and step 1 agree', async () => {
    await page.evaluate(() => posenc.setLength(posenc.state.trainLength));
    let xs = [];
    for (let k = 0; k < 150 && !(xs = await page.evaluate(shownAll, false)).every((x) => x.lab && x.train); k++) await new Promise((r) => setTimeout(r, 200));
    for (const x of xs) {
      expect([x.enc, x.lab, x.train, x.greyed]).toEqual([x.enc, 'true', 'true', false]);
      expect(x.verdict).toBe(`learned: accuracy ${pct(accAt(runOf(x.enc), T))} at the training length, on ${shipped.config.evaluation.sequences} sequences`);
    }
    expect(await toStep('At the training length')).toContain(`all ${xs.length} encodings learned the task`);
    await toStep('Stretching RoPE'); // (the verdict is the unscaled model's: a scaling does not change it)
    await page.waitFor(() => posenc.state.ropeScaling === 'linear', { what: 'step 5 again' });
    xs = await page.evaluate(shownAll, false);
    expect(xs.find((x) => x.enc === 'rope')).toMatchObject({ lab: 'true', train: 'true', greyed: false });
  }, 300000);

  test('item 3: while a length computes, the legend keeps a number (never a dash) and no number sits over a map of another length; live points say what they rest on', async () => {
    // the first time past 8x (a fresh page, straight to 16x): nothing there is computed yet
    await page.goto(`${env.url}/app/?play=0&length=${T}`);
    await page.waitFor(() => document.body.dataset.ready === 'true' && document.querySelector('.hero-key .value').textContent.endsWith('%'), { what: 'the page again' });
    await page.evaluate(() => posenc.setLength(posenc.grid().at(-1)));
    const samples = [];
    for (let k = 0; k < 25; k++) {
      samples.push(await page.evaluate(() => ({
        legend: [...document.querySelectorAll('.hero-key .value')].map((v) => v.textContent),
        hero: [...document.querySelectorAll('.hero-map')].map((f) => [f.querySelector('canvas').getAttribute('aria-label'), f.querySelector('.acc').textContent]),
        lab: [...document.querySelectorAll('.sweep-row')].map((r) => [r.querySelector('canvas.maps').getAttribute('aria-label'), r.querySelector('.big-acc').textContent]),
      })));
      await new Promise((r) => setTimeout(r, 60));
    }
    for (const s of samples) {
      for (const v of s.legend) expect(v).toMatch(/^(\d+%( at \d+)?|…)$/);
      for (const [label, acc] of s.hero) if (/computing/.test(label)) expect(acc).toBe('…');
      for (const [label, big] of s.lab) if (/computing/.test(label)) expect(big).toBe('');
    }
    expect(samples.some((s) => s.legend.some((v) => / at \d+$/.test(v)) || s.lab.some(([l]) => /computing/.test(l)))).toBe(true); // (it was caught computing)
    await settle(16 * T);
    // at 16x two sequences a length (sweep-core.js evalBatch), and the note does not claim 64 for them
    const words = await page.evaluate(() => ({ note: document.querySelector('.hero-note').textContent,
      title: document.querySelector('.hero-key[data-encoding="alibi"] .value').title, cls: document.querySelector('.hero-key[data-encoding="alibi"] .value').className }));
    expect(words.title).toBe(`accuracy at T = ${16 * T}, live on 2 sequences`);
    expect(words.cls).toContain('live');
    // the note states the counts of the live points drawn (at 16x, 2), not the shipped 64
    const pts = await page.evaluate(() => Object.values(JSON.parse(document.querySelector('canvas.hero-chart').dataset.points)).flat());
    const counts = [...new Set(pts.filter(([, , n, measured]) => !measured && n < 64).map(([, , n]) => n))].sort((a, b) => a - b);
    expect(counts).toContain(2);
    expect(words.note).toContain(`Solid lines: the shipped models measured on 64 sequences a length; hollow rings and dashed lines: computed here on ${
      counts.length > 1 ? `${counts[0]} to ${counts.at(-1)} sequences` : `${counts[0]} sequences`}.`);
    await shot('one-number-16x-1400');
  }, 300000);

  test('item 8: hovering a hero map reads the weight and names the correct key', async () => {
    await settle(2 * T);
    const target = await page.evaluate(() => {
      const f = document.querySelector('.hero-map[data-encoding="rope"]'), c = f.querySelector('canvas'), g = JSON.parse(c.dataset.geom ?? 'null');
      const r = posenc.client.get('rope', posenc.state.length), sep = r.tokens.indexOf(2), q = sep + 3, key = q - sep + 1; // copy: key q - SEP + 1
      const b = c.getBoundingClientRect(), cell = g ? g.size / g.T : 0;
      return { q, key, fx: g ? (g.x0 + (key + 0.5) * cell) / b.width : 0.3, fy: g ? (g.y0 + (q + 0.5) * cell) / b.height : 0.6 };
    });
    await page.hover('.hero-map[data-encoding="rope"] canvas', target.fx, target.fy);
    const readout = await page.waitFor(() => { const t = document.querySelector('.hero-map[data-encoding="rope"] .hero-readout')?.textContent ?? ''; return /weight \d\.\d{3}.*The correct key is key/.test(t) ? t : null; },
      { timeout: 30000, what: 'the hero readout' });
    expect(readout).toContain(`query ${target.q} `);
    expect(readout).toContain(`The correct key is key ${target.key} `);
    console.log(`${engine}: ${readout}`);
    await shot('one-number-hover-1400');
  }, 300000);

  test('item 8 by keyboard: a focused hero map highlights a cell, arrow keys move it, and the live readout names the correct key', async () => {
    const enc = await page.evaluate(() => [...document.querySelectorAll('.hero-map')].map((f) => f.dataset.encoding).find((e) => e !== 'rope'));
    const q = await page.evaluate((e) => {
      const r = posenc.client.get(e, posenc.state.length);
      document.querySelector(`.hero-map[data-encoding="${e}"] canvas`).focus();
      return r.tokens.indexOf(2) + 3; // a query of the copied half (copy: it has a correct key)
    }, enc);
    const L = await page.evaluate(() => posenc.state.length);
    await page.press(...Array(Math.floor(q / 10)).fill('PageDown'), ...Array(q % 10).fill('ArrowDown'), 'End', 'ArrowLeft');
    const sel = `.hero-map[data-encoding="${enc}"]`;
    const got = await page.waitFor((s) => { const c = document.querySelector(`${s} canvas`), t = document.querySelector(`${s} .hero-readout`).textContent;
      return c.dataset.focus && /weight \d\.\d{3}.*The correct key is key/.test(t) ? { focus: JSON.parse(c.dataset.focus), t, live: document.querySelector(`${s} .hero-readout`).getAttribute('aria-live') } : null; },
    { arg: sel, timeout: 30000, what: 'the keyboard readout' });
    expect(got.focus).toMatchObject({ i: q, j: q - 1 });
    expect(got.t).toContain(`query ${q} `);
    expect(got.t).toContain(`→ key ${q - 1} `);
    expect(got.live).toBe('polite');
    expect(await page.evaluate(() => posenc.state.length)).toBe(L); // (the page's own arrow keys did not move the length)
    console.log(`${engine}: keyboard: ${got.t}`);
    await page.evaluate((s) => document.querySelector(s).scrollIntoView({ block: 'center' }), sel);
    console.log(`${engine}: shot ${await page.screenshot('one-number-keyboard-1400')}`);
    await page.evaluate(() => document.activeElement.blur());
  }, 300000);

  test('a phone (390 px): the same numbers everywhere', async () => {
    await page.setViewport(390, 844);
    const xs = await settle(2 * T);
    for (const x of xs) expect([x.enc, x.legend, x.measured]).toEqual([x.enc, x.big, x.big]);
    await shot('one-number-390');
    expect(await page.errors()).toEqual([]);
  }, 300000);
});
