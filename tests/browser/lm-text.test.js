// The reader's own text in "Your model, past its context" (issue 42, item 4), in Chromium, Firefox and WebKit with the
// real stories260K (../shared, served under /test-models/ only here; skipped with a notice where it is missing):
//  - by keyboard alone: the passage's disclosure opens with Enter, the text is typed with real key events, Tab reaches
//    "Use this text" and Enter uses it: the model's facts say "your text" and the figure is redrawn over it;
//  - a text file chosen in the file field (each driver's own way of choosing a file) becomes the passage;
//  - none of it leaves the page: the requests the page makes while the text is used (its resource timing) are only its
//    own files, by name, with no query and no word of the text, and the URL is the same before and after (it carries
//    the settings, never the text); the page says so in plain words;
//  - a file that is not UTF-8 text is refused with one readable sentence, and the passage stays as it was;
//  - axe finds nothing serious or critical with the passage open (Chromium).
// Screenshots go to the tmp screenshot dir.
import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useEngine } from './harness.js';

jest.setTimeout(600000);
const ENGINES = ['chromium', 'firefox', 'webkit'];
const MODELS = fileURLToPath(new URL('../../../shared/models/', import.meta.url));
const have = existsSync(join(MODELS, 'stories260K/stories260K.bin'));
if (!have) console.log('skipped (no ../shared/models/stories260K here): the reader\'s own text in the browsers');
const LAB = 'encodings=alibi'; // (one lab row: the lab's sweep would otherwise run beside the model's forwards)
const TYPED = 'The cat sat on the mat.';
const FILE_TEXT = 'Tom had a small red boat. Every morning he took it to the pond and watched it float. ' +
  'One day the wind pushed it far away, and his sister helped him bring it back.\n';

// Real key events into the focused element (the drivers' own typing where they have it).
async function type(page, text) {
  if (page.engine !== 'webkit') return page.raw.keyboard.type(text);
  for (const ch of text) await page.press(ch);
}

// Chooses `file` in the file field `selector`, as each driver does it.
async function chooseFile(page, selector, file) {
  if (page.engine === 'chromium') return page.raw.setInputFiles(selector, file);
  if (page.engine === 'firefox') return (await page.raw.$(selector)).uploadFile(file);
  const { By } = await import('selenium-webdriver');
  return page.command('choose a file', async () => (await page.raw.findElement(By.css(selector))).sendKeys(file));
}

// The figure drawn over the current passage and nothing computing: the facts' passage line and the sentence.
const drawn = (page, what) => page.waitFor(() => {
  const h = document.querySelector('#your-model .lm-host'), c = h?.querySelector('canvas.lm-ppl');
  return c && Number(c.dataset.series) === 5 && h.querySelector('.lm-busy').hidden && !h.querySelector('.lm-model').hidden
    ? { facts: h.querySelector('.lm-facts').textContent, words: h.querySelector('.lm-ppl-words').textContent } : null;
}, { what, timeout: 300000, interval: 250 });

(have ? describe.each(ENGINES) : describe.skip.each(ENGINES))('%s', (engine) => {
  const env = useEngine(engine, { mounts: { '/test-models/': MODELS } });
  const dir = mkdtempSync(join(tmpdir(), 'posenc-lm-text-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('typed by keyboard or chosen as a file, the reader\'s text replaces the story, never leaves the page, and a file that is not text is refused', async () => {
    const page = await env.newPage();
    await page.setViewport(1400, 1000);
    const model = encodeURIComponent('/test-models/stories260K/stories260K.bin /test-models/stories260K/tok512.bin');
    await page.goto(`${env.url}/app/?play=0&${LAB}&lmTimes=1&modelUrl=${model}`);
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page', timeout: 120000 });
    await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
    const story = await drawn(page, 'the figure over the story');
    expect(story.facts).toMatch(/the passage: [\d,]+ tokens \(a story written for this page\)/);
    const before = await page.evaluate(() => ({ url: location.href, requests: performance.getEntriesByType('resource').length }));

    // keyboard only: open the disclosure, type, Tab to "Use this text", Enter
    await page.evaluate(() => {
      const s = document.querySelector('#your-model .lm-passage summary');
      s.scrollIntoView({ block: 'center' });
      s.focus();
    });
    await page.press('Enter');
    await page.waitFor(() => document.querySelector('#your-model .lm-passage').open, { what: 'the passage open' });
    const note = await page.evaluate(() => {
      const t = document.querySelector('#your-model textarea.lm-text');
      t.value = '';
      t.focus();
      return document.getElementById(t.getAttribute('aria-describedby')).textContent;
    });
    expect(note).toMatch(/never sent anywhere/);
    await type(page, TYPED);
    await page.press('Tab');
    expect(await page.evaluate(() => document.activeElement.textContent)).toBe('Use this text');
    await page.press('Enter');
    const typed = await page.waitFor(() => /\(your text\)/.test(document.querySelector('#your-model .lm-facts').textContent), { what: 'the typed text in use', timeout: 60000 })
      .then(() => drawn(page, 'the figure over the typed text'));
    expect(await page.evaluate(() => document.querySelector('#your-model textarea.lm-text').value)).toBe(TYPED);
    expect(typed.facts).toMatch(/the passage: \d+ tokens \(your text\); it reaches less than one context/);
    expect(typed.words).toMatch(/^At \d+ tokens the passage stays within the original context of 512/);
    const typedTokens = Number(typed.facts.match(/the passage: (\d+) tokens/)[1]);
    expect(typedTokens).toBeLessThan(20);

    // a text file, chosen in the file field
    const file = join(dir, 'boat.txt');
    writeFileSync(file, FILE_TEXT.repeat(6));
    await chooseFile(page, '#your-model input.lm-text-file', file);
    await page.waitFor((t) => document.querySelector('#your-model textarea.lm-text').value === t, { arg: FILE_TEXT.repeat(6), what: 'the file read into the passage' });
    const chosen = await page.waitFor((n) => {
      const m = document.querySelector('#your-model .lm-facts').textContent.match(/the passage: ([\d,]+) tokens \(your text\)/);
      return m && Number(m[1].replace(/,/g, '')) !== n;
    }, { arg: typedTokens, what: 'the file in use', timeout: 60000 }).then(() => drawn(page, 'the figure over the file'));
    expect(Number(chosen.facts.match(/the passage: ([\d,]+) tokens/)[1].replace(/,/g, ''))).toBeGreaterThan(5 * typedTokens);
    await page.evaluate(() => document.querySelector('#your-model .lm-passage').scrollIntoView({ block: 'start' }));
    console.log(`${engine}: shot ${await page.screenshot('lm-text-file-1400')}`);
    await page.setViewport(390, 844); // (a phone's width: the buttons, the file field and the note wrap)
    await page.evaluate(() => new Promise((r) => { document.querySelector('#your-model .lm-passage').scrollIntoView({ block: 'start' }); setTimeout(r, 300); }));
    console.log(`${engine}: shot ${await page.screenshot('lm-text-file-390')}`);
    await page.setViewport(1400, 1000);

    // nothing left the page, and the link carries no text
    // (the page may go on loading its own files meanwhile, such as the lab's training curves: every request after the
    // story's figure is a file of the page's own origin, by its name, and none carries a word of the text)
    const after = await page.evaluate(() => ({ url: location.href, origin: location.origin,
      requests: performance.getEntriesByType('resource').map((e) => ({ name: e.name, type: e.initiatorType })) }));
    expect(after.url).toBe(before.url);
    const later = after.requests.slice(before.requests);
    console.log(`${engine}: requests while the text was used: ${JSON.stringify(later.map((r) => r.name))}`);
    for (const r of later) {
      expect(r.name.startsWith(`${after.origin}/`)).toBe(true);
      expect(new URL(r.name).search).toBe('');
      expect(r.name).toMatch(/\.(json|js|mjs|wasm|css|png|svg|woff2?)$/);
      expect(r.name).not.toMatch(/cat|mat|boat|pond|Tom/);
      expect(r.type).not.toBe('beacon');
    }

    // a file that is not UTF-8 text: one sentence, and the passage stays the file's
    const bad = join(dir, 'picture.txt');
    writeFileSync(bad, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0xfd]));
    await chooseFile(page, '#your-model input.lm-text-file', bad);
    const error = await page.waitFor(() => { const e = document.querySelector('#your-model .lm-error'); return !e.hidden && e.textContent; }, { what: 'the refusal' });
    expect(error).toBe('picture.txt is not UTF-8 text, so it cannot be the passage.');
    expect(await page.evaluate(() => document.querySelector('#your-model textarea.lm-text').value)).toBe(FILE_TEXT.repeat(6));

    // the story again
    await page.click('#your-model .lm-passage button', 1);
    await page.waitFor(() => /\(a story written for this page\)/.test(document.querySelector('#your-model .lm-facts').textContent), { what: 'the story again', timeout: 60000 });
    const back = await drawn(page, 'the figure over the story again');
    expect(back.facts).toBe(story.facts);
    expect(await page.errors()).toEqual([]);

    if (engine === 'chromium') { // axe, with the passage open
      await page.evaluate(() => new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = '/node_modules/axe-core/axe.min.js';
        s.onload = resolve;
        s.onerror = () => reject(new Error('axe-core did not load'));
        document.head.append(s);
      }));
      const serious = await page.evaluate(() => globalThis.axe.run(document.querySelector('#your-model'), { resultTypes: ['violations'] })
        .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes[0].target.join(' ')}`)));
      expect(serious).toEqual([]);
    }
  });
});
