// Merges the runs of a partial posenc_train output (e.g. one encoding, or more seeds of a few rows) into
// docs/results.json without retraining the rest, keeping every other byte of the file:
//   node scripts/results-merge.js PARTIAL.json [results.json]
//   node scripts/results-merge.js --replace ENCODING PARTIAL.json [results.json]
// A run is (task, encoding, variant, scaling, seed). A run present in both must be the same numbers (timings,
// and head statistics the older file did not record, aside): training is deterministic, so a mismatch means
// the partial was made with other settings, and nothing is written. A new run goes after the last run of its
// task, encoding and seed (or of its task and encoding); new config.variants are added to the list.
// --replace ENCODING is for a retrain after that encoding's code changed: the partial must hold runs of that
// encoding only, made with the same settings (config aside from seeds, tasks, encodings, variants, jobs,
// seconds, and the options of tasks the partial did not train); each of its runs with other numbers (timings
// aside) replaces the run with the same key (its text as written), a new one is added as above, and the
// encoding's runs the partial does not hold or retrained to the same numbers are kept. Every other byte stays.
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
    insert(full.blocks, runs, index, r, block);
    added.push(k);
  }
  if (differ.length) throw new Error(`results-merge: ${differ.length} run(s) in both files differ, nothing written: ${differ.slice(0, 5).join(', ')}`);
  const { head, variants } = withVariants(full.head, fullText, partialText);
  return { text: `${head}${full.blocks.join(',\n')}${full.tail}`, added, checked, variants };
}

// Inserts run r (text `block`) after the last run of its task, encoding and seed (or of its task and encoding).
function insert(blocks, runs, index, r, block) {
  const same = (x, seed) => x.task === r.task && x.encoding === r.encoding && (!seed || x.seed === r.seed);
  let at = runs.findLastIndex((x) => same(x, true));
  if (at < 0) at = runs.findLastIndex((x) => same(x, false));
  if (at < 0) at = runs.length - 1;
  runs.splice(at + 1, 0, r);
  blocks.splice(at + 1, 0, block);
  index.clear();
  runs.forEach((x, i) => index.set(runKey(x), i));
}

const configOf = (t) => JSON.parse(`${t.slice(0, t.indexOf(RUNS)).replace(/,\s*$/, '')}}`).config;

// The head with the partial's new config.variants added, and how many were added.
function withVariants(head, fullText, partialText) {
  const oldConfig = configOf(fullText), newConfig = configOf(partialText);
  const variantKey = (v) => `${v.encoding}|${v.variant}|${v.scaling ?? ''}`;
  const have = new Set((oldConfig.variants ?? []).map(variantKey));
  const more = (newConfig.variants ?? []).filter((v) => !have.has(variantKey(v)));
  if (!more.length) return { head, variants: 0 };
  const was = `"variants":${JSON.stringify(oldConfig.variants ?? [])}`;
  if (!head.includes(was)) throw new Error('results-merge: config.variants is not written as expected');
  return { head: head.replace(was, `"variants":${JSON.stringify([...(oldConfig.variants ?? []), ...more])}`), variants: more.length };
}

// What a partial run for --replace may set differently from the full experiment's config.
const PER_RUN_CONFIG = ['seeds', 'tasks', 'encodings', 'variants', 'jobs', 'seconds'];

/**
 * The text with the partial's runs (all of `encoding`) in place of the runs with the same keys; `replaced` lists
 * the keys retrained, `changed` those of them whose numbers (timings aside) differ (only their text is
 * replaced), `added` the new keys and
 * `kept` the encoding's keys the partial does not hold. Throws (nothing replaced) on a run of another encoding
 * or settings that differ.
 */
export function replace(fullText, partialText, encoding) {
  const full = blocksOf(fullText), part = blocksOf(partialText);
  const runs = full.blocks.map((b) => JSON.parse(b)), index = new Map(runs.map((r, i) => [runKey(r), i]));
  if (!runs.some((r) => r.encoding === encoding)) throw new Error(`results-merge: --replace ${encoding}: results.json has no run of that encoding`);
  const others = part.blocks.map((b) => JSON.parse(b)).filter((r) => r.encoding !== encoding);
  if (others.length) throw new Error(`results-merge: --replace ${encoding}: the partial holds ${others.length} run(s) of other encodings (${runKey(others[0])}), nothing written`);
  // taskOptions: only those of the partial's tasks (a partial run lists the options of the tasks it trained)
  const newOptions = configOf(partialText).taskOptions ?? {};
  const settings = (c) => Object.fromEntries(Object.entries(c).filter(([k]) => !PER_RUN_CONFIG.includes(k))
    .map(([k, v]) => [k, k === 'taskOptions' ? Object.fromEntries(Object.keys(newOptions).map((t) => [t, v?.[t]])) : v]));
  const oldConfig = settings(configOf(fullText)), newConfig = settings(configOf(partialText));
  const differs = Object.keys({ ...oldConfig, ...newConfig }).filter((k) => !isDeepStrictEqual(oldConfig[k], newConfig[k]));
  if (differs.length) throw new Error(`results-merge: --replace ${encoding}: the partial was trained with other settings (config.${differs.join(', config.')}), nothing written`);
  const replaced = [], changed = [], added = [];
  for (const block of part.blocks) {
    const r = JSON.parse(block), k = runKey(r);
    if (!index.has(k)) {
      insert(full.blocks, runs, index, r, block);
      added.push(k);
      continue;
    }
    const i = index.get(k);
    const fields = new Set((runs[i].lengths ?? []).flatMap((l) => (l.heads ?? []).flatMap((h) => Object.keys(h))));
    replaced.push(k);
    if (isDeepStrictEqual(comparable(runs[i], fields), comparable(r, fields))) continue; // the same numbers: its text stays
    changed.push(k);
    runs[i] = r;
    full.blocks[i] = block;
  }
  const done = new Set([...replaced, ...added]);
  const kept = runs.filter((r) => r.encoding === encoding && !done.has(runKey(r))).map(runKey);
  const { head, variants } = withVariants(full.head, fullText, partialText);
  return { text: `${head}${full.blocks.join(',\n')}${full.tail}`, replaced, changed, added, kept, variants };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = new URL('..', import.meta.url).pathname;
  const args = process.argv.slice(2);
  const encoding = args[0] === '--replace' ? args[1] : null;
  const [partial, file = `${root}docs/results.json`, extra] = encoding === null ? args : args.slice(2);
  if (!partial || extra !== undefined || (args[0] === '--replace' && !encoding) || partial.startsWith('--')) {
    console.error('usage: node scripts/results-merge.js [--replace ENCODING] PARTIAL.json [results.json]');
    process.exit(2);
  }
  try {
    const fullText = readFileSync(file, 'utf8'), partialText = readFileSync(partial, 'utf8');
    if (encoding === null) {
      const m = merge(fullText, partialText);
      JSON.parse(m.text);
      writeFileSync(file, m.text);
      console.log(`wrote ${file}: ${m.added.length} runs added, ${m.checked.length} shared runs identical, ${m.variants} variants added`);
    } else {
      const m = replace(fullText, partialText, encoding);
      JSON.parse(m.text);
      writeFileSync(file, m.text);
      console.log(`wrote ${file}: ${m.replaced.length} runs of ${encoding} replaced (${m.changed.length} with other numbers), ` +
        `${m.added.length} added, ${m.kept.length} not in the partial kept, ${m.variants} variants added`);
    }
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}
