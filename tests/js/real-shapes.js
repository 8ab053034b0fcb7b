// Models with the published shapes of real checkpoints and random weights, written by the tests and benches that need
// real sizes: SmolLM2-135M and Qwen2.5-0.5B (their config.json as published), as HF safetensors (BF16 or F16) with
// their config, or as a GGUF (F16, or a Q4_K_M-like mix of block formats as llama.cpp's quantizer picks them). Plain
// ESM with no Node imports, so the browser suites use it too.
import { BLOCKS, GGML, ggufFile, f32Bytes, randomBlocks } from './gguf-writer.js';

/** The published config.json of each model (the fields posenc and llama.cpp read). */
export const REAL_CONFIGS = {
  'smollm2-135m': { model_type: 'llama', hidden_size: 576, intermediate_size: 1536, num_hidden_layers: 30, num_attention_heads: 9,
    num_key_value_heads: 3, head_dim: 64, vocab_size: 49152, max_position_embeddings: 8192, rms_norm_eps: 1e-5, rope_theta: 100000,
    tie_word_embeddings: true },
  'qwen2.5-0.5b': { model_type: 'qwen2', hidden_size: 896, intermediate_size: 4864, num_hidden_layers: 24, num_attention_heads: 14,
    num_key_value_heads: 2, head_dim: 64, vocab_size: 151936, max_position_embeddings: 32768, rms_norm_eps: 1e-6, rope_theta: 1000000,
    tie_word_embeddings: true },
};

/**
 * The HF tensors of a Llama- or Qwen2-shaped config, in checkpoint order: [[name, shape]].
 */
export function hfShapes(config) {
  const D = config.hidden_size, F = config.intermediate_size, hd = config.head_dim ?? D / config.num_attention_heads;
  const Q = config.num_attention_heads * hd, KV = (config.num_key_value_heads ?? config.num_attention_heads) * hd;
  const shapes = [['model.embed_tokens.weight', [config.vocab_size, D]], ['model.norm.weight', [D]]];
  if (!config.tie_word_embeddings) shapes.push(['lm_head.weight', [config.vocab_size, D]]);
  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    shapes.push([`${p}input_layernorm.weight`, [D]], [`${p}post_attention_layernorm.weight`, [D]], [`${p}self_attn.q_proj.weight`, [Q, D]],
      [`${p}self_attn.k_proj.weight`, [KV, D]], [`${p}self_attn.v_proj.weight`, [KV, D]], [`${p}self_attn.o_proj.weight`, [D, Q]]);
    if (config.model_type === 'qwen2') shapes.push([`${p}self_attn.q_proj.bias`, [Q]], [`${p}self_attn.k_proj.bias`, [KV]], [`${p}self_attn.v_proj.bias`, [KV]]);
    shapes.push([`${p}mlp.gate_proj.weight`, [F, D]], [`${p}mlp.up_proj.weight`, [F, D]], [`${p}mlp.down_proj.weight`, [D, F]]);
  }
  return shapes;
}

/** A config with only its first `layers` layers (the same shapes otherwise). */
export const withLayers = (config, layers) => ({ ...config, num_hidden_layers: layers });

/**
 * A safetensors file of 16-bit tensors `shapes` ([name, shape] each, in order), its bytes zero: {file, begin (the first
 * tensor's byte), dataBytes}. The tensors lie one after the other from `begin`. align: the header padded so that
 * `begin` is a multiple of 8 (as HF's writer does; the stream bench reads the file in place).
 */
export function bf16File(shapes, { dtype = 'BF16', align = false } = {}) {
  const header = {};
  let at = 0;
  for (const [name, shape] of shapes) {
    const bytes = 2 * shape.reduce((a, x) => a * x, 1);
    header[name] = { dtype, shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  const text = JSON.stringify(header);
  const json = new TextEncoder().encode(align ? text.padEnd(Math.ceil(text.length / 8) * 8, ' ') : text);
  const file = new Uint8Array(8 + json.length + at);
  new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
  file.set(json, 8);
  return { file, begin: 8 + json.length, dataBytes: at };
}

const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
const bf16 = (x) => { f32[0] = x; return u32[0] >>> 16; };
/** float16 bits of x, rounded to nearest even; below float16's normal range, zero (as random weights can be). */
function f16(x) {
  f32[0] = x;
  const b = u32[0], sign = (b >>> 16) & 0x8000, e = ((b >>> 23) & 0xff) - 112, m = b & 0x7fffff;
  if (e <= 0) return sign;
  if (e >= 31) return sign | 0x7c00;
  const h = sign | (e << 10) | (m >>> 13), rest = m & 0x1fff;
  return rest > 0x1000 || (rest === 0x1000 && h & 1) ? h + 1 : h;
}

/**
 * Random values of tensor `name` (`shape`), as an initialisation spreads them: the embedding uniform in +-0.05, other
 * matrices in +-1/sqrt(columns), biases in +-0.02, norm weights 1 +- 0.2. rnd(): uniform in [-1, 1).
 */
function initial(name, shape, rnd) {
  const norm = /norm\.weight$/.test(name), bias = name.endsWith('.bias');
  const scale = name.includes('embed') ? 0.05 : bias ? 0.02 : 1 / Math.sqrt(shape[1] ?? 1);
  return norm ? () => 1 + 0.2 * rnd() : () => scale * rnd();
}

/** A seeded uniform generator in [-1, 1) (a linear congruential one: fast enough for a billion values). */
function uniform(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

/**
 * HF files of `config` with random weights: {file (safetensors bytes), config}. dtype 'BF16' or 'F16'; align: as
 * bf16File's.
 */
export function realSafetensors(config, { dtype = 'BF16', seed = 12345, align = false } = {}) {
  const shapes = hfShapes(config);
  const { file, begin } = bf16File(shapes, { dtype, align });
  const view = new DataView(file.buffer), rnd = uniform(seed), bits = dtype === 'F16' ? f16 : bf16;
  let o = begin;
  for (const [name, shape] of shapes) {
    const value = initial(name, shape, rnd);
    for (let i = shape.reduce((a, b) => a * b, 1); i > 0; i--, o += 2) view.setUint16(o, bits(value()), true);
  }
  return { file, config };
}

// llama.cpp's use_more_bits (llama-quant.cpp): the layers whose attn_v and ffn_down Q4_K_M gives 6 bits.
const moreBits = (i, n) => i < n / 8 || i >= (7 * n) / 8 || (i - Math.floor(n / 8)) % 3 === 2;
// llama.cpp's fallbacks where a row is not a whole number of 256-value blocks.
const FALLBACK = { Q4_K: 'Q5_0', Q6_K: 'Q8_0' };

/**
 * The GGUF type of tensor `name` (llama.cpp's name) of layer `layer` (of `layers`) with `columns` per row, in a
 * Q4_K_M file as llama.cpp's quantizer picks it: Q6_K for the output weight (the token embedding, when tied), for
 * attn_v and ffn_down on use_more_bits layers; Q4_K for the other matrices; a K type falls back (Q4_K to Q5_0, Q6_K
 * to Q8_0) where a row is not a whole number of 256-value blocks.
 */
export function q4kmType(name, layer, layers, columns, tied) {
  let t = 'Q4_K';
  if (name === 'output.weight' || (tied && name === 'token_embd.weight')) t = 'Q6_K';
  else if (/attn_v\.weight$|ffn_down\.weight$/.test(name) && moreBits(layer, layers)) t = 'Q6_K';
  return columns % BLOCKS[t][0] ? FALLBACK[t] : t;
}

// llama.cpp's name of an HF tensor of these families
function ggufName(hf) {
  const top = { 'model.embed_tokens.weight': 'token_embd.weight', 'model.norm.weight': 'output_norm.weight', 'lm_head.weight': 'output.weight' };
  if (top[hf]) return top[hf];
  const [, l, rest] = /^model\.layers\.(\d+)\.(.+)$/.exec(hf);
  const parts = { 'input_layernorm.weight': 'attn_norm.weight', 'post_attention_layernorm.weight': 'ffn_norm.weight',
    'self_attn.q_proj.weight': 'attn_q.weight', 'self_attn.k_proj.weight': 'attn_k.weight', 'self_attn.v_proj.weight': 'attn_v.weight',
    'self_attn.o_proj.weight': 'attn_output.weight', 'self_attn.q_proj.bias': 'attn_q.bias', 'self_attn.k_proj.bias': 'attn_k.bias',
    'self_attn.v_proj.bias': 'attn_v.bias', 'mlp.gate_proj.weight': 'ffn_gate.weight', 'mlp.up_proj.weight': 'ffn_up.weight',
    'mlp.down_proj.weight': 'ffn_down.weight' };
  return `blk.${l}.${parts[rest]}`;
}

/**
 * A GGUF of `config` with random weights, as llama.cpp's converter names and lays it out. format 'F16' (matrices
 * float16, vectors float32, as the converter's --outtype f16) or 'Q4_K_M' (q4kmType's pick per matrix; random blocks
 * whose values reach the F16 file's spread). vocab: {tokens, scores, types} (a SentencePiece vocabulary of
 * config.vocab_size pieces, written with BOS 1, EOS 2 and the space prefix), or none. Returns {file, types (a count per
 * ggml type name)}.
 */
export function realGguf(config, { format = 'F16', seed = 12345, vocab = null } = {}) {
  const arch = { llama: 'llama', qwen2: 'qwen2' }[config.model_type];
  if (!arch) throw new Error(`realGguf: no llama.cpp architecture for ${config.model_type}`);
  if (format !== 'F16' && format !== 'Q4_K_M') throw new Error(`realGguf: format must be F16 or Q4_K_M (got ${format})`);
  const hd = config.head_dim ?? config.hidden_size / config.num_attention_heads, a = (k) => `${arch}.${k}`;
  const kv = [['general.architecture', 'string', arch], ['general.name', 'string', `random ${arch}, published shapes`],
    ['general.file_type', 'u32', format === 'F16' ? 1 : 15], [a('context_length'), 'u32', config.max_position_embeddings],
    [a('embedding_length'), 'u32', config.hidden_size], [a('block_count'), 'u32', config.num_hidden_layers],
    [a('feed_forward_length'), 'u32', config.intermediate_size], [a('attention.head_count'), 'u32', config.num_attention_heads],
    [a('attention.head_count_kv'), 'u32', config.num_key_value_heads], [a('rope.freq_base'), 'f32', config.rope_theta],
    [a('attention.layer_norm_rms_epsilon'), 'f32', config.rms_norm_eps], [a('rope.dimension_count'), 'u32', hd]];
  if (vocab)
    kv.push(['tokenizer.ggml.model', 'string', 'llama'], ['tokenizer.ggml.tokens', ['array', 'string'], vocab.tokens],
      ['tokenizer.ggml.scores', ['array', 'f32'], vocab.scores], ['tokenizer.ggml.token_type', ['array', 'i32'], vocab.types],
      ['tokenizer.ggml.bos_token_id', 'u32', 1], ['tokenizer.ggml.eos_token_id', 'u32', 2], ['tokenizer.ggml.unknown_token_id', 'u32', 0],
      ['tokenizer.ggml.add_bos_token', 'bool', true], ['tokenizer.ggml.add_space_prefix', 'bool', true]);
  const rnd = uniform(seed), blockRnd = () => (rnd() + 1) / 2, tensors = [], types = {};
  for (const [hf, shape] of hfShapes(config)) {
    const name = ggufName(hf), n = shape.reduce((x, y) => x * y, 1), value = initial(hf, shape, rnd);
    const layer = Number(/^blk\.(\d+)\./.exec(name)?.[1] ?? 0);
    const type = shape.length === 1 ? 'F32' : format === 'F16' ? 'F16' : q4kmType(name, layer, config.num_hidden_layers, shape[1], config.tie_word_embeddings);
    let bytes;
    if (type === 'F32') bytes = f32Bytes(Array.from({ length: n }, value));
    else if (type === 'F16') {
      const h = new Uint16Array(n);
      for (let i = 0; i < n; i++) h[i] = f16(value());
      bytes = new Uint8Array(h.buffer);
    } else bytes = randomBlocks(type, n, blockRnd, name === 'token_embd.weight' ? 0.05 : 1 / Math.sqrt(shape[1]));
    types[type] = (types[type] ?? 0) + 1;
    tensors.push({ name, shape, type: GGML[type], bytes });
  }
  return { file: ggufFile({ kv, tensors }), types };
}
