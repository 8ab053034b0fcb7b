// The language model's forward on the GPU (WebGPU), beside the wasm one: the same steps as the core's (lm_forward.cpp),
// each family's as its row of the core's family table says (lm.forwardInputs().family: q/k norms, norms before and
// after attention and MLP, embedding scale, activation) and each layer's as its rules say (RoPE or none, its base,
// scaled or not, its window), on the weights the core loaded and checked, as they lie (lm.forwardInputs(): uploaded
// once, decoded in the shaders), with the RoPE frequencies the core computes for each layer and the forward's scaling
// (lm.ropeFrequencies()). It returns the per-position NLL the wasm forward returns (equal to float
// rounding); attention statistics, maps and forwards in parts stay with the wasm forward.
//
//   const gpu = await openGpuForward(lm);      // {forward, delete, adapter} or {reason} (why not here)
//   if (gpu.forward) { const { nll } = await gpu.forward(ids, { scaling }); gpu.delete(); }
import * as v from '../validate.js';
import { GPU_DTYPES } from './weights.js';
import { grid, MM_ROWS, matmulShader, embedShader, rmsnormShader, ropeShader, gateShader, nllShader } from './kernels.js';
import { attentionShader, keyTile, Q_TILE } from './attention.js';

const MAX_LENGTH = 1 << 17; // posenc::lm::kMaxLength
const MAX_HEAD_DIM = 256;   // the attention shader keeps a row's query and output in registers
const WORKGROUP_BYTES = 16384; // WebGPU's guaranteed workgroup memory: the attention's key tile fits in it
const LOGIT_BYTES = 64 << 20;  // the logits of a block of rows at a time
const megabytes = (n) => `${Math.round(n / 1e6)} MB`;

/** Why the GPU forward cannot run this model (a sentence), or '' when it can. `inputs`: lm.forwardInputs(). */
export function gpuUnsupported(lm, inputs) {
  const f = inputs.family, c = lm.config;
  // the gate shader's activations are lm.hpp's Activation values 0 (SiLU) and 1 (GELU, tanh); q/k norms are applied
  // as their weights' lengths say (a head's channels, or the whole projection)
  if (f.activation > 1) return `the GPU forward does not run ${f.label}'s MLP activation`;
  const norm = inputs.tensors.find((t) => (t.kind === 'q_norm' || t.kind === 'k_norm') && t.rows !== c.headDim
    && t.rows !== (t.kind === 'q_norm' ? c.heads : c.kvHeads) * c.headDim);
  if (norm) return `the GPU forward normalizes queries and keys per head or over the whole projection, not over ${norm.rows} channels`;
  const dtype = inputs.tensors.find((t) => !GPU_DTYPES.includes(t.dtype))?.dtype;
  if (dtype) return `the GPU forward decodes ${GPU_DTYPES.join(', ')} weights, and this model has ${dtype} ones`;
  if (c.headDim > MAX_HEAD_DIM) return `the GPU forward takes heads of up to ${MAX_HEAD_DIM} channels (this model's have ${c.headDim})`;
  return '';
}

/**
 * The GPU forward for `lm` (a loaded language model), its weights uploaded: {forward(tokens, {scaling}) -> Promise<{nll}>,
 * delete(), adapter (the adapter's description, a short phrase)}; or {reason} (a sentence) when this browser, its GPU or
 * the model does not allow it. gpu: navigator.gpu by default.
 */
export async function openGpuForward(lm, { gpu = globalThis.navigator?.gpu } = {}) {
  if (!gpu) return { reason: 'this browser has no WebGPU' };
  const inputs = lm.forwardInputs();
  const why = gpuUnsupported(lm, inputs);
  if (why) return { reason: why };
  const adapter = await gpu.requestAdapter().catch(() => null);
  if (!adapter) return { reason: 'WebGPU gave no adapter here' };
  const c = lm.config, limit = Math.min(adapter.limits.maxStorageBufferBindingSize, adapter.limits.maxBufferSize);
  const widest = Math.max(c.dim, c.heads * c.headDim, c.hiddenDim) * 4;
  const big = inputs.tensors.find((t) => t.bytes.byteLength > limit);
  if (big) return { reason: `its ${big.kind} weights take ${megabytes(big.bytes.byteLength)}, more than the ${megabytes(limit)} this GPU allows in one buffer` };
  if (4 * c.vocabSize > limit || widest > limit) return { reason: `a row of its activations is larger than the ${megabytes(limit)} this GPU allows in one buffer` };
  let device;
  try {
    device = await adapter.requestDevice({ requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize } });
  } catch (e) {
    return { reason: `WebGPU gave no device (${e?.message ?? e})` };
  }
  let lost = null;
  device.lost.then((info) => { lost = info.message || info.reason || 'lost'; });
  device.pushErrorScope('out-of-memory');
  // the tensors' views taken again after the awaits (the module's memory may have grown meanwhile), and copied at once
  const weights = upload(device, lm.forwardInputs().tensors);
  const oom = await device.popErrorScope();
  if (oom) {
    for (const w of weights.values()) w.buffer.destroy();
    device.destroy();
    return { reason: `its weights do not fit in this GPU's memory (${oom.message})` };
  }
  const info = adapter.info ?? {};
  const described = [info.vendor, info.architecture].filter(Boolean).join(' ') || 'an adapter';
  const run = forwardOn(device, lm, weights, inputs.layers, inputs.family);
  let deleted = false;
  return {
    adapter: described,
    async forward(tokens, opts) {
      if (deleted) throw new RangeError('this GPU forward was deleted');
      if (lost) throw new Error(`the GPU device was lost (${lost})`);
      const o = v.options('forward options', opts);
      v.knownKeys('forward options', o, ['scaling']);
      const ids = v.intArray('tokens', tokens, undefined, 0, c.vocabSize - 1);
      if (ids.length < 2 || ids.length > MAX_LENGTH) throw new RangeError(`tokens must hold 2 to ${MAX_LENGTH} ids (got ${ids.length})`);
      return { nll: v.finiteResult('nll', await run(ids, ropeTables(lm, inputs.layers, ids.length, o.scaling)), 'the weights give non-finite activations') };
    },
    delete() {
      if (deleted) return;
      deleted = true;
      for (const w of weights.values()) w.buffer.destroy();
      device.destroy();
    },
  };
}

// Every tensor in a storage buffer of its own (padded to 4 bytes): Map `${kind}/${layer}` -> {buffer, dtype, rows, cols}.
function upload(device, tensors) {
  const out = new Map();
  for (const t of tensors) {
    const n = t.bytes.byteLength, whole = n & ~3;
    const buffer = device.createBuffer({ size: Math.max(4, (n + 3) & ~3), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    if (whole) device.queue.writeBuffer(buffer, 0, t.bytes, 0, whole);
    if (n > whole) {
      const tail = new Uint8Array(4);
      tail.set(t.bytes.subarray(whole));
      device.queue.writeBuffer(buffer, whole, tail);
    }
    out.set(`${t.kind}/${t.layer}`, { buffer, dtype: t.dtype, rows: t.rows, cols: t.cols });
  }
  return out;
}

// The RoPE of each layer over `rows` positions, from the core (the scaling checked there, as the wasm forward's):
// {tables: [{invFreq, attentionScale}], of: [layer -> its table, or -1 where the layer has no RoPE]}, one table per
// base and scaled-or-not that the layers use (Gemma 3: its local and its global layers). rules: forwardInputs().layers
// (none: every layer alike).
function ropeTables(lm, rules, rows, scaling) {
  const keys = new Map(), tables = [], of = [];
  for (let l = 0; l < lm.config.layers; l++) {
    const r = rules[l] ?? { rope: true, theta: 0, scaled: true };
    if (!r.rope) { of.push(-1); continue; }
    const key = `${r.theta}/${r.scaled}`;
    if (!keys.has(key)) {
      keys.set(key, tables.length);
      tables.push(lm.ropeFrequencies(rows, scaling, l));
    }
    of.push(keys.get(key));
  }
  return { tables, of };
}

// The forward over a model's uploaded weights: run(ids, ropes) -> Promise<Float32Array nll [T-1]> (ropes: ropeTables').
function forwardOn(device, lm, weights, rules, family) {
  const c = lm.config, D = c.dim, F = c.hiddenDim, H = c.heads, Hkv = c.kvHeads, hd = c.headDim, V = c.vocabSize;
  const Q = H * hd, KV = Hkv * hd;
  const pipelines = new Map();
  const pipeline = (key, code) => {
    if (!pipelines.has(key))
      pipelines.set(key, device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code }), entryPoint: 'main' } }));
    return pipelines.get(key);
  };
  const kt = keyTile(hd, WORKGROUP_BYTES);
  const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  const weight = (kind, layer = -1) => weights.get(`${kind}/${layer}`);
  const attnScale = Math.fround(1 / Math.fround(Math.sqrt(c.attnScalar > 0 ? c.attnScalar : hd)));
  const interleaved = c.layout === 'interleaved' ? 1 : 0;

  return async function run(ids, ropes) {
    const temp = [];
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    let read;
    try {
      read = encode(ids, ropes, temp);
    } finally {
      const [oom, invalid] = [await device.popErrorScope(), await device.popErrorScope()];
      if (oom || invalid) {
        for (const b of temp) b.destroy();
        throw new Error(`the GPU forward failed: ${(oom ?? invalid).message}`);
      }
    }
    try {
      await read.mapAsync(GPUMapMode.READ);
      return new Float32Array(read.getMappedRange().slice(0, 4 * (ids.length - 1)));
    } finally {
      for (const b of temp) b.destroy();
    }
  };

  // Encodes and submits the forward over ids; returns the buffer the NLL will be read from. Every buffer it makes
  // goes into temp.
  function encode(ids, ropes, temp) {
    const T = ids.length;
    const storage = (bytes, extra = 0) => {
      const b = device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 4) * 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | extra });
      temp.push(b);
      return b;
    };
    const filled = (array) => {
      const b = storage(array.byteLength);
      device.queue.writeBuffer(b, 0, array);
      return b;
    };
    // 32 bytes of parameters: u32 values, and f32 where `floats` names the slot
    const uniform = (values, floats = []) => {
      const data = new DataView(new ArrayBuffer(32));
      values.forEach((x, i) => (floats.includes(i) ? data.setFloat32(4 * i, x, true) : data.setUint32(4 * i, x, true)));
      const b = device.createBuffer({ size: 32, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(b, 0, data.buffer);
      temp.push(b);
      return b;
    };
    const half = c.rotaryDim / 2;
    // cos and sin [T, half] of each RoPE table
    const tables = ropes.tables.map((rope) => {
      const cos = new Float32Array(T * half), sin = new Float32Array(T * half);
      for (let t = 0; t < T; t++)
        for (let i = 0; i < half; i++) {
          const a = t * rope.invFreq[i];
          cos[t * half + i] = Math.cos(a) * rope.attentionScale;
          sin[t * half + i] = Math.sin(a) * rope.attentionScale;
        }
      return [filled(cos), filled(sin)];
    });
    const tok = filled(Uint32Array.from(ids));
    const x = storage(4 * T * D), xn = storage(4 * T * D), q = storage(4 * T * Q), k = storage(4 * T * KV), vb = storage(4 * T * KV);
    const att = storage(4 * T * Q);
    // the q/k norms' outputs (a shader does not read and write one buffer)
    const qn = family.qkNorm ? storage(4 * T * Q) : null, kn = family.qkNorm ? storage(4 * T * KV) : null;
    const ffnRows = Math.max(1, Math.min(T, Math.floor(limit / (4 * F))));
    const g = storage(4 * ffnRows * F), u = storage(4 * ffnRows * F);
    const logitRows = Math.max(1, Math.min(T, Math.floor(Math.min(limit, LOGIT_BYTES) / (4 * V))));
    const logits = storage(4 * logitRows * V);
    const nll = storage(4 * (T - 1), GPUBufferUsage.COPY_SRC);
    const none = storage(16);
    const read = device.createBuffer({ size: Math.max(16, 4 * (T - 1)), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    temp.push(read);

    let enc = device.createCommandEncoder();
    const dispatch = (pipe, buffers, [gx, gy = 1]) => {
      const pass = enc.beginComputePass();
      pass.setPipeline(pipe);
      pass.setBindGroup(0, device.createBindGroup({ layout: pipe.getBindGroupLayout(0),
        entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })) }));
      pass.dispatchWorkgroups(gx, gy);
      pass.end();
    };
    const flush = () => {
      device.queue.submit([enc.finish()]);
      enc = device.createCommandEncoder();
    };
    // out[rows, W.rows] (+)= input[rows, W.cols] W^T (+ bias), from row `row0` of input and out
    const matmul = (out, input, W, rows, { acc = false, bias = null, row0 = 0 } = {}) => {
      dispatch(pipeline(`mm/${W.dtype}`, matmulShader(W.dtype)),
        [uniform([W.rows, W.cols, rows, acc ? 1 : 0, bias ? 1 : 0, row0 * W.cols, row0 * W.rows, 0]), W.buffer, input, out, bias?.buffer ?? none],
        [Math.ceil(W.rows / 64), Math.ceil(rows / MM_ROWS)]);
    };
    // out (+)= rmsnorm(input) g over `rows` rows of d values, from row `row0` of both
    const rmsnorm = (out, input, w, rows, d, { acc = false, row0 = 0 } = {}) =>
      dispatch(pipeline('rmsnorm', rmsnormShader), [uniform([d, rows, c.normEps, acc ? 1 : 0, row0 * d, row0 * d, 0, 0], [2]), input, w.buffer, out], grid(rows));
    const rotate = (buf, heads, [cosB, sinB]) =>
      dispatch(pipeline('rope', ropeShader), [uniform([T, heads, hd, c.rotaryDim, interleaved, 0, 0, 0]), buf, cosB, sinB], grid(Math.ceil((T * heads * half) / 64)));
    // the layer's q/k norm of `from` [T, n] into `to`, per head or over the whole projection as its weight's length
    // (a vector's rows) says
    const qkNorm = (to, from, w, n) => rmsnorm(to, from, w, (T * n) / w.rows, w.rows);

    const E = weight('embed') ?? weight('classifier');
    const embedScale = family.embedScale ? Math.fround(Math.sqrt(D)) : 1; // HF: sqrt(hidden_size) in the embeddings' float32
    dispatch(pipeline(`embed/${E.dtype}`, embedShader(E.dtype)), [uniform([E.rows, E.cols, T, embedScale], [3]), E.buffer, tok, x], grid(T));
    // OLMo 2 has no norms before attention and MLP: their inputs are the residual stream itself
    const normed = family.preNorms ? xn : x;
    for (let l = 0; l < c.layers; l++) {
      const w = (kind) => weight(kind, l);
      if (family.preNorms) rmsnorm(xn, x, w('attn_norm'), T, D);
      matmul(q, normed, w('wq'), T, { bias: w('bq') });
      matmul(k, normed, w('wk'), T, { bias: w('bk') });
      matmul(vb, normed, w('wv'), T, { bias: w('bv') });
      let qr = q, kr = k;
      if (family.qkNorm) {
        qkNorm(qn, q, w('q_norm'), Q);
        qkNorm(kn, k, w('k_norm'), KV);
        [qr, kr] = [qn, kn];
      }
      if (ropes.of[l] >= 0) {
        rotate(qr, H, tables[ropes.of[l]]);
        rotate(kr, Hkv, tables[ropes.of[l]]);
      }
      dispatch(pipeline(`attention/${hd}`, attentionShader(hd, kt)),
        [uniform([T, H, Hkv, H / Hkv, attnScale, rules[l]?.window ?? 0, 0, 0], [4]), qr, kr, vb, att], [Math.ceil(T / Q_TILE), H]);
      if (family.postNorms) { // x += rmsnorm(att wo)
        matmul(xn, att, w('wo'), T);
        rmsnorm(x, xn, w('attn_post_norm'), T, D, { acc: true });
      } else {
        matmul(x, att, w('wo'), T, { acc: true });
      }
      if (family.preNorms) rmsnorm(xn, x, w('ffn_norm'), T, D);
      for (let r0 = 0; r0 < T; r0 += ffnRows) {
        const n = Math.min(ffnRows, T - r0);
        const G = w('gate'), U = w('up'), Dn = w('down');
        // g, u [n, F] from rows r0.. of the MLP's input; x rows r0.. += down(act(g) * u), or with post-norms
        // x += rmsnorm(down(...)), down's rows (scratch) in xn's rows r0.., which the block has read
        dispatch(pipeline(`mm/${G.dtype}`, matmulShader(G.dtype)), [uniform([F, D, n, 0, 0, r0 * D, 0, 0]), G.buffer, normed, g, none], [Math.ceil(F / 64), Math.ceil(n / MM_ROWS)]);
        dispatch(pipeline(`mm/${U.dtype}`, matmulShader(U.dtype)), [uniform([F, D, n, 0, 0, r0 * D, 0, 0]), U.buffer, normed, u, none], [Math.ceil(F / 64), Math.ceil(n / MM_ROWS)]);
        dispatch(pipeline('gate', gateShader), [uniform([n * F, family.activation, 0, 0]), g, u], grid(Math.ceil((n * F) / 64)));
        if (family.postNorms) {
          dispatch(pipeline(`mm/${Dn.dtype}`, matmulShader(Dn.dtype)), [uniform([D, F, n, 0, 0, 0, r0 * D, 0]), Dn.buffer, g, xn, none], [Math.ceil(D / 64), Math.ceil(n / MM_ROWS)]);
          rmsnorm(x, xn, w('ffn_post_norm'), n, D, { acc: true, row0: r0 });
        } else {
          dispatch(pipeline(`mm/${Dn.dtype}`, matmulShader(Dn.dtype)), [uniform([D, F, n, 1, 0, 0, r0 * D, 0]), Dn.buffer, g, x, none], [Math.ceil(D / 64), Math.ceil(n / MM_ROWS)]);
        }
      }
      flush();
    }
    rmsnorm(xn, x, weight('out_norm'), T, D);
    const C = weight('classifier');
    for (let r0 = 0; r0 < T - 1; r0 += logitRows) {
      const n = Math.min(logitRows, T - r0);
      dispatch(pipeline(`mm/${C.dtype}`, matmulShader(C.dtype)), [uniform([V, D, n, 0, 0, r0 * D, 0, 0]), C.buffer, xn, logits, none], [Math.ceil(V / 64), Math.ceil(n / MM_ROWS)]);
      dispatch(pipeline('nll', nllShader), [uniform([V, n, r0, T]), logits, tok, nll], grid(n));
      flush();
    }
    enc.copyBufferToBuffer(nll, 0, read, 0, 4 * (T - 1));
    flush();
    return read;
  }
}
