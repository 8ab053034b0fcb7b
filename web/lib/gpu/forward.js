// The language model's forward on the GPU (WebGPU), beside the wasm one: the same steps as the core's (lm_forward.cpp),
// each family's as its row of the core's family table says (lm.forwardInputs().family: q/k norms, norms before and
// after attention and MLP, embedding scale, activation) and each layer's as its rules say (RoPE or none, its base,
// scaled or not, its window), on the weights the core loaded and checked, as they lie (lm.forwardInputs(): uploaded
// once, decoded in the shaders), with the RoPE frequencies the core computes for each layer and the forward's scaling
// (lm.ropeFrequencies()). It returns the per-position NLL the wasm forward returns (equal to float rounding), whole or
// in steps over one cache of keys and values (as lm.stream); attention statistics and maps stay with the wasm forward.
//
//   const gpu = await openGpuForward(lm);      // {forward, stream, delete, adapter} or {reason} (why not here)
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
  const open = forwardOn(device, lm, weights, inputs.layers, inputs.family);
  let deleted = false;
  // the forward's stream over `tokens`, its arguments checked (`what`: the options' name)
  const opened = (tokens, opts, what, keys) => {
    if (deleted) throw new RangeError('this GPU forward was deleted');
    if (lost) throw new Error(`the GPU device was lost (${lost})`);
    const o = v.options(what, opts);
    v.knownKeys(what, o, keys);
    const ids = v.intArray('tokens', tokens, undefined, 0, c.vocabSize - 1);
    if (ids.length < 2 || ids.length > MAX_LENGTH) throw new RangeError(`tokens must hold 2 to ${MAX_LENGTH} ids (got ${ids.length})`);
    const chunk = o.chunk === undefined ? ids.length : v.integer('chunk', o.chunk, 1, MAX_LENGTH);
    return open(ids, ropeTables(lm, inputs.layers, ids.length, o.scaling), chunk);
  };
  const finite = (nll) => v.finiteResult('nll', nll, 'the weights give non-finite activations');
  return {
    adapter: described,
    async forward(tokens, opts) {
      const s = opened(tokens, opts, 'forward options', ['scaling']);
      try {
        return { nll: finite((await s.step(s.length)).nll) };
      } finally {
        s.delete();
      }
    },
    // The same forward in steps over one cache of keys and values (as lm.stream): {length, done, step(n) ->
    // Promise<{from, nll}> (the next n rows, at most `chunk`), delete()}.
    stream(tokens, opts) {
      const s = opened(tokens, opts, 'stream options', ['scaling', 'chunk']);
      return { length: s.length, get done() { return s.done; }, delete: s.delete,
        async step(n) {
          const r = await s.step(v.integer('rows', n, 1, MAX_LENGTH));
          return { from: r.from, nll: finite(r.nll) };
        } };
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

// The forward over a model's uploaded weights, in steps over one cache of keys and values: open(ids, ropes, chunk) ->
// {step(n) -> Promise<{from, nll}> (the next n <= chunk rows, nll[i] predicting token from + i + 1), done, delete()}
// (ropes: ropeTables'). The whole forward is one step of every row.
// long because: it is the GPU forward, read top to bottom as the core's forward is (its buffers, then each layer's
// passes in order, then the loss); split, the one sequence of passes would be spread over helpers passing a dozen buffers.
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

  // Runs fn() (which encodes and submits work) within error scopes; a validation or memory error throws
  async function checked(fn) {
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    let out;
    try {
      out = fn();
    } finally {
      const [oom, invalid] = [await device.popErrorScope(), await device.popErrorScope()];
      if (oom || invalid) throw new Error(`the GPU forward failed: ${(oom ?? invalid).message}`);
    }
    return out;
  }

  // The buffers of a forward over ids (the cache of keys and values of every layer, the activations of `chunk` rows),
  // and its steps.
  // long because: a step's passes for every layer, in the order they run (see forwardOn).
  function open(ids, ropes, chunk) {
    const T = ids.length, C = Math.min(chunk, T);
    let temp = []; // every buffer made, destroyed by delete(); a step's uniforms and read buffer are its own
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
    // keys and values [T, KV] of each layer, filled a step at a time
    const kc = Array.from({ length: c.layers }, () => storage(4 * T * KV)), vc = Array.from({ length: c.layers }, () => storage(4 * T * KV));
    const x = storage(4 * C * D), xn = storage(4 * C * D), q = storage(4 * C * Q), att = storage(4 * C * Q);
    // the q/k norms' inputs and outputs (a shader does not read and write one buffer)
    const qn = family.qkNorm ? storage(4 * C * Q) : null, k = family.qkNorm ? storage(4 * C * KV) : null;
    const ffnRows = Math.max(1, Math.min(C, Math.floor(limit / (4 * F))));
    const g = storage(4 * ffnRows * F), u = storage(4 * ffnRows * F);
    const logitRows = Math.max(1, Math.min(C, Math.floor(Math.min(limit, LOGIT_BYTES) / (4 * V))));
    const logits = storage(4 * logitRows * V);
    const nll = storage(4 * (T - 1), GPUBufferUsage.COPY_SRC);
    const none = storage(16);
    const kept = temp;
    let done = 0, enc = null;
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
    // out[rows, W.rows] (+)= input[rows, W.cols] W^T (+ bias), from row `row0` of input and row `outRow0` of out
    const matmul = (out, input, W, rows, { acc = false, bias = null, row0 = 0, outRow0 = row0 } = {}) => {
      dispatch(pipeline(`mm/${W.dtype}`, matmulShader(W.dtype)),
        [uniform([W.rows, W.cols, rows, acc ? 1 : 0, bias ? 1 : 0, row0 * W.cols, outRow0 * W.rows, 0]), W.buffer, input, out, bias?.buffer ?? none],
        [Math.ceil(W.rows / 64), Math.ceil(rows / MM_ROWS)]);
    };
    // out (+)= rmsnorm(input) g over `rows` rows of d values, from row `row0` of input and row `outRow0` of out
    const rmsnorm = (out, input, w, rows, d, { acc = false, row0 = 0, outRow0 = row0 } = {}) =>
      dispatch(pipeline('rmsnorm', rmsnormShader), [uniform([d, rows, c.normEps, acc ? 1 : 0, row0 * d, outRow0 * d, 0, 0], [2]), input, w.buffer, out], grid(rows));
    // RoPE of n rows at positions P.. of buf, from its row row0
    const rotate = (buf, heads, [cosB, sinB], n, P, row0) =>
      dispatch(pipeline('rope', ropeShader), [uniform([n, heads, hd, c.rotaryDim, interleaved, P, row0, 0]), buf, cosB, sinB], grid(Math.ceil((n * heads * half) / 64)));
    // the layer's q/k norm of `from` [n, width] into `to` from its row outRow (of `width`), per head or over the whole
    // projection as its weight's length (a vector's rows) says
    const qkNorm = (to, from, w, n, width, outRow = 0) => rmsnorm(to, from, w, (n * width) / w.rows, w.rows, { outRow0: (outRow * width) / w.rows });

    // Encodes and submits rows P .. P + n; returns the buffer their NLL will be read from.
    function encode(P, n, predicting) {
      enc = device.createCommandEncoder();
      const E = weight('embed') ?? weight('classifier');
      const embedScale = family.embedScale ? Math.fround(Math.sqrt(D)) : 1; // HF: sqrt(hidden_size) in the embeddings' float32
      dispatch(pipeline(`embed/${E.dtype}`, embedShader(E.dtype)), [uniform([E.rows, E.cols, n, embedScale, P], [3]), E.buffer, tok, x], grid(n));
      // OLMo 2 has no norms before attention and MLP: their inputs are the residual stream itself
      const normed = family.preNorms ? xn : x;
      for (let l = 0; l < c.layers; l++) {
        const w = (kind) => weight(kind, l);
        if (family.preNorms) rmsnorm(xn, x, w('attn_norm'), n, D);
        // q [n, Q]; the step's keys and values into the cache's rows P..
        matmul(q, normed, w('wq'), n, { bias: w('bq') });
        matmul(family.qkNorm ? k : kc[l], normed, w('wk'), n, { bias: w('bk'), outRow0: family.qkNorm ? 0 : P });
        matmul(vc[l], normed, w('wv'), n, { bias: w('bv'), outRow0: P });
        let qr = q;
        if (family.qkNorm) {
          qkNorm(qn, q, w('q_norm'), n, Q);
          qkNorm(kc[l], k, w('k_norm'), n, KV, P);
          qr = qn;
        }
        if (ropes.of[l] >= 0) {
          rotate(qr, H, tables[ropes.of[l]], n, P, 0);
          rotate(kc[l], Hkv, tables[ropes.of[l]], n, P, P);
        }
        dispatch(pipeline(`attention/${hd}`, attentionShader(hd, kt)),
          [uniform([n, H, Hkv, H / Hkv, attnScale, rules[l]?.window ?? 0, P, 0], [4]), qr, kc[l], vc[l], att], [Math.ceil(n / Q_TILE), H]);
        if (family.postNorms) { // x += rmsnorm(att wo)
          matmul(xn, att, w('wo'), n);
          rmsnorm(x, xn, w('attn_post_norm'), n, D, { acc: true });
        } else {
          matmul(x, att, w('wo'), n, { acc: true });
        }
        if (family.preNorms) rmsnorm(xn, x, w('ffn_norm'), n, D);
        for (let r0 = 0; r0 < n; r0 += ffnRows) {
          const m = Math.min(ffnRows, n - r0);
          const G = w('gate'), U = w('up'), Dn = w('down');
          // g, u [m, F] from rows r0.. of the MLP's input; x rows r0.. += down(act(g) * u), or with post-norms
          // x += rmsnorm(down(...)), down's rows (scratch) in xn's rows r0.., which the block has read
          dispatch(pipeline(`mm/${G.dtype}`, matmulShader(G.dtype)), [uniform([F, D, m, 0, 0, r0 * D, 0, 0]), G.buffer, normed, g, none], [Math.ceil(F / 64), Math.ceil(m / MM_ROWS)]);
          dispatch(pipeline(`mm/${U.dtype}`, matmulShader(U.dtype)), [uniform([F, D, m, 0, 0, r0 * D, 0, 0]), U.buffer, normed, u, none], [Math.ceil(F / 64), Math.ceil(m / MM_ROWS)]);
          dispatch(pipeline('gate', gateShader), [uniform([m * F, family.activation, 0, 0]), g, u], grid(Math.ceil((m * F) / 64)));
          if (family.postNorms) {
            dispatch(pipeline(`mm/${Dn.dtype}`, matmulShader(Dn.dtype)), [uniform([D, F, m, 0, 0, 0, r0 * D, 0]), Dn.buffer, g, xn, none], [Math.ceil(D / 64), Math.ceil(m / MM_ROWS)]);
            rmsnorm(x, xn, w('ffn_post_norm'), m, D, { acc: true, row0: r0 });
          } else {
            dispatch(pipeline(`mm/${Dn.dtype}`, matmulShader(Dn.dtype)), [uniform([D, F, m, 1, 0, 0, r0 * D, 0]), Dn.buffer, g, x, none], [Math.ceil(D / 64), Math.ceil(m / MM_ROWS)]);
          }
        }
        flush();
      }
      // the NLL of the step's rows that predict a token (global rows P + r)
      rmsnorm(xn, x, weight('out_norm'), n, D);
      const Wc = weight('classifier');
      for (let r0 = 0; r0 < predicting; r0 += logitRows) {
        const m = Math.min(logitRows, predicting - r0);
        dispatch(pipeline(`mm/${Wc.dtype}`, matmulShader(Wc.dtype)), [uniform([V, D, m, 0, 0, r0 * D, 0, 0]), Wc.buffer, xn, logits, none], [Math.ceil(V / 64), Math.ceil(m / MM_ROWS)]);
        dispatch(pipeline('nll', nllShader), [uniform([V, m, P + r0, T]), logits, tok, nll], grid(m));
        flush();
      }
      const read = device.createBuffer({ size: Math.max(16, 4 * predicting), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      temp.push(read);
      if (predicting) enc.copyBufferToBuffer(nll, 4 * P, read, 0, 4 * predicting);
      flush();
      return read;
    }

    return {
      length: T,
      get done() { return done; },
      async step(rows) {
        const P = done, n = Math.min(rows, C, T - P), predicting = Math.min(n, T - 1 - P);
        temp = [];
        try {
          const read = await checked(() => encode(P, n, predicting));
          await read.mapAsync(GPUMapMode.READ);
          const out = new Float32Array(read.getMappedRange().slice(0, 4 * predicting));
          done = P + n;
          return { from: P, nll: out };
        } finally {
          for (const b of temp) b.destroy();
          temp = kept;
        }
      },
      delete() {
        for (const b of kept) b.destroy();
        kept.length = 0;
      },
    };
  }

  return open;
}
