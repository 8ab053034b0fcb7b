// "Your model, past its context" with a Qwen3-shaped and a Gemma-3-shaped model in Chromium, Firefox and WebKit at
// 1400 px: tiny random models of those families (tests/js/lm-tiny.js's familyFiles, as HF writes them: config.json and
// model.safetensors) with stories260K's 512-token vocabulary as a tokenizer.json (tests/js/lm-fixtures.js), written by
// the test in the tmp dir. The page loads each by its address; the facts line names the family as readers know it
// (from the core's family table), the file's format and its tensors' types, and the figure draws. The view's opening
// sentence lists the families from the same table. Screenshots go to the tmp screenshot dir.
import { jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useEngine, startServer } from './harness.js';
import { modelFigureInPage } from './page-helpers.js';
import { familyFiles } from '../js/lm-tiny.js';
import { haveShared, readShared, readLlama2cTokenizer, sentencepieceTokenizerJson } from '../js/lm-fixtures.js';

jest.setTimeout(300000);
// WebKit: 85 s for both models at a load average of 21-24; one run of two here (load 25-30) timed out waiting for the
// first model's figure, as one of three did in an earlier session on the second model (cause not found: a rerun of the
// same steps drew the figure 10 s after the model was read).
const ENGINES = ['chromium', 'firefox', 'webkit'];
if (!haveShared()) console.log('skipped (no ../shared/models/stories260K here): the families in the language-model view');

const shape = { dim: 32, layers: 2, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 512, scale: 0.1 };
// [directory, family files, what the facts line says]
const MODELS = [
  ['qwen3', { family: 'qwen3', seed: 31, ...shape, headDim: 16, config: { rope_theta: 1e6, max_position_embeddings: 128 } }, 'Qwen3'],
  ['gemma3', { family: 'gemma3_text', seed: 32, ...shape, tied: true, config: { sliding_window: 32, sliding_window_pattern: 2, rope_theta: 1e6,
    rope_local_base_freq: 1e4, query_pre_attn_scalar: 8, hidden_activation: 'gelu_pytorch_tanh', max_position_embeddings: 128 } }, 'Gemma 3'],
];

function writeModels() {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-lm-families-view-'));
  const tokenizer = JSON.stringify(sentencepieceTokenizerJson(readLlama2cTokenizer(readShared('tok512.bin'), 512)));
  for (const [name, spec] of MODELS) {
    const { model, config } = familyFiles(spec);
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'model.safetensors'), model);
    writeFileSync(join(dir, name, 'config.json'), JSON.stringify(config));
    writeFileSync(join(dir, name, 'tokenizer.json'), tokenizer);
    writeFileSync(join(dir, name, 'tokenizer_config.json'), '{}');
  }
  return dir;
}

(haveShared() ? describe.each(ENGINES) : describe.skip.each(ENGINES))('%s', (engine) => {
  const env = useEngine(engine, { serve: false });
  let server, dir;
  beforeAll(async () => {
    dir = writeModels();
    server = await startServer({ mounts: { '/test-families/': dir }, recordErrors: engine === 'webkit' }); // (WebKit: errors recorded in the page)
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a Qwen3 and a Gemma 3 model: the facts name the family, the format and the types; the opening lists the core\'s families', async () => {
    for (const [name, , label] of MODELS) {
      const page = await env.newPage(); // (a page each: one model per page, as a reader opens a shared address)
      await page.setViewport(1400, 1000);
      // (one lab row: the lab's background sweep of every encoding is not what this reads, and it slowed the model's forwards)
      await page.goto(`${server.url}/app/?play=0&encodings=alibi&lmTimes=2&modelUrl=${encodeURIComponent(`/test-families/${name}/model.safetensors`)}`);
      await page.waitFor(() => document.body.dataset.ready === 'true', { what: 'the page', timeout: 120000 });
      await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
      const got = await page.waitFor(modelFigureInPage, { what: `the ${label} model's figure`, timeout: 240000, interval: 250 }).catch(async (e) => {
        // where the view was when the wait gave up (this wait timed out rarely under a loaded suite: Firefox and WebKit)
        const at = await page.evaluate(() => {
          const h = document.querySelector('#your-model .lm-host');
          const c = h?.querySelector('canvas.lm-ppl');
          return { visibility: document.visibilityState, busy: h?.querySelector('.lm-busy')?.hidden === false ? h.querySelector('.lm-busy-text')?.textContent : 'hidden',
            series: c?.dataset.series ?? 'no figure', facts: h?.querySelector('.lm-facts')?.textContent?.slice(0, 80) ?? null };
        }).catch((x) => ({ unreadable: String(x) }));
        throw new Error(`${e.message}; the view: ${JSON.stringify(at)}`);
      });
      expect(got.error).toBeUndefined();
      expect(got.facts).toMatch(new RegExp(`^A ${label} model from a Hugging Face safetensors file: [\\d,]+ parameters in \\d+ F32 tensors, whose weights take [\\d.]+ kB of memory here\\.`));
      expect(got.opening).toMatch(/^Load a language model of a family posenc runs \(Llama, Qwen2, Mistral, Qwen3, SmolLM3, OLMo 2, Phi-3 or Gemma 3\): pick a public one/);
      await page.evaluate(() => {
        document.querySelector('#your-model .lm-facts').scrollIntoView();
        scrollBy(0, -60);
      });
      await page.screenshot(`lm-view-${name}-1400`);
      expect(await page.errors()).toEqual([]);
      await page.close();
    }
  });
});
