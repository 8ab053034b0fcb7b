// Hostile links to the explorer, in headless Chromium: every URL parameter at
// once set to markup with event handlers, script URLs, 1e309, NaN, negative
// and enormous numbers, unknown encodings. The page must render with its
// defaults (non-blank canvases, default control values), no dialog may open,
// no script may run (window.__pwned stays unset) and no injected element or
// attribute may reach the DOM. (tests/js/state.test.js checks each key alone.)
import { jest } from '@jest/globals';
import { useBrowser } from './harness.js';
import { waitFor, waitReady, canvasStats } from './page-helpers.js';
import { SCHEMA } from '../../web/app/shared/state.js';

jest.setTimeout(180000);
const browser = useBrowser();

const PWN = 'window.__pwned=1';
const PAYLOADS = {
  'attribute breakout': `"><img src=x onerror="${PWN}">`,
  'script element': `</script><script>${PWN}</script>`,
  'svg handler and script URL': `<svg/onload=${PWN}>javascript:${PWN}`,
  'huge and invalid numbers': '1e309',
  'negative and NaN': '-1e400,NaN',
  'long string': `${'9'.repeat(300)}<b onmouseover=${PWN}>`, // x 27 keys: within the server's 16 KB header limit
};
const withAll = (value) => `?${new URLSearchParams(Object.keys(SCHEMA).map((k) => [k, value]))}`;

async function visit(search) {
  const page = await browser.newPage();
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.setViewportSize({ width: 1000, height: 1400 });
  await page.goto(`${browser.url}/app/${search}`);
  await waitReady(page);
  // Every sweep row draws its attention maps (the default rows start from shipped checkpoints).
  await waitFor(page, () => {
    const maps = [...document.querySelectorAll('#sweep canvas.maps')];
    return maps.length === posenc.state.encodings.length && posenc.state.encodings.every((e) => posenc.client.get(e, posenc.state.length));
  }, { timeout: 60000, what: 'the sweep maps' });
  await page.waitForTimeout(300);
  return { page, dialogs };
}

async function expectUntouched(page, dialogs) {
  const dom = await page.evaluate(() => ({
    pwned: window.__pwned,
    injected: document.querySelectorAll('img[src=x], svg[onload], b[onmouseover], script:not([src])').length,
    handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName}[${a.name}]`)),
    payloadInDom: /__pwned|onerror=|javascript:/.test(document.documentElement.outerHTML),
    controls: Object.fromEntries([...document.querySelectorAll('input[name], select[name]')].map((el) => [el.name, el.type === 'checkbox' ? el.checked : el.value])),
  }));
  expect(dialogs).toEqual([]);
  expect(dom.pwned).toBeUndefined();
  expect(dom.injected).toBe(0);
  expect(dom.handlers).toEqual([]);
  expect(dom.payloadInDom).toBe(false);
  return dom;
}

test.each(Object.entries(PAYLOADS))('every parameter set to %s: defaults, no script, no injected markup, the page draws', async (_, payload) => {
  const { page, dialogs } = await visit(withAll(payload));
  const dom = await expectUntouched(page, dialogs);
  // The controls show the defaults (the length scrubber moves: play is on by default).
  expect(dom.controls).toMatchObject({ seed: '1', task: 'copy', trainLength: '32', layers: String(SCHEMA.layers.def), steps: String(SCHEMA.steps.def), sinDim: '64', ropePos: '10',
    alibiHeads: '8', theme: 'auto', speed: '1', sweepFactor: '16', perf: false });
  expect(await page.evaluate(() => posenc.state.play)).toBe(true);
  expect(await page.evaluate(() => posenc.state.encodings)).toEqual(SCHEMA.encodings.def); // the default: the rows with shipped checkpoints
  // Non-blank canvases: encoding views and every sweep row.
  await page.evaluate(() => posenc.drawAll()); // (the lab's rows off screen are otherwise drawn when they come into view)
  for (const s of await canvasStats(page, '#sinusoid canvas, #alibi canvas, #t5 canvas, #sweep canvas.maps')) {
    expect(s.painted).toBeGreaterThan(0.01);
    expect(s.colours).toBeGreaterThan(3);
  }
  expect(page.errors).toEqual([]);
  await page.close();
});

test('unknown encodings and markup in the list keep the known ones; the URL written back is clean', async () => {
  const search = `?play=0&encodings=${encodeURIComponent(`rope,<img src=x onerror=${PWN}>,alibi,rotary,rope`)}&alibiHeads=4`;
  const { page, dialogs } = await visit(search);
  await expectUntouched(page, dialogs);
  expect(await page.evaluate(() => posenc.state.encodings)).toEqual(['rope', 'alibi']);
  expect(await page.$$eval('#sweep .sweep-row', (rows) => rows.map((r) => r.dataset.encoding))).toEqual(['rope', 'alibi']);
  expect(await page.$$eval('#alibi canvas', (c) => c.length)).toBe(4);
  // Changing a control rewrites the URL from the validated state only.
  await page.selectOption('select[name=speed]', '2');
  await waitFor(page, () => location.search.includes('speed=2'), { what: 'the URL update' });
  const url = decodeURIComponent(page.url());
  expect(url).toContain('encodings=rope,alibi');
  expect(url).not.toMatch(/img|onerror|rotary|__pwned/);
  expect(page.errors).toEqual([]);
  await page.close();
});
