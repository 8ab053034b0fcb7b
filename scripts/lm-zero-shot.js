// RoPE scaling on a real trained model, zero shot: stories260K (llama2.c, trained at context 512) over the page's
// passage at 8x its context, with each scaling of the page's model view at factors 2, 4 and 8, and its
// perplexity in each band of predicted positions (within the context, then each doubling past it). Then the same
// rows over many passages: the model's own samples from stated seeds (cpp/tools/lm_sample_main.cpp, run in wasm so
// any machine draws the same tokens), each 8x the context, with per-band perplexity, 95% intervals over passages
// and how often rows swap order from passage to passage. Writes docs/lm-zero-shot.json (`passages`: the
// multi-passage part), which scripts/results-md.js renders in docs/results.md.
//
//   node scripts/lm-zero-shot.js [--check] [--passages N]
//     --check      recompute and compare with the file, write nothing
//     --passages N the first N seeds only (default: all of PASSAGE_SEEDS)
//
// Every row is a scaling of the core's table (ROPE_SCALINGS) at each factor: a scaling added there is measured
// here with no edit.
// Needs ../shared/models/stories260K (never copied into the repository): without it, says so and exits 0.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { scalingBlock, rangePerplexity, SCALING_NAMES } from '../web/app/lm/plan.js';
import { ROPE_SCALINGS } from '../web/app/shared/state.js';

const root = new URL('..', import.meta.url);
export const MODEL_DIR = new URL('../shared/models/stories260K/', root);
export const OUTPUT = new URL('docs/lm-zero-shot.json', root);
export const FACTORS = [2, 4, 8];
const TIMES = 8; // the passage's first 8 contexts

/** The bands of predicted positions: within the context [1, C), then [C, 2C), [2C, 4C), [4C, 8C). */
export const bands = (C) => [[1, C], [C, 2 * C], [2 * C, 4 * C], [4 * C, 8 * C]];

/** The rows: every scaling of the core's table, at each factor ('none' once, at 1). */
export const rowsToMeasure = () => ROPE_SCALINGS.flatMap((scaling) => (scaling === 'none' ? [1] : FACTORS).map((factor) => ({ scaling, factor })));

/** The table: {model, context, tokens, bands, rows: [{scaling, factor, ppl: [per band]}]} (perplexity to 3 decimals). */
export async function measure({ only } = {}) {
  const { loadPosenc } = await import('../web/lib/index.js');
  const pe = await loadPosenc();
  const read = (f) => new Uint8Array(readFileSync(new URL(f, MODEL_DIR)));
  const lm = await pe.loadLanguageModel({ model: read('stories260K.bin'), tokenizer: read('tok512.bin') });
  try {
    const C = lm.context, ids = lm.encode(readFileSync(new URL('web/app/lm/passage.txt', root), 'utf8')).subarray(0, TIMES * C);
    if (ids.length < TIMES * C) throw new Error(`the passage has ${ids.length} tokens, fewer than ${TIMES} contexts of ${C}`);
    const rows = [];
    for (const { scaling, factor } of rowsToMeasure()) {
      if (only && !only(scaling, factor)) continue;
      const { nll } = lm.forward(ids, { scaling: scalingBlock(scaling, factor) });
      rows.push({ scaling, factor, ppl: bands(C).map(([a, b]) => Number(rangePerplexity(nll, a, b).toFixed(3))) });
    }
    const c = lm.config;
    return { model: `stories260K (llama2.c .bin, ${c.parameters.toLocaleString('en-US')} parameters, ${c.layers} layers, ${c.heads}/${c.kvHeads} heads of ${c.headDim}, RoPE base ${c.ropeTheta})`,
      context: C, tokens: ids.length, bands: bands(C), names: Object.fromEntries(ROPE_SCALINGS.map((t) => [t, SCALING_NAMES[t]])), rows };
  } finally {
    lm.delete();
  }
}

// ---------- many passages: the model's own samples ----------

/** The seeds of the passages (the default passage is a story written for the page, not a sample: none is it). */
export const PASSAGE_SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
/** The sampler (cpp/tools/lm_sample_main.cpp), built for wasm by scripts/setup.sh wasm. */
export const SAMPLER = new URL('build/wasm-simd/posenc_lm_sample.cjs', root);
/** The intervals: a percentile bootstrap over passages of the mean log perplexity (xorshift32 from `seed`). */
export const BOOTSTRAP = { resamples: 2000, seed: 1 };

/** The model's own samples, `tokens` long from each seed, with a sliding window of `window`: [{seed, tokens: [ids]}]. */
export function samplePassages({ seeds, tokens, window }) {
  if (!existsSync(SAMPLER)) throw new Error('the sampler is not built (bash scripts/setup.sh wasm builds it)');
  const args = [fileURLToPath(SAMPLER), '--model', fileURLToPath(new URL('stories260K.bin', MODEL_DIR)), '--seeds', seeds.join(','),
    '--tokens', String(tokens), '--window', String(window)];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`the sampler failed: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout.trim().split('\n').map((line) => JSON.parse(line));
}

/** A passage's fingerprint: the first 16 hex digits of the sha256 of its ids as little-endian int32. */
export const digest = (ids) => createHash('sha256').update(new Uint8Array(Int32Array.from(ids).buffer)).digest('hex').slice(0, 16);

function xorshift32(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

/** [mean, low, high] (perplexities to 3 decimals) of per-passage perplexities `ppl`: exp of the mean log, and the bootstrap's 2.5 and 97.5 percentiles. */
export function interval(ppl, { resamples, seed } = BOOTSTRAP) {
  const logs = ppl.map(Math.log), n = logs.length, next = xorshift32(seed), means = new Float64Array(resamples);
  for (let k = 0; k < resamples; k++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += logs[Math.floor(next() * n)];
    means[k] = s / n;
  }
  means.sort();
  const at = (p) => means[Math.min(resamples - 1, Math.floor(p * resamples))];
  return [logs.reduce((a, b) => a + b, 0) / n, at(0.025), at(0.975)].map((x) => Number(Math.exp(x).toFixed(3)));
}

/** The summary of a row's per-passage perplexities (`per`: [passage][band]): {ppl, lo, hi} per band. */
export function summarise(per) {
  const cols = per[0].map((_, b) => interval(per.map((p) => p[b])));
  return { ppl: cols.map((c) => c[0]), lo: cols.map((c) => c[1]), hi: cols.map((c) => c[2]) };
}

/**
 * The rows over the model's own samples: {generator, seeds, tokens, window, bands, digests, interval, rows:
 * [{scaling, factor, ppl, lo, hi, per: [passage][band]}]}. `context`: another original context than the model's
 * (a short one makes a fast check of the pipeline); `times`: the passages' length in contexts (the bands stop there).
 */
export async function measurePassages({ seeds = PASSAGE_SEEDS, times = TIMES, context, only, onPassage = () => {} } = {}) {
  const { loadPosenc } = await import('../web/lib/index.js');
  const pe = await loadPosenc();
  const read = (f) => new Uint8Array(readFileSync(new URL(f, MODEL_DIR)));
  const lm = await pe.loadLanguageModel({ model: read('stories260K.bin'), tokenizer: read('tok512.bin') });
  try {
    if (context) lm.context = context;
    const C = lm.context, tokens = times * C, bs = bands(C).filter(([, b]) => b <= tokens);
    const t0 = Date.now();
    const samples = samplePassages({ seeds, tokens, window: C });
    const sampling = (Date.now() - t0) / 1000;
    const rows = rowsToMeasure().filter((r) => !only || only(r.scaling, r.factor)).map((r) => ({ ...r, per: [] }));
    for (const p of samples) {
      const ids = Int32Array.from(p.tokens);
      for (const r of rows) {
        const { nll } = lm.forward(ids, { scaling: scalingBlock(r.scaling, r.factor) });
        r.per.push(bs.map(([a, b]) => Number(rangePerplexity(nll, a, b).toFixed(3))));
      }
      onPassage(p.seed);
    }
    return {
      generator: { seeds, tokens, window: C, start: 'BOS', temperature: 1, stream: '0x5a4d504c' },
      context: C, bands: bs, digests: samples.map((p) => digest(p.tokens)), interval: { kind: 'percentile bootstrap over passages', ...BOOTSTRAP },
      rows: rows.map((r) => ({ scaling: r.scaling, factor: r.factor, ...summarise(r.per), per: r.per })),
      seconds: { sampling, total: (Date.now() - t0) / 1000 },
    };
  } finally {
    lm.delete();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!existsSync(MODEL_DIR)) {
    console.log('lm-zero-shot: skipped (no ../shared/models/stories260K here)');
    process.exit(0);
  }
  const t0 = Date.now();
  const n = process.argv.includes('--passages') ? Number(process.argv[process.argv.indexOf('--passages') + 1]) : PASSAGE_SEEDS.length;
  if (!Number.isInteger(n) || n < 2 || n > PASSAGE_SEEDS.length) {
    console.error(`lm-zero-shot: --passages must be a whole number from 2 to ${PASSAGE_SEEDS.length}`);
    process.exit(2);
  }
  const one = await measure();
  const passages = await measurePassages({ seeds: PASSAGE_SEEDS.slice(0, n), onPassage: (seed) => process.stdout.write(`passage ${seed} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`) });
  const table = { ...one, passages };
  const timeless = (t) => ({ ...t, passages: t.passages && { ...t.passages, seconds: null } });
  if (process.argv.includes('--check')) {
    const same = isDeepStrictEqual(timeless(table), timeless(JSON.parse(readFileSync(OUTPUT, 'utf8'))));
    console.log(`lm-zero-shot: ${same ? 'the same as' : 'DIFFERENT from'} docs/lm-zero-shot.json (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    process.exit(same ? 0 : 1);
  }
  // one line per key, one per row
  const rowLines = (rows) => `[\n${rows.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n ]`;
  const text = JSON.stringify({ ...table, rows: [], passages: { ...passages, rows: [] } }, null, 1)
    .replace('"rows": []', `"rows": ${rowLines(table.rows)}`).replace('"rows": []', `"rows": ${rowLines(passages.rows)}`)
    .replace(/\[\s+(\d+),\s+(\d+)\s+\]/g, '[$1, $2]')
    .replace(/"(seeds|digests)": \[[^\]]*\]/g, (_, k) => `"${k}": ${JSON.stringify(passages[k] ?? passages.generator[k])}`);
  writeFileSync(OUTPUT, `${text}\n`);
  console.log(`lm-zero-shot: wrote docs/lm-zero-shot.json (${table.rows.length} forwards of ${table.tokens} tokens; ${passages.rows.length} rows over ` +
    `${n} passages of ${passages.generator.tokens} tokens: sampling ${passages.seconds.sampling.toFixed(1)} s, in all ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
