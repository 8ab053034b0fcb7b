// "Your model's RoPE" in Chromium, with real input events: pick a shipped config
// with the keyboard, paste one into the textarea and submit it, paste an invalid
// and a hostile one; the three plots are drawn, the choice is in the URL, the
// export has the numbers. A screenshot goes to the OS temp dir to look at.
import { jest } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useBrowser } from './harness.js';
import { waitFor, waitReady, canvasStats, canvasHash } from './page-helpers.js';
// One lab row (RoPE's): this section reads the configs, not the lab, whose background sweep of all twelve encodings at
// every length would otherwise run through every load here (about 13 CPU-s each).
const LAB = 'encodings=rope';

jest.setTimeout(120000);
const browser = useBrowser();
const CANVASES = '#your-rope canvas';
const model = (page) => page.evaluate(() => posenc.dataFor('your-rope')?.model ?? null);

async function pickWithKeyboard(page, value) {
  await page.focus('#your-rope select.rope-model');
  if ((await page.$eval('#your-rope select.rope-model', (s) => s.value)) !== value) await page.keyboard.press('Home');
  for (let i = 0; i < 30; i++) {
    if ((await page.$eval('#your-rope select.rope-model', (s) => s.value)) === value) return;
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`could not reach ${value} with the arrow keys`);
}

async function paste(page, text) {
  await page.click('#your-rope textarea.config');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.click('#your-rope form.paste button[type=submit]');
}

test('pick a shipped config, paste one, and see the plots', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${browser.url}/?play=0&${LAB}`);
  await waitReady(page);
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'llama-3.1-8b', { what: 'the default config' });
  for (const s of await canvasStats(page, CANVASES)) {
    expect(s.painted).toBeGreaterThan(0.5); // the plot background and marks
    expect(s.colours).toBeGreaterThan(8);
  }
  const before = await canvasHash(page, '#your-rope canvas.wavelengths');

  // Gemma 3 with the keyboard: two layer types, the full-attention ones interpolated by 8
  await pickWithKeyboard(page, 'gemma-3-4b');
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'gemma-3-4b' && posenc.dataFor('your-rope').layerTypes.length === 2,
    { what: 'Gemma 3' });
  const gemma = await page.evaluate(() => posenc.dataFor('your-rope').layerTypes.map((l) => [l.name, l.ropeType, l.counts]));
  expect(gemma).toEqual([['sliding_attention', 'default', { kept: 128, interpolated: 0, blended: 0, dropped: 0 }],
    ['full_attention', 'linear', { kept: 0, interpolated: 128, blended: 0, dropped: 0 }]]);
  expect(await canvasHash(page, '#your-rope canvas.wavelengths')).not.toBe(before);
  await waitFor(page, () => location.search.includes('ropeModel=gemma-3-4b'), { what: 'the URL' });
  // the layer type select switches the plot
  const sliding = await canvasHash(page, '#your-rope canvas.wavelengths');
  await page.focus('#your-rope select.rope-layer-type');
  await page.keyboard.press('ArrowDown');
  await waitFor(page, () => posenc.state.ropeLayerType === 1, { what: 'layer type 1' });
  expect(await canvasHash(page, '#your-rope canvas.wavelengths')).not.toBe(sliding);
  await waitFor(page, () => location.search.includes('ropeLayerType=1'), { what: 'the URL' });

  // paste a Qwen2-VL-style config: the legacy mrope type and its section are accepted and reported
  await paste(page, JSON.stringify({ model_type: 'qwen2_vl', hidden_size: 1536, num_attention_heads: 12, num_hidden_layers: 28,
    max_position_embeddings: 32768, rope_theta: 1000000, rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } }));
  await waitFor(page, () => posenc.state.ropeModel === 'pasted', { what: 'the pasted config' });
  expect(await page.$eval('#your-rope .rope-summary', (u) => u.textContent)).toMatch(/M-RoPE: time pairs 0–15; height pairs 16–39; width pairs 40–63/);
  expect(await page.$eval('#your-rope .config-error', (p) => p.hidden)).toBe(true);
  for (const s of await canvasStats(page, CANVASES)) expect(s.colours).toBeGreaterThan(8);

  const dir = mkdtempSync(join(tmpdir(), 'posenc-your-rope-'));
  await (await page.$('#your-rope')).screenshot({ path: join(dir, 'your-rope.png') });
  console.log(`screenshot: ${join(dir, 'your-rope.png')}`);

  // an invalid paste names the key and the allowed values, and clears the previous model's output
  await paste(page, JSON.stringify({ head_dim: 64, rope_scaling: { rope_type: 'ntk', factor: 2 } }));
  await waitFor(page, () => !document.querySelector('#your-rope .config-error').hidden, { what: 'the error' });
  expect(await page.$eval('#your-rope .config-error', (p) => p.textContent))
    .toMatch(/rope_scaling.rope_type must be one of 'default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional' \(got "ntk"\)/);
  expect(await page.evaluate(() => ({ data: posenc.dataFor('your-rope'), summary: document.querySelector('#your-rope .rope-summary').children.length,
    layers: document.querySelector('#your-rope select.rope-layer-type').options.length, notice: document.querySelector('#your-rope .notice').textContent,
    picker: document.querySelector('#your-rope select.rope-model').value }))).toEqual({ data: null, summary: 0, layers: 0, notice: '', picker: 'pasted' });
  await paste(page, JSON.stringify({ head_dim: 64, rope_scaling: { rope_type: 'linear', factor: 2, facter: 3 } }));
  await waitFor(page, () => /facter/.test(document.querySelector('#your-rope .config-error').textContent), { what: 'the unknown key' });

  // hostile: deep nesting and a huge array give a message (within waitFor's bound), and the page keeps working;
  // the guard's own time is bounded in tests/js/rope-config.test.js
  await paste(page, '['.repeat(50000) + ']'.repeat(50000));
  await waitFor(page, () => /nests deeper|not valid JSON|JSON object/.test(document.querySelector('#your-rope .config-error').textContent), { what: 'the nesting error' });
  await paste(page, JSON.stringify({ head_dim: 64, rope_scaling: { rope_type: 'longrope', long_factor: new Array(100000).fill(1) } }));
  await waitFor(page, () => /at most 65536 entries/.test(document.querySelector('#your-rope .config-error').textContent), { what: 'the array error' });
  await pickWithKeyboard(page, 'llama-4-scout');
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'llama-4-scout', { what: 'Llama 4 Scout after the errors' });
  expect(await page.$eval('#your-rope .config-error', (p) => p.hidden)).toBe(true);

  // the export: JSON with the numbers, PNG of the plots
  const exported = await page.evaluate(async () => {
    const json = JSON.parse(await (await posenc.exportView('your-rope', 'json')).blob.text());
    const png = await posenc.exportView('your-rope', 'png');
    return { model: json.model, types: json.layerTypes.map((l) => [l.name, l.counts]), pngBytes: png.blob.size, name: png.name,
      ropeParameters: json.ropeParameters, pytorch: json.pytorch, shown: document.querySelector('#your-rope pre.rope-json').textContent };
  });
  expect(exported.ropeParameters.rope_parameters).toMatchObject({ rope_type: 'llama3', factor: 16, rope_theta: 500000 });
  expect(exported.ropeParameters.no_rope_layers).toHaveLength(48);
  expect(JSON.parse(exported.shown)).toEqual(exported.ropeParameters);
  expect(exported.pytorch).toMatch(/def rope_chunked_attention\(\):/);
  expect(exported.model).toBe('llama-4-scout');
  expect(exported.types.map((t) => t[0])).toEqual(['chunked_attention', 'full_attention']);
  expect(exported.types[0][1].blended).toBe(0);
  expect(exported.name).toBe('posenc-your-rope.png');
  expect(exported.pngBytes).toBeGreaterThan(10000);
  expect(page.errors ?? []).toEqual([]);
});

test('a link with ropeModel opens that model; a pasted-config link says to paste again', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?play=0&${LAB}&ropeModel=deepseek-v3`);
  await waitReady(page);
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'deepseek-v3', { what: 'DeepSeek-V3' });
  const ds = await page.evaluate(() => posenc.dataFor('your-rope').layerTypes[0]);
  expect(ds.ropeType).toBe('yarn');
  expect(ds.softmaxScale).toBeGreaterThan(1.8);
  const page2 = await browser.newPage();
  await page2.goto(`${browser.url}/?play=0&${LAB}&ropeModel=pasted`);
  await waitReady(page2);
  await waitFor(page2, () => /paste it again/.test(document.querySelector('#your-rope .config-error').textContent), { what: 'the note' });
});

test('contexts, windows and explanations: Qwen2.5 with YaRN, Gemma 3, a term on focus, the legend at 390 px; screenshots', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${browser.url}/?play=0&${LAB}&ropeModel=qwen2.5-7b-yarn`);
  await waitReady(page);
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'qwen2.5-7b-yarn', { what: 'Qwen2.5 with YaRN' });
  const q = await page.evaluate(() => ({ c: posenc.dataFor('your-rope').contexts, summary: document.querySelector('#your-rope .rope-summary').textContent,
    notice: document.querySelector('#your-rope .notice').textContent }));
  expect(q.c.extended).toMatchObject({ value: 131072, inferred: true });
  expect(q.summary).toMatch(/original context 32k \(original_max_position_embeddings\); extended context 128k \(inferred\): factor 4 × original 32,768; max_position_embeddings was left at 32,768/);
  expect(q.summary).toMatch(/cos\/sin × 1\.1386/);
  expect(q.notice).toMatch(/in the original 32k tokens; to reach 128k \(inferred\) the scaling changes 40 of them and keeps 24\./);
  expect(q.summary).not.toMatch(/\d\.\d+k/); // never "32.8k"

  // a scale's explanation on keyboard focus (Tab from the summary's first term) and on hover
  await page.focus('#your-rope .rope-summary .term');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Shift+Tab');
  await waitFor(page, () => !document.querySelector('#your-rope .term-help').hidden, { what: 'the help line on focus' });
  expect(await page.$eval('#your-rope .term-help', (p) => p.textContent)).toMatch(/^Original context: the length the model was pretrained at/);
  await page.hover('#your-rope .rope-terms .term:last-child');
  await waitFor(page, () => /RoFormer/.test(document.querySelector('#your-rope .term-help').textContent), { what: 'the help line on hover' });
  const titles = await page.$$eval('#your-rope .term', (ts) => ts.map((t) => [t.textContent, t.title.length > 40, t.tabIndex]));
  expect(titles.every(([, long, tab]) => long && tab === 0)).toBe(true);
  expect(titles.map((t) => t[0])).toEqual(expect.arrayContaining(['cos/sin × 1.1386', 'q·k bound (RoFormer)', 'logit scale']));

  // Gemma 3: the original is inferred, the same on every chart; the sliding layers' notice speaks of their window
  await pickWithKeyboard(page, 'gemma-3-4b');
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'gemma-3-4b', { what: 'Gemma 3' });
  const g = await page.evaluate(() => ({ d: posenc.dataFor('your-rope'), summary: document.querySelector('#your-rope .rope-summary').textContent,
    notice: document.querySelector('#your-rope .notice').textContent }));
  expect(g.d.contexts.original).toMatchObject({ value: 16384, inferred: true });
  expect(g.summary).toMatch(/original context 16k \(inferred\): max_position_embeddings 131,072 ÷ factor 8/);
  expect(g.d.layerTypes.map((l) => [l.name, l.window])).toEqual([['sliding_attention', 1024], ['full_attention', null]]);
  expect(g.notice).toMatch(/the 29 sliding_attention layers attend only within a 1k-token sliding window, so no query–key distance they see exceeds 1k/);

  const dir = mkdtempSync(join(tmpdir(), 'posenc-your-rope-models-'));
  for (const id of ['smollm3-3b', 'olmo-3-7b', 'deepseek-v3.2', 'qwen2.5-7b-yarn']) {
    await pickWithKeyboard(page, id);
    await waitFor(page, (m) => posenc.dataFor('your-rope')?.model === m, { arg: id, what: id });
    for (const s of await canvasStats(page, CANVASES)) expect(s.colours).toBeGreaterThan(8);
    await (await page.$('#your-rope')).screenshot({ path: join(dir, `${id}.png`) });
  }
  console.log(`screenshots: ${dir}`);

  // 390 px: the legend wraps onto a third row rather than losing "blended"
  await page.setViewportSize({ width: 390, height: 900 });
  await pickWithKeyboard(page, 'exaone-4.0-32b');
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'exaone-4.0-32b', { what: 'EXAONE 4' });
  await page.evaluate(() => posenc.redraw?.());
  const h = await page.$eval('#your-rope canvas.wavelengths', (c) => c.getBoundingClientRect().height);
  expect(h).toBeGreaterThan(260); // four legend entries need three rows at this width: the canvas grew by one
  expect(page.errors ?? []).toEqual([]);
});
