// How soon "Your model, past its context" shows its first points, and how long its whole figure takes, in Chromium,
// Firefox and WebKit: for stories260K at 8x its context (4,096 tokens), and for a model with SmolLM2-135M's shapes
// (hidden 576, 30 layers, 9 query and 3 key-value heads of 64, vocabulary 49,152, tied; random BF16 weights, 269 MB,
// written by this script in a temp dir, with stories260K's tokenizer as a tokenizer.json; its config gives a context
// of 1,024, so 2x is 2,048 tokens). Times from the view's own marks: data-load-ms (the files' bytes to the model
// ready), data-first-points-ms and data-figure-ms (from the model ready, or the settings, to the first points of the
// chosen line and to the fifth whole line). Not part of `npm test`.
//   node bench/lm-stream.js [--engines chromium,firefox,webkit] [--models stories,135m] [--limit SECONDS]
// --limit: how long to wait for a whole figure (default 900 s); past it the first points are still reported.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/browser.js';
import { launchEngine } from '../scripts/engines.js';
import { readLlama2cTokenizer, sentencepieceTokenizerJson } from '../tests/js/lm-fixtures.js';
import { REAL_CONFIGS, realSafetensors } from '../tests/js/real-shapes.js';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? def : process.argv[i + 1];
};
const engines = arg('--engines', 'chromium,firefox,webkit').split(','), models = arg('--models', 'stories,135m').split(',');
const limit = 1000 * Number(arg('--limit', 900));
const MODELS = fileURLToPath(new URL('../../shared/models/', import.meta.url));
if (!existsSync(join(MODELS, 'stories260K/stories260K.bin'))) {
  console.log('lm-stream: skipped (no ../shared/models/stories260K here)');
  process.exit(0);
}

// SmolLM2-135M's shapes as BF16 safetensors (tests/js/real-shapes.js: random weights), its context cut to 1,024 here.
function smolShaped(dir) {
  const { file, config } = realSafetensors({ ...REAL_CONFIGS['smollm2-135m'], max_position_embeddings: 1024 }, { align: true });
  writeFileSync(join(dir, 'model.safetensors'), file);
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const tok = readLlama2cTokenizer(readFileSync(join(MODELS, 'stories260K/tok512.bin')), 512);
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(sentencepieceTokenizerJson(tok)));
}

const dir = mkdtempSync(join(tmpdir(), 'posenc-lm-stream-'));
if (models.includes('135m')) smolShaped(dir);
const server = await startServer({ mounts: { '/test-models/': MODELS, '/smol/': `${dir}/` } });
const CASES = {
  stories: { name: 'stories260K at 8x (4,096 tokens)', query: `lmTimes=8&modelUrl=${encodeURIComponent('/test-models/stories260K/stories260K.bin /test-models/stories260K/tok512.bin')}` },
  '135m': { name: 'SmolLM2-135M-shaped at 2x (2,048 tokens)', query: `lmTimes=2&modelUrl=${encodeURIComponent('/smol/model.safetensors')}` },
};
const rows = [];
try {
  for (const engine of engines) {
    const browser = await launchEngine(engine);
    try {
      for (const m of models) {
        const page = await browser.newPage();
        await page.setViewport(1400, 1000);
        await page.goto(`${server.url}/app/?play=0&${CASES[m].query}`);
        await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page', timeout: 120000 });
        await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
        const t0 = Date.now();
        let got = null, shot = false;
        while (Date.now() - t0 < limit) {
          got = await page.evaluate(() => { const h = document.querySelector('#your-model .lm-host'), e = h?.querySelector('.lm-error');
            return e ? { ...h.dataset, error: e.hidden ? '' : e.textContent, memory: h.querySelector('.lm-memory').textContent } : null; });
          if (got?.partial && !shot) shot = Boolean(await page.screenshot(`lm-stream-${m}-${engine}`));
          if (got?.figureMs || got?.error) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        const row = { engine, model: CASES[m].name, loadMs: Number(got?.loadMs), firstPointsMs: Number(got?.firstPointsMs), figureMs: got?.figureMs ? Number(got.figureMs) : null,
          forwards: got?.forwardLog ?? '', memory: got?.memory ?? '', error: got?.error ?? '', load: loadavg()[0].toFixed(1) };
        rows.push(row);
        console.log(JSON.stringify(row));
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log('\nengine | model | load | first points | whole figure | load average');
for (const r of rows) console.log(`${r.engine} | ${r.model} | ${(r.loadMs / 1000).toFixed(1)} s | ${r.firstPointsMs} ms | ${r.figureMs == null ? 'past the limit' : `${(r.figureMs / 1000).toFixed(1)} s`} | ${r.load}`);
