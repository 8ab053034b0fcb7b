// The language model on threads in the page, with the real stories260K (../shared, served under /test-models/ only
// here; skipped with a notice where it is missing), one launch per engine:
//  - Chromium and Firefox: as `npm start` serves it (COOP same-origin + COEP require-corp), the page is cross-origin
//    isolated and the model's facts say it runs on more than one thread; served without those two headers (a blog
//    host), the same page says, in one line, that it runs on one thread and why.
//  - WebKit: WebKitGTK gives even an isolated page no SharedArrayBuffer unless JSC_useSharedArrayBuffer=1 (Safari
//    gives it to isolated pages), so it runs with that flag; on the isolated page the library loads the threaded
//    module and a forward on 2 threads gives the bits of one. (The view itself does not get ready in this suite's
//    WebKit session, with or without the headers: left to lm-view.test.js, which runs it in WebKit.)
import { jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from '../../scripts/serve.js';
import { listen } from '../../scripts/browser.js';
import { useEngine } from './harness.js';

jest.setTimeout(600000);
const MODELS = fileURLToPath(new URL('../../../shared/models/', import.meta.url));
const have = existsSync(join(MODELS, 'stories260K/stories260K.gguf'));
if (!have) console.log('skipped (no ../shared/models/stories260K here): the language model on threads in the browsers');

let isolated, plain;
beforeAll(async () => {
  if (!have) return;
  const server = createServer({ mounts: { '/test-models/': MODELS } });
  isolated = await listen(server);
  // The same files without the isolation headers.
  plain = await listen((req, res) => {
    const set = res.setHeader;
    res.setHeader = function (k, v) { return /^cross-origin-(opener|embedder)-policy$/i.test(k) ? this : set.call(this, k, v); };
    server.emit('request', req, res);
  });
});
afterAll(async () => {
  await isolated?.close();
  await plain?.close();
});

// The model's facts once it is loaded: whether the page is isolated, and its threads line.
async function threadsLine(page, origin) {
  // (one lab row: the lab's background sweep of twelve encodings is not what this reads)
  await page.goto(`${origin}/app/?play=0&encodings=alibi&lmTimes=1&modelUrl=${encodeURIComponent('/test-models/stories260K/stories260K.gguf')}`);
  await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
  await page.waitFor(() => Boolean(document.querySelector('#your-model .lm-threads')?.textContent), { what: 'the model\'s facts', timeout: 240000, interval: 250 });
  return page.evaluate(() => ({ isolated: globalThis.crossOriginIsolated === true, line: document.querySelector('#your-model .lm-threads').textContent,
    error: document.querySelector('#your-model .lm-error')?.hidden === false ? document.querySelector('#your-model .lm-error').textContent : '' }));
}

describe.each(have ? ['chromium', 'firefox'] : [])('%s', (engine) => {
  const env = useEngine(engine, { serve: false });

  test('isolated, the model runs on several threads; not isolated, on one, saying why', async () => {
    const page = await env.newPage();
    const on = await threadsLine(page, isolated.url);
    await page.screenshot(`lm-threads-${engine}-isolated`);
    expect(on.error).toBe('');
    expect(on.isolated).toBe(true);
    expect(on.line).toMatch(/^It runs on (\d+) threads here\.$/);
    expect(Number(on.line.match(/(\d+)/)[1])).toBeGreaterThan(1);
    const off = await threadsLine(page, plain.url);
    await page.screenshot(`lm-threads-${engine}-not-isolated`);
    expect(off.error).toBe('');
    expect(off.isolated).toBe(false);
    expect(off.line).toMatch(/^It runs on one thread here: this page is not cross-origin isolated/);
    expect(await page.errors()).toEqual([]);
  });
});

describe.each(have ? ['webkit'] : [])('%s', (engine) => {
  const env = useEngine(engine, { serve: false, env: { JSC_useSharedArrayBuffer: '1' } });

  test('isolated, the library runs the model on threads, with the bits of one thread', async () => {
    const page = await env.newPage();
    await page.goto(`${isolated.url}/app/blank.html`);
    const r = await page.evaluate(async () => {
      const { loadPosenc } = await import('/lib/index.js');
      const pe = await loadPosenc();
      const model = new Uint8Array(await (await fetch('/test-models/stories260K/stories260K.gguf')).arrayBuffer());
      const lm = await pe.loadLanguageModel({ model });
      const ids = Int32Array.from({ length: 600 }, (_, i) => (i * 7919 + 13) % 512);
      const out = { isolated: crossOriginIsolated, threads: lm.threads, unavailable: lm.threadsUnavailable };
      lm.threads = 1;
      const one = lm.forward(ids).nll;
      lm.threads = 2;
      const two = lm.forward(ids).nll;
      out.same = one.length === 599 && one.every((x, i) => Object.is(x, two[i]));
      lm.delete();
      return out;
    });
    expect(r).toEqual({ isolated: true, threads: expect.any(Number), unavailable: null, same: true });
    expect(r.threads).toBeGreaterThan(1);
  });
});
