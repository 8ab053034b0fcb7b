// A GGUF v3 file written by the tests (key-values and tensors), and the HF -> GGUF conversion as llama.cpp's
// convert_hf_to_gguf.py does it for each family of the core's table: its tensor names, the q/k row permutation of the
// families whose llama.cpp rope type is NORM (llama, smollm3), Gemma's norm weights stored + 1, Phi-3's fused tensors and
// LongRoPE factors as tensors, llama3 scaling as rope_freqs.weight, and the metadata keys llama.cpp reads. Written
// from that converter's published behaviour; it shares no code with the core's reader. Plain ESM with no Node imports,
// so the browser suites use it too.

// ggml type ids (ggml.h)
export const GGML = { F32: 0, F16: 1, Q4_0: 2, Q4_1: 3, Q5_0: 6, Q5_1: 7, Q8_0: 8, Q2_K: 10, Q3_K: 11, Q4_K: 12, Q5_K: 13, Q6_K: 14, BF16: 30 };
// ggml's block layouts (ggml-common.h), per format: [values per block, bytes per block, byte offsets of its float16
// scales, the largest |value| / scale its integer parts give] (e.g. Q4_K's d * 6-bit scale * 4-bit value: 63 * 15)
export const BLOCKS = { Q4_0: [32, 18, [0], 8], Q4_1: [32, 20, [0, 2], 15], Q5_0: [32, 22, [0], 16], Q5_1: [32, 24, [0, 2], 31],
  Q8_0: [32, 34, [0], 128], Q2_K: [256, 84, [80, 82], 45], Q3_K: [256, 110, [108], 128], Q4_K: [256, 144, [0, 2], 945],
  Q5_K: [256, 176, [0, 2], 1953], Q6_K: [256, 210, [208], 4096] };

/** float16 bits of v > 0 (normal or subnormal), rounded to nearest. */
export function f16Bits(v) {
  if (v < 2 ** -14) return Math.round(v / 2 ** -24);
  const e = Math.floor(Math.log2(v));
  const m = Math.round((v / 2 ** e - 1) * 1024);
  return m === 1024 ? (e + 16) << 10 : ((e + 15) << 10) | m;
}

/**
 * `n` values of `format` as random blocks: every byte random (rnd() in [0, 1)), then each float16 scale set in
 * [s, 2 s) with s = amplitude / (the format's largest |value| / scale), so values reach about `amplitude`. Any bit
 * pattern is a valid block.
 */
export function randomBlocks(format, n, rnd, amplitude) {
  const [block, bytes, scales, most] = BLOCKS[format];
  const count = n / block, out = new Uint8Array(count * bytes);
  for (let i = 0; i < out.length; i++) out[i] = Math.floor(rnd() * 256);
  for (let b = 0; b < count; b++)
    for (const at of scales) { const h = f16Bits((amplitude / most) * (1 + rnd())); out[b * bytes + at] = h & 255; out[b * bytes + at + 1] = h >> 8; }
  return out;
}

const KV = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 };

class Bytes {
  constructor() { this.buf = new Uint8Array(1 << 16); this.n = 0; this.view = new DataView(this.buf.buffer); }
  room(k) {
    if (this.n + k <= this.buf.length) return;
    const b = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
    b.set(this.buf.subarray(0, this.n));
    this.buf = b;
    this.view = new DataView(b.buffer);
  }
  u32(x) { this.room(4); this.view.setUint32(this.n, x, true); this.n += 4; }
  i32(x) { this.room(4); this.view.setInt32(this.n, x, true); this.n += 4; }
  u64(x) { this.room(8); this.view.setBigUint64(this.n, BigInt(x), true); this.n += 8; }
  f32(x) { this.room(4); this.view.setFloat32(this.n, x, true); this.n += 4; }
  u8(x) { this.room(1); this.buf[this.n++] = x; }
  str(s) { const b = new TextEncoder().encode(s); this.u64(b.length); this.raw(b); }
  raw(b) { this.room(b.length); this.buf.set(b, this.n); this.n += b.length; }
  pad(a) { while (this.n % a) this.u8(0); }
  bytes() { return this.buf.slice(0, this.n); }
}

function value(out, type, v) {
  if (type === 'string') out.str(v);
  else if (type === 'bool') out.u8(v ? 1 : 0);
  else out[type](v);
}

/**
 * A GGUF v3 file. kv: [key, type, value] with type 'u32', 'i32', 'f32', 'bool', 'string' or ['array', element type]
 * (value an array); tensors: {name, shape (outermost first, as PyTorch), type (a GGML id), bytes (Uint8Array)}.
 */
export function ggufFile({ kv, tensors }) {
  const out = new Bytes();
  out.u32(0x46554747);
  out.u32(3);
  out.u64(tensors.length);
  out.u64(kv.length);
  for (const [key, type, v] of kv) {
    out.str(key);
    if (Array.isArray(type)) {
      out.u32(KV.array);
      out.u32(KV[type[1]]);
      out.u64(v.length);
      for (const x of v) value(out, type[1], x);
    } else {
      out.u32(KV[type]);
      value(out, type, v);
    }
  }
  let at = 0;
  const offsets = tensors.map((t) => { const o = Math.ceil(at / 32) * 32; at = o + t.bytes.length; return o; });
  tensors.forEach((t, i) => {
    out.str(t.name);
    out.u32(t.shape.length);
    for (const d of [...t.shape].reverse()) out.u64(d); // GGUF: fastest dimension first
    out.u32(t.type);
    out.u64(offsets[i]);
  });
  out.pad(32);
  const start = out.n;
  tensors.forEach((t, i) => {
    while (out.n < start + offsets[i]) out.u8(0);
    out.raw(t.bytes);
  });
  return out.bytes();
}

export const f32Bytes = (a) => new Uint8Array(Float32Array.from(a).buffer);

/** The F32 tensors of a safetensors file: [{name, shape, data: Float32Array}]. */
export function readSafetensors(file) {
  const n = Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + n)));
  return Object.entries(header).filter(([k]) => k !== '__metadata__').map(([name, h]) => {
    if (h.dtype !== 'F32') throw new Error(`readSafetensors: ${name} is ${h.dtype}`);
    const b = file.slice(8 + n + h.data_offsets[0], 8 + n + h.data_offsets[1]);
    return { name, shape: h.shape, data: new Float32Array(b.buffer) };
  });
}

// llama.cpp's name for each HF tensor of a layer (gguf-py's tensor_mapping), per family where they differ.
function ggufName(hf, arch) {
  const top = { 'model.embed_tokens.weight': 'token_embd.weight', 'model.norm.weight': 'output_norm.weight', 'lm_head.weight': 'output.weight' };
  if (top[hf]) return top[hf];
  const m = /^model\.layers\.(\d+)\.(.+)$/.exec(hf);
  const post = arch === 'gemma3' || arch === 'olmo2'; // post_attention_layernorm: the attention output's norm
  const parts = {
    'input_layernorm.weight': 'attn_norm', 'post_attention_layernorm.weight': post ? 'post_attention_norm' : 'ffn_norm',
    'pre_feedforward_layernorm.weight': 'ffn_norm', 'post_feedforward_layernorm.weight': 'post_ffw_norm',
    'self_attn.q_proj.weight': 'attn_q', 'self_attn.k_proj.weight': 'attn_k', 'self_attn.v_proj.weight': 'attn_v', 'self_attn.o_proj.weight': 'attn_output',
    'self_attn.q_norm.weight': 'attn_q_norm', 'self_attn.k_norm.weight': 'attn_k_norm', 'self_attn.qkv_proj.weight': 'attn_qkv',
    'mlp.gate_proj.weight': 'ffn_gate', 'mlp.up_proj.weight': 'ffn_up', 'mlp.down_proj.weight': 'ffn_down', 'mlp.gate_up_proj.weight': 'ffn_up',
  };
  if (!m || !parts[m[2]]) throw new Error(`ggufName: no GGUF name for ${hf}`);
  return `blk.${m[1]}.${parts[m[2]]}.weight`;
}

// LlamaModel.permute: rows of each head reordered from [first half | second half] to interleaved pairs.
function permute(data, shape, heads) {
  const [rows, cols] = shape, hd = rows / heads, out = new Float32Array(data.length);
  for (let h = 0; h < heads; h++)
    for (let two = 0; two < 2; two++)
      for (let j = 0; j < hd / 2; j++)
        out.set(data.subarray((h * hd + two * (hd / 2) + j) * cols, (h * hd + two * (hd / 2) + j + 1) * cols), (h * hd + 2 * j + two) * cols);
  return out;
}

// The converter's llama3 factors (LlamaModel.generate_extra_tensors): float32 frequencies, then per pair 1, factor, or
// 1 / ((1 - smooth) / factor + smooth).
export function llama3RopeFreqs({ theta, dim, factor, low_freq_factor: low, high_freq_factor: high, original_max_position_embeddings: old }) {
  const out = [];
  for (let i = 0; i < dim; i += 2) {
    const freq = Math.fround(1 / Math.fround(theta ** (i / dim)));
    const wavelen = (2 * Math.PI) / freq;
    if (wavelen < old / high) out.push(1);
    else if (wavelen > old / low) out.push(factor);
    else {
      const smooth = (old / wavelen - low) / (high - low);
      out.push(1 / ((1 - smooth) / factor + smooth));
    }
  }
  return out;
}

// The families llama.cpp names (general.architecture) by config.json model_type; NORM rope (q/k permuted) for two.
const ARCH = { llama: 'llama', qwen2: 'qwen2', qwen3: 'qwen3', smollm3: 'smollm3', olmo2: 'olmo2', phi3: 'phi3', gemma3_text: 'gemma3' };
const PERMUTED = new Set(['llama', 'smollm3']);

/**
 * An HF model (its safetensors bytes and config.json object) converted to a GGUF as llama.cpp's converter writes it,
 * float32 tensors. drop: one converter detail left out, to show that the reader depends on it: 'permute' (NORM
 * families' q/k rows), 'plus_one' (Gemma's norms), 'rope_freqs' (llama3's factors), 'rope_factors' (Phi-3's LongRoPE),
 * or 'permute_neox' (permuting a NEOX family's q/k as if NORM). edit({kv, tensors}): changes them before they are written.
 */
export function hfToGguf(model, config, { drop = null, edit = null } = {}) {
  const arch = ARCH[config.model_type];
  if (!arch) throw new Error(`hfToGguf: no llama.cpp architecture for ${config.model_type}`);
  const heads = config.num_attention_heads, kvHeads = config.num_key_value_heads ?? heads;
  const headDim = config.head_dim ?? config.hidden_size / heads;
  const rot = Math.floor(headDim * (config.partial_rotary_factor ?? 1)); // phi3: int(partial * hidden) // heads when head_dim = hidden / heads
  const a = (k) => `${arch}.${k}`;
  const kv = [['general.architecture', 'string', arch], ['general.name', 'string', `tiny ${arch}`],
    [a('context_length'), 'u32', config.max_position_embeddings], [a('embedding_length'), 'u32', config.hidden_size],
    [a('block_count'), 'u32', config.num_hidden_layers], [a('feed_forward_length'), 'u32', config.intermediate_size],
    [a('attention.head_count'), 'u32', heads], [a('attention.head_count_kv'), 'u32', kvHeads],
    [a('rope.freq_base'), 'f32', config.rope_theta ?? 10000], [a('attention.layer_norm_rms_epsilon'), 'f32', config.rms_norm_eps],
    [a('attention.key_length'), 'u32', headDim], [a('attention.value_length'), 'u32', headDim], [a('rope.dimension_count'), 'u32', rot]];
  const rs = config.rope_scaling ?? {};
  const ropeType = rs.rope_type ?? rs.type;
  if (config.sliding_window != null && (arch === 'gemma3' || arch === 'phi3')) kv.push([a('attention.sliding_window'), 'u32', config.sliding_window]);
  if (ropeType === 'linear') kv.push([a('rope.scaling.type'), 'string', 'linear'], [a('rope.scaling.factor'), 'f32', rs.factor]);
  const tensors = [];
  const f32 = (name, shape, data) => tensors.push({ name, shape, type: GGML.F32, bytes: f32Bytes(data) });
  for (const t of readSafetensors(model)) {
    let data = t.data;
    const name = ggufName(t.name, arch);
    if (arch === 'gemma3' && name.endsWith('norm.weight') && drop !== 'plus_one') data = data.map((x) => x + 1);
    const q = name.endsWith('attn_q.weight'), k = name.endsWith('attn_k.weight');
    if ((q || k) && (PERMUTED.has(arch) ? drop !== 'permute' : drop === 'permute_neox')) data = permute(data, t.shape, q ? heads : kvHeads);
    f32(name, t.shape, data);
  }
  if (ropeType === 'llama3' && drop !== 'rope_freqs')
    f32('rope_freqs.weight', [rot / 2], llama3RopeFreqs({ theta: config.rope_theta, dim: rot, ...rs }));
  if (ropeType === 'longrope') { // Phi3MiniModel: the factors as tensors, the original context and attention factor as keys
    const orig = config.original_max_position_embeddings, scale = config.max_position_embeddings / orig;
    kv.push([a('rope.scaling.original_context_length'), 'u32', orig],
      [a('rope.scaling.attn_factor'), 'f32', scale <= 1 ? 1 : Math.sqrt(1 + Math.log(scale) / Math.log(orig))]);
    if (drop !== 'rope_factors') {
      f32('rope_factors_long.weight', [rot / 2], rs.long_factor);
      f32('rope_factors_short.weight', [rot / 2], rs.short_factor);
    }
  }
  if (edit) edit({ kv, tensors });
  return ggufFile({ kv, tensors });
}
