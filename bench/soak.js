// A soak: six <posenc-explorer> elements on one page in headless Chromium, played, paused and scrubbed with real
// mouse input for a while (10 minutes by default), and a seventh showing a real language model (view="model",
// stories260K from ../shared/models when that folder is there) whose RoPE-scaling factor and length are dragged, with the JavaScript heap of the page and of every Worker
// measured after a forced garbage collection at the start and at the end, and the renderer's resident memory.
// Flat heaps mean nothing is lost per frame, per length or per scrub. Not part of `npm test` (it takes minutes).
//   node bench/soak.js [--minutes 10] [--json FILE]
// Needs the built package (npm run build). Uses puppeteer-core for Chromium: it gives a DevTools session per
// Worker, where the heap of each one can be read.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sirv from 'sirv';
import puppeteer from 'puppeteer-core';
import { listen } from '../scripts/browser.js';

const root = new URL('..', import.meta.url).pathname;
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? def : process.argv[i + 1];
};
const minutes = Number(arg('--minutes', 10));
if (!(minutes > 0 && minutes <= 600)) {
  console.error(`soak: --minutes must be a number in (0, 600] (got ${arg('--minutes')})`);
  process.exit(2);
}
const jsonOut = arg('--json', null);

// Six explorers: different encodings, tasks, views, heads and lengths (all of them have shipped checkpoints).
const ELEMENTS = [
  'encodings="learned,sinusoidal,alibi" train-length="32" sweep-factor="8" autoplay',
  'encodings="none,rope" task="reverse" train-length="32" sweep-factor="4" view="maps" head="0" autoplay',
  'encodings="t5,shaw,fire" task="retrieval" train-length="32" sweep-factor="16" autoplay',
  'encodings="xpos,prope,rope_random" train-length="32" sweep-factor="16" head="1" autoplay',
  'encodings="alibi,learned_random" task="markov" train-length="32" sweep-factor="8" autoplay',
  'encodings="rope,fire,none" task="kth_retrieval" train-length="32" sweep-factor="4" layer="2" autoplay',
];
// The real-model view: stories260K's GGUF, from ../shared/models (served here as /shared-models/), when it exists.
const sharedModels = join(root, '../shared/models');
const MODEL = existsSync(join(sharedModels, 'stories260K/stories260K.gguf'))
  ? 'view="model" model-url="/shared-models/stories260K/stories260K.gguf" lm-context="512" lm-times="2"' : null;
if (!MODEL) console.log('soak: ../shared/models/stories260K is missing: the real-model view is left out');
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>posenc soak</title><link rel="icon" href="data:,">
<script type="module" src="/dist/explorer.js"></script></head><body>
${ELEMENTS.map((a) => `<posenc-explorer ${a}></posenc-explorer>`).join('\n')}
${MODEL ? `<posenc-explorer ${MODEL}></posenc-explorer>` : ''}
</body></html>`;

const files = sirv(root, { dev: true });
const models = MODEL ? sirv(sharedModels, { dev: true }) : null;
const server = await listen((req, res) => {
  if (models && req.url.startsWith('/shared-models/')) {
    req.url = req.url.slice('/shared-models'.length);
    return models(req, res, () => { res.statusCode = 404; res.end(); });
  }
  if (req.url === '/soak.html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(PAGE);
  }
  files(req, res, () => { res.statusCode = 404; res.end(); });
});

const userDataDir = mkdtempSync(join(tmpdir(), 'posenc-soak-'));
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium', headless: true, userDataDir, defaultViewport: { width: 1400, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage();
const errors = [];
page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
page.on('pageerror', (e) => errors.push(String(e)));

/** JS heap (used bytes) of the page and of each Worker, after a forced collection. */
async function heaps() {
  const out = [];
  const session = await page.createCDPSession();
  await session.send('HeapProfiler.collectGarbage');
  out.push({ target: 'page (main thread)', used: (await session.send('Runtime.getHeapUsage')).usedSize });
  await session.detach();
  for (const [i, w] of page.workers().entries()) {
    await w.client.send('HeapProfiler.enable');
    await w.client.send('HeapProfiler.collectGarbage');
    const { usedSize } = await w.client.send('Runtime.getHeapUsage');
    out.push({ target: `worker ${i + 1} (${w.url().split('/').pop().split('?')[0]})`, used: usedSize });
  }
  return out;
}

/** Resident memory of Chromium's renderer processes (the page and its Workers' threads, wasm memory included). */
function rendererRss() {
  const procs = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' }).split('\n').filter(Boolean)
    .map((l) => { const [pid, ppid, rss, ...args] = l.trim().split(/\s+/); return { pid: +pid, ppid: +ppid, rss: +rss * 1024, args: args.join(' ') }; });
  const ours = new Set([browser.process().pid]);
  for (let grew = true; grew;) { // Chromium's descendants (renderers hang under its zygote)
    grew = false;
    for (const p of procs) if (ours.has(p.ppid) && !ours.has(p.pid)) { ours.add(p.pid); grew = true; }
  }
  return procs.filter((p) => ours.has(p.pid) && /--type=renderer/.test(p.args)).reduce((sum, p) => sum + p.rss, 0);
}

/** Element k drawn: results at two or more lengths for each of its rows (an element starts when scrolled to). */
const drawn = (k) => {
  const el = document.querySelectorAll('posenc-explorer')[k];
  el.scrollIntoView({ block: 'center' });
  const r = el.results?.();
  return Boolean(r && Object.keys(r).length && Object.values(r).every((pts) => pts.length >= 2));
};

const t0 = Date.now();
await page.goto(`${server.url}/soak.html`);
for (let k = 0; k < ELEMENTS.length; k++) await page.waitForFunction(drawn, { timeout: 180000, polling: 500 }, k);
// the model view: its five perplexity lines drawn (the canvas says how many series it holds)
const modelDrawn = (k) => {
  const el = document.querySelectorAll('posenc-explorer')[k];
  el.scrollIntoView({ block: 'center' });
  const c = el.shadowRoot.querySelector('canvas.lm-ppl');
  return !!c && Number(c.dataset.series) === 5 && el.shadowRoot.querySelector('.lm-busy').hidden;
};
if (MODEL) await page.waitForFunction(modelDrawn, { timeout: 300000, polling: 500 }, ELEMENTS.length);
console.log(`soak: ${ELEMENTS.length} explorers${MODEL ? ' and the model view' : ''} drawn in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${page.workers().length} Workers`);
await new Promise((r) => setTimeout(r, 3000));
const start = { heaps: await heaps(), rss: rendererRss() };

// The soak: each step picks an element, scrolls it into view and does one thing with real input.
let rnd = 12345;
const random = () => ((rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const counts = { scrub: 0, play: 0, scroll: 0, model: 0 };
const end = Date.now() + minutes * 60000;
while (Date.now() < end) {
  if (MODEL && random() < 1 / 7) { // the model view: drag its scaling factor or its length to a random value
    const box = await page.evaluate((k) => {
      const el = document.querySelectorAll('posenc-explorer')[k];
      el.scrollIntoView({ block: 'center' });
      const b = el.shadowRoot.querySelector(Math.random() < 0.7 ? 'input[name=lm-factor]' : 'input[name=lm-times]').getBoundingClientRect();
      return { x: b.x, y: b.y, w: b.width, h: b.height };
    }, ELEMENTS.length);
    const y = box.y + box.h / 2;
    await page.mouse.move(box.x + 6 + random() * (box.w - 12), y);
    await page.mouse.down();
    await page.mouse.move(box.x + 6 + random() * (box.w - 12), y, { steps: 8 });
    await page.mouse.up();
    counts.model++;
    await new Promise((r) => setTimeout(r, 1500 + random() * 2000));
    continue;
  }
  const i = Math.floor(random() * ELEMENTS.length);
  const box = await page.evaluate((k) => {
    const el = document.querySelectorAll('posenc-explorer')[k];
    el.scrollIntoView({ block: 'center' });
    const r = (sel) => { const b = el.shadowRoot.querySelector(sel).getBoundingClientRect(); return { x: b.x, y: b.y, w: b.width, h: b.height }; };
    return { slider: r('input.length'), play: r('button.play') };
  }, i);
  const what = random();
  if (what < 0.6 && box.slider.w > 0) { // drag the length slider across a random span
    const y = box.slider.y + box.slider.h / 2;
    const x0 = box.slider.x + 8 + random() * (box.slider.w - 16), x1 = box.slider.x + 8 + random() * (box.slider.w - 16);
    await page.mouse.move(x0, y);
    await page.mouse.down();
    await page.mouse.move(x1, y, { steps: 10 });
    await page.mouse.up();
    counts.scrub++;
  } else if (what < 0.85 && box.play.w > 0) {
    await page.mouse.click(box.play.x + box.play.w / 2, box.play.y + box.play.h / 2);
    counts.play++;
  } else {
    await page.mouse.wheel({ deltaY: (random() - 0.5) * 2000 });
    counts.scroll++;
  }
  await new Promise((r) => setTimeout(r, 500 + random() * 1500));
}
// Everything playing again, then settled, as at the start.
await page.evaluate(() => document.querySelectorAll('posenc-explorer:not([view=model])').forEach((el) => el.setAttribute('play', '1')));
await new Promise((r) => setTimeout(r, 3000));
const finish = { heaps: await heaps(), rss: rendererRss() };

const MB = (b) => (b / 2 ** 20).toFixed(2);
const rows = start.heaps.map((s) => {
  const f = finish.heaps.find((x) => x.target === s.target);
  return { target: s.target, startMB: MB(s.used), endMB: f ? MB(f.used) : 'gone', deltaMB: f ? MB(f.used - s.used) : '' };
});
for (const f of finish.heaps) if (!start.heaps.some((s) => s.target === f.target)) rows.push({ target: f.target, startMB: 'new', endMB: MB(f.used), deltaMB: '' });
rows.push({ target: 'renderer resident memory', startMB: MB(start.rss), endMB: MB(finish.rss), deltaMB: MB(finish.rss - start.rss) });
console.log(`soak: ${minutes} min, ${counts.scrub} scrubs, ${counts.play} play/pause clicks, ${counts.scroll} scrolls, ${counts.model} drags in the model view; ${errors.length} console errors`);
console.table(rows);
if (errors.length) console.log(errors.slice(0, 10).join('\n'));
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ minutes, counts, errors, rows }, null, 2));

await browser.close();
rmSync(userDataDir, { recursive: true, force: true });
await server.close();
