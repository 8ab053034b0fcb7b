// "Your model's RoPE" after a bad paste, in Chromium, Firefox and WebKit (issue 27: Firefox's picker kept
// naming the old model and the old charts stayed): the error clears the summary, the layer types,
// the notice and the plots, and the picker names the pasted config; a good paste then draws again.
// The submit button is pressed with a real Enter key on it (a mouse click could miss in WebKit while the lab's rows,
// drawn as they come into view, still move the page); the textarea is filled in the page.
import { jest } from '@jest/globals';
import { useEngine } from './harness.js';

jest.setTimeout(180000);
const ENGINES = ['chromium', 'firefox', 'webkit'];

const fill = (page, text) => page.evaluate((t) => {
  const a = document.querySelector('#your-rope textarea.config');
  a.value = t;
  a.dispatchEvent(new Event('input', { bubbles: true }));
}, text);
const submit = async (page) => {
  await page.evaluate(() => document.querySelector('#your-rope form.paste button[type=submit]').focus());
  await page.press('Enter');
};
const view = (page) => page.evaluate(() => ({
  model: posenc.dataFor('your-rope')?.model ?? null,
  picker: document.querySelector('#your-rope select.rope-model').value,
  pickerText: document.querySelector('#your-rope select.rope-model').selectedOptions[0]?.textContent,
  summary: document.querySelector('#your-rope .rope-summary').children.length,
  layers: document.querySelector('#your-rope select.rope-layer-type').options.length,
  notice: document.querySelector('#your-rope .notice').textContent,
  error: document.querySelector('#your-rope .config-error').hidden ? '' : document.querySelector('#your-rope .config-error').textContent,
  canvas: document.querySelector('#your-rope canvas.wavelengths').toDataURL().length,
}));

describe.each(ENGINES)('%s', (engine) => {
  const env = useEngine(engine);

  test('a malformed paste clears the old model and resets the picker; a good one draws again', async () => {
    const page = await env.newPage();
    // (one lab row: the section reads the configs, not the lab's background sweep of twelve encodings)
    await page.goto(`${env.url}/app/?play=0&encodings=rope&ropeModel=gemma-3-4b`);
    await page.waitFor(() => globalThis.posenc?.dataFor('your-rope')?.model === 'gemma-3-4b', { what: 'Gemma 3' });
    const before = await view(page);
    expect(before).toMatchObject({ picker: 'gemma-3-4b', layers: 2, error: '' });
    expect(before.summary).toBeGreaterThan(2);

    await fill(page, '{"head_dim": 64, "rope_theta": 10000,}');
    await submit(page);
    await page.waitFor(() => !document.querySelector('#your-rope .config-error').hidden, { what: 'the error' });
    const after = await view(page);
    // Chromium and Firefox say where (line and column); WebKit's JSON.parse names no position
    expect(after.error).toMatch(engine === 'webkit' ? /not valid JSON: .*Property name must be a string/ : /not valid JSON.*line 1.*column/);
    expect(after).toMatchObject({ model: null, picker: 'pasted', pickerText: 'pasted config', summary: 0, layers: 0, notice: '' });
    expect(after.canvas).not.toBe(before.canvas);
    expect(await page.evaluate(() => posenc.state.ropeModel)).toBe('pasted');

    await fill(page, JSON.stringify({ model_type: 'smollm3', head_dim: 64, num_hidden_layers: 8, max_position_embeddings: 4096 }));
    await submit(page);
    await page.waitFor(() => posenc.dataFor('your-rope')?.model === 'pasted', { what: 'the good paste' });
    const good = await view(page);
    expect(good).toMatchObject({ picker: 'pasted', layers: 2, error: '' });
    expect(good.notice).toMatch(/What to notice/);
    expect(await page.errors()).toEqual([]);
  });
});
