// Controls follow the reader (issue 38): the lab has its own play/length bar that stays on screen while the lab's
// rows are (sticky), takes real clicks, taps and keys, and has accessible names; its slider moves on the charts' log
// axis (web/app/shared/length-axis.js: half its travel is the geometric middle of the sweep, as on the chart, not 8×);
// on a phone, tapping a story step brings the chart it talks about back on screen. Chromium, Firefox and WebKit, at
// 1400 and 390 px.
import { ENGINES, useEngine } from './harness.js';
import { lengthAxis, nearestOnAxis } from '../../web/app/shared/length-axis.js';

// In the page: where the lab's bar is, and whether its play button is the element a reader's finger meets there.
function labBar() {
  const bar = document.querySelector('#sweep .lab-bar');
  if (!bar) return null;
  const b = bar.getBoundingClientRect(), play = bar.querySelector('.play'), p = play.getBoundingClientRect(), input = bar.querySelector('input.length');
  return { top: b.top, bottom: b.bottom, height: innerHeight, width: innerWidth, right: b.right,
    hit: document.elementFromPoint(p.left + p.width / 2, p.top + p.height / 2) === play,
    play: { x: p.left + p.width / 2, y: p.top + p.height / 2, text: play.textContent, pressed: play.getAttribute('aria-pressed') },
    slider: (() => { const r = input.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; })(),
    names: { group: bar.getAttribute('aria-label'), slider: input.labels?.[0]?.textContent.trim() ?? input.getAttribute('aria-label'),
      valuetext: input.getAttribute('aria-valuetext') } };
}

// The thumb's x for a fraction of the travel (the thumb is about 16 px wide in every engine: scripts/engines.js).
const travelX = (s, f) => s.x + Math.min(16, s.w / 4) / 2 + f * (s.w - Math.min(16, s.w / 4));

describe.each(ENGINES)('%s', (engine) => {
  const env = useEngine(engine);

  test.each([[1400, 900], [390, 844]])('at %i px the lab\'s bar stays on screen over its rows, and takes clicks, taps and keys on the log axis', async (width, height) => {
    const page = await env.newPage();
    await page.setViewport(width, height);
    await page.goto(`${env.url}/app/?encodings=rope,alibi,learned,fire&play=0`);
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page to be ready' });
    // a reader among the lab's rows: the second row in the middle of the screen, the bar far above in the page
    await page.evaluate(() => document.querySelectorAll('#sweep .sweep-row')[2].scrollIntoView({ block: 'center' }));
    await page.waitFor(() => [...document.querySelectorAll('#sweep .sweep-row')].slice(1, 3).every((r) => / at T = \d+$/.test(r.querySelector('canvas.maps').getAttribute('aria-label'))),
      { what: 'the rows on screen drawn', timeout: 60000 });
    await new Promise((r) => setTimeout(r, 500));
    const bar = await page.evaluate(labBar);
    expect(bar).not.toBeNull();
    expect(bar.top).toBeGreaterThanOrEqual(0);
    expect(bar.bottom).toBeLessThanOrEqual(bar.height);
    expect(bar.right).toBeLessThanOrEqual(bar.width + 1);
    expect(bar.hit).toBe(true); // nothing covers its button
    expect(bar.names).toMatchObject({ group: expect.stringMatching(/length/), slider: expect.stringMatching(/^length/) });
    expect(bar.slider.w).toBeGreaterThanOrEqual(80); // room to aim on a phone
    expect(bar.play).toMatchObject({ text: 'Play', pressed: 'false' });
    console.log(`${engine} ${width}: lab bar ${await page.screenshot(`controls-lab-bar-${width}`)}`);

    // a real click (Chromium: a real tap) on its play button plays; another pauses
    const press = async (x, y) => {
      if (engine !== 'chromium') return page.mouseClick(Math.round(x), Math.round(y));
      const cdp = await page.raw.context().newCDPSession(page.raw);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      await cdp.detach();
    };
    await press(bar.play.x, bar.play.y);
    await page.waitFor(() => posenc.state.play && document.querySelector('#lab-play').textContent === 'Pause', { what: 'play', timeout: 5000 });
    expect(await page.evaluate(() => document.querySelector('#play').getAttribute('aria-pressed'))).toBe('true'); // one state, both bars
    await press(bar.play.x, bar.play.y);
    await page.waitFor(() => !posenc.state.play, { what: 'pause', timeout: 5000 });

    // the middle of the slider's travel is the middle of the chart's log axis (the geometric mean of the sweep's
    // lengths), not the middle of its lengths (a linear slider put 8× at half its travel)
    const grid = await page.evaluate(() => posenc.grid());
    await page.evaluate((T) => posenc.setLength(T), grid.at(-1));
    await new Promise((r) => setTimeout(r, 200));
    const now = await page.evaluate(labBar);
    expect(now.top).toBeGreaterThanOrEqual(0);
    await press(travelX(now.slider, 0.5), now.slider.y + now.slider.h / 2);
    // (the lengths within 4 px of the middle of its travel)
    const at = (f) => nearestOnAxis(grid, lengthAxis(grid[0], grid.at(-1)).invert(f)), px = 4 / now.slider.w;
    const L = await page.waitFor((l0) => posenc.state.length !== l0 && posenc.state.length, { arg: grid.at(-1), what: 'the length to move', timeout: 5000 });
    expect(L).toBeGreaterThanOrEqual(at(0.5 - px));
    expect(L).toBeLessThanOrEqual(at(0.5 + px));
    expect(L).toBeLessThan(grid.at(-1) / 4); // (a linear slider: about 264)
    expect(await page.evaluate(() => posenc.state.play)).toBe(false);
    // keys on the focused slider step along the lengths
    await page.evaluate(() => document.querySelector('#sweep .lab-bar input.length').focus());
    await page.press('End');
    expect(await page.evaluate(() => posenc.state.length)).toBe(grid.at(-1));
    await page.press('Home', 'ArrowRight');
    expect(await page.evaluate(() => posenc.state.length)).toBe(grid[1]);
    const after = await page.evaluate(labBar);
    expect(after.names.valuetext).toMatch(new RegExp(`^T = ${grid[1]} `));
    expect(after.top).toBeGreaterThanOrEqual(0);
    expect(after.bottom).toBeLessThanOrEqual(after.height);
    expect(await page.errors()).toEqual([]);
  });

  test('on a phone, tapping a story step brings the chart on screen', async () => {
    const page = await env.newPage();
    await page.setViewport(390, 844);
    await page.goto(`${env.url}/app/?play=0`);
    await page.waitFor(() => document.body.dataset.ready === 'true' && document.querySelectorAll('#story .story-steps button').length > 2, { what: 'the story' });
    // a reader who scrolled down to the steps: the chart above the screen
    await page.evaluate(() => document.querySelector('#story').scrollIntoView({ block: 'start' }));
    await new Promise((r) => setTimeout(r, 400));
    const before = await page.evaluate(() => document.querySelector('#hero canvas.hero-chart').getBoundingClientRect().bottom);
    expect(before).toBeLessThan(0);
    const b = await page.evaluate(() => { const r = document.querySelectorAll('#story .story-steps button')[1].getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
    await page.mouseClick(Math.round(b.x), Math.round(b.y));
    await page.waitFor(() => posenc.state.step === 2, { what: 'step 2', timeout: 5000 });
    const chart = await page.waitFor(() => {
      const r = document.querySelector('#hero canvas.hero-chart').getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight && { top: r.top, bottom: r.bottom };
    }, { what: 'the chart on screen', timeout: 5000 });
    expect(chart.top).toBeGreaterThanOrEqual(0);
    // the step's words stay in sight with the chart (the steps themselves sit far below it)
    const words = await page.evaluate(() => {
      const p = document.querySelector('#hero .hero-step'), r = p.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, text: p.textContent, story: document.querySelector('#story .story-text').textContent,
        seen: r.height > 0 && document.elementFromPoint(r.left + 10, r.top + r.height / 2)?.closest('.hero-step') === p };
    });
    expect(words.text).toContain(words.story);
    expect(words.story.length).toBeGreaterThan(40);
    expect(words.top).toBeGreaterThanOrEqual(0);
    expect(words.bottom).toBeLessThanOrEqual(844);
    expect(words.seen).toBe(true);
    console.log(`${engine} 390: after a step ${await page.screenshot('controls-step-390')}`);
    expect(await page.errors()).toEqual([]);
  });
});
