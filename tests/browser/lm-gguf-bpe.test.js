// llama.cpp (wllama, llama.cpp compiled to wasm) as the witness of posenc's reading of a GGUF's byte-level BPE tokenizer
// (tokenizer.ggml.model "gpt2"), in one Chromium launch. The test writes small GGUFs (tests/js/gguf-bpe.js: a one-layer
// float32 llama, the 256 GPT-2 byte characters plus tokens merged from words, control tokens) with the pre-tokenizers of
// Llama 3 (llama-bpe, BOS added), Qwen2 (no BOS), GPT-2 and SmolLM, and encodes texts with spaces, newlines, digit runs,
// contractions, accents, CJK and emoji.
//
// wllama 3 has no tokenize call, so the witness is what llama.cpp computes from its own ids: after each text, the
// log-probabilities of its 5 likeliest next tokens, which posenc must give for its ids within 1e-4 (float32 in both;
// measured below), and llama.cpp's prompt token count. With random weights every id of the prompt moves these numbers:
// as a control, the same check with posenc's ids from another pre-tokenizer (or with BOS dropped) must fail it.
// Time: llama.cpp's loading is most of it (a worker per file).
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../../scripts/browser.js';
import { wllamaSite } from './wllama-site.js';
import { TEXTS, bpeGguf } from '../js/gguf-bpe.js';

jest.setTimeout(300000);
const TOLERANCE = 1e-4;
const TOP = 5;
// file -> [pre-tokenizer, add_bos_token, the pre-tokenizer of the control (posenc's ids from it must disagree)]
const FILES = { 'llama-bpe': ['llama-bpe', true, 'qwen2'], qwen2: ['qwen2', false, 'llama-bpe'], 'gpt-2': ['gpt-2', false, 'llama-bpe'], smollm: ['smollm', false, 'gpt-2'] };

/** In the page: per file, llama.cpp's top next tokens after each text and posenc's log-probabilities of them. */
async function inPage({ files, texts, top }) {
  const [{ loadPosenc }, { Wllama }] = await Promise.all([import('/web/lib/index.js'), import('/wllama/esm/index.js')]);
  const pe = await loadPosenc({ build: 'simd' });
  const out = [];
  for (const { name, control } of files) {
    const gguf = new Uint8Array(await (await fetch(`/gguf/${name}.gguf`)).arrayBuffer());
    const lm = await pe.loadLanguageModel({ model: gguf });
    const other = await pe.loadLanguageModel({ model: new Uint8Array(await (await fetch(`/gguf/${name}-control.gguf`)).arrayBuffer()) });
    const wllama = new Wllama({ default: '/wllama/esm/wasm/wllama.wasm' }, { suppressNativeLog: true });
    try {
      await wllama.loadModel([new Blob([gguf])], { n_threads: 1, n_ctx: 128, n_batch: 128, cache_type_k: 'f32', cache_type_v: 'f32', flash_attn: false, warmup: false });
      for (const text of texts) {
        const res = await wllama.createCompletion({ prompt: text, max_tokens: 1, temperature: 0, logprobs: top, cache_prompt: false });
        const ids = Array.from(lm.encode(text)), otherIds = Array.from(other.encode(text));
        const lp = (model, pre, id) => -model.forward([...pre, id]).nll[pre.length - 1];
        const rows = (res.choices[0].logprobs?.content?.[0]?.top_logprobs ?? []).map(({ id, logprob }) =>
          ({ id, wllama: logprob, posenc: lp(lm, ids, id), control: lp(lm, otherIds, id) }));
        out.push({ name, control, text, tokens: res.usage?.prompt_tokens, posencTokens: ids.length, controlTokens: otherIds.length,
          differ: JSON.stringify(ids) !== JSON.stringify(otherIds), label: lm.tokenizerLabel, rows });
      }
    } finally {
      lm.delete();
      other.delete();
      await wllama.exit();
    }
  }
  return out;
}

test('llama.cpp and posenc read the same ids from a GGUF\'s byte-level BPE tokenizer (Llama 3, Qwen2, GPT-2, SmolLM pre-tokenizers)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-gguf-bpe-'));
  const files = Object.entries(FILES).map(([name, [pre, addBos, control]], i) => {
    writeFileSync(join(dir, `${name}.gguf`), bpeGguf({ pre, addBos, seed: 10 + i }));
    // the control: the same weights, read with another pre-tokenizer (or, for Llama 3, also without its BOS)
    writeFileSync(join(dir, `${name}-control.gguf`), bpeGguf({ pre: control, addBos: false, seed: 10 + i }));
    return { name, control };
  });
  const site = await wllamaSite(dir);
  const browser = await launchBrowser({ shared: true }); // a context in the Jest worker's Chromium
  try {
    const page = await browser.newPage();
    await page.goto(`${site.url}/`);
    const results = await page.evaluate(inPage, { files, texts: TEXTS, top: TOP });
    const worst = {}, controls = {};
    for (const r of results) {
      const d = Math.max(...r.rows.map((x) => Math.abs(x.wllama - x.posenc)));
      const c = Math.max(...r.rows.map((x) => Math.abs(x.wllama - x.control)));
      worst[r.name] = Math.max(worst[r.name] ?? 0, d);
      expect([r.name, r.text, r.rows.length, r.tokens, d < TOLERANCE]).toEqual([r.name, r.text, TOP, r.posencTokens, true]);
      expect(r.label).toMatch(/^byte-level BPE/);
      // the control: wherever the other pre-tokenizer's ids differ, llama.cpp disagrees with them (in count, or far
      // outside the tolerance)
      if (r.differ) {
        (controls[r.name] ??= []).push(r.controlTokens !== r.tokens ? `${r.controlTokens}/${r.tokens} tokens` : c.toExponential(2));
        expect([r.name, r.text, r.controlTokens !== r.tokens || c > 100 * TOLERANCE]).toEqual([r.name, r.text, true]);
      }
    }
    for (const { name } of files) expect([name, controls[name]?.length > 0]).toEqual([name, true]);
    console.log(`llama.cpp against posenc, max |d log p| of the top ${TOP} next tokens over ${TEXTS.length} texts:\n${
      Object.entries(worst).map(([n, d]) => `  ${n}: ${d.toExponential(2)} (the control, on the texts its ids differ: ${controls[n].join(', ')})`).join('\n')}`);
  } finally {
    await browser.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
