// The SIMD module loads in a real browser page and computes what Node computes.
import { useBrowser } from './harness.js';
import { loadPosenc } from '../../web/lib/index.js';

const browser = useBrowser();

test('headless Chromium loads the SIMD build and matches Node', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/app/blank.html`);
  const result = await page.evaluate(async () => {
    const { loadPosenc } = await import('/lib/index.js');
    const pe = await loadPosenc();
    const x = new Float32Array(4 * 8).map((_, i) => Math.sin(i));
    return {
      build: pe.build,
      rope: Array.from(pe.applyRope(x, { length: 4, dim: 8, layout: 'half', positions: [0, 1, 100, 1000000] })),
      slopes: Array.from(pe.alibiSlopes(8)),
      error: (() => { try { pe.alibiSlopes(-1); } catch (e) { return `${e.name}: ${e.message}`; } })(),
    };
  });
  expect(result.build).toBe('simd');
  expect(result.slopes).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((h) => 2 ** -h));
  expect(result.error).toMatch(/^RangeError: heads/);
  const pe = await loadPosenc();
  const x = new Float32Array(4 * 8).map((_, i) => Math.sin(i));
  const node = pe.applyRope(x, { length: 4, dim: 8, layout: 'half', positions: [0, 1, 100, 1000000] });
  result.rope.forEach((v, i) => expect(v).toBeCloseTo(node[i], 6));
  expect(page.errors).toEqual([]);
});
