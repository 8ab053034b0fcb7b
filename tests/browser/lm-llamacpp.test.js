// llama.cpp as a second witness for each quantized format (wllama, llama.cpp compiled to wasm, one thread), in one
// Chromium launch. The test writes small llama GGUFs (dim 256, one layer, a 68-token SentencePiece vocabulary the files
// carry) whose tensors are float32 but one: the token embedding, or the output weight, in Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
// Q2_K, Q3_K, Q4_K, Q5_K or Q6_K, its blocks random bytes with small scales (any bit pattern is a valid block). For a
// few-token prompt, llama.cpp's log-probabilities of its 5 most likely next tokens must equal posenc's.
//
// Tolerance. The embedding is read row by row (ggml's get_rows dequantises exactly, as posenc does): the two agree to
// float rounding, within 1e-5 (measured 7e-7 to 1.7e-6). llama.cpp multiplies a quantized output weight by the last
// hidden state rounded to 8 bits (its Q8_0 / Q8_K activations; posenc keeps it float32), so there the bound is 2e-2
// nats (measured 1.4e-3 to 5.8e-3), where the 5 log-probabilities lie between -3.9 and -3.3 on each file.
// llama.cpp keeps float32 keys and values here (its default float16 cache moved them by up to 9e-4).
// Time: llama.cpp's loading (a new wasm worker per file) is most of it, 13 to 22 s per file at a load average of 19-23.
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../../scripts/browser.js';
import { wllamaSite } from './wllama-site.js';
import { BLOCKS, GGML, ggufFile, f32Bytes, randomBlocks } from '../js/gguf-writer.js';
import { mulberry32 } from '../js/reference.js';

jest.setTimeout(300000);
const TOLERANCE = { token_embd: 1e-5, output: 2e-2 };
const TOP = 5;
const PROMPT = 'the cat sat';

// A SentencePiece vocabulary: <unk>, <s>, </s>, then pieces that spell the prompt's words. No byte pieces: wllama's
// answer cannot carry a next token that is part of a UTF-8 character (its message framing breaks).
function vocabulary() {
  const tokens = ['<unk>', '<s>', '</s>'], types = [2, 3, 3], scores = [0, 0, 0];
  const pieces = ['\u2581', ...'abcdefghijklmnopqrstuvwxyz'];
  for (const w of ['the', 'cat', 'sat', 'on', 'mat', 'dog', 'ran', 'a']) for (let i = 1; i <= w.length; i++) pieces.push('\u2581' + w.slice(0, i));
  for (const p of ['th', 'he', 'at', 'ca', 'sa', 'an', 'on']) pieces.push(p);
  for (const p of new Set(pieces)) tokens.push(p), types.push(1), scores.push(-10 + p.length); // longer pieces merge first
  return { tokens, types, scores };
}

function model(seed, quantized, format) {
  const rnd = mulberry32(seed);
  const r = (n, s) => Array.from({ length: n }, () => (rnd() * 2 - 1) * s);
  const { tokens, types, scores } = vocabulary();
  const D = 256, F = 256, V = tokens.length, H = 4;
  const kv = [['general.architecture', 'string', 'llama'], ['general.name', 'string', 'posenc witness'],
    ['llama.context_length', 'u32', 64], ['llama.embedding_length', 'u32', D], ['llama.block_count', 'u32', 1], ['llama.feed_forward_length', 'u32', F],
    ['llama.attention.head_count', 'u32', H], ['llama.attention.head_count_kv', 'u32', H], ['llama.rope.freq_base', 'f32', 10000],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5], ['llama.rope.dimension_count', 'u32', D / H],
    ['tokenizer.ggml.model', 'string', 'llama'], ['tokenizer.ggml.tokens', ['array', 'string'], tokens], ['tokenizer.ggml.scores', ['array', 'f32'], scores],
    ['tokenizer.ggml.token_type', ['array', 'i32'], types], ['tokenizer.ggml.bos_token_id', 'u32', 1], ['tokenizer.ggml.eos_token_id', 'u32', 2],
    ['tokenizer.ggml.unknown_token_id', 'u32', 0], ['tokenizer.ggml.add_bos_token', 'bool', true], ['tokenizer.ggml.add_space_prefix', 'bool', true]];
  const f32 = (name, shape, s) => ({ name, shape, type: GGML.F32, bytes: f32Bytes(r(shape.reduce((a, b) => a * b, 1), s)) });
  // random blocks, each float16 scale in [s, 2 s): values up to about 0.05
  const blocks = (name, shape) => ({ name, shape, type: GGML[format], bytes: randomBlocks(format, shape[0] * shape[1], rnd, 0.05) });
  const tensors = [quantized === 'token_embd' ? blocks('token_embd.weight', [V, D]) : f32('token_embd.weight', [V, D], 1),
    f32('output_norm.weight', [D], 1), quantized === 'output' ? blocks('output.weight', [V, D]) : f32('output.weight', [V, D], 0.2)];
  const p = 'blk.0.';
  tensors.push(f32(p + 'attn_norm.weight', [D], 1), f32(p + 'ffn_norm.weight', [D], 1));
  for (const n of ['attn_q', 'attn_k', 'attn_v', 'attn_output']) tensors.push(f32(`${p}${n}.weight`, [D, D], 0.1));
  tensors.push(f32(p + 'ffn_gate.weight', [F, D], 0.1), f32(p + 'ffn_up.weight', [F, D], 0.1), f32(p + 'ffn_down.weight', [D, F], 0.1));
  return ggufFile({ kv, tensors });
}

/** In the page: both read each file; llama.cpp's top next tokens after the prompt and posenc's log-probabilities of them. */
async function inPage({ files, prompt, top }) {
  const [{ loadPosenc }, { Wllama }] = await Promise.all([import('/web/lib/index.js'), import('/wllama/esm/index.js')]);
  const pe = await loadPosenc({ build: 'simd' });
  const out = [];
  for (const name of files) {
    const t0 = performance.now();
    let t1 = 0;
    const gguf = new Uint8Array(await (await fetch(`/gguf/${name}`)).arrayBuffer());
    const lm = await pe.loadLanguageModel({ model: gguf });
    const wllama = new Wllama({ default: '/wllama/esm/wasm/wllama.wasm' }, { suppressNativeLog: true });
    try {
      // float32 keys and values, no flash attention (llama.cpp's defaults round them to float16), no warm-up run
      await wllama.loadModel([new Blob([gguf])], { n_threads: 1, n_ctx: 64, n_batch: 64, cache_type_k: 'f32', cache_type_v: 'f32', flash_attn: false, warmup: false });
      t1 = performance.now();
      const res = await wllama.createCompletion({ prompt, max_tokens: 1, temperature: 0, logprobs: top, cache_prompt: false });
      const content = res.choices[0].logprobs?.content?.[0];
      const ids = Array.from(lm.encode(prompt));
      const rows = (content?.top_logprobs ?? []).map(({ id, token, logprob }) =>
        ({ id, token, piece: lm.piece(id), wllama: logprob, posenc: -lm.forward([...ids, id]).nll[ids.length - 1] }));
      out.push({ name, promptTokens: res.usage?.prompt_tokens ?? res.timings?.prompt_n, posencTokens: ids.length, rows, ms: performance.now() - t0, loadMs: t1 - t0 });
    } finally {
      lm.delete();
      await wllama.exit();
    }
  }
  return out;
}

test('llama.cpp (wllama) and posenc give the same next-token log-probabilities for one quantized tensor in each format', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-llamacpp-'));
  const files = [];
  Object.keys(BLOCKS).forEach((format, i) => { // the embedding quantized in even formats' files, the output weight in odd ones'
    const tensor = i % 2 ? 'output' : 'token_embd', name = `${tensor}-${format}.gguf`;
    writeFileSync(join(dir, name), model(100 + i, tensor, format));
    files.push(name);
  });
  const site = await wllamaSite(dir);
  const browser = await launchBrowser({ shared: true }); // a context in the Jest worker's Chromium
  try {
    const page = await browser.newPage();
    await page.goto(`${site.url}/`);
    const results = await page.evaluate(inPage, { files, prompt: PROMPT, top: TOP });
    console.log(results.map((r) => `${r.name} ${Math.round(r.ms)} ms (loads ${Math.round(r.loadMs)}) ${r.promptTokens}/${r.posencTokens}: ${r.rows.map((x) => `${x.id} ${x.wllama.toFixed(5)} ${x.posenc.toFixed(5)}`).join(', ')}`).join('\n'));
    const worst = {};
    for (const r of results) {
      const tensor = r.name.split('-')[0];
      expect([r.name, r.rows.length, r.promptTokens]).toEqual([r.name, TOP, r.posencTokens]);
      const d = Math.max(...r.rows.map((x) => Math.abs(x.wllama - x.posenc)));
      worst[r.name] = `${d.toExponential(2)} (${Math.round(r.ms)} ms)`;
      expect([r.name, d < TOLERANCE[tensor]]).toEqual([r.name, true]);
    }
    console.log(`llama.cpp against posenc, max |d log p| over the top ${TOP} next tokens after "${PROMPT}" (${results[0].posencTokens} tokens):\n${
      Object.entries(worst).map(([n, d]) => `  ${n}: ${d}`).join('\n')}`);
  } finally {
    await browser.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
