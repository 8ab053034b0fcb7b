#!/usr/bin/python3
"""Independent float64 forward of an HF model directory (config.json + model.safetensors), per family, written
from HF transformers' modeling code for each (src/transformers/models/<family>/modeling_<family>.py). It shares no
code with posenc (the C++ core or the JS library): it reads the safetensors and config.json itself.

usage: families.py DIR TOKENS OUT [--drop DETAIL]
  TOKENS: comma-separated token ids. Writes OUT as one line "nll <values...>" (nll[i] = -log p(tok[i+1] | tok[..i])).
  --drop DETAIL runs the forward without one family detail (the sensitivity checks): window (Mistral's sliding
  window), qk_norm (Qwen3's per-head, OLMo 2's whole-projection q/k RMSNorm), nope (SmolLM3's NoPE layers: RoPE on
  every layer), post_norm (OLMo 2: the norms after attention and MLP moved before them, as Llama's), llama3 (Llama
  3.2: the llama3 frequency scaling), tied (Llama 3.2: a zero classifier instead of the tied embedding), longrope
  (Phi-3: no frequency scaling), gate_up (Phi-3: the fused gate_up_proj read as [up | gate] instead of [gate | up]);
  Gemma 3: qk_norm, plus_one (RMSNorm by w, not 1 + w), embed_scale (no sqrt(hidden)), gelu (SiLU instead), local_base
  (local layers at rope_theta), scale_local (rope_scaling on the local layers too), window, attn_scalar (1 / sqrt(head_dim) instead of query_pre_attn_scalar), post_norm.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np


def read_safetensors(path):
    raw = open(path, 'rb').read()
    (n,) = struct.unpack_from('<Q', raw, 0)
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == '__metadata__':
            continue
        assert t['dtype'] == 'F32', t['dtype']
        a, b = t['data_offsets']
        out[name] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype='<f4').astype(np.float64).reshape(t['shape'])
    return out


def rms(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def inv_freq(cfg, dim, drop, T, base=None, rp=None):
    """modeling_rope_utils: the default rope, llama3's (_compute_llama3_parameters) and longrope's
    (_compute_longrope_parameters, with Phi-3's long factors once the input passes the original context).
    Returns (inv_freq, the cos/sin scale)."""
    if rp is None:
        rp = cfg.get('rope_parameters') or cfg.get('rope_scaling') or {}
    if base is None:
        base = rp.get('rope_theta', cfg.get('rope_theta', 2e6 if cfg['model_type'] == 'smollm3' else 10000.0))
    inv = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    kind = rp.get('rope_type', rp.get('type', 'default'))
    if kind == 'default' or (kind in ('llama3', 'longrope') and drop in ('llama3', 'longrope')):
        return inv, 1.0
    if kind == 'linear':
        return inv / rp['factor'], 1.0
    if kind == 'longrope':
        orig = cfg.get('original_max_position_embeddings') or rp['original_max_position_embeddings']
        factor = cfg['max_position_embeddings'] / orig  # Phi-3: the ratio, not rope_scaling's factor
        scale = math.sqrt(1 + math.log(factor) / math.log(orig)) if factor > 1 else 1.0
        ext = np.array(rp['long_factor'] if T > orig else rp['short_factor'], dtype=np.float64)
        return inv / ext, scale
    assert kind == 'llama3', kind
    factor, low, high, orig = rp['factor'], rp['low_freq_factor'], rp['high_freq_factor'], rp['original_max_position_embeddings']
    low_wavelen, high_wavelen = orig / low, orig / high
    wavelen = 2 * math.pi / inv
    scaled = np.where(wavelen > low_wavelen, inv / factor, inv)
    smooth = (orig / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, scaled), 1.0


def rotate_half_rope(x, cos, sin):
    """x [T, heads, hd]: HF's q * cos + rotate_half(q) * sin, cos/sin = cat(freqs, freqs), on the first
    cos.shape[-1] channels (partial rotary: the rest pass)."""
    rd = cos.shape[-1]
    r, rest = x[..., :rd], x[..., rd:]
    h = rd // 2
    rot = np.concatenate([-r[..., h:], r[..., :h]], -1)
    return np.concatenate([r * cos[:, None, :] + rot * sin[:, None, :], rest], -1)


def forward(d, tokens, drop):
    cfg = json.load(open(os.path.join(d, 'config.json')))
    W = read_safetensors(os.path.join(d, 'model.safetensors'))
    mt = cfg['model_type']
    if mt == 'gemma3_text':
        return gemma3(cfg, W, tokens, drop)
    T, D = len(tokens), cfg['hidden_size']
    H = cfg['num_attention_heads']
    Hkv = cfg.get('num_key_value_heads') or H
    hd = cfg.get('head_dim') or D // H
    n = cfg['num_hidden_layers']
    eps = cfg.get('rms_norm_eps', 1e-6)
    # per layer: RoPE or not, sliding window or none
    rope = [True] * n
    if mt == 'smollm3' and drop != 'nope':
        # SmolLM3Config: no_rope_layers[i] = 1 uses RoPE; default a NoPE layer every no_rope_layer_interval (4)
        every = cfg.get('no_rope_layer_interval', 4)
        rope = [bool(x) for x in cfg.get('no_rope_layers') or [int((i + 1) % every != 0) for i in range(n)]]
    window = [None] * n
    if mt == 'mistral' and drop != 'window':
        # MistralAttention passes config.sliding_window (default 4096) to every layer's attention
        w = cfg['sliding_window'] if 'sliding_window' in cfg else 4096
        window = [w] * n
    if mt == 'phi3' and drop != 'window':  # Phi3Attention: config.sliding_window (default None)
        window = [cfg.get('sliding_window')] * n
    rd = int(hd * cfg.get('partial_rotary_factor', 1.0))
    inv, scale = inv_freq(cfg, rd, drop, T)
    ang = np.arange(T, dtype=np.float64)[:, None] * inv[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)) * scale, np.sin(np.concatenate([ang, ang], -1)) * scale
    pos = np.arange(T)
    x = W['model.embed_tokens.weight'][tokens]
    post = mt == 'olmo2' and drop != 'post_norm'
    for l in range(n):
        p = 'model.layers.%d.' % l
        w = lambda name: W[p + name]
        lin = lambda h, name: h @ w(name + '.weight').T + (W[p + name + '.bias'] if p + name + '.bias' in W else 0)
        # attention
        if mt == 'olmo2':  # Olmo2DecoderLayer: no norm before attention (post_attention_layernorm after it)
            h = x if post else rms(x, w('post_attention_layernorm.weight'), eps)
        else:
            h = rms(x, w('input_layernorm.weight'), eps)
        if mt == 'phi3':  # Phi3Attention: qkv_proj rows [q | k | v]
            qkv = lin(h, 'self_attn.qkv_proj')
            q, k, v = qkv[:, :H * hd], qkv[:, H * hd:(H + Hkv) * hd], qkv[:, (H + Hkv) * hd:]
        else:
            q, k, v = lin(h, 'self_attn.q_proj'), lin(h, 'self_attn.k_proj'), lin(h, 'self_attn.v_proj')
        if mt == 'olmo2' and drop != 'qk_norm':  # Olmo2Attention: q_norm over num_heads * head_dim
            q, k = rms(q, w('self_attn.q_norm.weight'), eps), rms(k, w('self_attn.k_norm.weight'), eps)
        q, k, v = q.reshape(T, H, hd), k.reshape(T, Hkv, hd), v.reshape(T, Hkv, hd)
        if mt == 'qwen3' and drop != 'qk_norm':  # Qwen3Attention: q_norm over head_dim, before RoPE
            q, k = rms(q, w('self_attn.q_norm.weight'), eps), rms(k, w('self_attn.k_norm.weight'), eps)
        if rope[l]:
            q, k = rotate_half_rope(q, cos, sin), rotate_half_rope(k, cos, sin)
        # masking_utils: causal (kv_idx <= q_idx) and, with a sliding window, kv_idx > q_idx - sliding_window
        allowed = pos[None, :] <= pos[:, None]
        if window[l] is not None:
            allowed &= pos[None, :] > pos[:, None] - window[l]
        mask = np.where(allowed, 0.0, -np.inf)
        out = np.empty((T, H, hd))
        for i in range(H):
            g = i // (H // Hkv)
            s = q[:, i, :] @ k[:, g, :].T * hd ** -0.5 + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            out[:, i, :] = (s / s.sum(-1, keepdims=True)) @ v[:, g, :]
        a = lin(out.reshape(T, H * hd), 'self_attn.o_proj')
        x = x + (rms(a, w('post_attention_layernorm.weight'), eps) if post else a)
        # MLP: down(silu(gate(h)) * up(h))
        if mt == 'olmo2':
            h = x if post else rms(x, w('post_feedforward_layernorm.weight'), eps)
        else:
            h = rms(x, w('post_attention_layernorm.weight'), eps)
        if mt == 'phi3':  # Phi3MLP: gate, up = gate_up_proj(h).chunk(2); down(up * silu(gate))
            gu = lin(h, 'mlp.gate_up_proj')
            F = gu.shape[-1] // 2
            g, u = (gu[:, F:], gu[:, :F]) if drop == 'gate_up' else (gu[:, :F], gu[:, F:])
        else:
            g, u = lin(h, 'mlp.gate_proj'), lin(h, 'mlp.up_proj')
        m = lin((g / (1 + np.exp(-g))) * u, 'mlp.down_proj')
        x = x + (rms(m, w('post_feedforward_layernorm.weight'), eps) if post else m)
    x = rms(x, W['model.norm.weight'], eps)
    if 'lm_head.weight' in W:
        cls = W['lm_head.weight']
    else:  # tie_word_embeddings
        cls = np.zeros_like(W['model.embed_tokens.weight']) if drop == 'tied' else W['model.embed_tokens.weight']
    logits = x @ cls.T
    mx = logits.max(-1, keepdims=True)
    lse = (mx + np.log(np.exp(logits - mx).sum(-1, keepdims=True)))[:, 0]
    return lse[:-1] - logits[np.arange(T - 1), tokens[1:]]


def gemma3(cfg, W, tokens, drop):
    """gemma3/modeling_gemma3.py (Gemma3ForCausalLM on a gemma3_text config)."""
    T, D = len(tokens), cfg['hidden_size']
    H, Hkv, hd, n = cfg['num_attention_heads'], cfg['num_key_value_heads'], cfg['head_dim'], cfg['num_hidden_layers']
    eps = cfg.get('rms_norm_eps', 1e-6)

    def norm(x, w):  # Gemma3RMSNorm: x / rms(x) * (1 + w)
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * (w if drop == 'plus_one' else 1.0 + w)

    # Gemma3TextConfig: layer_types from sliding_window_pattern (default 6); sliding layers use rope_local_base_freq
    # (default 10,000) unscaled and the sliding window (default 4096), full ones rope_theta (default 1e6) and rope_scaling
    every = cfg.get('sliding_window_pattern', 6)
    types = cfg.get('layer_types') or ['sliding_attention' if (i + 1) % every else 'full_attention' for i in range(n)]
    theta = cfg.get('rope_theta', 1e6)
    local = theta if drop == 'local_base' else cfg.get('rope_local_base_freq', 10000.0)
    tables = {}
    scaled = cfg.get('rope_scaling') or {}
    for kind, base, rp in (('full_attention', theta, scaled), ('sliding_attention', local, scaled if drop == 'scale_local' else {})):
        inv, _ = inv_freq(cfg, hd, drop, T, base, rp)
        ang = np.arange(T, dtype=np.float64)[:, None] * inv[None, :]
        tables[kind] = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    scaling = hd ** -0.5 if drop == 'attn_scalar' else cfg.get('query_pre_attn_scalar', 256) ** -0.5
    pos = np.arange(T)
    embed_scale = 1.0 if drop == 'embed_scale' else float(np.float32(D ** 0.5))  # cast to the weights' float32
    x = W['model.embed_tokens.weight'][tokens] * embed_scale
    for l in range(n):
        p = 'model.layers.%d.' % l
        w = lambda name: W[p + name + '.weight']
        h = norm(x, w('input_layernorm'))
        q = (h @ w('self_attn.q_proj').T).reshape(T, H, hd)
        k = (h @ w('self_attn.k_proj').T).reshape(T, Hkv, hd)
        v = (h @ w('self_attn.v_proj').T).reshape(T, Hkv, hd)
        if drop != 'qk_norm':
            q, k = norm(q, w('self_attn.q_norm')), norm(k, w('self_attn.k_norm'))
        cos, sin = tables[types[l]]
        q, k = rotate_half_rope(q, cos, sin), rotate_half_rope(k, cos, sin)
        allowed = pos[None, :] <= pos[:, None]
        if types[l] == 'sliding_attention' and drop != 'window':
            allowed &= pos[None, :] > pos[:, None] - cfg.get('sliding_window', 4096)
        mask = np.where(allowed, 0.0, -np.inf)
        out = np.empty((T, H, hd))
        for i in range(H):
            g = i // (H // Hkv)
            s = q[:, i, :] @ k[:, g, :].T * scaling + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            out[:, i, :] = (s / s.sum(-1, keepdims=True)) @ v[:, g, :]
        a = out.reshape(T, H * hd) @ w('self_attn.o_proj').T
        x = x + (a if drop == 'post_norm' else norm(a, w('post_attention_layernorm')))
        h = norm(x, w('pre_feedforward_layernorm'))
        g = h @ w('mlp.gate_proj').T
        if drop == 'gelu':
            act = g / (1 + np.exp(-g))
        else:  # gelu_pytorch_tanh
            act = 0.5 * g * (1 + np.tanh(math.sqrt(2 / math.pi) * (g + 0.044715 * g ** 3)))
        m = (act * (h @ w('mlp.up_proj').T)) @ w('mlp.down_proj').T
        x = x + (m if drop == 'post_norm' else norm(m, w('post_feedforward_layernorm')))
    logits = norm(x, W['model.norm.weight']) @ W['model.embed_tokens.weight'].T  # tied
    mx = logits.max(-1, keepdims=True)
    lse = (mx + np.log(np.exp(logits - mx).sum(-1, keepdims=True)))[:, 0]
    return lse[:-1] - logits[np.arange(T - 1), tokens[1:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('tokens')
    ap.add_argument('out')
    ap.add_argument('--drop', default='')
    a = ap.parse_args()
    tokens = np.array([int(t) for t in a.tokens.split(',')])
    nll = forward(a.dir, tokens, a.drop)
    with open(a.out, 'w') as f:
        f.write('nll ' + ' '.join('%.17g' % v for v in nll) + '\n')


if __name__ == '__main__':
    sys.exit(main())
