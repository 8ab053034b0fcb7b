// RoPE scaling on a real trained model, zero shot (issue 28): docs/lm-zero-shot.json is what scripts/lm-zero-shot.js
// measures on stories260K (one row recomputed here), docs/results.md renders it, and every sentence of the section is
// computed from the table (mutations change them).
import { readFileSync } from 'node:fs';
import { zeroShotSection, passagesSection, swapsIn } from '../../scripts/results-md-lm.js';
import { measure, bands, measurePassages, samplePassages, digest, summarise, interval, rowsToMeasure, PASSAGE_SEEDS } from '../../scripts/lm-zero-shot.js';
import { sharedTest } from './lm-fixtures.js';

const table = JSON.parse(readFileSync(new URL('../../docs/lm-zero-shot.json', import.meta.url), 'utf8'));
const md = readFileSync(new URL('../../docs/results.md', import.meta.url), 'utf8');
const copy = () => structuredClone(table);
const row = (t, s, f) => t.rows.find((r) => r.scaling === s && r.factor === f);
const text = (t) => zeroShotSection(t).join('\n');

test('docs/results.md holds the section as the table renders it: 13 rows, 4 bands of predicted positions', () => {
  expect(md).toContain(text(table));
  expect(table.bands).toEqual(bands(table.context));
  expect(table.rows.map((r) => `${r.scaling}×${r.factor}`)).toEqual(['none×1', ...['linear', 'dynamic', 'yarn', 'llama3'].flatMap((s) => [2, 4, 8].map((f) => `${s}×${f}`))]);
  expect(table.rows.every((r) => r.ppl.length === 4 && r.ppl.every((x) => x > 1))).toBe(true);
});

test('its sentences follow the numbers', () => {
  const t = copy(), none = row(t, 'none', 1);
  const best = t.rows.filter((r) => r.scaling !== 'none').reduce((b, r) => (r.ppl[3] < b.ppl[3] ? r : b));
  expect(text(t)).toContain(`Lowest at positions 2,048–4,095: ${t.names[best.scaling]} ×${best.factor}, ${best.ppl[3].toFixed(2)}`);
  expect(text(t)).toContain(`perplexity is ${none.ppl[0].toFixed(2)} within the context`);
  // another row made the lowest
  row(t, 'llama3', 2).ppl[3] = 1.5;
  expect(text(t)).toContain('Lowest at positions 2,048–4,095: Llama 3 ×2, 1.50');
  // PI below no scaling within the context at one factor
  row(t, 'linear', 2).ppl[0] = none.ppl[0] - 0.5;
  expect(text(t)).toMatch(/raises perplexity within the context at 2 of 3 factors/);
  // YaRN above dynamic NTK past 4x at one factor: the count follows
  const wins = (s) => Number(s.match(/lower than both at (\d) of 3 factors/)[1]);
  const before = wins(text(t));
  row(t, 'yarn', 4).ppl[3] = row(t, 'dynamic', 4).ppl[3] + 1;
  expect(wins(text(t))).toBe(before - (row(table, 'yarn', 4).ppl[3] < Math.min(row(table, 'dynamic', 4).ppl[3], row(table, 'linear', 4).ppl[3]) ? 1 : 0));
  expect(zeroShotSection(null)).toEqual([]);
});

sharedTest('its YaRN ×4 row is what stories260K gives today', async () => {
  const got = await measure({ only: (s, f) => s === 'yarn' && f === 4 });
  expect(got.rows).toEqual([row(table, 'yarn', 4)]);
  expect([got.model, got.context, got.tokens]).toEqual([table.model, table.context, table.tokens]);
}, 60000);

// ---------- over many passages: the model's own samples (issue 42, item 5) ----------
const passages = table.passages;
const prow = (t, s, f) => t.passages.rows.find((r) => r.scaling === s && r.factor === f);

test('the multi-passage part: every scaling of the core\'s table at every factor, over 20 passages of 8 contexts, its summaries computed from its per-passage numbers', () => {
  expect(passages.generator).toMatchObject({ seeds: PASSAGE_SEEDS, tokens: 8 * table.context, window: table.context });
  expect(passages.rows.map((r) => `${r.scaling}×${r.factor}`)).toEqual(rowsToMeasure().map((r) => `${r.scaling}×${r.factor}`));
  expect(new Set(passages.digests).size).toBe(PASSAGE_SEEDS.length);
  expect(passages.bands).toEqual(bands(table.context));
  for (const r of passages.rows) {
    expect(r.per).toHaveLength(PASSAGE_SEEDS.length);
    expect({ ppl: r.ppl, lo: r.lo, hi: r.hi }).toEqual(summarise(r.per));
    r.ppl.forEach((x, i) => expect(r.lo[i] <= x && x <= r.hi[i]).toBe(true));
  }
});

test('the interval is a percentile bootstrap over passages: its ends are means of resampled passages, and it narrows with more of them', () => {
  expect(interval([2, 2, 2])).toEqual([2, 2, 2]);
  const [m, lo, hi] = interval([1, 4]); // resampled means of the logs: 0, ln 2, ln 4
  expect([m, lo, hi]).toEqual([2, 1, 4]);
  const wide = interval([3, 5, 8, 4]), narrow = interval([3, 5, 8, 4, 3, 5, 8, 4, 3, 5, 8, 4, 3, 5, 8, 4]);
  expect(narrow[2] - narrow[1]).toBeLessThan(wide[2] - wide[1]);
});

test('the section\'s words about many passages follow the numbers', () => {
  const t = copy(), none = prow(t, 'none', 1), yarn = prow(t, 'yarn', 4), n = PASSAGE_SEEDS.length;
  const said = (x) => passagesSection(x).join('\n');
  expect(said(t)).toContain(`### Over ${n} passages of the model's own text`);
  expect(said(t)).toContain(`one from each seed 1–${n}`);
  const swaps = (x) => [...said(x).matchAll(/(\d+) of \d+ passages in the other order/g)].map((m) => Number(m[1]));
  expect(swaps(t)).toEqual([0, 1, 2, 3].map((i) => swapsIn(none, yarn, i)));
  // one more passage in the other order in the first band
  const k = none.per.findIndex((p, j) => Math.sign(p[0] - yarn.per[j][0]) === Math.sign(none.ppl[0] - yarn.ppl[0]));
  [none.per[k][0], yarn.per[k][0]] = [yarn.per[k][0], none.per[k][0]];
  expect(swaps(t)[0]).toBe(swapsIn(prow(table, 'none', 1), prow(table, 'yarn', 4), 0) + 1);
  // a cell of the page's passage moved inside every interval: the count follows
  const outside = (x) => Number(said(x).match(/against these: (\d+) of/)[1]);
  const page = row(t, 'none', 1), i = page.ppl.findIndex((x, b) => x < none.lo[b] || x > none.hi[b]);
  if (i >= 0) {
    const before = outside(t);
    page.ppl[i] = none.ppl[i];
    expect(outside(t)).toBe(before - 1);
  }
  expect(passagesSection({ ...t, passages: undefined })).toEqual([]);
});

sharedTest('the stored passages are what the sampler draws today from their seeds (the first, in full), and the pipeline runs end to end on two short ones', async () => {
  const full = samplePassages({ seeds: PASSAGE_SEEDS.slice(0, 1), tokens: passages.generator.tokens, window: passages.generator.window });
  expect(full.map((p) => digest(p.tokens))).toEqual(passages.digests.slice(0, 1));
  expect(full.every((p) => p.tokens.length === passages.generator.tokens && p.tokens[0] === 1)).toBe(true);
  // two passages of 2 contexts of 64 tokens (the model's context set to 64): two rows, two bands, per passage
  const got = await measurePassages({ seeds: [3, 4], times: 2, context: 64, only: (s, f) => s === 'none' || (s === 'yarn' && f === 4) });
  expect(got.bands).toEqual([[1, 64], [64, 128]]);
  expect(got.rows.map((r) => [r.scaling, r.factor, r.per.length, r.per[0].length])).toEqual([['none', 1, 2, 2], ['yarn', 4, 2, 2]]);
  expect(got.generator).toMatchObject({ seeds: [3, 4], tokens: 128, window: 64 });
  for (const r of got.rows) expect({ ppl: r.ppl, lo: r.lo, hi: r.hi }).toEqual(summarise(r.per));
}, 120000);
