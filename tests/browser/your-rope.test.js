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
  await page.goto(`${browser.url}/?play=0`);
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
  expect(await page.$eval('#your-rope .rope-summary', (u) => u.textContent)).toMatch(/mrope_section/);
  expect(await page.$eval('#your-rope .config-error', (p) => p.hidden)).toBe(true);
  for (const s of await canvasStats(page, CANVASES)) expect(s.colours).toBeGreaterThan(8);

  const dir = mkdtempSync(join(tmpdir(), 'posenc-your-rope-'));
  await (await page.$('#your-rope')).screenshot({ path: join(dir, 'your-rope.png') });
  console.log(`screenshot: ${join(dir, 'your-rope.png')}`);

  // an invalid paste names the key and the allowed values; the plots stay
  await paste(page, JSON.stringify({ head_dim: 64, rope_scaling: { rope_type: 'ntk', factor: 2 } }));
  await waitFor(page, () => !document.querySelector('#your-rope .config-error').hidden, { what: 'the error' });
  expect(await page.$eval('#your-rope .config-error', (p) => p.textContent))
    .toMatch(/rope_scaling.rope_type must be one of 'default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional' \(got "ntk"\)/);
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
    return { model: json.model, types: json.layerTypes.map((l) => [l.name, l.counts]), pngBytes: png.blob.size, name: png.name };
  });
  expect(exported.model).toBe('llama-4-scout');
  expect(exported.types.map((t) => t[0])).toEqual(['chunked_attention', 'full_attention']);
  expect(exported.types[0][1].blended).toBe(0);
  expect(exported.name).toBe('posenc-your-rope.png');
  expect(exported.pngBytes).toBeGreaterThan(10000);
  expect(page.errors ?? []).toEqual([]);
});

test('a link with ropeModel opens that model; a pasted-config link says to paste again', async () => {
  const page = await browser.newPage();
  await page.goto(`${browser.url}/?play=0&ropeModel=deepseek-v3`);
  await waitReady(page);
  await waitFor(page, () => posenc.dataFor('your-rope')?.model === 'deepseek-v3', { what: 'DeepSeek-V3' });
  const ds = await page.evaluate(() => posenc.dataFor('your-rope').layerTypes[0]);
  expect(ds.ropeType).toBe('yarn');
  expect(ds.softmaxScale).toBeGreaterThan(1.8);
  const page2 = await browser.newPage();
  await page2.goto(`${browser.url}/?play=0&ropeModel=pasted`);
  await waitReady(page2);
  await waitFor(page2, () => /paste it again/.test(document.querySelector('#your-rope .config-error').textContent), { what: 'the note' });
});
