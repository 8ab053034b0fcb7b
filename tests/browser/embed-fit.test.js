// The "Embed this sweep" iframe snippet fits what it embeds (issue 29): in a host page with no script of its own,
// at 720 and 390 px wide, the iframe's content shows every chosen row with no inner scrolling; two rows fit on a
// phone's screen; the element takes the GIF export's layout (a title with T and its multiple, each row's accuracy
// in large type, one legend) and says nothing about a page outside it; layer and head are numbered alike in the
// page's controls, the URL, the snippet's attributes and the element.
import { readFileSync } from 'node:fs';
import { useBrowser } from './harness.js';
import { waitFor, waitReady } from './page-helpers.js';
import { README_IFRAME_BASE } from '../../scripts/readme-lists.js';

const browser = useBrowser();
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

async function snippetFor(page, query) {
  await page.goto(`${browser.url}/app/${query}`);
  await waitReady(page);
  // the snippets are there the moment the panel opens (read in the same task as the opening: they were once filled
  // on its toggle event, which comes after, and read blank in between)
  expect(await page.evaluate(() => { document.querySelector('details.embed-this').open = true; return document.querySelector('.embed-component').value; }))
    .toContain('<posenc-explorer');
  return { iframe: await page.locator('.embed-iframe').inputValue(), component: await page.locator('.embed-component').inputValue() };
}

// In the embedded page: the curves' labels (chart.js records where it put each one) and their y titles.
function curveLabels() {
  const el = document.querySelector('iframe').contentDocument.querySelector('posenc-explorer');
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = '10px system-ui, sans-serif';
  return [...el.shadowRoot.querySelectorAll('canvas.curve')].map((c) => ({ width: c.clientWidth, labels: JSON.parse(c.dataset.labels ?? 'null'),
    title: c.dataset.yAxis, titleWidth: ctx.measureText(c.dataset.yAxis ?? '').width }));
}

/** Pastes `iframe` into a blank host page at 720 and 390 px and checks it shows `n` rows at `length` without inner scrolling. */
async function checkFit(iframe, n, { length = 128, title = 'T = 128 · 4× the training length' } = {}) {
  const height = Number(/height="(\d+)"/.exec(iframe)[1]);
  for (const width of [720, 390]) {
    const host = await browser.newPage();
    await host.setViewportSize({ width, height: 900 });
    await host.goto(`${browser.url}/app/blank.html`);
    await host.evaluate((html) => { document.body.style.margin = '0'; document.body.innerHTML = html; }, iframe); // the snippet, as a blog host pastes it
    const frame = await waitFor(host, () => document.querySelector('iframe')?.contentDocument?.querySelector('posenc-explorer')?.results?.(), { what: 'the embedded element' })
      .then(() => host.frames().find((f) => f.url().includes('embed.html')));
    await waitFor(host, (k) => { const el = document.querySelector('iframe').contentDocument.querySelector('posenc-explorer');
      return el.shadowRoot.querySelectorAll('.sweep-row').length === k.n && Object.values(el.results()).every((r) => r.some((x) => x.length === k.length)); },
    { arg: { n, length }, what: `every row at ${length}`, timeout: 90000 });
    await host.waitForTimeout(400);
    const m = await frame.evaluate(() => ({ scroll: document.documentElement.scrollHeight, client: document.documentElement.clientHeight,
      content: Math.ceil(document.querySelector('posenc-explorer').getBoundingClientRect().height) }));
    console.log(`embed of ${n} rows at ${width} px: content ${m.content} px, iframe ${height} px`);
    expect(m.content).toBeLessThanOrEqual(height);
    expect(m.scroll).toBeLessThanOrEqual(m.client); // no inner scrolling
    if (n === 2 && width === 390) expect(m.content).toBeLessThanOrEqual(844); // two rows on one phone screen
    // the GIF's layout: the title, one large accuracy per row, one legend; nothing referring outside the element
    const look = await frame.evaluate(() => { const r = document.querySelector('posenc-explorer').shadowRoot;
      return { title: r.querySelector('.title').textContent, big: [...r.querySelectorAll('.big-acc')].map((b) => b.textContent),
        legends: r.querySelectorAll('.legend').length, text: [...r.querySelectorAll('.sweep-row, .legend, .title')].filter((e) => e.offsetParent).map((e) => e.innerText).join(' ') }; });
    expect(look.title).toBe(title);
    expect(look.big).toHaveLength(n);
    for (const b of look.big) expect(b).toMatch(/^\d+%$/);
    expect(look.legends).toBe(1);
    expect(look.text).not.toMatch(/section|slider|below|above the|docs\//i);
    // the curves' labels never run into each other, and their titles fit (at 390 px: "256512", "train" over "T=120",
    // a title cut to "loss/11 (r")
    for (const c of await host.evaluate(curveLabels)) {
      expect(c.labels).not.toBeNull();
      for (const [i, a] of c.labels.entries()) for (const b of c.labels.slice(i + 1)) if (a[2] === b[2]) expect(a[1] + 2 <= b[0] || b[1] + 2 <= a[0]).toBe(true);
      expect(c.labels.length).toBeGreaterThanOrEqual(3); // the training length's mark and at least two ticks
      expect(c.titleWidth).toBeLessThanOrEqual(c.width - 26 + 4);
      expect(c.title).not.toMatch(/loss\/\d/);
    }
    if (width === 390) console.log(`embed of ${n} rows at 390 px: ${await shot(host, `embed-${n}-rows-390.png`)}`);
    await host.close();
  }
}

const shot = async (page, name) => {
  const { screenshotDir } = await import('./harness.js');
  const path = `${screenshotDir()}/${name}`;
  await page.screenshot({ path, fullPage: true });
  return path;
};

test.each([['alibi'], ['rope,alibi'], ['rope,alibi,learned,fire']])('rows %s: the iframe snippet shows every row without inner scrolling at 720 and 390 px', async (encodings) => {
  const page = await browser.newPage();
  const { iframe, component } = await snippetFor(page, `?encodings=${encodings}&play=0&length=128`);
  await checkFit(iframe, encodings.split(',').length);
  // the element's script is the published package on a public CDN, at this version (not the server of this page,
  // which sends no CORS headers to another site)
  expect(component).toContain(`<script type="module" src="https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/dist/explorer.js"></script>`);
  expect(component).not.toContain(browser.url);
  await page.close();
});

test('the README\'s iframe snippet (made by the panel\'s code) fits at 720 and 390 px; its script snippet is the CDN\'s', async () => {
  const block = (kind) => new RegExp(`<!-- embed ${kind}:[^\n]*\n\`\`\`html\n([\\s\\S]*?)\n\`\`\`\n<!-- /embed ${kind} -->`).exec(readme)?.[1];
  const iframe = block('iframe'), component = block('component');
  expect(iframe).toMatch(/^<iframe src="https:\/\/example\.org\/posenc\/dist\/embed\.html\?/);
  expect(component).toContain(`src="https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/dist/explorer.js"`);
  const n = new URLSearchParams(/embed\.html\?([^"]*)"/.exec(iframe)[1].replace(/&amp;/g, '&')).get('encodings').split(',').length;
  expect(n).toBe(2);
  // served here instead of where a reader hosts dist/; the snippet otherwise as the README gives it, autoplay included
  await checkFit(iframe.replace(README_IFRAME_BASE, `${browser.url}/`).replace('autoplay=1', 'autoplay=1&length=128&play=0'), n);
});

test('layer and head are numbered alike in the controls, the URL, the snippet and the element', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/app/?encodings=rope,alibi&play=0`);
  await waitReady(page);
  await page.selectOption('select[name=layer]', '3');
  await page.selectOption('select[name=head]', '2');
  await waitFor(page, () => location.search.includes('layer=3') && location.search.includes('head=2'), { what: 'the URL', timeout: 10000 });
  expect(await page.$eval('select[name=layer]', (s) => s.selectedOptions[0].textContent)).toBe('3');
  await page.locator('details.embed-this summary').click();
  const component = await page.locator('.embed-component').inputValue();
  expect(component).toContain('layer="3"');
  expect(component).toContain('head="2"');
  // the page draws layer 3 head 2: its maps say L3 H2
  await waitFor(page, () => posenc.client.get('rope', posenc.state.length)?.layer === 2 && posenc.client.get('rope', posenc.state.length).heads.join() === '1',
    { what: 'the maps of layer 3 head 2' });
  const el = await browser.newPage();
  await el.goto(`${browser.url}/embed.html?encodings=rope&layer=3&head=2`);
  await waitFor(el, () => document.querySelector('posenc-explorer')?.client?.get('rope', 32), { what: 'the element\'s maps', timeout: 60000 });
  expect(await el.evaluate(() => { const r = document.querySelector('posenc-explorer').client.get('rope', 32); return [r.layer + 1, r.heads[0] + 1]; })).toEqual([3, 2]);
  expect(page.errors).toEqual([]);
});
