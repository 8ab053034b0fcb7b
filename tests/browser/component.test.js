// <posenc-explorer>, embed.html and dist/standalone.html in headless Chromium,
// all under the server's strict Content-Security-Policy (script-src 'self'
// 'wasm-unsafe-eval', no 'unsafe-eval', no inline script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useBrowser, docsShot } from './harness.js';
import { waitFor, canvasStats } from './page-helpers.js';
import { CSP } from '../../scripts/serve.js';
import { cdnBase } from '../../web/app/lab/embed-snippet.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const env = useBrowser();

beforeAll(() => {
  if (!existsSync(`${root}dist/explorer.js`)) throw new Error('dist/ is missing: run `npm run build` (npm test builds it)');
});

/** Every explorer on the page has computed `min` lengths for each of its encodings. */
const waitResults = (page, min = 3, timeout = 60000) =>
  waitFor(page, (n) => [...document.querySelectorAll('posenc-explorer')].every((el) =>
    el.state && el.client && el.state.encodings.every((enc) => (el.results()[enc] ?? []).length >= n)), { arg: min, timeout, what: `${min} swept lengths per row` });

/** Maps canvases must be painted with many colours (a blank or flat canvas fails). */
async function expectPainted(page, selector, host = 'posenc-explorer') {
  const stats = await canvasStats(page, selector, host);
  expect(stats.length).toBeGreaterThan(0);
  for (const s of stats) {
    expect(s.painted).toBeGreaterThan(0.05);
    expect(s.colours).toBeGreaterThan(20);
  }
}

/** Collects CSP violations reported in the page. */
const watchCsp = (page) =>
  page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });

test('the server sends the strict CSP', async () => {
  const res = await fetch(`${env.url}/examples/blog-post.html`);
  const csp = res.headers.get('content-security-policy');
  expect(csp).toBe(CSP);
  expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(csp).not.toContain("'unsafe-eval'");
  expect(csp.split(';').find((d) => d.trim().startsWith('script-src'))).not.toMatch(/'unsafe-inline'|'unsafe-eval'/);
});

test('examples/blog-post.html renders two live explorers under the strict CSP, sharing one sweep worker', async () => {
  const page = await env.newPage();
  await watchCsp(page);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(`${env.url}/examples/blog-post.html`);
  const explorers = page.locator('posenc-explorer');
  expect(await explorers.count()).toBe(2);
  // the second one starts when scrolled to
  await explorers.nth(1).scrollIntoViewIfNeeded();
  await explorers.nth(0).scrollIntoViewIfNeeded();
  await waitResults(page, 4);
  await explorers.nth(1).scrollIntoViewIfNeeded();
  await waitFor(page, () => {
    const el = document.querySelectorAll('posenc-explorer')[1];
    return el.results().none?.some((r) => r.length === el.state.length);
  }, { what: 'the second explorer at its current length' });
  await page.waitForTimeout(300);
  await expectPainted(page, 'canvas.maps');
  const sweepWorkers = workers.filter((u) => /sweep-worker/.test(u));
  expect(sweepWorkers).toHaveLength(1); // one wasm instance serves both explorers' sweeps
  expect(await page.evaluate(() => window.__csp)).toEqual([]);
  expect(page.errors).toEqual([]);
  // the screenshot docs/blog-post.png (written there only by `npm run docs`): both explorers drawn
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: docsShot('blog-post.png'), fullPage: true });
  await page.close();
});

test('an element starts when scrolled into view and pauses off screen or when the tab is hidden', async () => {
  const page = await env.newPage();
  await page.setViewportSize({ width: 900, height: 700 });
  // a same-origin page (served through the route, with the same CSP) with the element far below the fold
  await page.route(`${env.url}/examples/lazy-test.html`, (route) => route.fulfill({
    status: 200, headers: { 'content-type': 'text/html', 'content-security-policy': CSP },
    body: `<!doctype html><script type="module" src="/component/posenc-explorer.js"></script>
      <div style="height:3000px">spacer</div><posenc-explorer encodings="rope,alibi" autoplay></posenc-explorer><div style="height:3000px"></div>`,
  }));
  await page.goto(`${env.url}/examples/lazy-test.html`);
  await page.waitForTimeout(1500);
  expect(await page.evaluate(() => document.querySelector('posenc-explorer').started)).toBe(false);
  await page.locator('posenc-explorer').scrollIntoViewIfNeeded();
  await waitResults(page, 2);
  const moving = await page.evaluate(async () => {
    const el = document.querySelector('posenc-explorer');
    const a = el.state.length;
    await new Promise((r) => setTimeout(r, 1200));
    return [a, el.state.length];
  });
  expect(moving[1]).not.toBe(moving[0]); // autoplay advances while visible
  // off screen: the frame loop stops and the length stays put
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(400);
  const still = await page.evaluate(async () => {
    const el = document.querySelector('posenc-explorer');
    const a = el.state.length;
    await new Promise((r) => setTimeout(r, 1000));
    return { a, b: el.state.length, raf: el.raf };
  });
  expect(still.b).toBe(still.a);
  expect(still.raf).toBe(0);
  // visible again, then the tab hidden
  await page.locator('posenc-explorer').scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  const hidden = await page.evaluate(async () => {
    const el = document.querySelector('posenc-explorer');
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
    await new Promise((r) => setTimeout(r, 200));
    const a = el.state.length;
    await new Promise((r) => setTimeout(r, 1000));
    return { a, b: el.state.length };
  });
  expect(hidden.b).toBe(hidden.a);
  expect(page.errors).toEqual([]);
  await page.close();
});

test('attributes are validated like URL state: bad values fall back with a warning, no markup is injected', async () => {
  const page = await env.newPage();
  const warnings = [];
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  await page.goto(`${env.url}/embed.html?encodings=rope,%22%3E%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D1%3E&heads=3` +
    '&train-length=1e9&max-length=100&layer=-5&theme=%3Cscript%3E&length=64');
  await waitFor(page, () => document.querySelector('posenc-explorer')?.state, { what: 'the element' });
  const state = await page.evaluate(() => {
    const el = document.querySelector('posenc-explorer');
    return { encodings: el.state.encodings, heads: el.state.heads, trainLength: el.state.trainLength, sweepFactor: el.state.sweepFactor,
      layer: el.state.layer, theme: el.state.theme, length: el.state.length, search: el.search };
  });
  expect(state).toMatchObject({ encodings: ['rope'], heads: 4, trainLength: 32, sweepFactor: 16, layer: 0, theme: 'auto', length: 64 });
  expect(state.search).toBe('?encodings=rope&length=64&play=0');
  for (const key of ['encodings', 'heads', 'train-length', 'max-length', 'layer', 'theme']) {
    expect(warnings.some((w) => w.startsWith(`<posenc-explorer> ${key}:`))).toBe(true);
  }
  expect(warnings.find((w) => w.includes('heads:'))).toMatch(/one of 1, 2, 4, 8/);
  await waitResults(page, 1);
  expect(await page.evaluate(() => document.querySelectorAll('img').length +
    document.querySelector('posenc-explorer').shadowRoot.querySelectorAll('img').length)).toBe(0);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  // attributes are live: changing one updates the element
  await page.evaluate(() => document.querySelector('posenc-explorer').setAttribute('length', '128'));
  expect(await page.locator('posenc-explorer .length-out').textContent()).toBe('T = 128 (4× training)');
  expect(page.errors).toEqual([]);
  await page.close();
});

test('embed.html?controls=0 hides the controls and keeps the maps', async () => {
  const page = await env.newPage();
  await page.goto(`${env.url}/dist/embed.html?encodings=alibi,learned&controls=0&length=96`);
  await waitResults(page, 1);
  expect(await page.locator('posenc-explorer button.play').isVisible()).toBe(false);
  expect(await page.locator('posenc-explorer input.length').isVisible()).toBe(false);
  await waitFor(page, () => document.querySelector('posenc-explorer').results().alibi.some((r) => r.length === 96), { what: 'T=96' });
  await page.waitForTimeout(200);
  await expectPainted(page, 'canvas.maps');
  // The "open in the explorer" link goes to the explorer next to the embed page (dist/app/), with the state.
  const href = await page.locator('posenc-explorer a.open').getAttribute('href');
  expect(href).toBe(`${env.url}/dist/app/?encodings=alibi%2Clearned&length=96&play=0`);
  expect((await page.request.get(href)).ok()).toBe(true);
  expect(page.errors).toEqual([]);
  await page.close();
});

test('dist/standalone.html works from file:// with no server', async () => {
  const page = await env.newPage();
  await page.goto(`file://${root}dist/standalone.html`);
  await waitResults(page, 3, 90000);
  await page.waitForTimeout(300);
  await expectPainted(page, 'canvas.maps');
  const sources = await page.locator('posenc-explorer .source').allTextContents();
  expect(sources.every((s) => s.includes('shipped checkpoint'))).toBe(true);
  expect(await page.locator('posenc-explorer a.open').isVisible()).toBe(false);
  expect(page.errors).toEqual([]);
  await page.close();
});

test("the explorer's 'Embed this sweep' snippets work: the tag in a page, and the iframe URL", async () => {
  const page = await env.newPage();
  await page.goto(`${env.url}/app/?encodings=rope,alibi&sweepFactor=8&play=0&length=160`);
  await page.locator('details.embed-this summary').click();
  await page.locator('details.embed-this input[name=embedControls]').uncheck();
  const component = await page.locator('.embed-component').inputValue();
  const iframe = await page.locator('.embed-iframe').inputValue();
  expect(component).toContain('<posenc-explorer encodings="rope,alibi" sweep-factor="8" length="160" controls="none"></posenc-explorer>');
  // the script: the published package on the CDN at this version (issue 38), as another site loads it
  const cdn = cdnBase();
  expect(component).toContain(`<script type="module" src="${cdn}explorer.js"></script>`);
  const src = /src="([^"]+)"/.exec(iframe)[1].replace(/&amp;/g, '&');
  expect(src).toBe(`${env.url}/embed.html?encodings=rope%2Calibi&sweep-factor=8&length=160&controls=0`);
  await page.close();

  // The CDN is played by this server's dist/ (no network here), with the CORS header jsDelivr sends; the host page
  // has the policy the README gives for a CDN.
  const cdnCsp = `default-src 'self'; script-src 'self' https://cdn.jsdelivr.net 'wasm-unsafe-eval'; connect-src https://cdn.jsdelivr.net; ` +
    "worker-src blob: https://cdn.jsdelivr.net; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:";
  const fromCdn = async (route) => {
    const res = await route.fetch({ url: `${env.url}/dist/${route.request().url().slice(cdn.length)}` });
    const headers = Object.fromEntries(Object.entries(res.headers()).filter(([k]) => !['content-encoding', 'content-length', 'content-security-policy'].includes(k)));
    await route.fulfill({ response: res, headers: { ...headers, 'access-control-allow-origin': '*' } });
  };
  for (const [what, url, body] of [
    ['tag', `${env.url}/examples/snippet-test.html`, `<!doctype html>${component}`],
    ['iframe', src, null],
  ]) {
    const p = await env.newPage();
    if (body) {
      await p.context().route(`${cdn}**`, fromCdn);
      await p.route(url, (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/html', 'content-security-policy': cdnCsp }, body }));
    }
    await p.goto(url);
    await waitFor(p, () => document.querySelector('posenc-explorer')?.results?.().rope?.some((r) => r.length === 160), { what: `${what}: T=160` });
    const s = await p.evaluate(() => document.querySelector('posenc-explorer').state);
    expect(s).toMatchObject({ encodings: ['rope', 'alibi'], sweepFactor: 8, length: 160, play: false });
    expect(await p.locator('posenc-explorer button.play').isVisible()).toBe(false);
    expect(p.errors).toEqual([]);
    if (body) expect(await p.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.startsWith('https://cdn.jsdelivr.net/npm/')))).toBe(true);
    await p.context().unroute(`${cdn}**`, fromCdn);
    await p.close();
  }
});
