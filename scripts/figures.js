// Renders docs/figures/*.png (and .svg) from docs/results.json with the
// project's own drawing code (web/figures), in headless Chromium.
//   node scripts/figures.js [results.json] [outDir]
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { startServer, launchBrowser } from '../tests/browser/harness.js';

const root = new URL('..', import.meta.url).pathname;
const input = process.argv[2] ?? `${root}docs/results.json`;
const outDir = process.argv[3] ?? `${root}docs/figures`;
const results = JSON.parse(readFileSync(input, 'utf8'));
mkdirSync(outDir, { recursive: true });

const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${server.url}/figures/index.html`);
  for (let i = 0; i < 100 && !(await page.evaluate(() => document.body.dataset.ready === 'true')); i++) await page.waitForTimeout(50);
  const ids = await page.evaluate((r) => window.drawFigures(r), results);
  for (const id of ids) {
    const el = await page.$(`#${id}`);
    await el.screenshot({ path: `${outDir}/${id}.png` });
    const svgs = await page.$$eval(`#${id} svg`, (list) => list.map((s) => s.outerHTML));
    writeFileSync(`${outDir}/${id}.svg.html`, `<!doctype html><meta charset="utf-8">\n${svgs.join('\n')}\n`);
    console.log(`wrote ${outDir}/${id}.png`);
  }
  if (page.errors.length) throw new Error(`figure page errors: ${page.errors.join('; ')}`);
} finally {
  await browser.close();
  await server.close();
}
