// The "Embed this sweep" iframe snippet fits what it embeds (issue 29): in a host page with no script of its own,
// at 720 and 390 px wide, the iframe's content shows every chosen row with no inner scrolling; two rows fit on a
// phone's screen; the element takes the GIF export's layout (a title with T and its multiple, each row's accuracy
// in large type, one legend) and says nothing about a page outside it; layer and head are numbered alike in the
// page's controls, the URL, the snippet's attributes and the element.
import { useBrowser } from './harness.js';
import { waitFor, waitReady } from './page-helpers.js';

const browser = useBrowser();

async function snippetFor(page, query) {
  await page.goto(`${browser.url}/app/${query}`);
  await waitReady(page);
  await page.locator('details.embed-this summary').click();
  return { iframe: await page.locator('.embed-iframe').inputValue(), component: await page.locator('.embed-component').inputValue() };
}

test.each([['alibi'], ['rope,alibi'], ['rope,alibi,learned,fire']])('rows %s: the iframe snippet shows every row without inner scrolling at 720 and 390 px', async (encodings) => {
  const page = await browser.newPage();
  const { iframe } = await snippetFor(page, `?encodings=${encodings}&play=0&length=128`);
  const height = Number(/height="(\d+)"/.exec(iframe)[1]);
  const n = encodings.split(',').length;
  for (const width of [720, 390]) {
    const host = await browser.newPage();
    await host.setViewportSize({ width, height: 900 });
    await host.goto(`${browser.url}/app/blank.html`);
    await host.evaluate((html) => { document.body.style.margin = '0'; document.body.innerHTML = html; }, iframe); // the snippet, as a blog host pastes it
    const frame = await waitFor(host, () => document.querySelector('iframe')?.contentDocument?.querySelector('posenc-explorer')?.results?.(), { what: 'the embedded element' })
      .then(() => host.frames().find((f) => f.url().includes('embed.html')));
    await waitFor(host, (k) => { const el = document.querySelector('iframe').contentDocument.querySelector('posenc-explorer');
      return el.shadowRoot.querySelectorAll('.sweep-row').length === k && Object.values(el.results()).every((r) => r.some((x) => x.length === 128)); },
    { arg: n, what: 'every row at 128', timeout: 90000 });
    await host.waitForTimeout(400);
    const m = await frame.evaluate(() => ({ scroll: document.documentElement.scrollHeight, client: document.documentElement.clientHeight,
      content: Math.ceil(document.querySelector('posenc-explorer').getBoundingClientRect().height) }));
    console.log(`embed ${encodings} at ${width} px: content ${m.content} px, iframe ${height} px`);
    expect(m.content).toBeLessThanOrEqual(height);
    expect(m.scroll).toBeLessThanOrEqual(m.client); // no inner scrolling
    if (n === 2 && width === 390) expect(m.content).toBeLessThanOrEqual(844); // two rows on one phone screen
    // the GIF's layout: the title, one large accuracy per row, one legend; nothing referring outside the element
    const look = await frame.evaluate(() => { const r = document.querySelector('posenc-explorer').shadowRoot;
      return { title: r.querySelector('.title').textContent, big: [...r.querySelectorAll('.big-acc')].map((b) => b.textContent),
        legends: r.querySelectorAll('.legend').length, text: [...r.querySelectorAll('.sweep-row, .legend, .title')].filter((e) => e.offsetParent).map((e) => e.innerText).join(' ') }; });
    expect(look.title).toBe('T = 128 · 4× the training length');
    expect(look.big).toHaveLength(n);
    for (const b of look.big) expect(b).toMatch(/^\d+%$/);
    expect(look.legends).toBe(1);
    expect(look.text).not.toMatch(/section|slider|below|above the|docs\//i);
    await host.close();
  }
  await page.close();
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
