// RoPE scaling on a real trained model, zero shot: stories260K (llama2.c, trained at context 512) over the page's
// passage at 8x its context, with each scaling of the page's model view at factors 2, 4 and 8, and its
// perplexity in each band of predicted positions (within the context, then each doubling past it). Writes
// docs/lm-zero-shot.json, which scripts/results-md.js renders in docs/results.md.
//
//   node scripts/lm-zero-shot.js [--check]     (--check: recompute and compare with the file, write nothing)
//
// Needs ../shared/models/stories260K (never copied into the repository): without it, says so and exits 0.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import { scalingBlock, rangePerplexity, SCALING_NAMES } from '../web/app/lm/plan.js';
import { ROPE_SCALINGS } from '../web/app/shared/state.js';

const root = new URL('..', import.meta.url);
export const MODEL_DIR = new URL('../shared/models/stories260K/', root);
export const OUTPUT = new URL('docs/lm-zero-shot.json', root);
export const FACTORS = [2, 4, 8];
const TIMES = 8; // the passage's first 8 contexts

/** The bands of predicted positions: within the context [1, C), then [C, 2C), [2C, 4C), [4C, 8C). */
export const bands = (C) => [[1, C], [C, 2 * C], [2 * C, 4 * C], [4 * C, 8 * C]];

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
    for (const scaling of ROPE_SCALINGS)
      for (const factor of scaling === 'none' ? [1] : FACTORS) {
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!existsSync(MODEL_DIR)) {
    console.log('lm-zero-shot: skipped (no ../shared/models/stories260K here)');
    process.exit(0);
  }
  const t0 = Date.now();
  const table = await measure();
  if (process.argv.includes('--check')) {
    const same = isDeepStrictEqual(table, JSON.parse(readFileSync(OUTPUT, 'utf8')));
    console.log(`lm-zero-shot: ${same ? 'the same as' : 'DIFFERENT from'} docs/lm-zero-shot.json (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    process.exit(same ? 0 : 1);
  }
  // one line per key, one per row
  const text = JSON.stringify({ ...table, rows: [] }, null, 1).replace('"rows": []', `"rows": [\n${table.rows.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n ]`)
    .replace(/\[\s+(\d+),\s+(\d+)\s+\]/g, '[$1, $2]');
  writeFileSync(OUTPUT, `${text}\n`);
  console.log(`lm-zero-shot: wrote docs/lm-zero-shot.json (${table.rows.length} forwards of ${table.tokens} tokens, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
