#!/usr/bin/python3
"""Independent float64 reference for posenc's Llama forward (tests/cpp/test_lm_reference.cpp runs it).

Reads a llama2.c legacy .bin checkpoint and its tokenizer.bin itself, tokenises a text the way
llama2.c's encode does (the O(n) rescan for the best pair after every merge, kept in a numpy
array), and runs the forward in float64 with numpy. It shares no code with the C++ core.

usage: reference.py MODEL.bin TOKENIZER.bin TEXT OUT [--scaling TYPE] [--factor F] [--original N]
                    [--length T] [--logits-rows r1,r2,...] [--map-layer L [--map-px P]] [--cache DIR]
Writes OUT as lines: "tokens <ids...>", "nll <values...>", "logits <row> <V values...>", and with --map-layer
"map<h> <P*P values>" per head (layer L's attention max-pooled to P x P, -1 above the diagonal) and
"peaks <per head: the mean over rows of the row's largest weight>".
With --cache, the output is kept in DIR under a hash of everything it depends on (this file, the three
inputs, the arguments that matter), so the test suites that ask for the same case (C++ simd, scalar
and ASan; Jest) share one run of the forward (about 6 s at T = 2048).
"""
import argparse
import hashlib
import os
import shutil
import struct
import sys

import numpy as np


def read_bin(path):
    raw = open(path, 'rb').read()
    dim, hidden, layers, heads, kv_heads, vocab, seq_len = struct.unpack_from('<7i', raw, 0)
    shared = vocab > 0
    vocab = abs(vocab)
    w = np.frombuffer(raw, dtype='<f4', offset=28).astype(np.float64)
    hs = dim // heads
    at = 0

    def take(*shape):
        nonlocal at
        n = int(np.prod(shape))
        out = w[at:at + n].reshape(shape)
        at += n
        return out

    p = dict(dim=dim, hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, vocab=vocab, seq_len=seq_len)
    p['emb'] = take(vocab, dim)
    p['rms_att'] = take(layers, dim)
    p['wq'] = take(layers, dim, dim)
    p['wk'] = take(layers, kv_heads * hs, dim)
    p['wv'] = take(layers, kv_heads * hs, dim)
    p['wo'] = take(layers, dim, dim)
    p['rms_ffn'] = take(layers, dim)
    p['w1'] = take(layers, hidden, dim)
    p['w2'] = take(layers, dim, hidden)
    p['w3'] = take(layers, hidden, dim)
    p['rms_final'] = take(dim)
    take(seq_len, hs // 2)
    take(seq_len, hs // 2)
    p['wcls'] = p['emb'] if shared else take(vocab, dim)
    assert at == w.size
    return p


def read_tokenizer(path, vocab):
    raw = open(path, 'rb').read()
    at = 4
    pieces, scores = [], []
    for _ in range(vocab):
        score, n = struct.unpack_from('<fi', raw, at)
        at += 8
        pieces.append(raw[at:at + n])
        at += n
        scores.append(score)
    return pieces, scores


def encode(text, pieces, scores):
    """llama2.c encode: BOS, dummy prefix ' ', UTF-8 groups or their <0xXX> bytes, then merge the
    best-scoring adjacent pair (leftmost on ties; only scores > -1e10) until none is a piece."""
    ids = {}
    for i, p in enumerate(pieces):
        ids.setdefault(p, i)
    data = text.encode('utf-8')
    toks = [1]
    syms = []
    if data:
        syms.append(b' ')
    i = 0
    while i < len(data):
        n = 1
        while i + n < len(data) and n < 4 and (data[i + n] & 0xC0) == 0x80:
            n += 1
        syms.append(data[i:i + n])
        i += n
    seq = []
    for s in syms:
        if s in ids:
            seq.append(ids[s])
        else:
            seq.extend(ids[b'<0x%02X>' % b] for b in s)

    def pair_score(a, b):
        m = ids.get(pieces[a] + pieces[b])
        return (scores[m], m) if m is not None and scores[m] > -1e10 else (-np.inf, -1)

    best = np.array([pair_score(seq[k], seq[k + 1])[0] for k in range(len(seq) - 1)], dtype=np.float64)
    while best.size and np.isfinite(best.max()):
        k = int(np.argmax(best))  # the first maximum: llama2.c's strict '>' scan
        seq[k] = pair_score(seq[k], seq[k + 1])[1]
        del seq[k + 1]
        best = np.delete(best, k)
        if k < len(seq) - 1:
            best[k] = pair_score(seq[k], seq[k + 1])[0]
        if k > 0:
            best[k - 1] = pair_score(seq[k - 1], seq[k])[0]
    return toks + seq


def inv_freq_and_scale(dim, base, kind, factor, original, T):
    """HF modeling_rope_utils: default, linear, dynamic (seq_len = T), yarn."""
    default = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    if kind == 'none':
        return default, 1.0
    if kind == 'linear':
        return default / factor, 1.0
    if kind == 'dynamic':
        seq = max(T, original)
        b = base * ((factor * seq / original) - (factor - 1)) ** (dim / (dim - 2))
        return 1.0 / b ** (np.arange(0, dim, 2, dtype=np.float64) / dim), 1.0
    if kind == 'yarn':
        mscale = 0.1 * np.log(factor) + 1.0 if factor > 1 else 1.0

        def corr(rot):
            return (dim * np.log(original / (rot * 2 * np.pi))) / (2 * np.log(base))

        low, high = max(np.floor(corr(32)), 0), min(np.ceil(corr(1)), dim - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
        extra = 1 - ramp
        pos = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
        return (1 / (factor * pos)) * (1 - extra) + (1 / pos) * extra, mscale
    raise SystemExit('unknown scaling ' + kind)


def rope_interleaved(x, cos, sin):
    """x [T, heads, hs]: pairs (2i, 2i+1) rotate by angle t * w_i (llama2.c's layout)."""
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos[:, None, :] - b * sin[:, None, :]
    out[..., 1::2] = a * sin[:, None, :] + b * cos[:, None, :]
    return out


def rmsnorm(x, w):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w


def pool_map(P, px):
    # P [T, T], zero above the diagonal -> [px, px]: pixel (y, x) is the largest weight of query rows
    # [floor(y T/px), floor((y+1) T/px)) on keys [floor(x T/px), floor((x+1) T/px)); -1 where no key of the
    # cell is visible to any row of the band (above the diagonal)
    T = P.shape[0]
    edge = [min(T, int(np.floor(x * (T / px)))) for x in range(px + 1)]
    out = np.full((px, px), -1.0)
    for y in range(px):
        i0, i1 = edge[y], max(edge[y] + 1, edge[y + 1])
        for x in range(px):
            j0, j1 = edge[x], min(i1, max(edge[x] + 1, edge[x + 1]))
            if j0 < i1:
                out[y, x] = P[i0:i1, j0:j1].max()
    return out


def forward(p, tokens, kind, factor, original, map_layer=-1, map_px=0):
    maps, peaks = [], []
    T = len(tokens)
    H, Hkv, D = p['heads'], p['kv_heads'], p['dim']
    hs = D // H
    inv, scale = inv_freq_and_scale(hs, 10000.0, kind, factor, original, T)
    ang = np.arange(T, dtype=np.float64)[:, None] * inv[None, :]
    cos, sin = np.cos(ang) * scale, np.sin(ang) * scale
    x = p['emb'][tokens]
    mask = np.triu(np.full((T, T), -np.inf), 1)
    for l in range(p['layers']):
        xn = rmsnorm(x, p['rms_att'][l])
        q = rope_interleaved((xn @ p['wq'][l].T).reshape(T, H, hs), cos, sin)
        k = rope_interleaved((xn @ p['wk'][l].T).reshape(T, Hkv, hs), cos, sin)
        v = (xn @ p['wv'][l].T).reshape(T, Hkv, hs)
        out = np.empty((T, H, hs))
        for h in range(H):
            g = h // (H // Hkv)
            s = q[:, h, :] @ k[:, g, :].T / np.sqrt(hs) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            out[:, h, :] = s @ v[:, g, :]
            if l == map_layer:
                maps.append(pool_map(s, map_px))
                peaks.append(s.max(-1).mean())
        x = x + out.reshape(T, D) @ p['wo'][l].T
        xn = rmsnorm(x, p['rms_ffn'][l])
        a = xn @ p['w1'][l].T
        x = x + ((a / (1 + np.exp(-a))) * (xn @ p['w3'][l].T)) @ p['w2'][l].T
    logits = rmsnorm(x, p['rms_final']) @ p['wcls'].T
    m = logits.max(-1, keepdims=True)
    lse = (m + np.log(np.exp(logits - m).sum(-1, keepdims=True)))[:, 0]
    nll = lse[:-1] - logits[np.arange(T - 1), tokens[1:]]
    return nll, logits, maps, peaks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('tokenizer')
    ap.add_argument('text')
    ap.add_argument('out')
    ap.add_argument('--scaling', default='none')
    ap.add_argument('--factor', type=float, default=1.0)
    ap.add_argument('--original', type=int, default=0)
    ap.add_argument('--length', type=int, default=0)
    ap.add_argument('--logits-rows', default='')
    ap.add_argument('--map-layer', type=int, default=-1)
    ap.add_argument('--map-px', type=int, default=64)
    ap.add_argument('--cache', default='')
    a = ap.parse_args()
    cached = None
    if a.cache:
        h = hashlib.sha256()
        for path in (__file__, a.model, a.tokenizer, a.text):
            with open(path, 'rb') as f:
                h.update(hashlib.sha256(f.read()).digest())
        scaled = a.scaling != 'none'
        maps = (a.map_layer, a.map_px) if a.map_layer >= 0 else None  # (None: the key runs without maps had)
        h.update(repr((a.scaling, a.factor if scaled else None, a.original if scaled else None, a.length, a.logits_rows)
                      + ((maps,) if maps else ())).encode())
        os.makedirs(a.cache, exist_ok=True)
        cached = os.path.join(a.cache, h.hexdigest()[:24] + '.txt')
        if os.path.exists(cached):
            shutil.copyfile(cached, a.out)
            return 0
    p = read_bin(a.model)
    pieces, scores = read_tokenizer(a.tokenizer, p['vocab'])
    tokens = encode(open(a.text, encoding='utf-8').read(), pieces, scores)
    if a.length:
        if a.length > len(tokens):
            raise SystemExit('the text has %d tokens, fewer than --length %d' % (len(tokens), a.length))
        tokens = tokens[:a.length]
    nll, logits, maps, peaks = forward(p, np.array(tokens), a.scaling, a.factor, a.original or p['seq_len'], a.map_layer, a.map_px)
    with open(a.out, 'w') as f:
        f.write('tokens ' + ' '.join(map(str, tokens)) + '\n')
        f.write('nll ' + ' '.join('%.17g' % v for v in nll) + '\n')
        for r in [int(r) for r in a.logits_rows.split(',') if r]:
            f.write('logits %d ' % r + ' '.join('%.17g' % v for v in logits[r]) + '\n')
        for h, m in enumerate(maps):
            f.write('map%d ' % h + ' '.join('%.17g' % v for v in m.ravel()) + '\n')
        if peaks:
            f.write('peaks ' + ' '.join('%.17g' % v for v in peaks) + '\n')
    if cached:  # written whole under a name of this process, then renamed: a reader never sees half a file
        part = '%s.%d' % (cached, os.getpid())
        shutil.copyfile(a.out, part)
        os.replace(part, cached)


if __name__ == '__main__':
    sys.exit(main())
