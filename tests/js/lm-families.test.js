// Each model family the core's family table names, as a tiny random model that the test writes in HF's format
// (config.json + model.safetensors), through pe.loadLanguageModel, against tests/lm/families.py: an independent
// float64 forward written from HF transformers' modeling code for that family. Then the same reference without one
// family detail (its --drop): the NLL must move by far more than the tolerance, so the agreement above checks that
// detail.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPosenc } from '../../web/lib/index.js';
import { familyFiles } from './lm-tiny.js';
import { mulberry32 } from './reference.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// float32 against float64 over 2-4 layers and up to 256 positions (lm.test.js's bound for real models)
const TOLERANCE = 5e-4;

let pe, dir;
beforeAll(async () => {
  pe = await loadPosenc();
  dir = mkdtempSync(join(tmpdir(), 'posenc-families-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const diffs = (a, b) => {
  const d = Array.from(a, (x, i) => Math.abs(x - b[i]));
  return { max: Math.max(...d), mean: d.reduce((s, x) => s + x, 0) / d.length };
};
function reference(path, ids, drop) {
  const out = join(path, `ref-${drop || 'all'}.txt`);
  execFileSync('/usr/bin/python3', [join(root, 'tests/lm/families.py'), path, ids.join(','), out, ...(drop ? ['--drop', drop] : [])]);
  return readFileSync(out, 'utf8').trim().split(' ').slice(1).map(Number);
}

// Phi3Config with LongRoPE: original_max_position_embeddings at the top level, max_position_embeddings / it = factor 4
const PHI3 = { rope_theta: 1e4, partial_rotary_factor: 0.75, original_max_position_embeddings: 64, max_position_embeddings: 256, sliding_window: 90,
  rope_scaling: { type: 'longrope', short_factor: [1, 1.3, 1.9, 2.8, 4.1, 6], long_factor: [1.1, 2, 3.5, 6, 9, 14] } };
const shape = { dim: 32, layers: 3, heads: 4, kvHeads: 2, headDim: 8, hidden: 48, vocab: 41 };
// [name, family files, tokens, details the sensitivity check drops]
const CASES = [
  ['Mistral, sliding window 64 at T = 256', { family: 'mistral', seed: 21, ...shape, config: { sliding_window: 64, rope_theta: 1e4 } }, 256, ['window']],
  ['Mistral, sliding window 37 across key blocks', { family: 'mistral', seed: 22, ...shape, config: { sliding_window: 37, rope_theta: 1e4 } }, 200, ['window']],
  ['Qwen3, head_dim 24 with hidden 32 / 4 heads', { family: 'qwen3', seed: 23, ...shape, headDim: 24, config: { rope_theta: 1e6 } }, 120, ['qk_norm']],
  ['Llama 3.2, llama3 scaling and tied embeddings', { family: 'llama', seed: 24, ...shape, headDim: 16, tied: true,
    config: { rope_theta: 1e4, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 } } },
  200, ['llama3', 'tied']],
  ['SmolLM3, default NoPE layers (every 4th) and theta', { family: 'smollm3', seed: 25, ...shape, layers: 4 }, 160, ['nope']],
  ['OLMo 2, norms after attention and MLP, q/k norm over the projection', { family: 'olmo2', seed: 26, ...shape, config: { rope_theta: 5e5 } }, 120,
    ['qk_norm', 'post_norm']],
  ['Phi-3.5, fused qkv and gate_up, LongRoPE long factors (T = 200 > 64), partial rotary 0.75, sliding window 90',
    { family: 'phi3', seed: 27, ...shape, headDim: 16, config: PHI3 }, 200, ['longrope', 'gate_up', 'window']],
  ['Gemma 3: local / global layers (window 40, bases 1e4 / 1e6, linear x4 on global only), q/k norm, GeGLU, sqrt(hidden) embeddings, sandwich norms as (1 + w), query_pre_attn_scalar 24',
    { family: 'gemma3_text', seed: 29, ...shape, layers: 4, headDim: 16, tied: true, config: { sliding_window: 40, sliding_window_pattern: 2, rope_theta: 1e6,
      rope_local_base_freq: 1e4, rope_scaling: { rope_type: 'linear', factor: 4 }, query_pre_attn_scalar: 24, hidden_activation: 'gelu_pytorch_tanh' } }, 150,
    ['qk_norm', 'plus_one', 'embed_scale', 'gelu', 'local_base', 'scale_local', 'window', 'attn_scalar', 'post_norm']],
  ['Phi-3.5, LongRoPE short factors (T = 60 <= 64)', { family: 'phi3', seed: 28, ...shape, headDim: 16, config: PHI3 }, 60, ['longrope']],
];

test.each(CASES)('%s: equals the float64 HF forward, and each family detail matters', async (name, spec, T, drops) => {
  const { model, config } = familyFiles(spec);
  const path = join(dir, spec.family + spec.seed);
  mkdirSync(path);
  writeFileSync(join(path, 'config.json'), JSON.stringify(config));
  writeFileSync(join(path, 'model.safetensors'), model);
  const rnd = mulberry32(spec.seed);
  const ids = Array.from({ length: T }, () => Math.floor(rnd() * spec.vocab));
  const lm = await pe.loadLanguageModel({ model, config });
  try {
    expect(lm.config.arch).toBe((await pe.languageModelFamilies()).find((f) => f.hfTypes.includes(spec.family)).name);
    const { nll } = lm.forward(ids);
    const ref = reference(path, ids);
    const d = diffs(nll, ref);
    const moved = Object.fromEntries(drops.map((drop) => [drop, diffs(nll, reference(path, ids, drop)).max]));
    console.log(`[${name}] |dNLL| max ${d.max.toExponential(2)} mean ${d.mean.toExponential(2)}; without ${
      drops.map((x) => `${x}: max ${moved[x].toFixed(3)}`).join(', ')} nats`);
    expect(d.max).toBeLessThan(TOLERANCE);
    for (const drop of drops) expect([drop, moved[drop] > 100 * TOLERANCE]).toEqual([drop, true]);
  } finally {
    lm.delete();
  }
});

test('a sliding window in the maps and statistics: one pixel per key, keys outside the window have no weight', async () => {
  const W = 37, T = 120;
  const { model, config } = familyFiles({ family: 'mistral', seed: 22, ...shape, config: { sliding_window: W, rope_theta: 1e4 } });
  const rnd = mulberry32(3);
  const ids = Array.from({ length: T }, () => Math.floor(rnd() * shape.vocab));
  const lm = await pe.loadLanguageModel({ model, config });
  try {
    const { maps, entropy } = lm.forward(ids, { mapLayer: 1, mapPx: T, stats: true });
    let outside = 0, inside = Infinity;
    for (let h = 0; h < shape.heads; h++)
      for (let y = 0; y < T; y++)
        for (let x = 0; x <= y; x++) {
          const p = maps[(h * T + y) * T + x];
          if (x <= y - W) outside = Math.max(outside, p);
          else inside = Math.min(inside, p);
        }
    expect(outside).toBe(0);
    expect(inside).toBeGreaterThan(0);
    for (const e of entropy) expect(e).toBeLessThanOrEqual(Math.log(W) + 1e-5); // at most W keys weigh
  } finally {
    lm.delete();
  }
});

test('the families come from the core\'s table; a model_type it has no row for is refused by name', async () => {
  const families = await pe.languageModelFamilies();
  expect(families.map((f) => [f.name, f.hfTypes, f.gguf, f.qkvBias])).toEqual([['llama', ['llama'], true, false], ['qwen2', ['qwen2'], true, true],
    ['mistral', ['mistral'], false, false], ['qwen3', ['qwen3'], true, false], ['smollm3', ['smollm3'], true, false], ['olmo2', ['olmo2'], true, false],
    ['phi3', ['phi3'], true, false], ['gemma3', ['gemma3_text'], true, false]]);
  expect(families.map((f) => f.label)).toEqual(['Llama', 'Qwen2', 'Mistral', 'Qwen3', 'SmolLM3', 'OLMo 2', 'Phi-3', 'Gemma 3']);
  for (const f of families) expect(f.source).toMatch(new RegExp(`^${f.name}/mod(eling|ular)_${f.name}\\.py$`));
  const q = familyFiles({ family: 'qwen3', seed: 1, ...shape });
  await expect(pe.loadLanguageModel({ model: q.model, config: { ...q.config, use_sliding_window: true, sliding_window: 16, max_window_layers: 1 } }))
    .rejects.toThrow(/use_sliding_window is set but no layer_types say which layers slide/);
  const { model, config } = familyFiles({ family: 'gemma2', seed: 1, ...shape });
  await expect(pe.loadLanguageModel({ model, config })).rejects.toThrow(/model_type "gemma2" is not one posenc runs \(llama, qwen2, mistral, qwen3, smollm3, olmo2, phi3, gemma3_text\)/);
  // The README's example of a refused model is refused, in the README's words.
  const [, sentence, type] = /`(model_type "(\w+)" is not one posenc runs)`/.exec(readFileSync(join(root, 'README.md'), 'utf8').replace(/\s*\n\s*/g, ' '));
  const example = familyFiles({ family: type, seed: 1, ...shape });
  await expect(pe.loadLanguageModel({ model: example.model, config: example.config })).rejects.toThrow(sentence);
});
