// RoPE scaling on a real trained model, zero shot (issue 28): docs/lm-zero-shot.json is what scripts/lm-zero-shot.js
// measures on stories260K (one row recomputed here), docs/results.md renders it, and every sentence of the section is
// computed from the table (mutations change them).
import { readFileSync } from 'node:fs';
import { zeroShotSection } from '../../scripts/results-md-lm.js';
import { measure, bands } from '../../scripts/lm-zero-shot.js';
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
