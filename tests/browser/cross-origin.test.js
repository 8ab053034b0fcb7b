// The README's blog embed as a reader meets it: the package on a CDN (one loopback origin,
// CORS `*`, as public npm CDNs serve it), the blog post on another origin with one
// <script type="module" src="…/explorer.js"> and one <posenc-explorer>, in Chromium,
// Firefox and WebKit:
//  - no CSP: the maps draw from the shipped checkpoints fetched from the CDN, the sweep
//    animates, and changing the experiment retrains the models in Workers;
//  - the CSP the README documents for this path (worker-src blob: and the CDN): the same, with no
//    violation and no fallback;
//  - a CSP that refuses blob: Workers: the element says why and runs the sweep and the
//    training on the page's main thread instead, and still draws.
import sirv from 'sirv';
import { fileURLToPath } from 'node:url';
import { ERROR_RECORDER, ERROR_RECORDER_PATH, listen } from '../../scripts/browser.js';
import { ENGINES, useEngine } from './harness.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

let cdn, blog, cdnUrl, blogUrl;
const fromCdn = []; // paths the CDN served
beforeAll(async () => {
  const files = sirv(dist, { dev: true, setHeaders: (res) => res.setHeader('Access-Control-Allow-Origin', '*') });
  cdn = await listen((req, res) => {
    fromCdn.push(req.url);
    files(req, res, () => { res.statusCode = 404; res.setHeader('Access-Control-Allow-Origin', '*'); res.end('not found'); });
  });
  cdnUrl = `http://127.0.0.1:${cdn.port}`;
  const policies = {
    '/post.html': null,
    '/strict.html': `default-src 'self'; script-src 'self' ${cdnUrl} 'wasm-unsafe-eval'; connect-src ${cdnUrl}; worker-src blob: ${cdnUrl}; ` +
      "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:",
    '/missing.html': null,
    '/no-blob.html': `default-src 'self'; script-src 'self' ${cdnUrl} 'wasm-unsafe-eval'; connect-src ${cdnUrl}; worker-src 'self'; ` +
      "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:",
  };
  blog = await listen((req, res) => {
    const path = req.url.split('?')[0];
    if (path === ERROR_RECORDER_PATH) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(ERROR_RECORDER);
    }
    if (!(path in policies)) {
      res.statusCode = 404;
      return res.end();
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (policies[path]) res.setHeader('Content-Security-Policy', policies[path]);
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A blog post</title>
<script src="${ERROR_RECORDER_PATH}"></script></head>
<body><h1>How transformers know where tokens are</h1><p>Drag the slider.</p>
${path === '/missing.html' ? `<script type="module">
import { configure } from '${cdnUrl}/explorer.js';
configure({ sweepWorkerUrl: '${cdnUrl}/nowhere/sweep-worker.js', checkpoints: '${cdnUrl}/nowhere/' });
</script>` : `<script type="module" src="${cdnUrl}/explorer.js"></script>`}
<posenc-explorer encodings="rope,alibi"${path === '/missing.html' ? ' steps="40"' : ''} autoplay></posenc-explorer>
</body></html>`);
  });
  blogUrl = `http://localhost:${blog.port}`; // another origin than 127.0.0.1
});
afterAll(async () => {
  await cdn?.close();
  await blog?.close();
});

/**
 * Runs in the page (self-contained): what the element shows, once both rows are swept at
 * `trainedLength` over at least `min` lengths with painted maps (or as soon as it reports a failure).
 */
const drawn = ({ trainedLength, min }) => {
  const el = document.querySelector('posenc-explorer');
  const root = el?.shadowRoot;
  if (!root || !el.results) return null;
  const status = root.querySelector('.status').textContent;
  const r = el.results();
  const painted = [...root.querySelectorAll('canvas')].filter((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) n += d[i] > 0;
    return n / (d.length / 4) > 0.2;
  }).length;
  const s = { notices: root.querySelector('.notices').textContent, status, label: root.querySelector('.length-out').value,
    rows: root.querySelector('.rows').textContent, painted };
  if (/fail|could not/i.test(status)) return s;
  const rows = Object.values(r);
  const ok = rows.length === 2 && rows.every((pts) => pts.length >= min && pts.every((p) => p.trainedLength === trainedLength)) && painted >= 2;
  return ok ? s : null;
};

describe.each(ENGINES)('%s', (engine) => {
  const env = useEngine(engine, { serve: false });

  test('a cross-origin blog post draws, animates and retrains in Workers', async () => {
    const page = await env.newPage();
    await page.goto(`${blogUrl}/post.html`);
    const first = await page.waitFor(drawn, { arg: { trainedLength: 32, min: 3 }, timeout: 60000, what: 'maps from the shipped checkpoints' });
    expect(first.status).not.toMatch(/fail|could not/i);
    expect(first.notices).toBe('');
    expect(first.rows).toMatch(/shipped checkpoint/);
    expect(fromCdn.some((p) => /^\/checkpoints\/copy-rope\.ckpt/.test(p))).toBe(true);
    expect(fromCdn.some((p) => /^\/assets\/sweep-worker\.js/.test(p))).toBe(true);
    // It animates: the length label moves on by itself.
    const later = await page.waitFor((label) => {
      const v = document.querySelector('posenc-explorer').shadowRoot.querySelector('.length-out').value;
      return v !== label && v;
    }, { arg: first.label, timeout: 20000, what: 'the sweep to move on' });
    expect(later).toMatch(/^T = \d+/);
    // The page author changes the experiment: no checkpoint matches, so both models train in Workers.
    await page.evaluate(() => {
      const el = document.querySelector('posenc-explorer');
      el.setAttribute('steps', '40');
      el.setAttribute('train-length', '16');
    });
    const retrained = await page.waitFor(drawn, { arg: { trainedLength: 16, min: 2 }, timeout: 120000, what: 'the retrained models swept' });
    expect(retrained.notices).toBe(''); // Workers started (no main-thread fallback)
    expect(fromCdn.some((p) => /^\/assets\/train-worker\.js/.test(p))).toBe(true);
    // A correct embed logs nothing red: no failed request either (issue 26: a HEAD probe of the CDN's /app/ got a
    // 404 on every page view). The element asks for nothing it was not told exists.
    expect(await page.errors()).toEqual([]);
    expect(fromCdn.filter((p) => /^\/app\b/.test(p))).toEqual([]);
    expect(await page.evaluate(() => document.querySelector('posenc-explorer').shadowRoot.querySelector('a.open').hidden)).toBe(true);
  }, 240000);

  test("under the README's CSP for this path (worker-src blob: and the CDN) it draws with no violation and no fallback", async () => {
    const page = await env.newPage();
    await page.goto(`${blogUrl}/strict.html`);
    await page.evaluate(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const s = await page.waitFor(drawn, { arg: { trainedLength: 32, min: 2 }, timeout: 60000, what: 'maps under the strict CSP' });
    expect(s.notices).toBe('');
    expect(await page.evaluate(() => window.__violations)).toEqual([]);
  }, 120000);

  test('a CSP that refuses blob: Workers: the element names the cause and draws on the main thread', async () => {
    const page = await env.newPage();
    await page.goto(`${blogUrl}/no-blob.html`);
    const s = await page.waitFor(drawn, { arg: { trainedLength: 32, min: 2 }, timeout: 60000, what: 'maps without Workers' });
    expect(s.notices).toMatch(/sweep Worker script http:\/\/127\.0\.0\.1:\d+\/assets\/sweep-worker\.js is on another origin.*worker-src must allow blob: and http:\/\/127\.0\.0\.1:\d+\).*main thread/);
  }, 120000);

  test('a missing Worker script and missing checkpoints: the element says what is missing and how to serve it, and still draws', async () => {
    const page = await env.newPage();
    await page.goto(`${blogUrl}/missing.html`);
    const s = await page.waitFor(drawn, { arg: { trainedLength: 32, min: 2 }, timeout: 120000, what: 'maps trained in the browser' });
    expect(s.notices).toMatch(/sweep Worker script http:\/\/127\.0\.0\.1:\d+\/nowhere\/sweep-worker\.js was not found \(HTTP 404\): serve node_modules\/posenc\/dist\/assets\/ or set configure\(\{ sweepWorkerUrl \}\)/);
    expect(s.notices).toMatch(/shipped checkpoints were not found: http:\/\/127\.0\.0\.1:\d+\/nowhere\/index\.json was not found \(HTTP 404\)/);
    expect(s.rows).not.toMatch(/shipped checkpoint/);
    if (engine === 'chromium') console.log(`What the element says (${engine}):\n${s.notices}`);
  }, 180000);
});
