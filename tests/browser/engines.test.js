// The browser suite's core cases in every engine (Chromium, Firefox ESR, WebKitGTK's MiniBrowser), each
// driven with real input (mouse drags on the length slider, key presses, button clicks):
//   1. the explorer (web/app/) loads, draws and animates; Play/Pause, keys and the slider move the maps
//   2. training in Workers reports progress (a setting with no shipped checkpoint)
//   3. the component (examples/blog-post.html: the second element waits until scrolled to) and the embed page
//   4. dist/standalone.html from file://
//   5. library results (pe.* calls and a model forward) equal Chromium's bit for bit
//   6. the language-model module, fetched on demand: a tiny random Qwen2-style model's NLL (plain and YaRN) is HF's
//      float64 forward's within 2e-4, and equals Chromium's bit for bit
// Screenshots go to the tmp screenshot dir (screenshotDir()); the suite logs where.
import { jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENGINES, useEngine, screenshotDir } from './harness.js';
import { canvasStatsInPage } from './page-helpers.js';
import { sliderPosition } from '../../web/app/shared/length-axis.js';
import { tinyModel, tinyFiles, plainForward } from '../js/lm-tiny.js';

jest.setTimeout(120000);
const root = fileURLToPath(new URL('../..', import.meta.url));
const reference = {}; // Chromium's library results (the first engine), for the others to match
let lmReference = null; // and its language-model results
// A tiny random model with Qwen2's q/k/v biases, untied embeddings and GQA 4/2, written here (its bytes go to the page).
const tiny = tinyModel({ seed: 11, dim: 32, layers: 2, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 37, bias: true, tied: false, partial: 1, theta: 1e4 });
const tinyIds = Array.from({ length: 48 }, (_, i) => (i * 7 + 3) % 37);
const tinyArg = (() => {
  const { model, config } = tinyFiles(tiny);
  return { model: Buffer.from(model).toString('base64'), config: JSON.stringify(config), ids: tinyIds };
})();
const timings = {};

beforeAll(() => {
  if (!existsSync(`${root}dist/explorer.js`)) throw new Error('dist/ is missing: run `npm run build` (npm test builds it)');
});
afterAll(() => {
  console.log(`engine suite wall times: ${Object.entries(timings).map(([e, t]) => `${e} ${(t / 1000).toFixed(1)} s`).join(', ')}; ` +
    `screenshots in ${screenshotDir()}`);
});

/** Every canvas matching `selector` (in `host`'s shadow roots, with a host) is painted with many colours. */
async function expectPainted(page, selector, host, { painted = 0.05, colours = 20 } = {}) {
  const stats = await page.evaluate(canvasStatsInPage, [selector, host]);
  expect(stats.length).toBeGreaterThan(0);
  for (const s of stats) {
    expect(s.painted).toBeGreaterThan(painted);
    expect(s.colours).toBeGreaterThan(colours);
  }
  return stats;
}

// The length slider, its label and the maps' length, on the page.
const pageLength = () => ({
  state: posenc.state.length, play: posenc.state.play, slider: Number(document.querySelector('#hero input.length').dataset.length),
  label: document.querySelector('#length-out').value,
  maps: [...document.querySelectorAll('#sweep canvas.maps')].map((c) => c.getAttribute('aria-label')),
});
const labelOf = (T, trainLength) => {
  const x = T / trainLength;
  return `T = ${T} (${Number.isInteger(x) ? x : x.toFixed(2)}× training)`;
};
/** Waits until every row's maps show length `T` (the sweep computed it and the frame drew it). */
const waitMapsAt = (page, T) => page.waitFor((t) => [...document.querySelectorAll('#sweep canvas.maps')]
  .every((c) => c.getAttribute('aria-label').endsWith(`at T = ${t}`)), { arg: T, timeout: 60000, what: `the maps at T = ${T}` });

describe.each(ENGINES)('%s', (engine) => {
  const env = useEngine(engine);
  let t0;
  beforeAll(() => { t0 = Date.now(); console.log(`${engine}: ${env.version}`); });
  afterAll(() => { timings[engine] = Date.now() - t0; });

  test('the explorer loads, draws and animates; Play/Pause, keys and a dragged length slider move the maps', async () => {
    const page = await env.newPage();
    await page.setViewport(1280, 2600); // the lab's rows on screen under the first screen (rows off screen are drawn when they come into view)
    await page.goto(`${env.url}/app/?encodings=rope,alibi&speed=4&play=1`);
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page to be ready' });
    const trainLength = await page.evaluate(() => posenc.state.trainLength);
    // it animates: the length passes the training length by itself
    await page.waitFor((T) => posenc.state.length > T, { arg: trainLength, timeout: 20000, what: 'the sweep to pass the training length' });
    // Pause with a real click on the button
    await page.click('#play');
    const paused = await page.evaluate(() => ({ play: posenc.state.play, text: document.querySelector('#play').textContent, length: posenc.state.length }));
    expect(paused).toMatchObject({ play: false, text: 'Play' });
    await new Promise((r) => setTimeout(r, 400));
    expect(await page.evaluate(() => posenc.state.length)).toBe(paused.length);

    // keys on the page: Home goes to the first length, ArrowRight steps by one grid point
    await page.click('h1'); // focus leaves the button (keys on a control belong to that control)
    await page.press('Home', 'ArrowRight', 'ArrowRight');
    const step = await page.evaluate(() => posenc.grid()[0]);
    expect(await page.evaluate(() => posenc.state.length)).toBe(3 * step);
    await waitMapsAt(page, 3 * step);

    // drag the length slider with the mouse while paused: the maps and the label follow (issue 12: they stayed put)
    // (the slider moves on the charts' log axis: its value is a position there, length-axis.js)
    await page.dragRange('#hero input.length', sliderPosition(await page.evaluate(() => posenc.grid()), 4 * trainLength));
    let now = await page.evaluate(pageLength);
    expect(now.slider).not.toBe(3 * step);
    expect(Math.abs(now.slider - 4 * trainLength)).toBeLessThanOrEqual(4 * step); // about where the thumb was dropped
    expect(now.state).toBe(now.slider);
    expect(now.play).toBe(false);
    expect(now.label).toBe(labelOf(now.slider, trainLength));
    await waitMapsAt(page, now.slider);
    // arrow keys on the focused slider (its own input events)
    const before = now.slider;
    await page.evaluate(() => document.querySelector('#hero input.length').focus());
    await page.press('ArrowRight');
    now = await page.evaluate(pageLength);
    expect(now.slider).toBe(before + step);
    expect(now.state).toBe(now.slider);
    expect(now.label).toBe(labelOf(now.slider, trainLength));
    await waitMapsAt(page, now.slider);
    await new Promise((r) => setTimeout(r, 150));
    await expectPainted(page, '#sweep canvas.maps');
    await expectPainted(page, '#sweep canvas.curve', null, { painted: 0.01, colours: 3 });
    console.log(`${engine}: explorer screenshot ${await page.screenshot('explorer')}`);

    // Play again with a click: the length moves on
    await page.click('#play');
    const from = await page.evaluate(() => posenc.state.length);
    await page.waitFor((T) => posenc.state.play && posenc.state.length !== T, { arg: from, timeout: 15000, what: 'the sweep to move on' });
    // WebM export: offered where this engine can record it, otherwise the page says why
    const exportUi = await page.evaluate(() => ({
      webm: !!document.querySelector('.export[data-view=sweep] button[data-format=webm]'),
      note: document.querySelector('.export[data-view=sweep] .export-note')?.textContent ?? '',
    }));
    if (!exportUi.webm) expect(exportUi.note).toMatch(/^No WebM: .+\. GIF works\.$/);
    else expect(exportUi.note).toBe('');
    console.log(`${engine}: WebM export ${exportUi.webm ? 'offered' : `hidden (${exportUi.note})`}`);
    expect(await page.errors()).toEqual([]);
  });

  test('WebM export records where it is offered (Firefox has requestFrame on the stream, not the track)', async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/app/?encodings=alibi&play=0&sweepFactor=4`);
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page to be ready' });
    if (!(await page.evaluate(() => !!document.querySelector('.export[data-view=sweep] button[data-format=webm]')))) return; // explained in the UI (test above)
    await page.waitFor(() => ['checkpoint', 'trained'].includes(posenc.trainer.runs.get('alibi')?.status), { what: 'the model' });
    // the WebM button, clicked: it records frames (issue 12: Firefox failed at the first one), then Cancel stops it
    await page.click('.export[data-view=sweep] button[data-format=webm]');
    const status = await page.waitFor(() => {
      const text = document.querySelector('.export[data-view=sweep] .export-progress [role=status]')?.textContent ?? '';
      return /recording WebM frame [2-9]|failed/.test(text) && text;
    }, { timeout: 60000, what: 'the WebM export to record' });
    expect(status).toMatch(/^recording WebM frame \d+ of \d+$/);
    await page.click('.export[data-view=sweep] .export-progress button.cancel');
    await page.waitFor(() => document.querySelector('.export[data-view=sweep] .export-progress [role=status]').textContent === 'export cancelled',
      { what: 'the export to be cancelled' });
    // the same exporter to the end (4 frames): a WebM file
    const video = await page.evaluate(async () => {
      const file = await posenc.exportSweep('webm', { frames: 4, delay: 100, hold: 100 });
      return { size: file.blob.size, type: file.blob.type, head: Array.from(new Uint8Array(await file.blob.slice(0, 4).arrayBuffer())) };
    });
    expect(video.type).toBe('video/webm');
    expect(video.size).toBeGreaterThan(1000);
    expect(video.head).toEqual([0x1a, 0x45, 0xdf, 0xa3]); // EBML
    expect(await page.errors()).toEqual([]);
  });

  test('training in Workers reports progress (no shipped checkpoint for this setting)', async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/app/?play=0&encodings=alibi&trainLength=16&steps=80`);
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page to be ready' });
    const run = await page.waitFor(() => {
      const r = posenc.trainer.runs.get('alibi');
      return ['trained', 'error'].includes(r?.status) && { status: r.status, error: r.error, step: r.step, losses: r.losses.length,
        bar: (({ value, max }) => value / max)(document.querySelector('.train-row[data-encoding=alibi] progress')) };
    }, { timeout: 90000, what: 'ALiBi to train' });
    expect(run).toMatchObject({ status: 'trained', step: 80, bar: 1 });
    expect(run.losses).toBeGreaterThan(1); // progress came in reports during the run
    expect(await page.evaluate(() => document.querySelector('#sweep .sweep-row[data-encoding=alibi] .source').textContent)).toMatch(/^\(ran all 80 steps, check on new sequences 0\.\d{3} < 0\.\d{3}\)$/);
    expect(await page.errors()).toEqual([]);
  });

  test('the blog post: the first element draws, the second waits off screen until scrolled to; the controls take real input', async () => {
    const page = await env.newPage();
    await page.setViewport(1100, 900);
    await page.goto(`${env.url}/examples/blog-post.html`);
    await new Promise((r) => setTimeout(r, 1500));
    // issue 12: the second element used to start at load (the elements were tiny until they built their rows)
    expect(await page.evaluate(() => [...document.querySelectorAll('posenc-explorer')].map((e) => e.started))).toEqual([true, false]);
    await page.waitFor(() => {
      const el = document.querySelector('posenc-explorer');
      return el.client && el.state.encodings.every((e) => el.results()[e].length >= 2);
    }, { timeout: 60000, what: 'the first element to compute' });
    await new Promise((r) => setTimeout(r, 300));
    await expectPainted(page, 'canvas.maps', 'posenc-explorer');
    // it autoplays; the Play/Pause button pauses it
    await page.click('posenc-explorer >>> button.play');
    expect(await page.evaluate(() => document.querySelector('posenc-explorer').state.play)).toBe(false);
    // drag its slider
    const before = await page.evaluate(() => document.querySelector('posenc-explorer').state.length);
    const target = before > 128 ? 64 : 192;
    await page.dragRange('posenc-explorer >>> input.length', sliderPosition(await page.evaluate(() => document.querySelector('posenc-explorer').timeline.grid()), target));
    const el = await page.evaluate(() => {
      const e = document.querySelector('posenc-explorer');
      return { length: e.state.length, slider: Number(e.shadowRoot.querySelector('input.length').dataset.length),
        label: e.shadowRoot.querySelector('.length-out').value, trainLength: e.state.trainLength };
    });
    expect(el.length).not.toBe(before);
    expect(el.slider).toBe(el.length);
    expect(el.label).toBe(labelOf(el.length, el.trainLength));
    console.log(`${engine}: blog post screenshot ${await page.screenshot('blog-post')}`);
    // scrolled to, the second starts and draws
    await page.evaluate(() => document.querySelectorAll('posenc-explorer')[1].scrollIntoView({ block: 'center' }));
    await page.waitFor(() => {
      const e = document.querySelectorAll('posenc-explorer')[1];
      return e.started && e.client && e.state.encodings.every((enc) => e.results()[enc].some((r) => r.length === e.state.length));
    }, { timeout: 60000, what: 'the second element at its length' });
    await new Promise((r) => setTimeout(r, 300));
    await expectPainted(page, 'canvas.maps', 'posenc-explorer');
    console.log(`${engine}: second element screenshot ${await page.screenshot('blog-post-second')}`);
    expect(await page.errors()).toEqual([]);
  });

  test('the embed page draws', async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/dist/embed.html?encodings=alibi,learned&length=96`);
    await page.waitFor(() => {
      const e = document.querySelector('posenc-explorer');
      return e?.client && e.state.encodings.every((enc) => e.results()[enc].some((r) => r.length === 96));
    }, { timeout: 60000, what: 'the embed at T=96' });
    await new Promise((r) => setTimeout(r, 300));
    await expectPainted(page, 'canvas.maps', 'posenc-explorer');
    expect(await page.errors()).toEqual([]);
  });

  test('dist/standalone.html draws from file://', async () => {
    const page = await env.newPage();
    await page.goto(`file://${root}dist/standalone.html`);
    await page.waitFor(() => {
      const e = document.querySelector('posenc-explorer');
      return e?.client && e.state.encodings.every((enc) => e.results()[enc].length >= 3);
    }, { timeout: 90000, what: 'standalone.html to compute' });
    await new Promise((r) => setTimeout(r, 300));
    await expectPainted(page, 'canvas.maps', 'posenc-explorer');
    expect((await page.evaluate(() => [...document.querySelector('posenc-explorer').shadowRoot.querySelectorAll('.source')]
      .map((s) => s.textContent))).every((s) => s.includes('shipped checkpoint'))).toBe(true);
    console.log(`${engine}: standalone screenshot ${await page.screenshot('standalone')}`);
    expect(await page.errors()).toEqual([]);
  });

  test("library results equal Chromium's bit for bit (both wasm builds)", async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/app/?play=0&encodings=alibi`); // any page of the origin (the module runs under its CSP)
    const got = await page.evaluate(libraryResults, ['simd', 'scalar']);
    expect(Object.keys(got).sort()).toEqual(['scalar', 'simd']); // (WebDriver does not keep key order)
    if (engine === 'chromium') Object.assign(reference, got);
    else expect(got).toEqual(reference);
    const sizes = Object.entries(got.simd).map(([k, v]) => `${k} ${v.length * 3 / 4 | 0} B`);
    console.log(`${engine}: library results (${sizes.join(', ')}) ${engine === 'chromium' ? 'recorded' : "equal Chromium's"}`);
  });

  test("the language-model module loads on demand; its NLL is the float64 forward's, and Chromium's bit for bit", async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/app/?play=0&encodings=alibi`);
    const got = await expectLmResults(page, 'simd');
    if (engine === 'chromium') lmReference = got;
    else if (lmReference) expect(got).toEqual(lmReference);
    console.log(`${engine}: language-model NLL (simd) ${engine === 'chromium' ? 'recorded' : "equals Chromium's"}`);
  });
});

// WebKit with wasm SIMD switched off (JSC_useWasmSIMD=false): the loader picks the scalar build by itself.
describe('webkit without wasm SIMD', () => {
  const env = useEngine('webkit', { env: { JSC_useWasmSIMD: 'false' } });
  let t0;
  beforeAll(() => { t0 = Date.now(); });
  afterAll(() => { timings['webkit without SIMD'] = Date.now() - t0; });
  test("the loader falls back to the scalar build, and its results equal Chromium's", async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/app/?play=0&encodings=alibi`);
    const got = await page.evaluate(libraryResults, ['auto']);
    expect(Object.keys(got)).toEqual(['scalar']);
    if (!reference.scalar) return; // Chromium's run was filtered out (jest -t)
    expect(got.scalar).toEqual(reference.scalar);
    // and the page says which build it runs
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page to be ready' });
    expect(await page.evaluate(() => document.querySelector('#build').textContent)).toMatch(/scalar/);
    expect(await page.errors()).toEqual([]);
  });
  test('the language-model module follows it to the scalar build; its NLL is the float64 forward\'s', async () => {
    const page = await env.newPage();
    await page.goto(`${env.url}/app/?play=0&encodings=alibi`);
    await expectLmResults(page, 'scalar');
  });
});

/** The tiny model's NLL from the page's language-model module (build `build`), checked against the float64 forward. */
async function expectLmResults(page, build) {
  const got = await page.evaluate(lmResults, tinyArg);
  expect(got.error).toBeUndefined();
  expect(got.build).toBe(build);
  expect([got.before, got.after]).toEqual([false, true]); // fetched by the first loadLanguageModel, not before
  const plain = plainForward(tiny, tinyIds);
  const nll = got.plain;
  expect(nll).toHaveLength(tinyIds.length - 1);
  expect(Math.max(...nll.map((x, i) => Math.abs(x - plain[i])))).toBeLessThan(2e-4);
  expect(got.yarn).not.toEqual(got.plain); // the scaling reached the forward
  return got;
}

// Runs in the page: the language-model module on the tiny model's files (base64 safetensors and config.json); the
// NLL with no scaling and with YaRN ×4 (context 16). `before`, `after`: whether a language-model .wasm had been
// fetched before and after the first loadLanguageModel.
async function lmResults({ model, config, ids }) {
  const { loadPosenc } = await import('/lib/index.js');
  const fetchedLm = () => performance.getEntriesByType('resource').some((e) => /posenc-lm-[\w-]+\.wasm/.test(e.name));
  try {
    const pe = await loadPosenc();
    const before = fetchedLm();
    const lm = await pe.loadLanguageModel({ model: Uint8Array.from(atob(model), (c) => c.charCodeAt(0)), config });
    lm.context = 16;
    try {
      return { build: pe.build, before, after: fetchedLm(), plain: Array.from(lm.forward(ids).nll), // (float32 values are exact as JSON numbers)
        yarn: Array.from(lm.forward(ids, { scaling: { rope_type: 'yarn', factor: 4 } }).nll) };
    } finally {
      lm.delete();
    }
  } catch (e) {
    return { error: String(e?.message ?? e) };
  }
}

// Runs in the page: a fixed set of pe.* calls on exact inputs (decimal fractions of integers, no Math.sin: engines'
// libm may differ) in each of `builds` ('simd', 'scalar', 'auto'), each result as the base64 of its bytes, keyed by
// the build that ran.
async function libraryResults(builds) {
  const { loadPosenc } = await import('/lib/index.js');
  const b64 = (a) => {
    const u = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    let s = '';
    for (let i = 0; i < u.length; i++) s += String.fromCharCode(u[i]);
    return btoa(s);
  };
  const input = (n, seed) => Float32Array.from({ length: n }, (_, i) => (((i + 1) * 7919 + seed * 104729) % 2001) / 1000 - 1);
  const out = {};
  for (const build of builds) {
    const pe = await loadPosenc({ build });
    const T = 24, d = 32;
    const model = pe.createModel({ encoding: 'rope', vocabSize: 11, maxLength: 32, seed: 7 });
    const tokens = Int32Array.from({ length: 2 * T }, (_, i) => (i * 5 + 3) % 11);
    const fwd = model.forward(tokens, { batch: 2, length: T, attention: true });
    const alibiModel = pe.createModel({ encoding: 'alibi', vocabSize: 11, maxLength: 32, seed: 3 });
    out[pe.build] = {
      sinusoidal: b64(pe.sinusoidal({ length: 64, dim: d })),
      applyRope: b64(pe.applyRope(input(T * d, 1), { length: T, dim: d, layout: 'half', positions: Int32Array.from({ length: T }, (_, i) => i * 37) })),
      applyRopeYarn: b64(pe.applyRope(input(T * d, 2), { length: T, dim: d, scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 16 } })),
      alibiBias: b64(pe.alibiBias({ heads: 6, queryLength: 12, keyLength: 20, causal: false })),
      attention: b64(pe.attention(input(T * d, 3), input(T * d, 4), { queryLength: T, dim: d, alibiSlope: 0.25 })),
      logits: b64(fwd.logits),
      maps: b64(fwd.attention),
      alibiLogits: b64(alibiModel.forward(tokens, { batch: 2, length: T }).logits),
    };
    model.delete();
    alibiModel.delete();
  }
  return out;
}
