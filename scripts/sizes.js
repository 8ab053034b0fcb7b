// Bytes of what the npm package ships (dist/, after `npm run build`), raw, gzip -9
// and brotli (as scripts/serve.js sends it), grouped by what a user loads.
//   node scripts/sizes.js              a table
//   node scripts/sizes.js --markdown   the README's table
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { compressBody } from './serve.js';

const dist = new URL('../dist/', import.meta.url).pathname;
if (!existsSync(`${dist}posenc.js`)) {
  console.error('posenc: dist/ is missing; run `npm run build` first');
  process.exit(1);
}
const assets = readdirSync(`${dist}assets`);
const inAssets = (re) => assets.filter((f) => re.test(f)).map((f) => `assets/${f}`);
const glue = inAssets(/^posenc-simd-.*\.js$/).slice(0, 1); // the main-thread copy (Workers get their own)
const library = ['posenc.js', 'assets/posenc.js', ...inAssets(/^lib-.*\.js$/)];
const component = ['explorer.js', 'assets/explorer.js', ...inAssets(/^(posenc-explorer|controller|gifenc)-.*\.js$|^(sweep|train)-worker\.js$/)];
const checkpoints = readdirSync(`${dist}checkpoints`).map((f) => `checkpoints/${f}`);
// The language models: a module of their own, fetched by the first loadLanguageModel (SIMD build).
const languageModels = ['assets/posenc-lm-simd.wasm', ...inAssets(/^posenc-lm-simd-.*\.js$/).slice(0, 1), ...inAssets(/^lm-.*\.js$/)];

const groups = [
  ['`posenc-simd.wasm`', ['assets/posenc-simd.wasm']],
  ['`posenc-scalar.wasm` (fallback without wasm SIMD)', ['assets/posenc-scalar.wasm']],
  ['Emscripten glue, one build', glue],
  ['JS library', library],
  ['**`import \'posenc\'`: SIMD module + glue + library**', ['assets/posenc-simd.wasm', ...glue, ...library]],
  ['`<posenc-explorer>`: component, its Workers, d3 and gifenc (JS only)', component],
  ['language models, on demand: `posenc-lm-simd.wasm` + glue + their code', languageModels],
  ['`tokenizer.json` reader (@huggingface/tokenizers), on demand', inAssets(/^tokenizers-.*\.js$/)],
  ['`posenc.single.js` (both .wasm inlined)', ['posenc.single.js']],
  ['`standalone.html` (everything inlined, 7 checkpoints)', ['standalone.html']],
  [`shipped checkpoints (${checkpoints.filter((f) => f.endsWith('.ckpt')).length})`, checkpoints],
];

const measure = (files) => {
  const bufs = files.map((f) => readFileSync(dist + f));
  const sum = (f) => bufs.reduce((a, b) => a + f(b), 0);
  return { raw: sum((b) => b.length), gzip: sum((b) => gzipSync(b, { level: 9 }).length), brotli: sum((b) => compressBody(b, 'br').length) };
};
const kb = (n) => `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;
const rows = groups.map(([what, files]) => ({ what, files: files.length, ...measure(files) }));

if (process.argv.includes('--markdown')) {
  console.log('| what | files | raw | gzip | brotli |\n|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.what} | ${r.files} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.brotli)} |`);
} else {
  console.table(rows.map((r) => ({ ...r, what: r.what.replace(/[`*]/g, ''), raw: kb(r.raw), gzip: kb(r.gzip), brotli: kb(r.brotli) })));
}
