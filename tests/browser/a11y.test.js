// Accessibility, checked by axe-core (the engine most accessibility tools run; a devDependency, served to the page
// from node_modules by the test server, so no inline script meets the page's CSP) in Chromium, Firefox and WebKit:
// the explorer at 1400 and 390 px in the light and dark themes (shared among the engines), and the embed, break no rule axe rates serious or
// critical (colour contrast, names of controls, labels, ARIA). The page is checked once it has drawn its first screen
// and the lab's rows below it (rows are drawn as they come into view, so the test scrolls through them first).
import { jest } from '@jest/globals';
import { useEngine } from './harness.js';

jest.setTimeout(300000);
const ENGINES = ['chromium', 'firefox', 'webkit'];
const VIEWS = {
  chromium: [[1400, 900, 'light']],
  firefox: [[390, 844, 'dark']],
  webkit: [[1400, 900, 'dark']],
};

const loadAxe = (page) => page.evaluate(() => new Promise((resolve, reject) => {
  if (globalThis.axe) return resolve();
  const s = document.createElement('script');
  s.src = '/node_modules/axe-core/axe.min.js';
  s.onload = () => resolve();
  s.onerror = () => reject(new Error('axe-core did not load'));
  document.head.append(s);
}));

// Every violation axe rates serious or critical, as "rule: n nodes (first node's selector)".
const serious = async (page) => {
  await loadAxe(page);
  return page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} node(s), e.g. ${v.nodes[0].target.join(' ')}: ${v.nodes[0].failureSummary.replace(/\s+/g, ' ')}`)));
};

// The check can fail: a paragraph of light grey on white, added for the moment, is reported as a contrast failure.
const checkCanFail = async (page) => {
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.id = 'a11y-probe';
    p.textContent = 'low contrast';
    p.style.cssText = 'color:#ddd;background:#fff;font-size:14px';
    document.body.prepend(p);
  });
  const found = await serious(page);
  await page.evaluate(() => document.getElementById('a11y-probe').remove());
  expect(found.some((v) => v.startsWith('color-contrast') && v.includes('#a11y-probe'))).toBe(true);
};

// Scrolls to the bottom and back in steps so that rows drawn on arrival are drawn.
const scrollThrough = (page) => page.evaluate(async () => {
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight) {
    scrollTo(0, y);
    await new Promise((r) => setTimeout(r, 150));
  }
  scrollTo(0, 0);
});

describe.each(ENGINES)('%s', (engine) => {
  const env = useEngine(engine);

  // Each engine a share of the width x theme combinations (contrast comes from the CSS every engine shares;
  // axe takes 7 to 17 s a page): together both widths and both themes.
  test.each(VIEWS[engine])('the explorer at %i x %i px, %s theme: no serious or critical axe violation', async (width, height, theme) => {
    const page = await env.newPage();
    await page.setViewport(width, height);
    await page.goto(`${env.url}/app/?play=0&theme=${theme}`);
    await page.waitFor(() => !!document.querySelector('canvas.hero-chart')?.dataset.lines, { what: 'the first screen', timeout: 60000 });
    await scrollThrough(page);
    await checkCanFail(page);
    expect(await serious(page)).toEqual([]);
    await page.close();
  });

  test('the embed: no serious or critical axe violation', async () => {
    const page = await env.newPage();
    await page.setViewport(720, 900);
    await page.goto(`${env.url}/embed.html?encodings=rope,alibi`);
    await page.waitFor(() => !!document.querySelector('posenc-explorer')?.shadowRoot?.querySelector('canvas'), { what: 'the embed', timeout: 60000 });
    expect(await serious(page)).toEqual([]);
    await page.close();
  });
});
