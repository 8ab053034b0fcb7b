// The SIMD module loads in a real browser page and computes what Node computes; so does the language models'
// module, fetched only when a model is loaded.
import { useBrowser } from './harness.js';
import { loadPosenc } from '../../web/lib/index.js';
import { tinyLlama2c, expectedLm, LM_TOKENS } from '../package/consumer.js';

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

test("the language models' module is fetched only by loadLanguageModel, runs under the page's CSP in both builds, and matches Node", async () => {
  const page = await browser.newPage();
  const requested = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.goto(`${browser.url}/app/blank.html`);
  const result = await page.evaluate(async ({ model, tokens }) => {
    const { loadPosenc } = await import('/lib/index.js');
    const out = {};
    for (const build of ['simd', 'scalar']) {
      const pe = await loadPosenc({ build });
      out[`${build}Before`] = performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /posenc-lm-[a-z-]+\.wasm$/.test(n)).length;
      const lm = await pe.loadLanguageModel({ model: new Uint8Array(model) });
      out[build] = Array.from(lm.forward(tokens).nll);
      out[`${build}Error`] = (() => { try { lm.forward([1]); } catch (e) { return `${e.name}: ${e.message}`; } })();
      lm.delete();
    }
    out.isolated = globalThis.crossOriginIsolated === true;
    return out;
  }, { model: Array.from(tinyLlama2c()), tokens: LM_TOKENS });
  expect([result.simdBefore, result.scalarBefore]).toEqual([0, 1]); // none before the first call (the scalar's page module loads after the SIMD's)
  // (the test server sends COOP/COEP, as npm start's: an isolated page's SIMD build is the threaded one)
  expect(requested.filter((p) => /posenc-lm-(simd|scalar)(-mt)?\.wasm$/.test(p)).map((p) => p.split('/').pop()))
    .toEqual([result.isolated ? 'posenc-lm-simd-mt.wasm' : 'posenc-lm-simd.wasm', 'posenc-lm-scalar.wasm']);
  for (const build of ['simd', 'scalar']) {
    const node = await expectedLm(build);
    expect(result[build].map((x, i) => Math.abs(x - node[i]) < 1e-6)).toEqual(node.map(() => true));
    expect(result[`${build}Error`]).toBe('RangeError: tokens must hold 2 to 131072 ids (got 1)');
  }
  expect(page.errors).toEqual([]);
});
