// How long "Your model, past its context" takes to compute its whole figure (five scalings' perplexity, the chosen
// scaling's maps and its attention statistics) for stories260K at 1x, 2x, 4x and 8x its context, in headless
// Chromium: the view's own timing (data-compute-ms: from the settings to the last forward), on a fresh page each run
// (so each run pays the Workers' start and V8's compiling of the wasm's hot functions, as a reader's first figure
// does), and then again in the same page with the context one token shorter (every forward anew, in Workers that
// have run before: what a reader waits for when changing the settings); and the load before the first (data-load-ms:
// from the model's bytes to its Workers ready and the passage encoded). Not part of `npm test`.
//   node bench/lm-figure.js [--times 1,2,4,8] [--runs 2] [--limit SECONDS] [--compare CHECKOUT] [--json FILE]
// --compare: also the view of another checkout (its own web/wasm), runs alternating, and the ratio of the medians.
// Needs web/wasm (scripts/setup.sh wasm) and ../shared/models/stories260K (skipped with a notice without it).
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, launchBrowser } from '../scripts/browser.js';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? def : process.argv[i + 1];
};
const times = arg('--times', '1,2,4,8').split(',').map(Number);
const runs = Number(arg('--runs', 2)), limit = 1000 * Number(arg('--limit', 300));
if (!times.every((t) => Number.isInteger(t) && t >= 1 && t <= 8) || !(Number.isInteger(runs) && runs >= 1 && runs <= 20)) {
  console.error('lm-figure: --times takes whole numbers 1 to 8, --runs a whole number 1 to 20');
  process.exit(2);
}
const MODELS = fileURLToPath(new URL('../../shared/models/', import.meta.url));
if (!existsSync(join(MODELS, 'stories260K/stories260K.bin'))) {
  console.log('lm-figure: skipped (no ../shared/models/stories260K here)');
  process.exit(0);
}

// The checkouts to time: this one, and with --compare another (e.g. the main branch's), their runs alternating so
// that both see the same machine load; the ratio is within this run.
const other = arg('--compare', null);
const servers = [{ name: 'this', server: await startServer({ mounts: { '/test-models/': MODELS } }) }];
if (other) {
  const { startServer: startOther } = await import(pathToFileURL(resolve(other, 'scripts/browser.js')).href);
  servers.push({ name: other, server: await startOther({ mounts: { '/test-models/': MODELS } }) });
}
const browser = await launchBrowser();
const model = encodeURIComponent('/test-models/stories260K/stories260K.bin /test-models/stories260K/tok512.bin');
const median = (xs) => { const s = [...xs].sort((a, b) => a - b), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
const rows = [];

async function once(url, t) {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${url}/app/?play=0&lmTimes=${t}&modelUrl=${model}`);
  await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
  const fresh = await figure(page, t);
  const load = Number(await page.evaluate(() => document.querySelector('#your-model .lm-host').dataset.loadMs));
  await page.evaluate(() => { delete document.querySelector('#your-model .lm-host').dataset.computeMs; });
  const input = '#your-model input[name=lm-context]';
  await page.fill(input, String(Number(await page.inputValue(input)) - 1));
  await page.press(input, 'Enter');
  const warm = await figure(page, t);
  const workers = page.workers().filter((w) => /lm[-/]worker/.test(w.url())).length;
  await page.close();
  return { ms: fresh, warm, load, workers };
}

// Waits for the view's figure; its compute time.
async function figure(page, t) {
  for (const t0 = Date.now(); Date.now() - t0 < limit;) {
    const v = await page.evaluate(() => {
      const h = document.querySelector('#your-model .lm-host');
      return h?.dataset.computeMs ? { ms: Number(h.dataset.computeMs), forwards: h.dataset.forwardLog, error: h.querySelector('.lm-error').hidden ? '' : h.querySelector('.lm-error').textContent } : null;
    });
    if (v) {
      if (v.error || page.errors.length) throw new Error(`at ${t}x: ${v.error} ${page.errors.join(' ')}`);
      if (process.env.LM_FIGURE_VERBOSE) console.log(`  ${v.ms} ms; forwards (Worker, sent-landed ms, own ms): ${v.forwards}`);
      return v.ms;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  const shown = await page.evaluate(() => ['.lm-busy-text', '.lm-error', '.lm-load-text', '.lm-ppl-words']
    .map((q) => document.querySelector(`#your-model ${q}`)?.textContent));
  throw new Error(`no figure at ${t}x within ${limit / 1000} s: ${JSON.stringify(shown)} ${page.errors.join(' ')}`);
}

try {
  for (const t of times) {
    const got = servers.map(() => ({ ms: [], warm: [], load: [] }));
    let workers = servers.map(() => 0);
    for (let r = 0; r < runs; r++)
      for (const [i, { server }] of servers.entries()) {
        const x = await once(server.url, t);
        got[i].ms.push(x.ms);
        got[i].warm.push(x.warm);
        got[i].load.push(x.load);
        workers[i] = x.workers;
      }
    const load = +loadavg()[0].toFixed(2);
    const row = { times: t, tokens: 512 * t, load, ...Object.fromEntries(servers.map((s, i) => [s.name, { ms: got[i].ms, warmMs: got[i].warm, loadMs: got[i].load, workers: workers[i] }])) };
    rows.push(row);
    const ratio = (k) => (median(got[1][k]) / median(got[0][k])).toFixed(2);
    console.log(`${t}x (${512 * t} tokens), load ${load}: ` + servers.map((s, i) => `${s.name}: first figure ${got[i].ms.join(', ')} ms (median ${median(got[i].ms)}), ` +
      `again ${got[i].warm.join(', ')} ms (median ${median(got[i].warm)}), model ready before the first in ${got[i].load.join(', ')} ms ` +
      `(median ${median(got[i].load)}), ${workers[i]} Workers`).join('; ') +
      (other ? `; ratios of medians ${ratio('ms')} and ${ratio('warm')}` : ''));
  }
} finally {
  await browser.close();
  for (const { server } of servers) await server.close();
}
const out = arg('--json', null);
if (out) writeFileSync(out, JSON.stringify(rows, null, 2));
