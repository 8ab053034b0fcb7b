// Writes the two indexes of the shipped checkpoints in web/checkpoints/ (npm run train calls it):
//   index.json  the file names (with the page's results.json and the training curves, curves.json), for a
//               checkpoint directory served anywhere (configure({ checkpoints: url }));
//   index.js    each checkpoint as a literal `new URL('./file', import.meta.url)`, so that a bundler
//               that builds a page with posenc/explorer copies them all (web/app/lab/trainer.js imports it).
// `--check` only compares them with the directory (a test runs it) and exits 1 when they are stale.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';

const dir = new URL('../web/checkpoints/', import.meta.url);

export function indexes() {
  const files = readdirSync(dir).sort();
  const ckpts = files.filter((f) => f.endsWith('.ckpt'));
  const json = JSON.stringify(files.filter((f) => f.endsWith('.ckpt') || f === 'results.json' || f === 'curves.json'));
  const js = ['// Written by scripts/checkpoint-index.js from the files in this directory: do not edit.',
    '// Literal URLs, which bundlers recognise and copy.',
    'export default {',
    ...ckpts.map((f) => `  ${JSON.stringify(f)}: new URL(${JSON.stringify(`./${f}`)}, import.meta.url),`),
    '};', ''].join('\n');
  return { 'index.json': json, 'index.js': js };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  let stale = [];
  for (const [name, text] of Object.entries(indexes())) {
    const at = new URL(name, dir);
    if (existsSync(at) && readFileSync(at, 'utf8') === text) continue;
    if (check) stale.push(name);
    else writeFileSync(at, text);
  }
  if (stale.length) {
    console.error(`web/checkpoints/${stale.join(', ')} out of date: run node scripts/checkpoint-index.js`);
    process.exit(1);
  }
}
