// Tiny random Llama / Qwen2 models that the tests write themselves (HF safetensors and config.json), and HF's
// forward over them in float64, written plainly here: it shares no code with posenc's. Plain ESM with no Node
// imports, so the browser suites use it too (the bytes go to the page).
import { mulberry32 } from './reference.js';
import { bf16File } from './real-shapes.js';

export { bf16File };

const F32 = (a) => new Uint8Array(Float32Array.from(a).buffer);
/** An HF safetensors file of F32 tensors. */
export function safetensors(tensors) { // [{name, shape, data: number[]}] as F32
  const header = {};
  let at = 0;
  for (const t of tensors) {
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [at, at + 4 * t.data.length] };
    at += 4 * t.data.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let p = 8 + json.length;
  for (const t of tensors) { out.set(F32(t.data), p); p += 4 * t.data.length; }
  return out;
}

/**
 * A one-layer, tied llama of `dim` x `vocab` as bfloat16 safetensors (all matrices dim x dim), its bytes zero
 * (bfloat16 0) or filled by fill(file, begin) from the first tensor's byte on: {file, config, dataBytes}.
 */
export function bf16Llama({ dim, vocab, heads, fill = null }) {
  const shapes = [['model.embed_tokens.weight', [vocab, dim]], ['model.norm.weight', [dim]]];
  for (const [n, r, c] of [['input_layernorm', dim], ['post_attention_layernorm', dim], ['self_attn.q_proj', dim, dim], ['self_attn.k_proj', dim, dim],
    ['self_attn.v_proj', dim, dim], ['self_attn.o_proj', dim, dim], ['mlp.gate_proj', dim, dim], ['mlp.up_proj', dim, dim], ['mlp.down_proj', dim, dim]])
    shapes.push([`model.layers.0.${n}.weight`, c ? [r, c] : [r]]);
  const { file, begin, dataBytes: at } = bf16File(shapes);
  if (fill) fill(file, begin);
  const config = { model_type: 'llama', hidden_size: dim, intermediate_size: dim, num_hidden_layers: 1, num_attention_heads: heads, num_key_value_heads: heads,
    vocab_size: vocab, max_position_embeddings: 64, rms_norm_eps: 1e-6, rope_theta: 1e4, tie_word_embeddings: true };
  return { file, config, dataBytes: at };
}

/** A tiny random model's weights (seeded). */
export function tinyModel({ seed, dim, layers, heads, kvHeads, headDim, hidden, vocab, bias, tied, partial, theta }) {
  const rnd = mulberry32(seed);
  const r = (n, s = 0.3) => Array.from({ length: n }, () => (rnd() * 2 - 1) * s);
  const p = { dim, layers, heads, kvHeads, headDim, hidden, vocab, bias, tied, rot: Math.floor(headDim * partial), theta, emb: r(vocab * dim, 1), L: [] };
  for (let l = 0; l < layers; l++)
    p.L.push({ an: r(dim, 0.2).map((x) => 1 + x), fn: r(dim, 0.2).map((x) => 1 + x), q: r(heads * headDim * dim), k: r(kvHeads * headDim * dim), v: r(kvHeads * headDim * dim),
      o: r(dim * heads * headDim), bq: bias ? r(heads * headDim) : null, bk: bias ? r(kvHeads * headDim) : null, bv: bias ? r(kvHeads * headDim) : null,
      g: r(hidden * dim), u: r(hidden * dim), d: r(dim * hidden) });
  p.norm = r(dim, 0.2).map((x) => 1 + x);
  p.head = tied ? null : r(vocab * dim, 1);
  return p;
}
/** Its HF files: {model: safetensors bytes, config}. */
export function tinyFiles(p) {
  const t = [{ name: 'model.embed_tokens.weight', shape: [p.vocab, p.dim], data: p.emb }, { name: 'model.norm.weight', shape: [p.dim], data: p.norm }];
  if (p.head) t.push({ name: 'lm_head.weight', shape: [p.vocab, p.dim], data: p.head });
  p.L.forEach((l, i) => {
    const n = `model.layers.${i}.`;
    t.push({ name: `${n}input_layernorm.weight`, shape: [p.dim], data: l.an }, { name: `${n}post_attention_layernorm.weight`, shape: [p.dim], data: l.fn },
      { name: `${n}self_attn.q_proj.weight`, shape: [p.heads * p.headDim, p.dim], data: l.q }, { name: `${n}self_attn.k_proj.weight`, shape: [p.kvHeads * p.headDim, p.dim], data: l.k },
      { name: `${n}self_attn.v_proj.weight`, shape: [p.kvHeads * p.headDim, p.dim], data: l.v }, { name: `${n}self_attn.o_proj.weight`, shape: [p.dim, p.heads * p.headDim], data: l.o },
      { name: `${n}mlp.gate_proj.weight`, shape: [p.hidden, p.dim], data: l.g }, { name: `${n}mlp.up_proj.weight`, shape: [p.hidden, p.dim], data: l.u },
      { name: `${n}mlp.down_proj.weight`, shape: [p.dim, p.hidden], data: l.d });
    if (p.bias) t.push({ name: `${n}self_attn.q_proj.bias`, shape: [p.heads * p.headDim], data: l.bq }, { name: `${n}self_attn.k_proj.bias`, shape: [p.kvHeads * p.headDim], data: l.bk },
      { name: `${n}self_attn.v_proj.bias`, shape: [p.kvHeads * p.headDim], data: l.bv });
  });
  const config = { model_type: p.bias ? 'qwen2' : 'llama', hidden_size: p.dim, intermediate_size: p.hidden, num_hidden_layers: p.layers, num_attention_heads: p.heads,
    num_key_value_heads: p.kvHeads, head_dim: p.headDim, vocab_size: p.vocab, max_position_embeddings: 64, rms_norm_eps: 1e-6, rope_theta: p.theta,
    tie_word_embeddings: p.tied, ...(p.rot < p.headDim ? { partial_rotary_factor: p.rot / p.headDim } : {}) };
  return { model: safetensors(t), config };
}
/** HF's Llama/Qwen2 forward in float64, plainly: NLL of each next token. */
export function plainForward(p, ids) {
  const T = ids.length, D = p.dim, hd = p.headDim, rep = p.heads / p.kvHeads;
  const mv = (W, x, rows, b) => Array.from({ length: rows }, (_, i) => { let s = b ? b[i] : 0; for (let j = 0; j < x.length; j++) s += W[i * x.length + j] * x[j]; return s; });
  const rms = (x, w) => { const m = Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length + 1e-6); return x.map((v, i) => (v / m) * w[i]); };
  const rope = (vec, pos) => { // half layout over the first rot dims of each head
    const out = vec.slice(), half = p.rot / 2;
    for (let h = 0; h < vec.length / hd; h++)
      for (let i = 0; i < half; i++) {
        const a = pos * Math.pow(p.theta, (-2 * i) / p.rot), x1 = vec[h * hd + i], x2 = vec[h * hd + half + i];
        out[h * hd + i] = x1 * Math.cos(a) - x2 * Math.sin(a);
        out[h * hd + half + i] = x2 * Math.cos(a) + x1 * Math.sin(a);
      }
    return out;
  };
  let xs = ids.map((id) => p.emb.slice(id * D, (id + 1) * D));
  for (const l of p.L) {
    const hs = xs.map((x) => rms(x, l.an));
    const q = hs.map((x, t) => rope(mv(l.q, x, p.heads * hd, l.bq), t)), k = hs.map((x, t) => rope(mv(l.k, x, p.kvHeads * hd, l.bk), t)), v = hs.map((x) => mv(l.v, x, p.kvHeads * hd, l.bv));
    xs = xs.map((x, t) => {
      const att = [];
      for (let h = 0; h < p.heads; h++) {
        const g = Math.floor(h / rep), s = [];
        for (let j = 0; j <= t; j++) { let d = 0; for (let i = 0; i < hd; i++) d += q[t][h * hd + i] * k[j][g * hd + i]; s.push(d / Math.sqrt(hd)); }
        const m = Math.max(...s), e = s.map((z) => Math.exp(z - m)), z = e.reduce((a, b) => a + b, 0);
        for (let i = 0; i < hd; i++) att.push(e.reduce((acc, w, j) => acc + (w / z) * v[j][g * hd + i], 0));
      }
      return mv(l.o, att, D).map((y, i) => x[i] + y);
    });
    xs = xs.map((x) => { const h2 = rms(x, l.fn), g = mv(l.g, h2, p.hidden), u = mv(l.u, h2, p.hidden);
      return mv(l.d, g.map((a, i) => (a / (1 + Math.exp(-a))) * u[i]), D).map((y, i) => x[i] + y); });
  }
  return ids.slice(1).map((next, t) => {
    const logits = mv(p.head ?? p.emb, rms(xs[t], p.norm), p.vocab), m = Math.max(...logits);
    return Math.log(logits.reduce((s, z) => s + Math.exp(z - m), 0)) + m - logits[next];
  });
}


/**
 * A tiny random model of one HF family, as the files HF writes: {model: safetensors bytes, config}. family: its
 * config.json model_type (llama, mistral, qwen3, smollm3, olmo2, phi3, gemma3_text); config: more config.json keys. The weights are
 * large (scale) and the norms' weights far from 1, so that each family detail moves the NLL by far more than
 * float rounding does.
 */
export function familyFiles({ family, seed, dim, layers, heads, kvHeads, headDim, hidden, vocab, tied = false, scale = 0.4, config = {} }) {
  const rnd = mulberry32(seed);
  const r = (n, s = scale) => Array.from({ length: n }, () => (rnd() * 2 - 1) * s);
  const norm = (n) => r(n, 0.6).map((x) => 1 + x);
  const gemma = family === 'gemma3_text'; // Gemma3RMSNorm multiplies by (1 + weight): weights around 0
  const t = [{ name: 'model.embed_tokens.weight', shape: [vocab, dim], data: r(vocab * dim, gemma ? 0.2 : 1) },
    { name: 'model.norm.weight', shape: [dim], data: gemma ? r(dim, 0.6) : norm(dim) }];
  if (!tied) t.push({ name: 'lm_head.weight', shape: [vocab, dim], data: r(vocab * dim, 1) });
  const Q = heads * headDim, KV = kvHeads * headDim;
  for (let l = 0; l < layers; l++) {
    const n = `model.layers.${l}.`;
    const w = (name, shape, data) => t.push({ name: n + name, shape, data: data ?? r(shape.reduce((a, b) => a * b, 1)) });
    if (family === 'gemma3_text') { // Gemma3DecoderLayer: norms before and after attention and MLP; q/k norm per head
      for (const x of ['input_layernorm', 'post_attention_layernorm', 'pre_feedforward_layernorm', 'post_feedforward_layernorm'])
        w(`${x}.weight`, [dim], r(dim, 0.6));
      w('self_attn.q_norm.weight', [headDim], r(headDim, 0.6));
      w('self_attn.k_norm.weight', [headDim], r(headDim, 0.6));
    } else if (family === 'olmo2') { // Olmo2DecoderLayer: norms after attention and MLP; q/k norm over the whole projection
      w('post_attention_layernorm.weight', [dim], norm(dim));
      w('post_feedforward_layernorm.weight', [dim], norm(dim));
      w('self_attn.q_norm.weight', [Q], norm(Q));
      w('self_attn.k_norm.weight', [KV], norm(KV));
    } else {
      w('input_layernorm.weight', [dim], norm(dim));
      w('post_attention_layernorm.weight', [dim], norm(dim));
    }
    if (family === 'qwen3') { // Qwen3Attention: q/k norm per head
      w('self_attn.q_norm.weight', [headDim], norm(headDim));
      w('self_attn.k_norm.weight', [headDim], norm(headDim));
    }
    if (family === 'phi3') { // Phi3Attention's qkv_proj [q | k | v], Phi3MLP's gate_up_proj [gate | up]
      w('self_attn.qkv_proj.weight', [Q + 2 * KV, dim]);
      w('mlp.gate_up_proj.weight', [2 * hidden, dim]);
    } else {
      w('self_attn.q_proj.weight', [Q, dim]);
      w('self_attn.k_proj.weight', [KV, dim]);
      w('self_attn.v_proj.weight', [KV, dim]);
      w('mlp.gate_proj.weight', [hidden, dim]);
      w('mlp.up_proj.weight', [hidden, dim]);
    }
    w('self_attn.o_proj.weight', [dim, Q]);
    w('mlp.down_proj.weight', [dim, hidden]);
  }
  return {
    model: safetensors(t),
    config: { model_type: family, hidden_size: dim, intermediate_size: hidden, num_hidden_layers: layers, num_attention_heads: heads,
      num_key_value_heads: kvHeads, head_dim: headDim, vocab_size: vocab, max_position_embeddings: 4096, rms_norm_eps: 1e-6,
      tie_word_embeddings: tied, ...config },
  };
}
