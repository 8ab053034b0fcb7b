// The docs figures (web/figures, drawn by scripts/figures.js) show every row of results.json (issue 14): the
// registry's new encodings and exp's variants in the legends, Markov as loss against length with the oracle
// and floor lines, and the depth grids of the task that needs position before the labelled control.
import { useBrowser } from './harness.js';
import { waitFor } from './page-helpers.js';
import { v2Fixture } from '../js/results-fixtures.js';
import { ENCODING_INFO } from '../../web/lib/index.js';
import { jargonIn } from '../js/plain-words.js';

const browser = useBrowser();

test('figures draw every row, the loss figure its oracle and floors, the grids labelled main and control', async () => {
  const encodings = ['none', 'alibi', 'rope', 'sinusoidal', ...ENCODING_INFO.map((e) => e.name).filter((n) => ['xpos', 'prope', 'fire', 'rope_random', 'learned_random'].includes(n))];
  const results = v2Fixture(encodings);
  const page = await browser.newPage();
  await page.goto(`${browser.url}/figures/index.html`);
  await waitFor(page, () => document.body.dataset.ready === 'true', { what: 'the figures page' });
  const ids = await page.evaluate((r) => window.drawFigures(r), results);
  expect(ids).toEqual(['accuracy-vs-length', 'markov-loss', 'rope-scaling', 'needle-grid']);
  const texts = (id) => page.$$eval(`#${id} svg text`, (ts) => ts.map((t) => t.textContent));
  const acc = await texts('accuracy-vs-length');
  for (const e of encodings.filter((x) => x !== 'sinusoidal')) expect(acc).toContain(e); // sinusoidal has markov rows only
  expect(acc).toContain('rope [base100]');
  expect(acc).toContain('a random guess'); // (each guess by what it does: tests/js/plain-words.js)
  expect(acc.filter((t) => jargonIn(t).length)).toEqual([]);
  const loss = await texts('markov-loss');
  for (const name of ['oracle', 'a random guess', 'guessing by how often each token occurs', 'guessing from the token before', 'alibi', 'sinusoidal', 'xpos', 'learned_random']) expect(loss).toContain(name);
  expect(await texts('rope-scaling')).toEqual(expect.arrayContaining(['rope + linear', 'rope [finetuned] + linear (fine-tuned at 64)']));
  const caps = await page.$$eval('#needle-grid figcaption', (cs) => cs.map((c) => c.textContent));
  expect(caps[0]).toBe('rope (kth_retrieval, needs position)');
  expect(caps.at(-1)).toBe('rope (retrieval, control: content alone solves it)');
  // every panel drew lines (a blank figure is a failure)
  const paths = await page.$$eval('#markov-loss svg path', (ps) => ps.filter((p) => (p.getAttribute('d') ?? '').length > 20).length);
  expect(paths).toBeGreaterThan(8);
  expect(page.errors).toEqual([]);
});
