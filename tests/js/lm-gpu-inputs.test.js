// What the language model hands a second executor of its forward (the browser's GPU forward, web/lib/gpu), in Node on
// stories260K: every tensor the forward reads, once, with bytes that add up to the model's own weight memory; the RoPE
// frequencies a forward rotates by, equal to the encodings API's for the same scaling, and per layer on a tiny Gemma 3
// (its local layers at their own base, unscaled); bad arguments refused by name; and openGpuForward's sentence where
// there is no WebGPU (Node) or no adapter.
import { loadPosenc } from '../../web/lib/index.js';
import { openGpuForward } from '../../web/lib/gpu/forward.js';
import { readShared, sharedTest } from './lm-fixtures.js';
import { familyFiles } from './lm-tiny.js';

let pe, lm;
beforeAll(async () => {
  pe = await loadPosenc();
});
afterAll(() => lm?.delete());
const load = async () => (lm ??= await pe.loadLanguageModel({ model: readShared('stories260K.bin') }));

sharedTest('forwardInputs: every tensor once, in its storage format, adding up to the weight memory', async () => {
  const m = await load(), c = m.config;
  const { family, layers, tensors } = m.forwardInputs();
  expect(family.name).toBe('llama');
  expect(layers).toEqual([]); // a llama2.c file: every layer alike
  const perLayer = ['attn_norm', 'wq', 'wk', 'wv', 'wo', 'ffn_norm', 'gate', 'up', 'down'];
  expect(tensors.map((t) => `${t.kind}/${t.layer}`).sort()).toEqual(['classifier/-1', 'out_norm/-1',
    ...Array.from({ length: c.layers }, (_, l) => perLayer.map((k) => `${k}/${l}`)).flat()].sort()); // tied: no separate embedding
  expect(tensors.every((t) => t.dtype === 'F32' && t.bytes.byteLength === 4 * t.rows * (t.cols || 1))).toBe(true);
  expect(tensors.find((t) => t.kind === 'wk').rows).toBe(c.kvHeads * c.headDim);
  expect(tensors.reduce((n, t) => n + t.bytes.byteLength, 0)).toBe(c.weightBytes);
  // a float32 matrix lies transposed, [cols, rows]: the classifier's element (token 5, channel 3) is at 3 * vocab + 5
  const file = new Float32Array(readShared('stories260K.bin').slice(28).buffer); // the embedding (tied) follows the header
  const cls = tensors.find((t) => t.kind === 'classifier');
  expect(new Float32Array(cls.bytes.slice().buffer)[3 * c.vocabSize + 5]).toBe(file[5 * c.dim + 3]);
});

sharedTest('ropeFrequencies: the encodings API\'s frequencies for the same scaling, with the model\'s context', async () => {
  const m = await load(), c = m.config;
  const none = m.ropeFrequencies(100, null);
  expect(Array.from(none.invFreq)).toEqual(Array.from(pe.ropeFrequencies({ dim: c.rotaryDim, base: c.ropeTheta }).invFreq64));
  expect(none.attentionScale).toBe(1);
  const yarn = m.ropeFrequencies(2048, { rope_type: 'yarn', factor: 4 });
  const want = pe.ropeFrequencies({ dim: c.rotaryDim, base: c.ropeTheta, scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 512 } });
  expect(Array.from(yarn.invFreq)).toEqual(Array.from(want.invFreq64));
  expect(yarn.attentionScale).toBe(want.attentionScale);
  expect(yarn.attentionScale).toBeGreaterThan(1);
  expect(() => m.ropeFrequencies(0)).toThrow(new RangeError('rows must be an integer in [1, 131072] (got 0)'));
  expect(() => m.ropeFrequencies(8, { rope_type: 'nope' })).toThrow(RangeError);
});

test('ropeFrequencies of a layer: its own base, and the scaling only where the layer takes it (Gemma 3)', async () => {
  const g = await pe.loadLanguageModel(familyFiles({ family: 'gemma3_text', seed: 29, dim: 32, layers: 4, heads: 4, kvHeads: 2, headDim: 16, hidden: 48,
    vocab: 41, tied: true, config: { sliding_window: 40, sliding_window_pattern: 2, rope_theta: 1e6, rope_local_base_freq: 1e4 } }));
  try {
    const { layers } = g.forwardInputs(), linear = { rope_type: 'linear', factor: 4 };
    expect(layers.map((l) => [l.theta, l.scaled])).toEqual([[1e4, false], [1e6, true], [1e4, false], [1e6, true]]);
    const base = (theta) => Array.from(pe.ropeFrequencies({ dim: 16, base: theta }).invFreq64);
    expect(Array.from(g.ropeFrequencies(50, linear, 0).invFreq)).toEqual(base(1e4)); // local: unscaled at 1e4
    expect(Array.from(g.ropeFrequencies(50, linear, 1).invFreq)).toEqual(base(1e6).map((f) => f / 4)); // global: linear x4
    expect(Array.from(g.ropeFrequencies(50, linear).invFreq)).toEqual(Array.from(g.ropeFrequencies(50, linear, 3).invFreq));
    expect(() => g.ropeFrequencies(50, null, 4)).toThrow(new RangeError('layer must be an integer in [-1, 3] (got 4)'));
  } finally {
    g.delete();
  }
});

sharedTest('openGpuForward says why not: no WebGPU here, or no adapter', async () => {
  const m = await load();
  expect(await openGpuForward(m)).toEqual({ reason: 'this browser has no WebGPU' });
  expect(await openGpuForward(m, { gpu: { requestAdapter: async () => null } })).toEqual({ reason: 'WebGPU gave no adapter here' });
});
