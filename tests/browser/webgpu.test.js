// The language model's GPU forward (WebGPU) against its wasm forward, in headless Chromium on the software adapter
// (SwiftShader, --enable-unsafe-webgpu), one browser launch: the per-position NLL of the two agree within float
// tolerance (max 5e-3, mean 5e-4 nats) on
//  - stories260K (the real model, llama2.c file: float32, interleaved RoPE; skipped with a notice where it is missing)
//    over the page's story passage, 1,100 tokens, with no scaling and with YaRN x4 (the scaled frequencies come from the
//    core), past its context of 512;
//  - a random model with SmolLM2-135M's shapes (BF16 safetensors, written here), 4 of its 30 layers, over 16 tokens
//    only: SwiftShader runs the GPU forward on the CPU (all 30 layers: 626 s of this file's 1,009 s under load 20-30);
//  - a small random Qwen2 model (biases) and a small random Mistral model with a sliding window;
//  - a small random model whose matrices take ggml's ten block formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K,
//    Q4_K, Q5_K, Q6_K) and F16 in turn (a GGUF of random blocks written by tests/lm/dequant.py: the embedding Q4_0, the
//    output Q4_1, each format in at least one layer's matrices), decoded in the shaders: against the wasm forward, and
//    against the float64 forward of the dequantised weights that dequant.py computes (numpy, sharing no code with
//    posenc). One file for all the formats: each model costs SwiftShader every pipeline's compilation again (12
//    one-format files took 350 s under load 18). A decoder detail dropped fails it: Q5_0/Q5_1's fifth bit (max |gpu -
//    wasm| 7.2), the K formats' min (8.2), Q3_K's high bit (7.0), Q4_1's min (1.8), Q2_K's min (16.9);
//  - a tiny random model of each other family in the core's family table (Qwen3, OLMo 2, Gemma 3, SmolLM3, Phi-3.5,
//    Llama 3.2 with llama3 scaling; lm-families.test.js's shapes and details), each over 150-200 tokens so that its
//    windows, NoPE layers and long factors are reached. A step dropped fails it: the attention's post-norm (OLMo 2: max
//    15.5), the q/k norm (Qwen3: 10.2), each layer's own RoPE base and scaling (Gemma 3: 1.6), GeGLU as SwiGLU (0.39).
// Where stepping can change the result (compare's `steps`), the GPU forward also runs in steps of 8, 32 and then 100 rows
// over its cache of keys and values (as the page streams it), joined. Also: openGpuForward says why not, in a sentence, for a model whose heads are wider than
// it takes; the model's handler streams a GPU forward in steps and stops at a cancel; and the page's
// "Your model" view, given stories260K at 2x its context, says its forwards run on the GPU, draws its five scalings (the
// other scalings' losses from the GPU forward, equal to wasm forwards in the page; the chosen one's maps and statistics
// from wasm), and its screenshot goes to the tmp screenshot dir.
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBrowser, screenshotDir } from './harness.js';
import { familyFiles, tinyFiles, tinyModel } from '../js/lm-tiny.js';
import { REAL_CONFIGS, realSafetensors } from '../js/real-shapes.js';

jest.setTimeout(900000);
const MODELS = fileURLToPath(new URL('../../../shared/models/', import.meta.url));
const have = existsSync(join(MODELS, 'stories260K/stories260K.bin'));
if (!have) console.log('skipped (no ../shared/models/stories260K here): the GPU forward on stories260K');
const dir = mkdtempSync(join(tmpdir(), 'posenc-webgpu-'));
const env = useBrowser({ webgpu: true, mounts: { '/test-models/': MODELS, '/test-gpu/': dir } });
afterAll(() => rmSync(dir, { recursive: true, force: true }));


// In the page: load the model from `files` (addresses on the test server), run the wasm and the GPU
// forwards over `ids` with each scaling, and return the differences (and the GPU forward's reason, when it has none);
// reference: a float64 NLL to compare the GPU's with too.
// text: an address of a text whose first `ids` tokens (a count, then) are the input.
// steps: the GPU forward also in steps of these rows (the last size repeated) over its cache of keys and values, as
// the page streams it: its NLL joined (stepMax: its difference from the wasm forward's); for the first scaling only, or
// none (null). Each detail is stepped once where stepping can reach it: the cache's offsets and RoPE's positions past
// a step (stories260K, unscaled), biases and q/k norms written into the cache's rows (Qwen2, Gemma 3), windows over the
// cache (Mistral, Gemma 3, Phi-3.5), LongRoPE's factors chosen by the whole length rather than a step's (Phi-3.5), NoPE
// layers (SmolLM3) and the cache at a real model's shapes (SmolLM2); a block format's decoding, a norm's placement or a
// scaling's frequencies do not depend on the step (each is compared whole).
async function compare(page, { files, ids, text = null, scalings = [null], reference = null, steps = null }) {
  return page.evaluate(async ({ files, ids: given, text, scalings, reference, steps }) => {
    const { loadPosenc } = await import('/lib/index.js');
    const { openGpuForward } = await import('/lib/gpu/forward.js');
    const pe = await loadPosenc();
    const got = {};
    for (const [k, f] of Object.entries(files)) got[k] = new Uint8Array(await (await fetch(f)).arrayBuffer());
    const lm = await pe.loadLanguageModel(got);
    try {
      const ids = text ? lm.encode(await (await fetch(text)).text()).slice(0, given) : given;
      const gpu = await openGpuForward(lm);
      if (!gpu.forward) return { reason: gpu.reason };
      const out = [];
      for (const scaling of scalings) {
        const t0 = performance.now();
        const a = lm.forward(ids, { scaling }).nll;
        const t1 = performance.now();
        const b = (await gpu.forward(ids, { scaling })).nll;
        const t2 = performance.now();
        let max = 0, sum = 0;
        for (let i = 0; i < a.length; i++) {
          const d = Math.abs(a[i] - b[i]);
          max = Math.max(max, d);
          sum += d;
        }
        let refMax = 0;
        if (reference) for (let i = 0; i < b.length; i++) refMax = Math.max(refMax, Math.abs(b[i] - reference[i]));
        const joined = [], froms = [];
        let stepMax = null;
        if (steps && scaling === scalings[0]) {
          const s = gpu.stream(ids, { scaling, chunk: Math.max(...steps) });
          for (let i = 0; s.done < s.length; i++) {
            const { from, nll } = await s.step(steps[Math.min(i, steps.length - 1)]);
            froms.push(from);
            joined.push(...nll);
          }
          s.delete();
          stepMax = joined.length === a.length ? joined.reduce((m, x, i) => Math.max(m, Math.abs(x - a[i])), 0) : Infinity;
        }
        out.push({ scaling, n: b.length, max, mean: sum / a.length, refMax, stepMax, froms: froms.slice(0, 4),
          meanNll: a.reduce((s, x) => s + x, 0) / a.length, wasmMs: t1 - t0, gpuMs: t2 - t1 });
      }
      gpu.delete();
      return { adapter: gpu.adapter, out };
    } finally {
      lm.delete();
    }
  }, { files, ids, text, scalings, reference, steps });
}

const STEPS = [8, 32, 100]; // rows per step of the stepped forwards (the last size repeated)
const tokens = (n, vocab, seed) => {
  let s = seed;
  return Array.from({ length: n }, () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) % vocab);
};
const agree = (r, what) => {
  expect(r.reason).toBeUndefined();
  for (const x of r.out) {
    console.log(`${what} ${JSON.stringify(x.scaling)}: ${x.n} positions, NLL mean ${x.meanNll.toFixed(4)}, |gpu - wasm| max ${x.max.toExponential(2)} mean ${x.mean.toExponential(2)}${
      x.stepMax === null ? '' : `; in steps from ${x.froms.join(', ')}, ...: max ${x.stepMax.toExponential(2)}`} (adapter ${r.adapter})`);
    expect(Number.isFinite(x.meanNll)).toBe(true);
    expect(x.max).toBeLessThan(5e-3);
    expect(x.mean).toBeLessThan(5e-4);
    if (x.stepMax !== null) expect(x.stepMax).toBeLessThan(5e-3);
  }
};

(have ? test : test.skip)('stories260K: the GPU forward gives the wasm forward\'s NLL, unscaled and with YaRN x4 past the context', async () => {
  const page = await env.newPage();
  await page.goto(`${env.url}/app/blank.html`);
  const r = await compare(page, { files: { model: '/test-models/stories260K/stories260K.bin', tokenizer: '/test-models/stories260K/tok512.bin' },
    ids: 1100, text: '/app/lm/passage.txt', steps: STEPS,
    scalings: [null, { rope_type: 'yarn', factor: 4 }] });
  expect(r.out[0].stepMax).not.toBeNull();
  agree(r, 'stories260K');
  expect(r.adapter).toMatch(/swiftshader/);
  expect(page.errors).toEqual([]);
});

// HF files {model, config} written to the served tmp dir as `name`: the addresses compare() loads them from.
function served(name, { model, config }) {
  writeFileSync(join(dir, `${name}.safetensors`), model);
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(config));
  return { model: `/test-gpu/${name}.safetensors`, config: `/test-gpu/${name}.json` };
}

test('small random Qwen2 (biases) and Mistral (sliding window of 5) models: the GPU forward gives the wasm forward\'s NLL', async () => {
  const page = await env.newPage();
  await page.goto(`${env.url}/app/blank.html`);
  const shape = { seed: 3, dim: 48, layers: 2, heads: 4, kvHeads: 2, headDim: 12, hidden: 80, vocab: 97 };
  const qwen = tinyFiles(tinyModel({ ...shape, bias: true, tied: false, partial: 1, theta: 10000 }));
  expect(qwen.config.model_type).toBe('qwen2');
  agree(await compare(page, { files: served('qwen2', qwen), ids: tokens(70, 97, 5), steps: STEPS }), 'random qwen2');
  const mistral = familyFiles({ family: 'mistral', ...shape, config: { sliding_window: 5 } });
  agree(await compare(page, { files: served('mistral', mistral), ids: tokens(70, 97, 6), steps: STEPS }), 'random mistral, window 5');
  const wide = familyFiles({ family: 'llama', ...shape, heads: 2, kvHeads: 1, headDim: 264 });
  const refused = await compare(page, { files: served('wide', wide), ids: tokens(10, 97, 6) });
  expect(refused.reason).toBe('the GPU forward takes heads of up to 256 channels (this model\'s have 264)');
  expect(page.errors).toEqual([]);
});

// Each family's steps as the core's family table gives them, on tiny random models with large weights (so that a
// family detail dropped moves the NLL by far more than the tolerance: lm-families.test.js shows it for the wasm
// forward, which these equal).
const PHI3 = { rope_theta: 1e4, partial_rotary_factor: 0.75, original_max_position_embeddings: 64, max_position_embeddings: 256, sliding_window: 90,
  rope_scaling: { type: 'longrope', short_factor: [1, 1.3, 1.9, 2.8, 4.1, 6], long_factor: [1.1, 2, 3.5, 6, 9, 14] } };
const tiny = { dim: 32, layers: 3, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 41 };
const FAMILIES = [
  ['Qwen3 (q/k norm per head, head_dim 24)', { family: 'qwen3', seed: 23, ...tiny, headDim: 24, config: { rope_theta: 1e6 } }, 120, false],
  ['OLMo 2 (norms after attention and MLP, q/k norm over the projection)', { family: 'olmo2', seed: 26, ...tiny, config: { rope_theta: 5e5 } }, 120, false],
  ['Gemma 3 (local / global layers, window 40, bases 1e4 / 1e6, linear x4 on global only, q/k norm, GeGLU, sqrt(hidden) embeddings, (1 + w) sandwich norms, query_pre_attn_scalar 24)',
    { family: 'gemma3_text', seed: 29, ...tiny, layers: 4, headDim: 16, tied: true, config: { sliding_window: 40, sliding_window_pattern: 2, rope_theta: 1e6,
      rope_local_base_freq: 1e4, rope_scaling: { rope_type: 'linear', factor: 4 }, query_pre_attn_scalar: 24, hidden_activation: 'gelu_pytorch_tanh' } }, 150, true],
  ['SmolLM3 (NoPE every 4th layer)', { family: 'smollm3', seed: 25, ...tiny, layers: 4 }, 160, true],
  ['Phi-3.5 (fused qkv and gate_up, LongRoPE long factors, partial rotary 0.75, window 90)', { family: 'phi3', seed: 27, ...tiny, headDim: 16, config: PHI3 }, 200, true],
  ['Llama 3.2 (llama3 scaling, tied embeddings)', { family: 'llama', seed: 24, ...tiny, headDim: 16, tied: true,
    config: { rope_theta: 1e4, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 } } }, 200, false],
];
test('tiny random models of the other families: the GPU forward gives the wasm forward\'s NLL', async () => {
  const page = await env.newPage();
  await page.goto(`${env.url}/app/blank.html`);
  for (const [name, spec, T, stepped] of FAMILIES)
    agree(await compare(page, { files: served(`${spec.family}${spec.seed}`, familyFiles(spec)), ids: tokens(T, spec.vocab, spec.seed), steps: stepped ? STEPS : null }), name);
  expect(page.errors).toEqual([]);
});

// Every matrix, norm and the 49,152-row embedding and output at SmolLM2-135M's shapes, in 4 of its 30 layers: the
// shapes are what this checks (buffer sizes, dispatch counts, GQA 9/3 at head_dim 64); the other 26 layers repeat the
// same shapes, and SwiftShader ran them on the CPU for most of this file's time.
const SMOL_LAYERS = 4;
test('a random model with SmolLM2-135M\'s shapes (BF16): the GPU forward gives the wasm forward\'s NLL', async () => {
  const { file, config } = realSafetensors({ ...REAL_CONFIGS['smollm2-135m'], num_hidden_layers: SMOL_LAYERS }); // random BF16 weights of its published shapes
  const page = await env.newPage();
  await page.goto(`${env.url}/app/blank.html`);
  const r = await compare(page, { files: served('smol', { model: file, config }), ids: tokens(16, 49152, 9), steps: STEPS });
  agree(r, 'SmolLM2-135M-shaped');
  expect(page.errors).toEqual([]);
});

test('a random model in F16 and each of ggml\'s block formats: the shaders decode the blocks (GPU = wasm = float64)', async () => {
  const page = await env.newPage();
  await page.goto(`${env.url}/app/blank.html`);
  const gguf = join(dir, 'formats.gguf'), out = join(dir, 'formats.txt');
  execFileSync('/usr/bin/python3', [fileURLToPath(new URL('../lm/dequant.py', import.meta.url)), 'model', gguf, out, '--seed', '8', '--length', '24', '--format', 'all']);
  const lines = Object.fromEntries(readFileSync(out, 'utf8').trim().split('\n').map((l) => { const [k, ...xs] = l.split(' '); return [k, xs.map(Number)]; }));
  const r = await compare(page, { files: { model: '/test-gpu/formats.gguf' }, ids: lines.tokens, reference: lines.nll });
  agree(r, 'random, every format');
  console.log(`random, every format: |gpu - float64| max ${r.out[0].refMax.toExponential(2)}`);
  expect(r.out[0].refMax).toBeLessThan(5e-3);
  expect(page.errors).toEqual([]);
});

// The model's handler (its Worker's) streams a loss-only forward on the GPU in steps, as it does in wasm: the first
// chunk holds its first FIRST_ROWS rows, the chunks join into the wasm forward's NLL, and a cancel between steps
// stops it with an AbortError.
(have ? test : test.skip)('the model\'s handler streams the GPU forward in steps, and a cancel stops it', async () => {
  const page = await env.newPage();
  await page.goto(`${env.url}/app/blank.html`);
  const r = await page.evaluate(async () => {
    const { loadPosenc } = await import('/lib/index.js');
    const { createLmCore, FIRST_ROWS } = await import('/app/lm/core.js');
    const answers = [];
    let onChunk = () => {};
    const handle = createLmCore(() => loadPosenc(), (m) => { answers.push(m); if (m.type === 'chunk') onChunk(m); });
    const model = new Uint8Array(await (await fetch('/test-models/stories260K/stories260K.bin')).arrayBuffer());
    await handle({ type: 'load', id: 1, files: { model } });
    const tokens = Int32Array.from({ length: 600 }, (_, i) => (i * 37) % 512);
    await handle({ type: 'stream', id: 2, tokens, context: 512, scaling: null, stats: false });
    const chunks = answers.filter((a) => a.type === 'chunk' && a.id === 2);
    const done = answers.find((a) => a.type === 'forward' && a.id === 2);
    const lm = await (await loadPosenc()).loadLanguageModel({ model });
    const want = lm.forward(tokens).nll;
    lm.delete();
    const got = chunks.flatMap((a) => Array.from(a.nll));
    // a second stream, cancelled as its first chunk lands
    onChunk = (m) => { if (m.id === 3) handle({ type: 'cancel', id: 4, target: 3 }); };
    await handle({ type: 'stream', id: 3, tokens, context: 512, scaling: null, stats: false });
    return { engine: answers.find((a) => a.type === 'loaded').info.engine, ran: done?.ran, first: chunks[0] && [chunks[0].from, chunks[0].nll.length],
      FIRST_ROWS, count: chunks.length, n: got.length, max: got.reduce((m, x, i) => Math.max(m, Math.abs(x - want[i])), 0),
      cancelled: answers.find((a) => a.id === 3 && a.type !== 'chunk'), cancelledChunks: answers.filter((a) => a.id === 3 && a.type === 'chunk').length };
  });
  console.log(`the handler's GPU stream: ${r.count} chunks, the first ${JSON.stringify(r.first)}, |gpu - wasm| max ${r.max.toExponential(2)}; cancelled after ${r.cancelledChunks}: ${r.cancelled?.name}`);
  expect(r.engine.gpu).toMatch(/swiftshader/);
  expect(r.ran).toBe('gpu');
  expect(r.first).toEqual([0, r.FIRST_ROWS]);
  expect(r.count).toBeGreaterThan(2);
  expect(r.n).toBe(599);
  expect(r.max).toBeLessThan(5e-3);
  expect(r.cancelled).toMatchObject({ type: 'error', name: 'AbortError' });
  expect(r.cancelledChunks).toBe(1);
  expect(page.errors).toEqual([]);
});

(have ? test : test.skip)('the "Your model" view with WebGPU: its facts say the forwards run on the GPU, and the figure draws', async () => {
  const page = await env.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  // 1,024 tokens: SwiftShader runs the GPU forwards on the CPU; one lab row, so that the lab's background sweep of
  // twelve encodings does not compete with them
  await page.goto(`${env.url}/app/?play=0&encodings=alibi&lmTimes=2`);
  await page.evaluate(() => document.querySelector('#your-model').scrollIntoView());
  await page.waitForSelector('#your-model input[name=lm-url]');
  await page.fill('#your-model input[name=lm-url]', '/test-models/stories260K/stories260K.bin /test-models/stories260K/tok512.bin');
  await page.press('#your-model input[name=lm-url]', 'Enter');
  const state = () => page.evaluate(() => {
    const h = document.querySelector('#your-model .lm-host');
    return { series: Number(h.querySelector('canvas.lm-ppl').dataset.series ?? 0), busy: !h.querySelector('.lm-busy').hidden,
      engine: h.querySelector('.lm-engine')?.textContent ?? '', error: h.querySelector('.lm-error').hidden ? '' : h.querySelector('.lm-error').textContent,
      words: h.querySelector('.lm-ppl-words').textContent };
  });
  let s;
  for (let i = 0; i < 600 && !((s = await state()).series === 5 && !s.busy) && !s.error; i++) await new Promise((r) => setTimeout(r, 1000));
  await page.screenshot({ path: join(screenshotDir(), 'lm-view-webgpu.png') });
  expect(s.error).toBe('');
  expect(s.engine).toBe('runs on the GPU (WebGPU, google swiftshader) for the scalings\' losses; the maps and statistics on the CPU (WebAssembly)');
  expect(s.series).toBe(5);
  expect(s.words).toMatch(/perplexity is [\d.]+/);
  // every scaling's loss in the figure (the GPU's where it ran there) equals a wasm forward's in the page
  const diffs = await page.evaluate(async () => {
    const data = posenc.dataFor('your-model');
    const { loadPosenc } = await import('/lib/index.js');
    const { scalingBlock } = await import('/app/lm/plan.js');
    const got = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
    const lm = await (await loadPosenc()).loadLanguageModel({ model: await got('/test-models/stories260K/stories260K.bin'), tokenizer: await got('/test-models/stories260K/tok512.bin') });
    lm.context = data.settings.context;
    const ids = lm.encode((await import('/app/lm/passage.js')).PASSAGE);
    const out = {};
    for (const [t, nll] of Object.entries(data.nll)) {
      const want = lm.forward(ids.slice(0, nll.length + 1), { scaling: scalingBlock(t, data.settings.factor) }).nll;
      out[t] = nll.reduce((m, x, i) => Math.max(m, Math.abs(x - want[i])), 0);
    }
    lm.delete();
    return out;
  });
  console.log(`the view's losses against wasm forwards in the page, max |difference| by scaling: ${JSON.stringify(diffs)}`);
  expect(Object.keys(diffs).length).toBe(5);
  for (const d of Object.values(diffs)) expect(d).toBeLessThan(5e-3);
  expect(page.errors).toEqual([]);
});
