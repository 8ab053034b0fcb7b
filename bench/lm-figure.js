// How long "Your model, past its context" takes to compute its whole figure (five scalings' perplexity, the chosen
// scaling's maps and its attention statistics) for stories260K at 1x, 2x, 4x and 8x its context, in headless
// Chromium: the view's own timing (data-compute-ms: from the settings to the last forward), on a fresh page each run
// (so each run pays the Worker's start and the wasm's tier-up, as a reader does). Not part of `npm test`.
//   node bench/lm-figure.js [--times 1,2,4,8] [--runs 2] [--limit SECONDS] [--json FILE]
// Needs web/wasm (scripts/setup.sh wasm) and ../shared/models/stories260K (skipped with a notice without it).
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const server = await startServer({ mounts: { '/test-models/': MODELS } });
const browser = await launchBrowser();
const model = encodeURIComponent('/test-models/stories260K/stories260K.bin /test-models/stories260K/tok512.bin');
const rows = [];
try {
  for (const t of times) {
    const ms = [], figure = [];
    let workers = 0;
    for (let r = 0; r < runs; r++) {
      const page = await browser.newPage();
      await page.setViewportSize({ width: 1400, height: 1000 });
      await page.goto(`${server.url}/app/?play=0&lmTimes=${t}&modelUrl=${model}`);
      await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
      const got = await (async () => {
        for (const t0 = Date.now(); Date.now() - t0 < limit;) {
          const v = await page.evaluate(() => {
            const h = document.querySelector('#your-model .lm-host');
            return h?.dataset.computeMs ? { ms: Number(h.dataset.computeMs), figure: Number(h.dataset.figureMs),
              points: Number(h.querySelector('canvas.lm-stats').dataset.points), error: h.querySelector('.lm-error').hidden ? '' : h.querySelector('.lm-error').textContent } : null;
          });
          if (v) return v;
          await new Promise((res) => setTimeout(res, 100));
        }
        const shown = await page.evaluate(() => ['.lm-busy-text', '.lm-error', '.lm-load-text', '.lm-ppl-words']
          .map((q) => document.querySelector(`#your-model ${q}`)?.textContent));
        throw new Error(`no figure at ${t}x within ${limit / 1000} s: ${JSON.stringify(shown)} ${page.errors.join(' ')}`);
      })();
      if (got.error || page.errors.length) throw new Error(`at ${t}x: ${got.error} ${page.errors.join(' ')}`);
      workers = page.workers().filter((w) => w.url().includes('lm-worker')).length;
      ms.push(got.ms);
      figure.push(got.figure);
      await page.close();
    }
    const row = { times: t, tokens: 512 * t, ms, perplexityMs: figure, workers, load: +loadavg()[0].toFixed(2) };
    rows.push(row);
    console.log(`${t}x (${512 * t} tokens): whole figure ${ms.join(', ')} ms; five perplexity lines ${figure.join(', ')} ms; ${workers} Workers; load ${row.load}`);
  }
} finally {
  await browser.close();
  await server.close();
}
const out = arg('--json', null);
if (out) writeFileSync(out, JSON.stringify(rows, null, 2));
