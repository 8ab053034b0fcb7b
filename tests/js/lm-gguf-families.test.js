// Each family that llama.cpp writes GGUF files of, from GGUF: the tiny random HF model of lm-families.test.js,
// converted as llama.cpp's converter does (gguf-writer.js: its names, q/k permutation, Gemma's norms + 1, Phi-3's fused
// tensors and LongRoPE factor tensors, llama3's rope_freqs.weight, its metadata keys), through pe.loadLanguageModel. It
// must give the NLL of the same model from its HF files, and so of tests/lm/families.py (an independent float64 forward
// written from HF's modeling code). Then the same file with one converter detail left out: the NLL must move by far more
// than the tolerance, so the agreement checks that the reader follows that detail.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../../web/lib/index.js';
import { hfToGguf } from './gguf-writer.js';
import { familyFiles } from './lm-tiny.js';
import { mulberry32 } from './reference.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TOLERANCE = 5e-4; // float32 against float64 (lm-families.test.js's)
// the GGUF against the same weights from HF files: the same float32 model but for rounding (the interleaved RoPE kernel on
// permuted rows; factors and keys stored as float32): measured up to 2.5e-5
const SAME = 1e-4;

let pe, dir;
beforeAll(async () => {
  pe = await loadPosenc();
  dir = mkdtempSync(join(tmpdir(), 'posenc-gguf-families-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const maxDiff = (a, b) => Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i])));
function reference(path, ids) {
  const out = join(path, 'ref.txt');
  execFileSync('/usr/bin/python3', [join(root, 'tests/lm/families.py'), path, ids.join(','), out]);
  return readFileSync(out, 'utf8').trim().split(' ').slice(1).map(Number);
}

const shape = { dim: 32, layers: 3, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 41 };
const PHI3 = { rope_theta: 1e4, partial_rotary_factor: 0.75, original_max_position_embeddings: 64, max_position_embeddings: 256, sliding_window: 90,
  rope_scaling: { type: 'longrope', short_factor: [1, 1.3, 1.9, 2.8, 4.1, 6], long_factor: [1.1, 2, 3.5, 6, 9, 14] } };
// [name, family files, tokens, converter details left out one at a time]
const CASES = [
  ['llama: Llama 3.2 (llama3 scaling as rope_freqs.weight, tied, q/k permuted)', { family: 'llama', seed: 24, ...shape, headDim: 16, tied: true,
    config: { rope_theta: 1e4, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 } } },
  200, ['permute', 'rope_freqs']],
  ['qwen3: q/k norms, head_dim 24, NEOX rope', { family: 'qwen3', seed: 23, ...shape, headDim: 24, config: { rope_theta: 1e6 } }, 120, ['permute_neox']],
  ['smollm3: NoPE every 4th layer (llama.cpp\'s rule), q/k permuted', { family: 'smollm3', seed: 25, ...shape, layers: 4, config: { rope_theta: 2e6 } }, 160, ['permute']],
  ['olmo2: norms after attention and MLP, q/k norms over the projection', { family: 'olmo2', seed: 26, ...shape, config: { rope_theta: 5e5 } }, 120,
    ['permute_neox']],
  ['phi3: fused attn_qkv and ffn_up, LongRoPE factors as tensors (long, T = 200 > 64), partial rotary, window 90',
    { family: 'phi3', seed: 27, ...shape, headDim: 16, config: PHI3 }, 200, ['rope_factors']],
  ['phi3: LongRoPE short factors (T = 60 <= 64)', { family: 'phi3', seed: 28, ...shape, headDim: 16, config: PHI3 }, 60, ['rope_factors']],
  ['gemma3: norms stored + 1, 5 local layers (window 40, base 10000 unscaled) then a global one (linear x4), scores by head_dim',
    { family: 'gemma3_text', seed: 29, ...shape, layers: 7, headDim: 16, tied: true, config: { sliding_window: 40, sliding_window_pattern: 6,
      rope_theta: 1e6, rope_local_base_freq: 1e4, rope_scaling: { rope_type: 'linear', factor: 4 }, query_pre_attn_scalar: 16,
      hidden_activation: 'gelu_pytorch_tanh' } }, 150, ['plus_one']],
];

test.each(CASES)('%s: the GGUF gives the HF files\' NLL and the float64 one; each converter detail matters', async (name, spec, T, drops) => {
  const { model, config } = familyFiles(spec);
  const path = join(dir, spec.family + spec.seed + '-' + T);
  mkdirSync(path);
  writeFileSync(join(path, 'config.json'), JSON.stringify(config));
  writeFileSync(join(path, 'model.safetensors'), model);
  const rnd = mulberry32(spec.seed);
  const ids = Array.from({ length: T }, () => Math.floor(rnd() * spec.vocab));
  const ref = reference(path, ids);
  const nllOf = async (files) => {
    const lm = await pe.loadLanguageModel(files);
    try {
      return { nll: lm.forward(ids).nll, arch: lm.config.arch, source: lm.config.source };
    } finally {
      lm.delete();
    }
  };
  const hf = await nllOf({ model, config });
  const gguf = await nllOf({ model: hfToGguf(model, config) });
  expect([gguf.arch, gguf.source]).toEqual([hf.arch, 'gguf']);
  const dRef = maxDiff(gguf.nll, ref), dHf = maxDiff(gguf.nll, hf.nll);
  const moved = {};
  for (const drop of drops) moved[drop] = maxDiff((await nllOf({ model: hfToGguf(model, config, { drop }) })).nll, ref);
  console.log(`[GGUF ${name}] |dNLL| against float64 ${dRef.toExponential(2)}, against the HF files ${dHf.toExponential(2)}; without ${
    drops.map((x) => `${x}: ${moved[x].toFixed(3)}`).join(', ')} nats`);
  expect(dRef).toBeLessThan(TOLERANCE);
  expect(dHf).toBeLessThan(SAME);
  for (const drop of drops) expect([drop, moved[drop] > 100 * TOLERANCE]).toEqual([drop, true]);
});

test('GGUF refusals name the key or tensor: a window on a family without one, LongRoPE factors alone, factors off llama3\'s rule', async () => {
  const olmo = familyFiles({ family: 'olmo2', seed: 1, ...shape });
  await expect(pe.loadLanguageModel({ model: hfToGguf(olmo.model, olmo.config, { edit: ({ kv }) => kv.push(['olmo2.attention.sliding_window', 'u32', 16]) }) }))
    .rejects.toThrow('GGUF key olmo2.attention.sliding_window: sliding-window attention is not supported for OLMo 2 files');
  const phi = familyFiles({ family: 'phi3', seed: 2, ...shape, headDim: 16, config: PHI3 });
  const noShort = ({ tensors }) => tensors.splice(tensors.findIndex((t) => t.name === 'rope_factors_short.weight'), 1);
  await expect(pe.loadLanguageModel({ model: hfToGguf(phi.model, phi.config, { edit: noShort }) }))
    .rejects.toThrow('GGUF tensors rope_factors_long.weight and rope_factors_short.weight come together (LongRoPE)');
  const llama = familyFiles({ family: 'llama', seed: 3, ...shape, headDim: 16, tied: true, config: CASES[0][1].config });
  const scramble = ({ tensors }) => { const t = tensors.find((x) => x.name === 'rope_freqs.weight'); t.bytes = new Uint8Array(Float32Array.from([1, 8, 1, 8, 1, 8, 1, 8]).buffer); };
  await expect(pe.loadLanguageModel({ model: hfToGguf(llama.model, llama.config, { edit: scramble }) }))
    .rejects.toThrow('GGUF tensor rope_freqs.weight does not follow llama3\'s rule');
});

test('Gemma 3: the window pattern and the local base, when the file gives them, are read (as a period or one flag per layer)', async () => {
  const spec = CASES.find((c) => c[0].startsWith('gemma3'))[1];
  const { model, config } = familyFiles(spec);
  const ids = Array.from({ length: 90 }, (_, i) => (i * 7) % spec.vocab);
  const nll = async (edit) => {
    const lm = await pe.loadLanguageModel({ model: hfToGguf(model, config, { edit }) });
    try {
      return Array.from(lm.forward(ids).nll);
    } finally {
      lm.delete();
    }
  };
  const plain = await nll(null);
  const flags = Array.from({ length: spec.layers }, (_, l) => l % 6 < 5); // llama.cpp's default: every 6th layer global
  expect(await nll(({ kv }) => kv.push(['gemma3.attention.sliding_window_pattern', 'u32', 6], ['gemma3.rope.freq_base_swa', 'f32', 1e4]))).toEqual(plain);
  expect(await nll(({ kv }) => kv.push(['gemma3.attention.sliding_window_pattern', ['array', 'bool'], flags]))).toEqual(plain);
  // another period, another local base: other losses
  expect(maxDiff(await nll(({ kv }) => kv.push(['gemma3.attention.sliding_window_pattern', 'u32', 2])), plain)).toBeGreaterThan(0.05);
  expect(maxDiff(await nll(({ kv }) => kv.push(['gemma3.rope.freq_base_swa', 'f32', 1e6])), plain)).toBeGreaterThan(0.05);
  await expect(pe.loadLanguageModel({ model: hfToGguf(model, config, { edit: ({ kv }) => kv.push(['gemma3.attention.sliding_window_pattern', ['array', 'bool'], [true, false]]) }) }))
    .rejects.toThrow('GGUF key gemma3.attention.sliding_window_pattern must hold one flag per layer (7)');
});
