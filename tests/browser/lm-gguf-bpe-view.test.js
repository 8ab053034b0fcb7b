// "Your model, past its context" with a GGUF whose tokenizer is byte-level BPE (tokenizer.ggml.model "gpt2", as every
// Llama 3.x, Qwen2/2.5/3, SmolLM and OLMo 2 GGUF has): a tiny random llama with a Qwen2-style vocabulary, written by the
// test (tests/js/gguf-bpe.js). The page loads it by its address, names its tokenizer, and draws; a GGUF whose
// pre-tokenizer posenc does not know is refused in one sentence naming it. Before the GGUF's own tokenizer was read,
// the first stopped with "this model has no tokenizer". Chromium only: this is the library's reading, not a browser
// feature (lm-view.test.js covers the view in all three engines).
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useEngine, startServer } from './harness.js';
import { modelFigureInPage } from './page-helpers.js';
import { bpeGguf } from '../js/gguf-bpe.js';

jest.setTimeout(300000);

describe('chromium', () => {
  const env = useEngine('chromium', { serve: false });
  let server, dir;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'posenc-gguf-bpe-view-'));
    writeFileSync(join(dir, 'qwen2-bpe.gguf'), bpeGguf({ pre: 'qwen2', addBos: false, seed: 5 }));
    writeFileSync(join(dir, 'unknown-pre.gguf'), bpeGguf({ pre: 'made-up-pre', addBos: false, seed: 5 }));
    server = await startServer({ mounts: { '/test-bpe/': dir } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async (page, file) => {
    await page.goto(`${server.url}/app/?play=0&encodings=alibi&lmTimes=2&modelUrl=${encodeURIComponent(`/test-bpe/${file}`)}`);
    await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page', timeout: 120000 });
    await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
  };

  test('a byte-level BPE GGUF loads, its tokenizer is named, and the figure draws; an unknown pre-tokenizer is refused by name', async () => {
    const page = await env.newPage();
    await page.setViewport(1400, 1000);
    await open(page, 'qwen2-bpe.gguf');
    const got = await page.waitFor(modelFigureInPage, { what: 'the BPE model\'s figure', timeout: 240000, interval: 250 });
    expect(got.error).toBeUndefined();
    expect(got.facts).toMatch(/^A Llama model from a GGUF file: [\d,]+ parameters in 12 F32 tensors/);
    expect(got.tokenizer).toBe('its tokenizer, read from the file: byte-level BPE, text split Qwen2\'s way (each digit alone)');
    await page.evaluate(() => {
      document.querySelector('#your-model .lm-facts').scrollIntoView();
      scrollBy(0, -60);
    });
    await page.screenshot('lm-view-gguf-bpe-1400');
    expect(await page.errors()).toEqual([]);

    await open(page, 'unknown-pre.gguf');
    const bad = await page.waitFor(() => {
      const e = document.querySelector('#your-model .lm-error');
      return e && !e.hidden && e.textContent ? e.textContent : null;
    }, { what: 'the refusal', timeout: 120000, interval: 250 });
    expect(bad).toMatch(/^This model cannot be used: this model has no tokenizer: its byte-level tokenizer splits text with the pre-tokenizer "made-up-pre", which posenc does not know \(it knows llama-bpe, qwen2, dbrx, smollm, gpt-2, default\)$/);
    await page.screenshot('lm-view-gguf-bpe-unknown-pre');
    await page.close();
  });
});
