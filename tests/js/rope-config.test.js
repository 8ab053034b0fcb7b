// pe.ropeFromConfig on every shipped public config against independent float64
// references (tests/js/rope-reference.js, written from HF's modeling_rope_utils.py
// and llama.cpp's ggml rope), with the HF parameters of each model written out
// here from its config class; properties; llama.cpp GGUF metadata; hostile JSON.
import { loadPosenc, describeArchitecture, ROPE_FAMILIES } from '../../web/lib/index.js';
import { readFileSync } from 'node:fs';
import { SHIPPED_CONFIGS } from '../../web/configs/index.js';
import * as ref from './rope-reference.js';

let pe;
beforeAll(async () => {
  pe = await loadPosenc();
});

const config = (id) => JSON.parse(readFileSync(new URL(`../../web/configs/${id}.json`, import.meta.url), 'utf8'));
const relClose = (got, want, rel, what) => {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++)
    if (!(Math.abs(got[i] - want[i]) <= rel * Math.abs(want[i]))) throw new Error(`${what}[${i}]: ${got[i]} vs ${want[i]}`);
};

const phi = config('phi-3.5-mini').rope_scaling;
// What HF computes for each shipped model, per layer type, from its config class (see docs/api.md):
// the layers, the reference frequencies at the advertised context, the cos/sin scale, the softmax
// correction and the query scale at a position.
const every = (n, f) => Array.from({ length: n }, (_, i) => i).filter(f);
const V4_COMPRESS = { factor: 16, original_max_position_embeddings: 65536, beta_fast: 32, beta_slow: 1, attention_factor: 1 };
const v4 = {
  sliding_attention: { n: 2, layers: [0, 1], f: () => ref.refDefault(64, 10000), layout: 'interleaved', slice: 'trailing', head: 512, rot: 64, type: 'default', theta: 10000, window: 128 },
  compressed_sparse_attention: { n: 21, layers: every(43, (i) => i >= 2 && i % 2 === 0), f: () => ref.refYarn(64, 160000, V4_COMPRESS),
    layout: 'interleaved', slice: 'trailing', head: 512, rot: 64, type: 'yarn', factor: 16, theta: 160000, window: null },
  heavily_compressed_attention: { n: 20, layers: every(43, (i) => i >= 2 && i % 2 === 1), f: () => ref.refYarn(64, 160000, V4_COMPRESS),
    layout: 'interleaved', slice: 'trailing', head: 512, rot: 64, type: 'yarn', factor: 16, theta: 160000, window: null },
};
// What HF computes for each shipped model, per layer type, from its config class and modeling code
// (web/lib/rope-families.js names the file of each family): the layers, RoPE or NoPE, the layout,
// the head and rotary dims, the rope type, factor and theta, the sliding window, the reference
// frequencies in float64, the cos/sin scale, the softmax correction and the query scale at a position.
const EXPECTED = {
  'llama-3.1-8b': { full_attention: { n: 32, layout: 'half', head: 128, rot: 128, type: 'llama3', factor: 8, theta: 500000,
    f: () => ref.refLlama3(128, 500000, { factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 }) } },
  'llama-3.2-1b': { full_attention: { n: 16, f: () => ref.refLlama3(64, 500000, { factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 }) } },
  'llama-4-scout': {
    chunked_attention: { n: 36, layout: 'interleaved', f: () => ref.refLlama3(128, 500000, { factor: 16, low_freq_factor: 1, high_freq_factor: 1, original_max_position_embeddings: 8192 }) },
    full_attention: { n: 12, layers: every(48, (i) => i % 4 === 3), nope: true, q: (p) => ref.refLlama4Temperature(p, 0.1, 8192) },
  },
  'qwen2.5-7b': { full_attention: { n: 28, layout: 'half', head: 128, rot: 128, type: 'default', theta: 1e6, f: () => ref.refDefault(128, 1e6) } },
  'qwen2.5-7b-yarn': { full_attention: { n: 28, layout: 'half', head: 128, rot: 128, type: 'yarn', factor: 4, theta: 1e6,
    f: () => ref.refYarn(128, 1e6, { factor: 4, original_max_position_embeddings: 32768 }) } },
  'qwen3-8b': { full_attention: { n: 36, f: () => ref.refDefault(128, 1e6) } },
  'qwen2-vl-7b': { full_attention: { n: 28, f: () => ref.refDefault(128, 1e6), known: ['mrope_section'], mrope: () => ref.refMropeAxes([16, 24, 24], false) } },
  'qwen3-vl-8b': { full_attention: { n: 36, f: () => ref.refDefault(128, 5e6), known: ['mrope_section', 'mrope_interleaved'], mrope: () => ref.refMropeAxes([24, 20, 20], true) } },
  'deepseek-v3': { full_attention: { n: 61, layout: 'interleaved', head: 64, rot: 64, type: 'yarn', factor: 40, theta: 10000,
    f: () => ref.refYarn(64, 10000, { factor: 40, original_max_position_embeddings: 4096, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 }),
    softmax: ref.refDeepseekSoftmax(40, 1) } },
  'deepseek-v3.2': { deepseek_sparse_attention: { n: 61, layout: 'interleaved', head: 64, rot: 64, type: 'yarn', factor: 40, theta: 10000,
    f: () => ref.refYarn(64, 10000, { factor: 40, original_max_position_embeddings: 4096, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 }),
    softmax: ref.refDeepseekSoftmax(40, 1) } },
  'deepseek-v4-flash': v4,
  'deepseek-v4-flash-hf': v4,
  'gpt-oss-20b': Object.fromEntries(['sliding_attention', 'full_attention'].map((t) => [t, { n: 12,
    f: () => ref.refYarn(64, 150000, { factor: 32, original_max_position_embeddings: 4096, beta_fast: 32, beta_slow: 1, truncate: false }) }])),
  'phi-3.5-mini': { full_attention: { n: 32, f: () => ref.refLongrope(96, 10000, { ...phi, original_max_position_embeddings: 4096, max_position_embeddings: 131072 }, 131072) } },
  'gemma-3-4b': { sliding_attention: { n: 29, layout: 'half', type: 'default', theta: 1e4, window: 1024, f: () => ref.refDefault(256, 1e4) },
    full_attention: { n: 5, layers: every(34, (i) => i % 6 === 5), layout: 'half', type: 'linear', factor: 8, theta: 1e6, window: null, f: () => ref.refLinear(256, 1e6, 8) } },
  'gemma-4-e2b': { sliding_attention: { n: 28, f: () => ref.refDefault(256, 1e4) }, full_attention: { n: 7, f: () => ref.refProportional(512, 1e6, 0.25) } },
  'mistral-7b-v0.3': { full_attention: { n: 32, f: () => ref.refDefault(128, 1e6) } },
  'ministral-3-8b': { full_attention: { n: 34, f: () => ref.refYarn(128, 1e6, { factor: 16, original_max_position_embeddings: 16384, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 }),
    q: (p) => ref.refLlama4ScalingBeta(p, 0.1, 16384), known: ['llama_4_scaling_beta'] } },
  // SmolLM3Model: `self.use_rope = config.no_rope_layers[layer_idx]`; 0 at every 4th layer
  'smollm3-3b': { full_attention: { n: 27, layers: every(36, (i) => i % 4 !== 3), layout: 'half', head: 128, rot: 128, type: 'default', theta: 5e6, f: () => ref.refDefault(128, 5e6) },
    'full_attention (NoPE)': { n: 9, layers: every(36, (i) => i % 4 === 3), nope: true } },
  // Cohere2Attention: RoPE only `if self.sliding_window is not None`; interleaved (repeat_interleave, rotate_half on ::2 / 1::2)
  'command-r7b': { sliding_attention: { n: 24, layout: 'interleaved', head: 128, rot: 128, type: 'default', theta: 50000, window: 4096, f: () => ref.refDefault(128, 50000) },
    full_attention: { n: 8, layers: every(32, (i) => i % 4 === 3), nope: true } },
  'command-r-v01': { full_attention: { n: 40, layout: 'interleaved', head: 128, rot: 128, type: 'default', theta: 8e6, f: () => ref.refDefault(128, 8e6) } },
  // Exaone4Attention: RoPE `if self.sliding_window is None or self.is_sliding`
  'exaone-4.0-32b': { sliding_attention: { n: 48, layout: 'half', head: 128, rot: 128, type: 'llama3', factor: 16, theta: 1e6, window: 4096,
    f: () => ref.refLlama3(128, 1e6, { factor: 16, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 }) },
  full_attention: { n: 16, layers: every(64, (i) => i % 4 === 3), nope: true } },
  'exaone-4.0-1.2b': { full_attention: { n: 30, layout: 'half', head: 64, rot: 64, type: 'llama3', factor: 16, theta: 1e6, window: null,
    f: () => ref.refLlama3(64, 1e6, { factor: 16, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 }) } },
  // Olmo3Config.convert_rope_params_to_dict: rope_scaling updates full_attention only
  'olmo-3-7b': { sliding_attention: { n: 24, layout: 'half', type: 'default', theta: 5e5, window: 4096, f: () => ref.refDefault(128, 5e5) },
    full_attention: { n: 8, layers: every(32, (i) => i % 4 === 3), layout: 'half', type: 'yarn', factor: 8, theta: 5e5, window: null,
      f: () => ref.refYarn(128, 5e5, { factor: 8, original_max_position_embeddings: 8192, attention_factor: 1.2079441541679836, beta_fast: 32, beta_slow: 1 }) } },
  // GlmAttention (glm, glm4): interleaved on the first half of the head; Glm4Moe: gpt_neox's half layout
  'glm-4-9b-0414': { full_attention: { n: 40, layout: 'interleaved', head: 128, rot: 64, type: 'default', theta: 10000, f: () => ref.refDefault(64, 10000) } },
  'glm-4.5': { full_attention: { n: 92, layout: 'half', head: 128, rot: 64, type: 'default', theta: 1e6, f: () => ref.refDefault(64, 1e6) } },
};
const POSITIONS = [0, 1, 4095, 8191, 16383, 16384, 131071, 1e6, 1e7];

test('there are >= 25 shipped configs and each has expected values here', () => {
  expect(SHIPPED_CONFIGS.length).toBeGreaterThanOrEqual(25);
  expect(Object.keys(EXPECTED).sort()).toEqual(SHIPPED_CONFIGS.map((c) => c.id).sort());
});

describe.each(SHIPPED_CONFIGS.map((c) => c.id))('%s', (id) => {
  test('frequencies, scales and layers equal the float64 reference of HF', () => {
    const r = pe.ropeFromConfig(config(id));
    const want = EXPECTED[id];
    expect(r.layerTypes.map((l) => l.name).sort()).toEqual(Object.keys(want).sort());
    for (const lt of r.layerTypes) {
      const w = want[lt.name];
      expect(lt.layers.length).toBe(w.n);
      if (w.layers) expect(lt.layers).toEqual(w.layers);
      for (const [k, key] of [['layout', 'layout'], ['slice', 'slice'], ['head', 'headDim'], ['rot', 'rotaryDim'], ['type', 'ropeType'],
        ['factor', 'factor'], ['theta', 'theta'], ['window', 'window']])
        if (w[k] !== undefined) expect([lt.name, key, lt[key]]).toEqual([lt.name, key, w[k]]);
      if (w.mrope) expect(lt.mrope.axes).toEqual(w.mrope());
      else if (!w.nope) expect(lt.mrope).toBeNull();
      if (w.nope) {
        expect(lt.rope).toBe(false);
        expect(lt.invFreq.length).toBe(0);
      } else {
        const f = w.f();
        relClose(lt.invFreq, f.inv, 1e-12, `${id} ${lt.name} invFreq`);
        expect(Math.abs(lt.cosSinScale - f.scale)).toBeLessThanOrEqual(1e-12 * f.scale);
        expect(Math.abs(lt.softmaxScale - (w.softmax ?? 1))).toBeLessThanOrEqual(1e-12);
        expect(lt.knownKeys.map((k) => k.key).sort()).toEqual((w.known ?? []).sort());
        // per pair: wavelength is 2pi/inv; turns = original context / as-trained wavelength
        for (const p of lt.pairs) {
          if (p.invFreq) expect(Math.abs(p.wavelength * p.invFreq - 2 * Math.PI)).toBeLessThan(1e-9);
          if (p.baseInvFreq) expect(Math.abs(p.turns - (lt.originalContext * p.baseInvFreq) / (2 * Math.PI))).toBeLessThanOrEqual(1e-9 * p.turns);
        }
        const n = Object.values(lt.counts).reduce((a, b) => a + b, 0);
        expect(n).toBe(lt.invFreq.length);
      }
      const q = Array.from(lt.queryScaleAt(POSITIONS));
      const wq = POSITIONS.map((p) => (w.q ? w.q(p) : 1));
      relClose(q, wq, 1e-14, `${id} ${lt.name} query scale`);
      const logit = Array.from(lt.logitScaleAt(POSITIONS));
      relClose(logit, wq.map((x) => x * lt.cosSinScale ** 2 * lt.softmaxScale), 1e-14, `${id} ${lt.name} logit scale`);
    }
  });

  test('pairs faster than the cut-off are kept wherever HF keeps them', () => {
    const r = pe.ropeFromConfig(config(id));
    for (const lt of r.layerTypes.filter((l) => l.rope)) {
      const p = lt.ropeParameters;
      for (const pair of lt.pairs) {
        let keep;
        if (lt.ropeType === 'default') keep = true;
        else if (lt.ropeType === 'linear') keep = false;
        else if (lt.ropeType === 'llama3') keep = pair.baseWavelength < p.original_max_position_embeddings / p.high_freq_factor;
        else if (lt.ropeType === 'yarn') keep = pair.index < ref.refYarn(lt.rotaryDim, lt.theta, p).low; // the ramp is 0 below `low`
        else if (lt.ropeType === 'proportional') keep = pair.baseInvFreq > 0;
        else continue; // longrope: every pair has its own factor
        if (keep) expect([id, lt.name, pair.index, pair.regime]).toEqual([id, lt.name, pair.index, 'kept']);
        // and never kept where HF scales it
        if (lt.ropeType === 'linear' || (lt.ropeType === 'llama3' && pair.baseWavelength > p.original_max_position_embeddings / p.low_freq_factor))
          expect(pair.regime).toBe('interpolated');
      }
    }
  });

  test('the interleaved and half layouts rotate each pair by the same angle', () => {
    const r = pe.ropeFromConfig(config(id));
    for (const lt of r.layerTypes.filter((l) => l.rope && l.ropeType !== 'proportional')) {
      const d = lt.rotaryDim, h = d / 2;
      const scaling = { ...lt.ropeParameters };
      delete scaling.partial_rotary_factor;
      const positions = [0, 1, 777, 4096, 100000];
      const x = new Float32Array(positions.length * d);
      for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 1.7 + 0.3);
      const inter = pe.applyRope(x, { length: positions.length, dim: d, positions, layout: 'interleaved', scaling, seqLen: r.seqLen });
      const xh = new Float32Array(x.length);
      for (let t = 0; t < positions.length; t++)
        for (let i = 0; i < h; i++) { xh[t * d + i] = x[t * d + 2 * i]; xh[t * d + h + i] = x[t * d + 2 * i + 1]; }
      const half = pe.applyRope(xh, { length: positions.length, dim: d, positions, layout: 'half', scaling, seqLen: r.seqLen });
      for (let t = 0; t < positions.length; t++)
        for (let i = 0; i < h; i++) {
          expect(Math.abs(half[t * d + i] - inter[t * d + 2 * i])).toBeLessThan(2e-5 * Math.max(1, lt.cosSinScale));
          expect(Math.abs(half[t * d + h + i] - inter[t * d + 2 * i + 1])).toBeLessThan(2e-5 * Math.max(1, lt.cosSinScale));
        }
      // and the angle is position * invFreq from ropeFromConfig (unit vector (1, 0) in pair i)
      const unit = new Float32Array(d);
      for (let i = 0; i < h; i++) unit[2 * i] = 1;
      const rot = pe.applyRope(unit, { length: 1, dim: d, positions: [777], scaling, seqLen: r.seqLen });
      for (let i = 0; i < h; i++) expect(Math.abs(rot[2 * i] / lt.cosSinScale - Math.cos(777 * lt.invFreq[i]))).toBeLessThan(1e-4);
    }
  });
});

describe('HF rules', () => {
  test('Llama 4 Scout: llama3 with equal band factors has no blended pair', () => {
    const lt = pe.ropeFromConfig(config('llama-4-scout')).layerTypes.find((l) => l.rope);
    expect(lt.counts.blended).toBe(0);
    expect(lt.counts.kept).toBeGreaterThan(0);
    expect(lt.counts.interpolated).toBeGreaterThan(0);
  });

  test('rope_parameters with rope_theta inside, legacy type, top-level partial_rotary_factor', () => {
    const base = { hidden_size: 1024, num_attention_heads: 8, num_hidden_layers: 2, max_position_embeddings: 4096 };
    const a = pe.ropeFromConfig({ ...base, rope_parameters: { rope_type: 'linear', factor: 2, rope_theta: 5e5 } }).layerTypes[0];
    relClose(a.invFreq, ref.refLinear(128, 5e5, 2).inv, 1e-12, 'rope_parameters');
    const b = pe.ropeFromConfig({ ...base, rope_theta: 5e5, rope_scaling: { type: 'linear', factor: 2 } }).layerTypes[0];
    relClose(b.invFreq, a.invFreq, 0, 'legacy type');
    const c = pe.ropeFromConfig({ ...base, partial_rotary_factor: 0.5 }).layerTypes[0];
    expect(c.rotaryDim).toBe(64);
    relClose(c.invFreq, ref.refDefault(64, 10000).inv, 1e-12, 'partial');
    // dynamic at the advertised length is the default; at 4x it follows HF's formula
    const dyn = { ...base, rope_scaling: { rope_type: 'dynamic', factor: 4 } };
    relClose(pe.ropeFromConfig(dyn).layerTypes[0].invFreq, ref.refDefault(128, 10000).inv, 1e-12, 'dynamic at max');
    relClose(pe.ropeFromConfig(dyn, { seqLen: 16384 }).layerTypes[0].invFreq, ref.refDynamic(128, 10000, 4, 4096, 16384).inv, 1e-12, 'dynamic 4x');
    // longrope picks the short factors within the original context (Phi-3.5 at seqLen 4096)
    const short = pe.ropeFromConfig(config('phi-3.5-mini'), { seqLen: 4096 }).layerTypes[0];
    relClose(short.invFreq, ref.refLongrope(96, 10000, { ...phi, original_max_position_embeddings: 4096, max_position_embeddings: 131072 }, 4096).inv, 1e-12, 'short');
  });

  test('unknown keys and bad values are refused with the key and the allowed values', () => {
    const base = { head_dim: 64, num_hidden_layers: 1, max_position_embeddings: 4096 };
    expect(() => pe.ropeFromConfig({ ...base, rope_scaling: { rope_type: 'linear', factor: 2, factr: 3 } }))
      .toThrow(/rope_scaling has an unknown option "factr": allowed .*factor/);
    expect(() => pe.ropeFromConfig({ ...base, rope_scaling: { rope_type: 'ntk', factor: 2 } }))
      .toThrow(/rope_scaling.rope_type must be one of 'default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional'/);
    expect(() => pe.ropeFromConfig({ ...base, rope_scaling: { rope_type: 'linear' } })).toThrow(/rope_scaling.factor must be a finite number > 0 \(got missing\)/);
    expect(() => pe.ropeFromConfig({ ...base, rope_theta: 'NaN' })).toThrow(TypeError);
    expect(() => pe.ropeFromConfig({ ...base, rope_theta: 'NaN' })).toThrow(/rope_theta must be a finite number > 1 \(got "NaN"\)/);
    expect(() => pe.ropeFromConfig({ ...base, rope_scaling: { rope_type: 'linear', factor: 'Infinity' } })).toThrow(/rope_scaling.factor/);
    expect(() => pe.ropeFromConfig({ text_config: { ...base, rope_parameters: { rope_type: 'yarn', factor: -4, original_max_position_embeddings: 1024 } } }))
      .toThrow(/text_config.rope_parameters.factor must be a finite number > 0 \(got -4\)/);
    expect(() => pe.ropeFromConfig({ ...base, layer_types: ['full_attention', 'x'] })).toThrow(/layer_types must be a list of 1 layer type names/);
  });
});

describe('llama.cpp GGUF metadata', () => {
  const gguf = (extra) => ({ 'general.architecture': 'llama', 'llama.attention.head_count': 32, 'llama.embedding_length': 4096,
    'llama.block_count': 32, 'llama.context_length': 131072, 'llama.rope.freq_base': 500000, ...extra });

  test('none and linear are the HF default and linear', () => {
    relClose(pe.ropeFromConfig(gguf({})).layerTypes[0].invFreq, ref.refDefault(128, 500000).inv, 1e-12, 'none');
    const lin = pe.ropeFromConfig(gguf({ 'llama.rope.scaling.type': 'linear', 'llama.rope.scaling.factor': 4 })).layerTypes[0];
    relClose(lin.invFreq, ref.refLinear(128, 500000, 4).inv, 1e-12, 'linear');
  });

  test('yarn follows ggml (ext_factor, attn_factor, floor/ceil corr dims), and differs from HF where truncate is false', () => {
    const meta = { 'llama.rope.scaling.type': 'yarn', 'llama.rope.scaling.factor': 32, 'llama.rope.scaling.original_context_length': 4096,
      'llama.rope.freq_base': 150000, 'llama.rope.dimension_count': 64, 'llama.attention.key_length': 64 };
    const y = pe.ropeFromConfig(gguf(meta)).layerTypes[0];
    const want = ref.refLlamaCppYarn(64, 150000, { factor: 32, nCtxOrig: 4096 });
    relClose(y.invFreq, want.inv, 1e-12, 'gguf yarn');
    expect(Math.abs(y.cosSinScale - want.scale)).toBeLessThan(1e-12);
    // gpt-oss in HF (truncate: false) blends a different band than llama.cpp's floor/ceil
    const hf = pe.ropeFromConfig(config('gpt-oss-20b')).layerTypes[0];
    expect(Array.from(hf.invFreq).some((f, i) => Math.abs(f - y.invFreq[i]) > 1e-6 * f)).toBe(true);
    // the older names: rope.scale_linear for the factor, rope.scaling.attn_factor for the attention factor
    const { 'llama.rope.scaling.factor': f32, ...noFactor } = meta;
    const old = pe.ropeFromConfig(gguf({ ...noFactor, 'llama.rope.scale_linear': f32, 'llama.rope.scaling.attn_factor': 0.9 })).layerTypes[0];
    relClose(old.invFreq, want.inv, 1e-12, 'scale_linear');
    expect(Math.abs(old.cosSinScale - 0.9 * want.scale)).toBeLessThan(1e-12);
    expect(() => pe.ropeFromConfig(gguf({ ...meta, 'llama.rope.scaling.yarn_ext_factor': 2 }))).toThrow(/llama.rope.scaling.yarn_ext_factor must be a number <= 1 \(negative: unset, i.e. 1\) \(got 2\)/);
    const ext = pe.ropeFromConfig(gguf({ ...meta, 'llama.rope.scaling.yarn_ext_factor': 0.5, 'llama.rope.scaling.yarn_attn_factor': 0.9 })).layerTypes[0];
    const want2 = ref.refLlamaCppYarn(64, 150000, { factor: 32, nCtxOrig: 4096, extFactor: 0.5, attnFactor: 0.9 });
    relClose(ext.invFreq, want2.inv, 1e-12, 'ext 0.5');
    expect(Math.abs(ext.cosSinScale - want2.scale)).toBeLessThan(1e-12);
  });

  test('the arch prefix is found without general.architecture; bad values name the key', () => {
    const { 'general.architecture': _, ...noArch } = gguf({});
    expect(pe.ropeFromConfig(noArch).modelType).toBe('llama');
    expect(() => pe.ropeFromConfig(gguf({ 'llama.rope.scaling.type': 'ntk' }))).toThrow(/llama.rope.scaling.type must be one of 'none', 'linear', 'yarn', 'longrope'/);
    expect(() => pe.ropeFromConfig(gguf({ 'llama.rope.scaling.type': 'longrope' }))).toThrow(/rope_factors_long/);
  });
});

describe('hostile pasted JSON', () => {
  const timed = (fn) => {
    const t0 = performance.now();
    let err = null;
    try { fn(); } catch (e) { err = e; }
    return { err, ms: performance.now() - t0 };
  };

  test.each([
    ['a huge array', () => JSON.stringify({ head_dim: 64, rope_scaling: { rope_type: 'longrope', long_factor: new Array(1e6).fill(1) } }), /at most 65536 entries/],
    ['deep nesting', () => '['.repeat(200000) + ']'.repeat(200000), /(nests deeper|not valid JSON|must be a JSON object)/],
    ['deep objects', () => '{"a":'.repeat(100000) + '1' + '}'.repeat(100000), /(nests deeper|not valid JSON)/],
    ['a __proto__ key', () => '{"head_dim": 64, "rope_scaling": {"__proto__": {"factor": 2}, "rope_type": "linear"}}', /"__proto__".*not allowed/],
    ['a number beyond float64', () => '{"head_dim": 64, "rope_theta": 1e400}', /rope_theta must be a finite number/],
    ['not JSON', () => '{"head_dim": NaN}', /not valid JSON/],
    ['too long', () => ' '.repeat(5e6), /at most 4000000 characters/],
    ['many keys', () => JSON.stringify(Object.fromEntries(Array.from({ length: 250000 }, (_, i) => [i.toString(36), 0]))), /more than 200000 values/],
  ])('%s: a clear error, quickly, and the module still works', (what, make, msg) => {
    const text = make();
    const before = pe.heapBytes();
    const { err, ms } = timed(() => pe.ropeFromConfig(text));
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(msg);
    expect(ms).toBeLessThan(5000); // "never a hang": generous for a loaded 2-core machine
    expect(pe.heapBytes()).toBe(before);
    expect(pe.ropeFromConfig(config('llama-3.1-8b')).layerTypes[0].counts.kept).toBeGreaterThan(0);
  });

  test('a getter that throws or a Proxy gives a TypeError, not its own error', () => {
    const evil = { head_dim: 64, get rope_theta() { throw new Error('boom'); } };
    expect(() => pe.ropeFromConfig(evil)).toThrow(TypeError);
    expect(() => pe.ropeFromConfig(new Proxy({}, { ownKeys() { throw new Error('boom'); } }))).toThrow(TypeError);
    expect(() => pe.ropeFromConfig(42)).toThrow(/config must be a JSON object/);
    expect(() => pe.ropeFromConfig({ head_dim: 64 }, { seqLen: -1 })).toThrow(/seqLen must be an integer/);
    expect(() => pe.ropeFromConfig({ head_dim: 64 }, { seq: 1 })).toThrow(/unknown option "seq"/);
  });
});

describe('per-family rules (web/lib/rope-families.js)', () => {
  test('each family row cites its HF file and what posenc reads; every shipped model_type is in the table', () => {
    for (const f of ROPE_FAMILIES) {
      expect(f.source).toMatch(/\.py/);
      expect(f.reads.length).toBeGreaterThan(20);
    }
    for (const id of SHIPPED_CONFIGS.map((c) => c.id)) {
      const r = pe.ropeFromConfig(config(id));
      expect([id, r.family.known]).toEqual([id, true]);
      expect(r.notes.some((n) => /not in posenc's table/.test(n))).toBe(false);
    }
  });

  test('an unknown family is read with the generic rules and says so', () => {
    const r = pe.ropeFromConfig({ model_type: 'brand_new_lm', head_dim: 64, num_hidden_layers: 2, max_position_embeddings: 4096 });
    expect(r.family).toMatchObject({ id: 'generic', known: false });
    expect(r.notes.join(' ')).toMatch(/model_type 'brand_new_lm' is not in posenc's table of families: read with the generic rules/);
    expect(r.layerTypes[0]).toMatchObject({ rope: true, layout: 'half', rotaryDim: 64 });
    const none = pe.ropeFromConfig({ head_dim: 64 });
    expect(none.notes.join(' ')).toMatch(/no model_type: read with the generic rules/);
  });

  test('SmolLM3 and Llama 4 defaults: a NoPE layer every no_rope_layer_interval; SmolLM3 default theta 2e6', () => {
    const s = pe.ropeFromConfig({ model_type: 'smollm3', head_dim: 64, num_hidden_layers: 8, no_rope_layer_interval: 2 });
    expect(s.layerTypes.map((l) => [l.name, l.layers, l.theta])).toEqual([['full_attention', [0, 2, 4, 6], 2e6], ['full_attention (NoPE)', [1, 3, 5, 7], null]]);
    expect(() => pe.ropeFromConfig({ model_type: 'smollm3', head_dim: 64, num_hidden_layers: 4, no_rope_layers: [1, 1, 0] }))
      .toThrow(/no_rope_layers must be a list of at least 4 values 0 or 1/);
  });

  test('EXAONE 4: an "LLLG" pattern string, and no sliding window means RoPE everywhere', () => {
    const base = { model_type: 'exaone4', head_dim: 64, num_hidden_layers: 8, sliding_window: 4096 };
    const r = pe.ropeFromConfig({ ...base, sliding_window_pattern: 'LLLG' });
    expect(r.layerTypes.map((l) => [l.name, l.rope, l.layers])).toEqual([['sliding_attention', true, [0, 1, 2, 4, 5, 6]], ['full_attention', false, [3, 7]]]);
    expect(r.notes.join(' ')).toMatch(/read as its docstring says/);
    const all = pe.ropeFromConfig({ ...base, sliding_window: null, sliding_window_pattern: 4 });
    expect(all.layerTypes.map((l) => [l.name, l.rope, l.layers.length])).toEqual([['full_attention', true, 8]]);
  });

  test('Cohere2 derives head_dim from hidden_size, as its config class does', () => {
    const r = pe.ropeFromConfig({ model_type: 'cohere2', hidden_size: 1024, num_attention_heads: 8, head_dim: 999, num_hidden_layers: 4 });
    expect(r.layerTypes.map((l) => [l.name, l.headDim, l.rope])).toEqual([['sliding_attention', 128, true], ['full_attention', 128, false]]);
    expect(() => pe.ropeFromConfig({ model_type: 'cohere2', num_hidden_layers: 4, sliding_window_pattern: 0, hidden_size: 64, num_attention_heads: 2 }))
      .toThrow(/sliding_window_pattern must be an integer in \[1, 4096\]/);
  });

  test('OLMo 3 with a flat rope_parameters block: full_attention only, with a note', () => {
    const r = pe.ropeFromConfig({ model_type: 'olmo3', head_dim: 64, num_hidden_layers: 4, max_position_embeddings: 65536,
      rope_parameters: { rope_type: 'yarn', factor: 8, original_max_position_embeddings: 8192, rope_theta: 5e5 } });
    expect(r.layerTypes.map((l) => [l.name, l.ropeType])).toEqual([['sliding_attention', 'default'], ['full_attention', 'yarn']]);
    expect(r.notes.join(' ')).toMatch(/one flat block: read like rope_scaling, for full_attention only/);
  });

  test('DeepSeek-V4: both forms agree; bad compress_ratios are named', () => {
    const a = pe.ropeFromConfig(config('deepseek-v4-flash')), b = pe.ropeFromConfig(config('deepseek-v4-flash-hf'));
    expect(a.layerTypes.map((l) => Array.from(l.invFreq))).toEqual(b.layerTypes.map((l) => Array.from(l.invFreq)));
    const bad = { ...config('deepseek-v4-flash'), compress_ratios: [0, 0, 5] };
    expect(() => pe.ropeFromConfig(bad)).toThrow(/compress_ratios\[2\] must be 0, 4 or 128 \(got 5\)/);
    const short = { ...config('deepseek-v4-flash'), compress_ratios: [0, 0] };
    expect(() => pe.ropeFromConfig(short)).toThrow(/must name at least 43 layers/);
    // no compress_ratios and no layer_types: V4-Pro's default (2 heavily compressed, then alternating)
    const { compress_ratios: _, ...none } = config('deepseek-v4-flash');
    const d = pe.ropeFromConfig({ ...none, num_hidden_layers: 6 });
    expect(d.layerTypes.map((l) => [l.name, l.layers])).toEqual([['heavily_compressed_attention', [0, 1, 2, 4]], ['compressed_sparse_attention', [3, 5]]]);
  });
});

describe('contexts: one original and one extended context, inferred ones labelled', () => {
  test("Qwen2.5 with Qwen's YaRN block: 131,072 = factor 4 x original 32,768, inferred", () => {
    const r = pe.ropeFromConfig(config('qwen2.5-7b-yarn'));
    expect(r.contexts.original).toEqual({ value: 32768, inferred: false, how: 'original_max_position_embeddings' });
    expect(r.contexts.extended).toMatchObject({ value: 131072, inferred: true });
    expect(r.contexts.extended.how).toMatch(/factor 4 × original 32,768; max_position_embeddings was left at 32,768/);
    expect(r.layerTypes.every((l) => l.originalContext === 32768 && l.extendedContext === 131072)).toBe(true);
  });

  test('Gemma 3: the original 16,384 is inferred (131,072 / 8), and every layer type uses it', () => {
    const r = pe.ropeFromConfig(config('gemma-3-4b'));
    expect(r.contexts.original).toMatchObject({ value: 16384, inferred: true });
    expect(r.contexts.original.how).toMatch(/131,072 ÷ factor 8/);
    expect(r.contexts.extended).toEqual({ value: 131072, inferred: false, how: 'max_position_embeddings' });
    expect(r.layerTypes.map((l) => [l.originalContext, l.extendedContext])).toEqual([[16384, 131072], [16384, 131072]]);
  });

  test('an unscaled model: original = extended = max_position_embeddings', () => {
    const r = pe.ropeFromConfig(config('qwen2.5-7b'));
    expect([r.contexts.original.value, r.contexts.extended.value, r.contexts.extended.inferred]).toEqual([32768, 32768, false]);
  });
});

describe('describeArchitecture: the facts a Llama-family loader needs', () => {
  test('sizes, norms and per-layer RoPE from the same reading', () => {
    const a = describeArchitecture(config('llama-3.1-8b'));
    expect(a).toMatchObject({ modelType: 'llama', hiddenSize: 4096, numAttentionHeads: 32, numKeyValueHeads: 8, headDim: 128,
      intermediateSize: 14336, rmsNormEps: 1e-5, vocabSize: 128256, tieWordEmbeddings: false, attentionBias: false, maxPositionEmbeddings: 131072 });
    expect(a.layers).toHaveLength(32);
    expect(a.layers[5]).toMatchObject({ index: 5, rope: true, ropeType: 'llama3', theta: 500000, rotaryDim: 128, layout: 'half' });
    const s = describeArchitecture(config('smollm3-3b'));
    expect(s.layers.filter((l) => !l.rope).map((l) => l.index)).toEqual([3, 7, 11, 15, 19, 23, 27, 31, 35]);
    expect(s.tieWordEmbeddings).toBe(true);
    const g = describeArchitecture(config('glm-4-9b-0414'));
    expect(g.layers[0]).toMatchObject({ rotaryDim: 64, headDim: 128, layout: 'interleaved' });
    expect(g.attentionBias).toBe(true);
  });

  test('missing or bad keys are named', () => {
    const base = { hidden_size: 64, num_attention_heads: 4, intermediate_size: 128, vocab_size: 100, rms_norm_eps: 1e-6, max_position_embeddings: 256 };
    expect(describeArchitecture(base).headDim).toBe(16);
    const { intermediate_size: _, ...noInter } = base;
    expect(() => describeArchitecture(noInter)).toThrow(TypeError);
    expect(() => describeArchitecture(noInter)).toThrow(/intermediate_size must be an integer/);
    expect(() => describeArchitecture({ ...base, num_key_value_heads: 3 })).toThrow(/num_key_value_heads must divide num_attention_heads \(4\) \(got 3\)/);
    expect(() => describeArchitecture({ ...base, rms_norm_eps: 0 })).toThrow(RangeError);
    expect(() => describeArchitecture({ ...base, tie_word_embeddings: 'yes' })).toThrow(/tie_word_embeddings must be true or false/);
    expect(() => describeArchitecture({ ...base, vocab_size: 1.5 })).toThrow(/vocab_size must be an integer/);
    expect(() => describeArchitecture({ 'llama.rope.freq_base': 1e4 })).toThrow(/reads an HF config.json/);
  });
});

test("the issue's hand-checked values stay: Llama 3.1 29/29/6, Qwen YaRN cos/sin 1.1386, DeepSeek softmax ×1.8739", () => {
  expect(pe.ropeFromConfig(config('llama-3.1-8b')).layerTypes[0].counts).toEqual({ kept: 29, interpolated: 29, blended: 6, dropped: 0 });
  expect(pe.ropeFromConfig(config('qwen2.5-7b-yarn')).layerTypes[0].cosSinScale.toFixed(4)).toBe('1.1386');
  for (const id of ['deepseek-v3', 'deepseek-v3.2']) expect(pe.ropeFromConfig(config(id)).layerTypes[0].softmaxScale.toFixed(4)).toBe('1.8739');
});
