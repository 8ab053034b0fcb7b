// The tiny model (cpp/src/model/model.cpp, RoPE) as an ONNX graph with our weights, for the
// onnxruntime-web peer (bench/ort.js). Written with onnx-proto (ONNX's own onnx.proto
// compiled by protobufjs): this file only says which standard ops, in which order.
//
// Opset 17 (LayerNormalization). Inputs: tokens int64 [T]; cos2, sin2 float [T, hd]
// (the RoPE tables, [cos, cos] and [sin, sin] per row); mask float [T, T] (0, or -inf
// above the diagonal). Output: logits [T, V]. T is symbolic: one graph for every length.
// Attention keeps the heads as a batch dimension ([H, T, hd] MatMuls, which ORT's MLAS
// runs as one batched GEMM); RoPE's rotate_half is a MatMul by a fixed [hd, hd] matrix R.
//
//   x = wte[tokens]                                                    [T, C]
//   per layer: qkv = LN1(x) Wqkv + b -> [3, H, T, hd];  q = rope(q) / sqrt(hd), k = rope(k)
//              y = softmax(q k^T + mask) v -> [T, C];  x2 = x + y Wproj + b
//              x = x2 + GELU_tanh(LN2(x2) Wfc + b) Wfp + b
//   logits = LNf(x) lm_head
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

const FLOAT = 1, INT64 = 7;
const { AttributeType } = onnx.AttributeProto;

/** ModelProto bytes of the tiny model. weights: bench/lib/weights.js weightsFromCheckpoint(). */
export function exportTinyModel(config, weights) {
  const { layers, heads: H, dModel: C, vocabSize: V } = config, hd = C / H, half = hd / 2;
  const nodes = [], inits = [];
  let n = 0;
  const fresh = (base) => `${base}_${n++}`;
  const init = (name, data, dims, type = FLOAT) => {
    inits.push({ name, dims, dataType: type, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    return name;
  };
  const op = (opType, inputs, attrs = {}, nOut = 1) => {
    const outputs = Array.from({ length: nOut }, () => fresh(opType));
    nodes.push({ opType, input: inputs, output: outputs, name: fresh(`${opType}_node`), attribute: Object.entries(attrs).map(([name, v]) => attr(name, v)) });
    return nOut === 1 ? outputs[0] : outputs;
  };
  const w = (name) => init(name, Float32Array.from(weights.get(name)), weights.tensors.find((t) => t.name === name).shape);
  const scalar = (v) => init(fresh('const'), Float32Array.of(v), []);
  const ints = (vs) => init(fresh('shape'), BigInt64Array.from(vs.map(BigInt)), [vs.length], INT64);
  const layerNorm = (x, name) => op('LayerNormalization', [x, w(`${name}.weight`), w(`${name}.bias`)], { axis: -1, epsilon: 1e-5 });
  const linear = (x, name, bias = true) => {
    const y = op('MatMul', [x, w(`${name}.weight`)]);
    return bias ? op('Add', [y, w(`${name}.bias`)]) : y;
  };
  // rotate_half(x) = [-x2, x1] = x R
  const R = new Float32Array(hd * hd);
  for (let i = 0; i < half; i++) {
    R[(i + half) * hd + i] = -1;
    R[i * hd + i + half] = 1;
  }
  const rot = init('rotate_half', R, [hd, hd]);
  const rope = (x) => op('Add', [op('Mul', [x, 'cos2']), op('Mul', [op('MatMul', [x, rot]), 'sin2'])]);
  const headsShape = ints([-1, 3, H, hd]), mergedShape = ints([-1, C]);
  const idx = [0, 1, 2].map((i) => init(fresh('index'), BigInt64Array.of(BigInt(i)), [], INT64));
  const scale = scalar(1 / Math.sqrt(hd)), half1 = scalar(0.5), one = scalar(1), geluC = scalar(0.044715), geluS = scalar(Math.sqrt(2 / Math.PI));

  let x = op('Gather', [w('wte'), 'tokens'], { axis: 0 });
  for (let l = 0; l < layers; l++) {
    const qkv = linear(layerNorm(x, `h${l}.ln1`), `h${l}.attn.qkv`);
    const heads = op('Transpose', [op('Reshape', [qkv, headsShape])], { perm: [1, 2, 0, 3] }); // [3, H, T, hd]
    const [q, k, v] = idx.map((i) => op('Gather', [heads, i], { axis: 0 }));                  // [H, T, hd]
    const scores = op('Add', [op('MatMul', [op('Mul', [rope(q), scale]), op('Transpose', [rope(k)], { perm: [0, 2, 1] })]), 'mask']);
    const y = op('MatMul', [op('Softmax', [scores], { axis: -1 }), v]);                     // [H, T, hd]
    const merged = op('Reshape', [op('Transpose', [y], { perm: [1, 0, 2] }), mergedShape]);  // [T, C]
    const res2 = op('Add', [x, linear(merged, `h${l}.attn.proj`)]);
    const u = linear(layerNorm(res2, `h${l}.ln2`), `h${l}.mlp.fc`);
    const inner = op('Mul', [op('Add', [u, op('Mul', [op('Mul', [op('Mul', [u, u]), u]), geluC])]), geluS]);
    const gelu = op('Mul', [op('Mul', [u, half1]), op('Add', [one, op('Tanh', [inner])])]);
    x = op('Add', [res2, linear(gelu, `h${l}.mlp.proj`)]);
  }
  const logits = linear(layerNorm(x, 'lnf'), 'lm_head', false);
  nodes.push({ opType: 'Identity', input: [logits], output: ['logits'], name: 'logits_node' });

  const info = (name, type, dims) => ({
    name, type: { tensorType: { elemType: type, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
  });
  const model = {
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'posenc bench/lib/onnx-export.js',
    graph: {
      name: 'posenc_tiny_model',
      node: nodes,
      initializer: inits,
      input: [info('tokens', INT64, ['T']), info('cos2', FLOAT, ['T', hd]), info('sin2', FLOAT, ['T', hd]), info('mask', FLOAT, ['T', 'T'])],
      output: [info('logits', FLOAT, ['T', V])],
    },
  };
  const err = onnx.ModelProto.verify(model);
  if (err) throw new Error(`ONNX model: ${err}`);
  return onnx.ModelProto.encode(onnx.ModelProto.fromObject(model)).finish();
}

function attr(name, v) {
  if (Array.isArray(v)) return { name, type: AttributeType.INTS, ints: v };
  if (Number.isInteger(v) && name !== 'epsilon') return { name, type: AttributeType.INT, i: v };
  return { name, type: AttributeType.FLOAT, f: v };
}

/** The graph's position inputs for length T: RoPE tables (float32 angles, as HF) and the causal mask. */
export function onnxInputs(config, T) {
  const hd = config.dModel / config.heads, half = hd / 2, base = config.ropeBase ?? 10000;
  const cos2 = new Float32Array(T * hd), sin2 = new Float32Array(T * hd), mask = new Float32Array(T * T);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < half; i++) {
      const a = Math.fround(t * Math.fround(1 / Math.pow(base, (2 * i) / hd)));
      cos2[t * hd + i] = cos2[t * hd + i + half] = Math.cos(a);
      sin2[t * hd + i] = sin2[t * hd + i + half] = Math.sin(a);
    }
    mask.fill(-Infinity, t * T + t + 1, (t + 1) * T);
  }
  return { cos2, sin2, mask };
}
