// The page's words about measured results (issue 14) are the ones web/app/results-words.js computes from the
// shipped web/checkpoints/results.json: the header summary, each sweep row's offline verdict (also after the
// rows change), and the retrieval view's depth sentences. None is hand-written in the HTML.
import { readFileSync } from 'node:fs';
import { useBrowser } from './harness.js';
import { waitFor, waitReady } from './page-helpers.js';
import { headerWords, rowWords } from '../../web/app/views/claims.js';
import { retrievalGrids, retrievalWords } from '../../web/app/views/retrieval.js';

const browser = useBrowser();
const shipped = JSON.parse(readFileSync(new URL('../../web/checkpoints/results.json', import.meta.url), 'utf8'));

test('header, row and retrieval words equal what results-words computes from the shipped results.json', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1200, height: 1600 });
  await page.goto(`${browser.url}/?play=0&steps=20&encodings=rope,alibi,none`);
  await waitReady(page);
  await waitFor(page, () => document.querySelector('#measured-claims').textContent.length > 0, { what: 'the header words' });
  expect(await page.textContent('#measured-claims')).toBe(headerWords(shipped, 'copy'));
  const rows = await page.$$eval('#sweep .sweep-row', (els) => els.map((e) => [e.dataset.encoding, e.querySelector('.offline').textContent]));
  expect(rows.length).toBe(3);
  for (const [enc, text] of rows) {
    expect(text).toBe(rowWords(shipped, 'copy', enc));
    expect(text).toMatch(/^Offline \(docs\/results\.json\): /);
  }
  // a row added later gets its words too
  await page.check('fieldset.encodings input[value=shaw]');
  await waitFor(page, () => document.querySelector('.sweep-row[data-encoding=shaw] .offline')?.textContent.length > 0, { what: 'the shaw row words' });
  expect(await page.textContent('.sweep-row[data-encoding=shaw] .offline')).toBe(rowWords(shipped, 'copy', 'shaw'));
  // retrieval: the plain-words gradient and the notice
  const words = retrievalWords(shipped, retrievalGrids(shipped));
  await waitFor(page, () => document.querySelector('#retrieval-note').textContent.length > 0, { what: 'the retrieval words' });
  expect(await page.textContent('#retrieval-note')).toBe([words.head, ...words.rows].join(''));
  expect(await page.textContent('#retrieval .notice')).toBe(words.notice);
  // no hand-written claim about results left in the page's static text
  const html = readFileSync(new URL('../../web/app/index.html', import.meta.url), 'utf8');
  for (const claim of [/ALiBi stays local/, /no middle dip/, /RoPE drifts/, /\brecency\b/]) expect(html).not.toMatch(claim);
  expect(page.errors).toEqual([]);
});
