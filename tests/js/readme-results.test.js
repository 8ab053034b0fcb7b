// The README's learned counts are docs/results.json's (scripts/readme-results.js generates them), and the check fails
// when the README and results.json drift apart.
import { readFileSync } from 'node:fs';
import { learnedCounts, learnedBlock, missingCounts } from '../../scripts/readme-results.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const results = JSON.parse(readFileSync(new URL('../../docs/results.json', import.meta.url), 'utf8'));

test('README.md states the learned counts of docs/results.json', () => {
  expect(missingCounts(readme, results)).toEqual([]);
  // counted here from the runs: training runs (no scaling, no fine-tune) of the configuration's seeds
  const runs = results.runs.filter((r) => (r.scaling ?? 'none') === 'none' && !r.finetune && results.config.seeds.includes(r.seed));
  expect(learnedCounts(results).all).toEqual({ learned: runs.filter((r) => r.learned).length, runs: runs.length });
  for (const t of results.config.tasks) {
    const rs = runs.filter((r) => r.task === t);
    expect(readme).toContain(`\`${t}\` ${rs.filter((r) => r.learned).length}/${rs.length}`);
  }
});

test('mutation: the old stale counts, or one run flipped in results.json, fail the check', () => {
  const stale = readme.replace(learnedBlock(results), learnedBlock(results).replace('`reverse` 38/39', '`reverse` 37/39'));
  expect(missingCounts(stale, results).map(([w]) => w)).toEqual(['the learned counts']);
  const flipped = JSON.parse(JSON.stringify(results));
  flipped.runs.find((r) => r.task === 'kth_retrieval' && !r.finetune && (r.scaling ?? 'none') === 'none' && r.learned).learned = false;
  expect(missingCounts(readme, flipped).map(([w]) => w)).toEqual(['the learned counts']);
});
