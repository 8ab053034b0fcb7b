// Real language models through the JS API (pe.loadLanguageModel) and the CLI (npm run model), in Node:
//  - stories260K (../shared; skipped with a notice where it is missing): token ids and NLL against the
//    independent float64 reference (tests/lm/reference.py), .bin = GGUF, and the same weights converted to HF
//    safetensors (Q and K permuted as HF's conversion does) with a config.json and a tokenizer.json;
//  - tiny random models the test writes as safetensors (Qwen2 biases, untied, head_dim 64, partial rotary)
//    against a plain float64 forward written here;
//  - hostile files and arguments: a TypeError or RangeError naming the problem, nothing leaks, the module works;
//  - a model too large for the wasm memory as float32: refused by name before its weights are converted;
//  - the language models' own wasm module: fetched only by the first loadLanguageModel, in the page module's build.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../../web/lib/index.js';
import { safetensors, tinyModel, tinyFiles, plainForward, bf16Llama } from './lm-tiny.js';
import { readLlama2cTokenizer, sentencepieceTokenizerJson, readShared, sharedTest, SHARED } from './lm-fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const STORY = readFileSync(join(root, 'web/app/lm/passage.txt'), 'utf8');
const SCALINGS = { none: null, linear: { rope_type: 'linear', factor: 4 }, dynamic: { rope_type: 'dynamic', factor: 4 }, yarn: { rope_type: 'yarn', factor: 4 } };
// The float64 reference and the float32 forward differ by float rounding over 5 layers and 512-2048 positions:
// the C++ suite measured 1.1e-5 to 9.6e-5 as the largest NLL difference; the bound leaves room for the wasm build.
const NLL_TOLERANCE = 5e-4;

let pe, dir;
beforeAll(async () => {
  pe = await loadPosenc();
  dir = mkdtempSync(join(tmpdir(), 'posenc-lm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/** tests/lm/reference.py on the story: {tokens, nll, logits, map<h>, peaks} for `scaling` at length T. */
function reference(scaling, T, maps = null) {
  const out = join(dir, `ref-${scaling}-${T}${maps ? `-map${maps.layer}-${maps.px}` : ''}.txt`);
  // the arguments test_lm_reference.cpp gives (logits rows included), so that --cache finds the native suites' runs
  const args = [join(root, 'tests/lm/reference.py'), fileURLToPath(new URL('stories260K.bin', SHARED)), fileURLToPath(new URL('tok512.bin', SHARED)),
    join(root, 'web/app/lm/passage.txt'), out, '--length', String(T), '--scaling', scaling, '--factor', '4', '--original', '512',
    '--logits-rows', `0,${Math.floor(T / 2)},${T - 1}`, '--cache', join(tmpdir(), 'posenc-lm-reference'),
    ...(maps ? ['--map-layer', String(maps.layer), '--map-px', String(maps.px)] : [])];
  execFileSync('/usr/bin/python3', args);
  const lines = Object.fromEntries(readFileSync(out, 'utf8').trim().split('\n').map((l) => { const [k, ...xs] = l.split(' '); return [k, xs.map(Number)]; }));
  return lines;
}

sharedTest('stories260K .bin: token ids and NLL equal the float64 reference at T = 512 (4 scalings) and 2048', async () => {
  const lm = await pe.loadLanguageModel({ model: readShared('stories260K.bin'), tokenizer: readShared('tok512.bin') });
  try {
    expect([lm.config.context, lm.contextSource, lm.config.layout, lm.config.kvHeads]).toEqual([512, 'trained', 'interleaved', 4]);
    const ids = lm.encode(STORY);
    for (const [name, T] of [['none', 512], ['linear', 512], ['dynamic', 512], ['yarn', 512], ['none', 2048]]) {
      const ref = reference(name, T);
      expect(Array.from(ids.subarray(0, T))).toEqual(ref.tokens);
      const { nll } = lm.forward(ids.subarray(0, T), { scaling: SCALINGS[name] });
      const d = maxDiff(nll, ref.nll);
      expect([name, T, d < NLL_TOLERANCE]).toEqual([name, T, true]);
    }
  } finally {
    lm.delete();
  }
}, 120000);

sharedTest('stories260K: the pooled maps and peaks equal the float64 reference\'s (its softmax max-pooled), with and without scaling', async () => {
  const lm = await pe.loadLanguageModel({ model: readShared('stories260K.bin'), tokenizer: readShared('tok512.bin') });
  try {
    const ids = lm.encode(STORY);
    for (const [name, T, layer, px] of [['none', 300, 2, 37], ['yarn', 512, 1, 64], ['linear', 700, 4, 64]]) {
      const ref = reference(name, T, { layer, px });
      const r = lm.forward(ids.subarray(0, T), { scaling: SCALINGS[name], mapLayer: layer, mapPx: px, stats: true });
      expect([r.px, r.maps.length, r.peaks.length]).toEqual([px, 8 * px * px, 8]);
      const refMaps = Array.from({ length: 8 }, (_, h) => ref[`map${h}`]).flat();
      expect(refMaps.filter((x) => x === -1).length).toBe(8 * (px * (px - 1)) / 2); // (the reference's own shape: -1 above the diagonal)
      // weights in [0, 1] after five float32 layers: measured up to 5.0e-6 from float64 (peaks 6.6e-8)
      const d = maxDiff(r.maps, refMaps), dp = maxDiff(r.peaks, ref.peaks);
      expect([name, T, d < 2e-5, dp < 2e-5]).toEqual([name, T, true, true]);
    }
  } finally {
    lm.delete();
  }
}, 120000);

sharedTest('stories260K GGUF gives the .bin\'s NLL exactly; its context 2048 is flagged as a converter default', async () => {
  const bin = await pe.loadLanguageModel({ model: readShared('stories260K.bin'), tokenizer: readShared('tok512.bin') });
  const gguf = await pe.loadLanguageModel({ model: readShared('stories260K.gguf') });
  try {
    expect([gguf.config.format, gguf.context, gguf.contextSource]).toEqual(['gguf', 2048, 'converter default']);
    const ids = bin.encode(STORY).subarray(0, 1024);
    expect(Array.from(gguf.encode(STORY).subarray(0, 1024))).toEqual(Array.from(ids));
    gguf.context = 512; // corrected, as a reader would: the scalings then extend the trained context
    for (const sc of Object.values(SCALINGS)) expect(Array.from(gguf.forward(ids, { scaling: sc }).nll)).toEqual(Array.from(bin.forward(ids, { scaling: sc }).nll));
  } finally {
    bin.delete();
    gguf.delete();
  }
}, 60000);

/** HF's convert_llama_weights_to_hf permute: interleaved rows of each head -> the half-split layout. */
function permute(w, heads, rows, cols) {
  const hd = rows / heads, out = new Array(w.length);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < hd / 2; i++)
      for (const [half, src] of [[0, 2 * i], [1, 2 * i + 1]])
        for (let c = 0; c < cols; c++) out[(h * hd + half * (hd / 2) + i) * cols + c] = w[(h * hd + src) * cols + c];
  return out;
}

sharedTest('stories260K converted to HF safetensors (Q, K permuted), config.json and tokenizer.json: the same ids and NLL', async () => {
  const raw = readShared('stories260K.bin');
  const h = new Int32Array(raw.buffer.slice(0, 28));
  const [dim, hidden, L, H, KV, V, seq] = h;
  const hd = dim / H;
  const w = new Float32Array(raw.buffer.slice(28));
  let at = 0;
  const take = (n) => Array.from(w.subarray(at, (at += n)));
  const emb = take(V * dim), att = take(L * dim), wq = take(L * dim * dim), wk = take(L * KV * hd * dim), wv = take(L * KV * hd * dim);
  const wo = take(L * dim * dim), ffn = take(L * dim), w1 = take(L * hidden * dim), w2 = take(L * dim * hidden), w3 = take(L * hidden * dim), fin = take(dim);
  const slice = (a, l, n) => a.slice(l * n, (l + 1) * n);
  const tensors = [{ name: 'model.embed_tokens.weight', shape: [V, dim], data: emb }, { name: 'model.norm.weight', shape: [dim], data: fin }];
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.`;
    tensors.push(
      { name: `${p}input_layernorm.weight`, shape: [dim], data: slice(att, l, dim) },
      { name: `${p}self_attn.q_proj.weight`, shape: [dim, dim], data: permute(slice(wq, l, dim * dim), H, dim, dim) },
      { name: `${p}self_attn.k_proj.weight`, shape: [KV * hd, dim], data: permute(slice(wk, l, KV * hd * dim), KV, KV * hd, dim) },
      { name: `${p}self_attn.v_proj.weight`, shape: [KV * hd, dim], data: slice(wv, l, KV * hd * dim) },
      { name: `${p}self_attn.o_proj.weight`, shape: [dim, dim], data: slice(wo, l, dim * dim) },
      { name: `${p}post_attention_layernorm.weight`, shape: [dim], data: slice(ffn, l, dim) },
      { name: `${p}mlp.gate_proj.weight`, shape: [hidden, dim], data: slice(w1, l, hidden * dim) },
      { name: `${p}mlp.down_proj.weight`, shape: [dim, hidden], data: slice(w2, l, dim * hidden) },
      { name: `${p}mlp.up_proj.weight`, shape: [hidden, dim], data: slice(w3, l, hidden * dim) });
  }
  const config = { architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: dim, intermediate_size: hidden, num_hidden_layers: L,
    num_attention_heads: H, num_key_value_heads: KV, vocab_size: V, max_position_embeddings: seq, rms_norm_eps: 1e-5, rope_theta: 10000,
    tie_word_embeddings: true, attention_bias: false };
  const tokenizer = JSON.stringify(sentencepieceTokenizerJson(readLlama2cTokenizer(readShared('tok512.bin'), V)));
  const hf = await pe.loadLanguageModel({ model: safetensors(tensors), config: JSON.stringify(config), tokenizer, tokenizerConfig: { bos_token: '<s>' } });
  const bin = await pe.loadLanguageModel({ model: raw, tokenizer: readShared('tok512.bin') });
  try {
    expect([hf.config.format, hf.config.layout, hf.context, hf.contextSource, hf.config.parameters]).toEqual(['safetensors', 'half', 512, 'file', bin.config.parameters]);
    const ids = bin.encode(STORY).subarray(0, 1024);
    expect(Array.from(hf.encode(STORY).subarray(0, 1024))).toEqual(Array.from(ids));
    for (const sc of Object.values(SCALINGS)) expect(maxDiff(hf.forward(ids, { scaling: sc }).nll, bin.forward(ids, { scaling: sc }).nll)).toBeLessThan(1e-4);
  } finally {
    hf.delete();
    bin.delete();
  }
}, 60000);

test.each([
  ['Qwen2 biases, untied, GQA 4/2', { seed: 1, dim: 32, layers: 2, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 37, bias: true, tied: false, partial: 1, theta: 1e4 }],
  ['head_dim 64, tied', { seed: 2, dim: 64, layers: 1, heads: 2, kvHeads: 1, headDim: 64, hidden: 40, vocab: 29, bias: false, tied: true, partial: 1, theta: 5e5 }],
  ['partial rotary 0.5', { seed: 3, dim: 32, layers: 2, heads: 2, kvHeads: 2, headDim: 16, hidden: 24, vocab: 23, bias: false, tied: false, partial: 0.5, theta: 100 }],
])('a tiny random model as safetensors (%s) equals a plain float64 forward', async (_, shape) => {
  const p = tinyModel(shape);
  const { model, config } = tinyFiles(p);
  const lm = await pe.loadLanguageModel({ model, config });
  try {
    expect([lm.config.arch, lm.config.qkvBias, lm.config.tiedEmbeddings, lm.config.rotaryDim]).toEqual([shape.bias ? 'qwen2' : 'llama', shape.bias, shape.tied, p.rot]);
    const ids = Array.from({ length: 40 }, (_, i) => (i * 7 + 3) % shape.vocab);
    expect(maxDiff(lm.forward(ids).nll, plainForward(p, ids))).toBeLessThan(2e-4);
    expect(lm.hasTokenizer).toBe(false);
    expect(() => lm.encode('x')).toThrow(/no tokenizer: no tokenizer.json was given/);
  } finally {
    lm.delete();
  }
});

// What the page's two Workers do with an odd number of forwards: one forward in two parts, the second continuing
// from the first's keys and values (keep, then past), in another Worker's copy of the model.
test('a forward in parts (keep, then past) gives the whole forward\'s NLL; a past it cannot use is refused by name', async () => {
  const shape = { seed: 8, dim: 32, layers: 2, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 37, bias: false, tied: true, partial: 1, theta: 1e4 };
  const { model, config } = tinyFiles(tinyModel(shape));
  const [lm, other] = [await pe.loadLanguageModel({ model, config }), await pe.loadLanguageModel({ model, config })];
  try {
    const ids = Array.from({ length: 150 }, (_, i) => (i * 11 + 5) % shape.vocab), a = 97;
    for (const scaling of [null, { rope_type: 'yarn', factor: 4 }]) {
      const whole = lm.forward(ids, { scaling }).nll;
      const first = lm.forward(ids.slice(0, a + 1), { scaling, keep: a });
      expect([first.cache.rows, first.cache.k.length]).toEqual([a, a * 2 * 2 * 8]);
      const rest = other.forward(ids.slice(a), { scaling, past: first.cache }).nll;
      expect(first.nll.length + rest.length).toBe(whole.length);
      expect(maxDiff(whole, [...first.nll, ...rest])).toBeLessThan(2e-5);
    }
    const { cache } = lm.forward(ids.slice(0, 11), { keep: 10 });
    // twice: the first pass brings the error message's string to its size; the second must leave the heap as it was
    let heap = -1;
    for (let pass = 0; pass < 2; pass++, heap = heap < 0 ? pe.heapBytes() : heap) for (const [opts, type, re] of [
      [{ keep: 6 }, RangeError, /keep must be an integer in \[0, 5\]/],
      [{ past: { rows: 1 } }, TypeError, /past must be the cache a forward with keep returned/],
      [{ past: { ...cache, k: cache.k.subarray(1) } }, RangeError, /past.k and past.v must hold 320 floats/],
      [{ past: cache, scaling: { rope_type: 'linear', factor: 2 } }, RangeError, /past was computed with another scaling/],
      [{ past: cache, stats: true }, RangeError, /past cannot be used with stats or mapLayer/],
      [{ keep: 2, scaling: { rope_type: 'dynamic', factor: 2 } }, RangeError, /dynamic/],
    ]) {
      let err;
      try { lm.forward(ids.slice(10, 15), opts); } catch (e) { err = e; }
      expect([re.source, err?.constructor?.name]).toEqual([re.source, type.name]);
      expect(err.message).toMatch(re);
    }
    expect(pe.heapBytes()).toBe(heap);
    expect(lm.forward(ids.slice(10, 15), { past: cache }).nll.length).toBe(4);
  } finally {
    lm.delete();
    other.delete();
  }
});

test('hostile files and arguments: a TypeError or RangeError naming the problem; nothing leaks; the module still works', async () => {
  const p = tinyModel({ seed: 4, dim: 16, layers: 1, heads: 2, kvHeads: 2, headDim: 8, hidden: 16, vocab: 11, bias: false, tied: true, partial: 1, theta: 1e4 });
  const { model, config } = tinyFiles(p);
  const ok = () => pe.loadLanguageModel({ model, config });
  const nan = model.slice();
  new DataView(nan.buffer).setFloat32(nan.length - 4, NaN, true); // the last weight
  // One pass over every case; the second must leave the heap exactly where the first did (the first brings the
  // core's scratch buffers and the error message's string to their size).
  const pass = async () => {
    const bad = [
      [() => pe.loadLanguageModel({ model: model.subarray(0, 100), config }), RangeError, /is truncated|past the/],
      [() => pe.loadLanguageModel({ model: nan, config }), RangeError, /NaN/],
      [() => pe.loadLanguageModel({ model, config: { ...config, model_type: 'gpt2' } }), RangeError, /model_type "gpt2" is not one posenc runs/],
      [() => pe.loadLanguageModel({ model, config: { ...config, num_hidden_layers: 2 } }), RangeError, /model\.layers\.1|missing|layer/],
      [() => pe.loadLanguageModel({ model }), TypeError, /config must be the model's config.json/],
      [() => pe.loadLanguageModel({ model: new Uint8Array(12), tokenizer: new Uint8Array(4) }), RangeError, /llama2.c/],
      [() => pe.loadLanguageModel({ model: 'weights' }), TypeError, /model must be the file's bytes/],
      [() => pe.loadLanguageModel({ model, config, extra: 1 }), RangeError, /unknown option "extra"/],
      [() => pe.loadLanguageModel({ index: '{"weight_map":{"a":"m.safetensors"}}', config }), RangeError, /shards must hold m.safetensors/],
    ];
    for (const [call, type, re] of bad) {
      let err;
      try { (await call()).delete(); } catch (e) { err = e; }
      expect([re.source, err?.constructor?.name]).toEqual([re.source, type.name]);
      expect(err.message).toMatch(re);
    }
    const lm = await ok();
    for (const [args, type, re] of [
      [[[0]], RangeError, /tokens must hold 2 to 131072 ids/], [[[0, 11]], RangeError, /tokens\[1\] must be an integer in \[0, 10\]/],
      [[[0, 1], { scaling: { rope_type: 'warp' } }], RangeError, /scaling.rope_type/], [[[0, 1], { mapLayer: 1 }], RangeError, /mapLayer/],
      [[[0, 1], { stats: 'yes' }], TypeError, /stats/], [['01'], TypeError, /tokens/],
    ]) {
      let err;
      try { lm.forward(...args); } catch (e) { err = e; }
      expect([re.source, err?.constructor?.name]).toEqual([re.source, type.name]);
      expect(err.message).toMatch(re);
    }
    expect(() => { lm.context = 0; }).toThrow(RangeError);
    const r = lm.forward([1, 2, 3, 4, 5], { stats: true, mapLayer: 0, mapPx: 5 });
    expect([r.nll.length, r.entropy.length, r.sink.length, r.maps.length, r.peaks.length]).toEqual([4, 2, 2, 2 * 25, 2]);
    const by = lm.forward([1, 2, 3, 4, 5], { statsLengths: [2, 5] }).statsByLength;
    expect(by.map((x) => [x.length, x.entropy.length, x.sink.length])).toEqual([[2, 2, 2], [5, 2, 2]]);
    expect(Array.from(by[1].entropy)).toEqual(Array.from(r.entropy));
    for (const [opts, type, re] of [[{ statsLengths: [6] }, RangeError, /statsLengths\[0\] must be an integer in \[1, 5\]/],
      [{ statsLengths: [2], stats: false }, RangeError, /statsLengths needs stats/], [{ statsLengths: 'x' }, TypeError, /statsLengths/]]) {
      let err;
      try { lm.forward([1, 2, 3, 4, 5], opts); } catch (e) { err = e; }
      expect([re.source, err?.constructor?.name]).toEqual([re.source, type.name]);
      expect(err.message).toMatch(re);
    }
    lm.delete();
    expect(() => lm.forward([1, 2])).toThrow(/deleted/);
  };
  await pass();
  const heap = pe.heapBytes();
  await pass();
  expect(pe.heapBytes()).toBe(heap);
});

// A model whose weights as float32 would not have fit the old 2 GB module: 217.7 M parameters of bfloat16 zeros
// (a 435 MB file). Its matrices stay 16-bit, read where the file's bytes lie: the module grows by the file once.
test('a 217.7 M-parameter bfloat16 model loads with its file held once; delete gives the memory back', async () => {
  const dim = 128, { file: big, config, dataBytes: at } = bf16Llama({ dim, vocab: 1_700_000, heads: 2 }); // zeros: bfloat16 0
  const before = pe.heapBytes();
  const lm = await pe.loadLanguageModel({ model: big, config });
  expect([lm.config.parameters, lm.config.weightBytes]).toEqual([217_715_072, 2 * (217_715_072 - 3 * dim) + 4 * 3 * dim]); // 3 norms of float32
  expect(pe.heapBytes() - before).toBeLessThan(at * 1.01); // the tensors' bytes once (plus the float32 norms)
  lm.delete();
  expect(pe.heapBytes()).toBeLessThan(before + 1e6);
  const { model, config: small } = tinyFiles(tinyModel({ seed: 6, dim: 16, layers: 1, heads: 2, kvHeads: 1, headDim: 8, hidden: 16, vocab: 11, bias: false, tied: true, partial: 1, theta: 1e4 }));
  const tiny = await pe.loadLanguageModel({ model, config: small });
  expect(tiny.forward([1, 2, 3]).nll.every(Number.isFinite)).toBe(true);
  tiny.delete();
});

test('the language models have a wasm module of their own, fetched by the first loadLanguageModel; a failed fetch names the URL and is retried', async () => {
  // The page's module carries none of the language-model bindings (their names are strings in the .wasm).
  const has = (f) => readFileSync(join(root, 'web/wasm', f)).includes('lmForward');
  expect(['posenc-simd', 'posenc-scalar', 'posenc-lm-simd', 'posenc-lm-scalar'].map((f) => has(`${f}.wasm`))).toEqual([false, false, true, true]);
  const { model, config } = tinyFiles(tinyModel({ seed: 5, dim: 16, layers: 1, heads: 2, kvHeads: 1, headDim: 8, hidden: 16, vocab: 11, bias: false, tied: true, partial: 1, theta: 1e4 }));
  for (const build of ['simd', 'scalar']) {
    const asked = [];
    const fresh = await loadPosenc({ build, locateFile: (f) => { asked.push(f); return join(root, 'web/wasm', f); } });
    const memory = fresh.memoryBytes();
    expect(asked).toEqual([`posenc-${build}.wasm`]); // nothing of the language models yet
    const [a, b] = await Promise.all([fresh.loadLanguageModel({ model, config }), fresh.loadLanguageModel({ model, config })]);
    // one module for both calls, in the page's build: in Node, the SIMD one on threads (its .wasm and its Workers' script)
    expect(asked).toEqual([`posenc-${build}.wasm`, ...(build === 'simd' ? ['posenc-lm-simd-mt.wasm', 'posenc-lm-simd-mt.worker.js'] : ['posenc-lm-scalar.wasm'])]);
    expect(fresh.memoryBytes()).toBeGreaterThan(memory); // a second wasm memory
    expect(Array.from(a.forward([1, 2, 3]).nll)).toEqual(Array.from(b.forward([1, 2, 3]).nll));
    a.delete();
    b.delete();
  }
  const lost = await loadPosenc({ lmWasmUrl: join(dir, 'missing.wasm') });
  for (let i = 0; i < 2; i++) await expect(lost.loadLanguageModel({ model, config })).rejects.toThrow(/could not load the wasm module from .*missing\.wasm/);
  expect(Array.from(lost.alibiSlopes(2))).toEqual([0.0625, 0.00390625]); // the page's module is untouched
  await expect(loadPosenc({ lmWasmUrl: 5 })).rejects.toThrow(new TypeError('lmWasmUrl must be a string or a URL (got number)'));
  const moved = await loadPosenc({ lmWasmUrl: new URL(`../../web/wasm/posenc-lm-${lost.build}.wasm`, import.meta.url) });
  (await moved.loadLanguageModel({ model, config })).delete();
});

sharedTest('npm run model: the JSON and the table, and exit status 2 with one line for a bad file or argument', () => {
  const S = (f) => fileURLToPath(new URL(f, SHARED));
  const run = (...args) => spawnSync(process.execPath, [join(root, 'scripts/model.js'), ...args], { encoding: 'utf8' });
  const j = run('--model', S('stories260K.bin'), '--tokenizer', S('tok512.bin'), '--text', join(root, 'web/app/lm/passage.txt'), '--length', '600',
    '--scaling', '{"rope_type":"yarn","factor":4,"original_max_position_embeddings":512}', '--json');
  expect(j.status).toBe(0);
  const out = JSON.parse(j.stdout);
  expect([out.tokens.length, out.nll.length, out.tokens[0]]).toEqual([600, 599, 1]);
  const ref = reference('yarn', 600);
  expect(out.tokens).toEqual(ref.tokens);
  expect(maxDiff(out.nll, ref.nll)).toBeLessThan(NLL_TOLERANCE);
  const t = run('--model', S('stories260K.gguf'), '--context', '512', '--text', join(root, 'web/app/lm/passage.txt'), '--length', '1100');
  expect(t.status).toBe(0);
  expect(t.stdout).toMatch(/context 512 \(set by --context\)/);
  expect(t.stdout).toMatch(/^\s+1024-1099\s+2\.15\s+75\s+\d+\.\d{3}$/m);
  const textFile = join(dir, 'short.txt');
  writeFileSync(textFile, 'Once upon a time');
  for (const [args, re] of [
    [['--model', join(dir, 'nothing.bin'), '--text', textFile], /^npm run model: cannot read the model file .*nothing.bin: no such file\n$/],
    [['--model', S('tok512.bin'), '--text', textFile], /^npm run model: this file is not a llama2\.c \.bin, a GGUF or a safetensors file: it starts with the bytes .*\n$/],
    [['--model', S('stories260K.gguf'), '--text', textFile, '--scaling', '{"factor": 4'], /^npm run model: --scaling is not valid JSON/],
    [['--model', S('stories260K.gguf'), '--text', textFile, '--length', '400'], /^npm run model: --length 400 is more than the \d+ tokens of the text\n$/],
    [['--model', S('stories260K.gguf')], /^npm run model: --text is required/],
    [['--model', S('stories260K.bin'), '--text', textFile], /^npm run model: this model has no tokenizer: no tokenizer.bin was given\n$/],
  ]) {
    const r = run(...args);
    expect([args.join(' '), r.status, r.stdout]).toEqual([args.join(' '), 2, '']);
    expect(r.stderr).toMatch(re);
  }
}, 120000);
