// Merges the runs of a partial posenc_train output (e.g. one encoding, or more seeds of a few rows) into
// docs/results.json without retraining the rest, keeping every other byte of the file:
//   node scripts/results-merge.js PARTIAL.json [results.json]
// A run is (task, encoding, variant, scaling, seed). A run present in both must be the same numbers (timings,
// and head statistics the older file did not record, aside): training is deterministic, so a mismatch means
// the partial was made with other settings, and nothing is written. A new run goes after the last run of its
// task, encoding and seed (or of its task and encoding); new config.variants are added to the list.
import { readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';

const RUNS = '\n"runs":[\n', END = '\n]\n}', SEP = ',\n{"task":';
const TIMINGS = ['trainSeconds', 'evalSeconds'];
export const runKey = (r) => [r.task, r.encoding, r.variant ?? '', r.scaling ?? 'none', r.seed].join('|');

/** The run blocks of a results.json text (each one run's text, as written) and the text around them. */
export function blocksOf(text) {
  const a = text.indexOf(RUNS), b = text.lastIndexOf(END);
  if (a < 0 || b < a) throw new Error('results-merge: no "runs" list as posenc_train writes it');
  const blocks = text.slice(a + RUNS.length, b).split(SEP).map((s, i) => (i ? `{"task":${s}` : s));
  return { head: text.slice(0, a + RUNS.length), blocks, tail: text.slice(b) };
}

// A run without what may legitimately differ: timings, and head statistics `old` does not have.
function comparable(run, fieldsOf) {
  const r = structuredClone(run);
  for (const k of TIMINGS) delete r[k];
  for (const l of r.lengths ?? []) for (const h of l.heads ?? []) for (const k of Object.keys(h)) if (!fieldsOf.has(k)) delete h[k];
  return r;
}

/** The merged text, and what was added and checked. Throws when a shared run differs. */
export function merge(fullText, partialText) {
  const full = blocksOf(fullText), part = blocksOf(partialText);
  const runs = full.blocks.map((b) => JSON.parse(b)), index = new Map(runs.map((r, i) => [runKey(r), i]));
  const headFields = new Set(runs.flatMap((r) => (r.lengths ?? []).flatMap((l) => (l.heads ?? []).flatMap((h) => Object.keys(h)))));
  const added = [], checked = [], differ = [];
  for (const block of part.blocks) {
    const r = JSON.parse(block), k = runKey(r);
    if (index.has(k)) {
      checked.push(k);
      if (!isDeepStrictEqual(comparable(runs[index.get(k)], headFields), comparable(r, headFields))) differ.push(k);
      continue;
    }
    const same = (x, seed) => x.task === r.task && x.encoding === r.encoding && (!seed || x.seed === r.seed);
    let at = runs.findLastIndex((x) => same(x, true));
    if (at < 0) at = runs.findLastIndex((x) => same(x, false));
    if (at < 0) at = runs.length - 1;
    runs.splice(at + 1, 0, r);
    full.blocks.splice(at + 1, 0, block);
    index.clear();
    runs.forEach((x, i) => index.set(runKey(x), i));
    added.push(k);
  }
  if (differ.length) throw new Error(`results-merge: ${differ.length} run(s) in both files differ, nothing written: ${differ.slice(0, 5).join(', ')}`);
  let head = full.head;
  const configOf = (t) => JSON.parse(`${t.slice(0, t.indexOf(RUNS)).replace(/,\s*$/, '')}}`).config;
  const oldConfig = configOf(fullText), newConfig = configOf(partialText);
  const variantKey = (v) => `${v.encoding}|${v.variant}|${v.scaling ?? ''}`;
  const have = new Set((oldConfig.variants ?? []).map(variantKey));
  const more = (newConfig.variants ?? []).filter((v) => !have.has(variantKey(v)));
  if (more.length) {
    const was = `"variants":${JSON.stringify(oldConfig.variants ?? [])}`;
    if (!head.includes(was)) throw new Error('results-merge: config.variants is not written as expected');
    head = head.replace(was, `"variants":${JSON.stringify([...(oldConfig.variants ?? []), ...more])}`);
  }
  return { text: `${head}${full.blocks.join(',\n')}${full.tail}`, added, checked, variants: more.length };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = new URL('..', import.meta.url).pathname;
  const [partial, file = `${root}docs/results.json`] = process.argv.slice(2);
  if (!partial) {
    console.error('usage: node scripts/results-merge.js PARTIAL.json [results.json]');
    process.exit(2);
  }
  try {
    const m = merge(readFileSync(file, 'utf8'), readFileSync(partial, 'utf8'));
    JSON.parse(m.text);
    writeFileSync(file, m.text);
    console.log(`wrote ${file}: ${m.added.length} runs added, ${m.checked.length} shared runs identical, ${m.variants} variants added`);
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}
