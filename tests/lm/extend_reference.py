#!/usr/bin/python3
"""Independent float64 reference for posenc's training-free context extensions (tests/cpp/test_lm_extend.cpp).

Written from the authors' code, sharing nothing with the C++ core (the checkpoint and tokenizer readers are
reference.py's, itself independent of the core):
  - dynamic NTK as HF generates with a cache: the rotary embedding recomputes its inverse frequencies at
    seq_len = max(position_ids) + 1 when that passes the cached length, so the key of position p is rotated
    (and cached) with the frequencies of seq_len = p + 1, and a query with its own step's;
  - ReRoPE and Leaky ReRoPE (bojone/rerope, rerope_patch.py and leaky_rerope_patch.py, prefill path): queries
    times max(1, log(p + 1) / log(training length)); scores of |i - j| < window from the RoPE-rotated q, k;
    the others from q rotated at position `window` and k unrotated (ReRoPE), or from q and k rotated by the
    linear-scaled (1/leak) table, q at p + window (leak - 1) and k at its p (Leaky).

usage: extend_reference.py MODEL.bin TOKENIZER.bin TEXT OUT --length T [--scaling none|linear|dynamic] [--factor F]
                           [--dynamic call|cached] [--rerope W] [--leak K] [--no-logn]
Writes OUT as lines "tokens ...", "nll ...", "entropy ..." and "sink ..." (per layer then head: the mean over the
rows of the attention's entropy in nats and of its weight on the first key).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import encode, read_bin, read_tokenizer, rmsnorm  # noqa: E402  (file readers, not the forward)


def hf_inv_freq(hs, base, kind, factor, original, seq_len):
    """HF's default / linear / dynamic inverse frequencies; dynamic at seq_len (HF: the base grows past original)."""
    exps = np.arange(0, hs, 2, dtype=np.float64) / hs
    if kind == 'linear':
        return 1.0 / base ** exps / factor
    if kind == 'dynamic' and seq_len > original:
        base = base * ((factor * seq_len / original) - (factor - 1)) ** (hs / (hs - 2))
    return 1.0 / base ** exps


def rotate(x, angles):
    """llama2.c's interleaved pairs: x [T, heads, hs], angles [T, hs/2]."""
    c, s = np.cos(angles)[:, None, :], np.sin(angles)[:, None, :]
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out


def main():
    ap = argparse.ArgumentParser()
    for name in ('model', 'tokenizer', 'text', 'out'):
        ap.add_argument(name)
    ap.add_argument('--length', type=int, required=True)
    ap.add_argument('--scaling', default='none')
    ap.add_argument('--factor', type=float, default=4.0)
    ap.add_argument('--dynamic', default='call')
    ap.add_argument('--rerope', type=int, default=0)
    ap.add_argument('--leak', type=int, default=0)
    ap.add_argument('--no-logn', action='store_true')
    a = ap.parse_args()
    p = read_bin(a.model)
    pieces, scores = read_tokenizer(a.tokenizer, p['vocab'])
    tokens = np.array(encode(open(a.text, encoding='utf-8').read(), pieces, scores)[:a.length])
    T, H, Hkv, D = len(tokens), p['heads'], p['kv_heads'], p['dim']
    hs, ctx = D // H, p['seq_len']
    pos = np.arange(T, dtype=np.float64)
    if a.scaling == 'dynamic' and a.dynamic == 'cached':  # one generation step per position
        ang = np.stack([pos[t] * hf_inv_freq(hs, 10000.0, 'dynamic', a.factor, ctx, t + 1) for t in range(T)])
    else:  # one call: HF's dynamic at seq_len = T
        ang = pos[:, None] * hf_inv_freq(hs, 10000.0, a.scaling, a.factor, ctx, T)[None, :]
    w = a.rerope
    if w and a.leak:
        inv2 = hf_inv_freq(hs, 10000.0, 'none', 1, ctx, T) / a.leak
        q2_ang = (pos + w * (a.leak - 1))[:, None] * inv2[None, :]
        k2_ang = pos[:, None] * inv2[None, :]
    elif w:
        q2_ang = np.full(T, float(w))[:, None] * hf_inv_freq(hs, 10000.0, a.scaling, a.factor, ctx, T)[None, :]
        k2_ang = None
    dist = pos[:, None] - pos[None, :]
    causal = dist >= 0
    x = p['emb'][tokens]
    ent, sink = [], []
    for l in range(p['layers']):
        xn = rmsnorm(x, p['rms_att'][l])
        q = (xn @ p['wq'][l].T).reshape(T, H, hs)
        k = (xn @ p['wk'][l].T).reshape(T, Hkv, hs)
        v = (xn @ p['wv'][l].T).reshape(T, Hkv, hs)
        if w and not a.no_logn:
            q = q * np.clip(np.log(pos + 1) / np.log(ctx), 1, None)[:, None, None]
        q1, k1 = rotate(q, ang), rotate(k, ang)
        if w:
            q2 = rotate(q, q2_ang)
            k2 = rotate(k, k2_ang) if k2_ang is not None else k
        out = np.empty((T, H, hs))
        for h in range(H):
            g = h // (H // Hkv)
            s = q1[:, h] @ k1[:, g].T / np.sqrt(hs)
            if w:
                s = np.where(np.abs(dist) < w, s, q2[:, h] @ k2[:, g].T / np.sqrt(hs))
            s = np.where(causal, s, -np.inf)
            pr = np.exp(s - s.max(-1, keepdims=True))
            pr /= pr.sum(-1, keepdims=True)
            out[:, h] = pr @ v[:, g]
            with np.errstate(divide='ignore', invalid='ignore'):
                ent.append(-np.where(pr > 0, pr * np.log(pr), 0).sum(-1).mean())
            sink.append(pr[:, 0].mean())
        x += np.einsum('thd,ohd->to', out, p['wo'][l].reshape(D, H, hs))
        hn = rmsnorm(x, p['rms_ffn'][l])
        gate, up = hn @ p['w1'][l].T, hn @ p['w3'][l].T
        x += (gate * up / (1 + np.exp(-gate))) @ p['w2'][l].T
    scores_out = rmsnorm(x, p['rms_final']) @ p['wcls'].T
    nll = np.logaddexp.reduce(scores_out[:-1], axis=1) - scores_out[np.arange(1, T) - 1, tokens[1:]]
    with open(a.out, 'w') as f:
        f.write('tokens ' + ' '.join(map(str, tokens)) + '\n')
        for tag, vals in (('nll', nll), ('entropy', ent), ('sink', sink)):
            f.write(tag + ' ' + ' '.join('%.17g' % v for v in vals) + '\n')


if __name__ == '__main__':
    sys.exit(main())
