#!/usr/bin/python3
"""Independent float64 dequantisation of ggml's block formats, and random quantised GGUF files to test
posenc's kernels with (tests/cpp/test_lm_quant.cpp runs it). Shares no code with the C++ core.

The layouts are ggml's (ggml-common.h, dequantize_row_* in ggml-quants.c). Each format is decoded here
by index tables built from ggml's own loop order (and the K-quants' 6-bit scales by ggml's word-wise
unpacking, with its masks), vectorised over blocks in numpy.

usage:
  dequant.py blocks OUT.gguf OUT.txt [--seed S] [--extreme]
      one tensor "<format>" [rows, cols] of random blocks per format, and a random x [T, cols]; OUT.txt lines:
      "x <T> <cols> <values>", then per format "<format> <rows> <cols> <x @ W^T, T x rows values>",
      "bound <format> <|x| @ |W|^T>" (the scale of each sum, for its rounding error), "row0 <format> <row 0 of W>".
  dequant.py model OUT.gguf OUT.txt --format F [--seed S] [--length T]
      a random llama model (dim 256, hidden 512, 2 layers, 4 heads, 2 kv heads, vocab 256) with every matrix
      in format F (or "mix": Q4_K, with Q6_K for output, attn_v and ffn_down, as llama.cpp's Q4_K_M; or "all": the
      matrices in file order take each block format in turn, then F16, and again), its
      norms F32; OUT.txt: "tokens <ids>", "nll <values>" from tests/lm/reference.py's float64 forward of the
      dequantised weights.
  dequant.py shapes OUT.gguf OUT.txt --shape qwen2.5-0.5b|llama3.2-1b [--type Q4_K_M|F]
      random Q4_K_M blocks in a published model's exact shapes (llama.cpp's per-tensor choice of types), or every
      matrix in format F (rows that are not whole 256-blocks in llama.cpp's fallback type); OUT.txt:
      "params <type>=<count> ...".
"""
import argparse
import os
import struct
import sys

import numpy as np

# name: (ggml type id, values per block, bytes per block)
FORMATS = {
    'F32': (0, 1, 4), 'F16': (1, 1, 2), 'BF16': (30, 1, 2),
    'Q4_0': (2, 32, 18), 'Q4_1': (3, 32, 20), 'Q5_0': (6, 32, 22), 'Q5_1': (7, 32, 24), 'Q8_0': (8, 32, 34),
    'Q2_K': (10, 256, 84), 'Q3_K': (11, 256, 110), 'Q4_K': (12, 256, 144), 'Q5_K': (13, 256, 176), 'Q6_K': (14, 256, 210),
}
QUANTISED = [f for f in FORMATS if f.startswith('Q')]


def half(b, at):
    """f16 at byte `at` of each block -> float64 [n]"""
    return b[:, at:at + 2].copy().view('<f2')[:, 0].astype(np.float64)


def nibbles32(qs):
    """[n, 16] bytes -> [n, 32]: low nibbles are values 0..15, high nibbles 16..31"""
    return np.concatenate([qs & 15, qs >> 4], axis=1).astype(np.int64)


def qh_bits(b, at):
    """the u32 at byte `at` -> [n, 32] bits, bit j for value j"""
    qh = b[:, at:at + 4].copy().view('<u4')[:, 0].astype(np.int64)
    return (qh[:, None] >> np.arange(32)[None, :]) & 1


def k_tables():
    """ggml's dequantize_row_q2_K / q3_K loop order: value index -> (qs byte, shift, sub-block, hmask bit)."""
    byte, shift, sub, hbit, hbyte = [], [], [], [], []
    s = 0
    for n in range(2):          # two halves of 128: q += 32
        for j in range(4):      # shift 0, 2, 4, 6; hmask bit m <<= 1
            for k in range(2):  # q[l], then q[l + 16]
                for l in range(16):
                    byte.append(32 * n + 16 * k + l)
                    shift.append(2 * j)
                    sub.append(s)
                    hbit.append(4 * n + j)
                    hbyte.append(16 * k + l)
                s += 1
    return tuple(np.array(a) for a in (byte, shift, sub, hbit, hbyte))


K2 = k_tables()


def words(b, at, count):
    return b[:, at:at + 4 * count].copy().view('<u4').astype(np.uint64)


def bytes_of(w):
    """[n, k] u32 words -> [n, 4k] bytes (little-endian)"""
    return w.astype('<u4').view(np.uint8).reshape(w.shape[0], -1).astype(np.int64)


def q3_scales(b):
    """ggml's aux[] unpacking with kmask1 = 0x03030303, kmask2 = 0x0f0f0f0f -> [n, 16] scales - 32"""
    k1, k2 = np.uint64(0x03030303), np.uint64(0x0f0f0f0f)
    a = words(b, 96, 3)
    a0, a1, tmp = a[:, 0], a[:, 1], a[:, 2]
    four = np.uint64(4)
    out = np.stack([(a0 & k2) | (((tmp >> np.uint64(0)) & k1) << four),
                    (a1 & k2) | (((tmp >> np.uint64(2)) & k1) << four),
                    ((a0 >> four) & k2) | (((tmp >> np.uint64(4)) & k1) << four),
                    ((a1 >> four) & k2) | (((tmp >> np.uint64(6)) & k1) << four)], axis=1)
    return bytes_of(out).astype(np.int8).astype(np.int64) - 32


def k4_scales_mins(b):
    """ggml's utmp[] unpacking (kmask1 0x3f3f3f3f, kmask2 0x0f0f0f0f, kmask3 0x03030303) -> scales, mins [n, 8]"""
    k1, k2, k3 = np.uint64(0x3f3f3f3f), np.uint64(0x0f0f0f0f), np.uint64(0x03030303)
    u = words(b, 4, 3)
    u0, u1, u2 = u[:, 0], u[:, 1], u[:, 2]
    four, six = np.uint64(4), np.uint64(6)
    t3 = ((u2 >> four) & k2) | (((u1 >> six) & k3) << four)
    aux = u1 & k1
    t1 = (u2 & k2) | (((u0 >> six) & k3) << four)
    t0 = u0 & k1
    return bytes_of(np.stack([t0, t1], axis=1)), bytes_of(np.stack([aux, t3], axis=1))


def dequantize(fmt, raw, count):
    """float64 values of `count` elements stored in format fmt as bytes `raw`."""
    _, per, size = FORMATS[fmt]
    b = np.frombuffer(bytes(raw), dtype=np.uint8).reshape(-1, size)
    assert b.shape[0] * per == count
    if fmt == 'F32':
        return b.copy().view('<f4')[:, 0].astype(np.float64)
    if fmt == 'F16':
        return b.copy().view('<f2')[:, 0].astype(np.float64)
    if fmt == 'BF16':
        return (b.copy().view('<u2')[:, 0].astype(np.uint32) << 16).view('<f4').astype(np.float64)
    if fmt == 'Q4_0':
        y = half(b, 0)[:, None] * (nibbles32(b[:, 2:18]) - 8)
    elif fmt == 'Q4_1':
        y = half(b, 0)[:, None] * nibbles32(b[:, 4:20]) + half(b, 2)[:, None]
    elif fmt == 'Q5_0':
        y = half(b, 0)[:, None] * ((nibbles32(b[:, 6:22]) | (qh_bits(b, 2) << 4)) - 16)
    elif fmt == 'Q5_1':
        y = half(b, 0)[:, None] * (nibbles32(b[:, 8:24]) | (qh_bits(b, 4) << 4)) + half(b, 2)[:, None]
    elif fmt == 'Q8_0':
        y = half(b, 0)[:, None] * b[:, 2:34].view(np.int8).astype(np.int64)
    elif fmt == 'Q2_K':
        byte, shift, sub, _, _ = K2
        sc = b[:, 0:16].astype(np.int64)[:, sub]
        q = (b[:, 16:80].astype(np.int64)[:, byte] >> shift) & 3
        y = half(b, 80)[:, None] * (sc & 15) * q - half(b, 82)[:, None] * (sc >> 4)
    elif fmt == 'Q3_K':
        byte, shift, sub, hbit, hbyte = K2
        q = (b[:, 32:96].astype(np.int64)[:, byte] >> shift) & 3
        h = (b[:, 0:32].astype(np.int64)[:, hbyte] >> hbit) & 1
        y = half(b, 108)[:, None] * q3_scales(b)[:, sub] * (q - 4 * (1 - h))
    elif fmt in ('Q4_K', 'Q5_K'):
        sc, mn = k4_scales_mins(b)
        qs = b[:, 16:144] if fmt == 'Q4_K' else b[:, 48:176]
        i = np.arange(256)
        j, l = i // 32, i % 32   # ggml: 64 values at a time, low nibbles with scale 2k, high with 2k + 1
        q = (qs.astype(np.int64)[:, 32 * (j // 2) + l] >> (4 * (j % 2))) & 15
        if fmt == 'Q5_K':
            q = q + 16 * ((b[:, 16:48].astype(np.int64)[:, l] >> j) & 1)
        y = half(b, 0)[:, None] * sc[:, j] * q - half(b, 2)[:, None] * mn[:, j]
    elif fmt == 'Q6_K':
        ql, qh = b[:, 0:128].astype(np.int64), b[:, 128:192].astype(np.int64)
        sc = b[:, 192:208].view(np.int8).astype(np.int64)
        y = np.empty((b.shape[0], 256))
        d = half(b, 208)[:, None]
        for n in range(2):  # ggml's loop: 128 values, ql += 64, qh += 32, sc += 8
            l = np.arange(32)
            is_ = l // 16
            L, H = ql[:, 64 * n:64 * n + 64], qh[:, 32 * n:32 * n + 32]
            s = sc[:, 8 * n:8 * n + 8]
            q1 = ((L[:, l] & 15) | (((H[:, l] >> 0) & 3) << 4)) - 32
            q2 = ((L[:, l + 32] & 15) | (((H[:, l] >> 2) & 3) << 4)) - 32
            q3 = ((L[:, l] >> 4) | (((H[:, l] >> 4) & 3) << 4)) - 32
            q4 = ((L[:, l + 32] >> 4) | (((H[:, l] >> 6) & 3) << 4)) - 32
            y[:, 128 * n + l] = d * s[:, is_ + 0] * q1
            y[:, 128 * n + l + 32] = d * s[:, is_ + 2] * q2
            y[:, 128 * n + l + 64] = d * s[:, is_ + 4] * q3
            y[:, 128 * n + l + 96] = d * s[:, is_ + 6] * q4
    else:
        raise SystemExit('unknown format ' + fmt)
    return y.reshape(-1)


# Where each format keeps its f16 scales, and the largest |integer factor| a value's scale multiplies:
# (byte offsets of d-like fields, of min-like fields, largest |q * sub-block scale|)
SCALES = {
    'Q4_0': ([0], [], 8), 'Q4_1': ([0], [2], 15), 'Q5_0': ([0], [], 16), 'Q5_1': ([0], [2], 31), 'Q8_0': ([0], [], 128),
    'Q2_K': ([80], [82], 45), 'Q3_K': ([108], [], 128), 'Q4_K': ([0], [2], 945), 'Q5_K': ([0], [2], 1953),
    'Q6_K': ([208], [], 4096),
}
EXTREME = np.array([65504.0, -65504.0, 2.0 ** -24, -(2.0 ** -24), 6.1035e-05, 0.0, 1.0, -3.5], dtype=np.float16)


def random_matrix(fmt, rows, cols, rng, scale=0.1, extreme=False):
    """Random bytes in format fmt for a [rows, cols] matrix, its f16 scales set so values stay near +-scale
    (and, with extreme, one block in two takes a scale from EXTREME: f16's largest, smallest subnormal, zero...)."""
    _, per, size = FORMATS[fmt]
    n = rows * cols // per
    if fmt in ('F32', 'F16', 'BF16'):
        v = rng.uniform(-scale, scale, rows * cols)
        if fmt == 'F32':
            return v.astype('<f4').tobytes()
        if fmt == 'F16':
            return v.astype('<f2').tobytes()
        return (v.astype('<f4').view('<u4') >> 16).astype('<u2').tobytes()
    b = rng.integers(0, 256, size=(n, size), dtype=np.uint8)
    ds, ms, top = SCALES[fmt]
    for at in ds + ms:
        v = (rng.uniform(0.5, 1.5, n) * scale / top).astype(np.float16)
        if at in ds:
            v = v * rng.choice(np.array([-1, 1], dtype=np.float16), n)
        if extreme:
            pick = rng.random(n) < 0.5
            v[pick] = rng.choice(EXTREME, int(pick.sum()))
        b[:, at:at + 2] = v.astype('<f2').view(np.uint8).reshape(n, 2)
    return b.tobytes()


class Gguf:
    """A minimal GGUF v3 writer: u32 / f32 / string key-values, tensors with raw bytes, alignment 32."""

    def __init__(self):
        self.kv, self.info, self.data, self.n_kv, self.n_t = bytearray(), bytearray(), bytearray(), 0, 0

    @staticmethod
    def _str(s):
        e = s.encode()
        return struct.pack('<Q', len(e)) + e

    def u32(self, k, v):
        self.kv += self._str(k) + struct.pack('<II', 4, v)
        self.n_kv += 1

    def f32(self, k, v):
        self.kv += self._str(k) + struct.pack('<If', 6, v)
        self.n_kv += 1

    def string(self, k, v):
        self.kv += self._str(k) + struct.pack('<I', 8) + self._str(v)
        self.n_kv += 1

    def tensor(self, name, shape, fmt, raw):
        while len(self.data) % 32:
            self.data.append(0)
        self.info += self._str(name) + struct.pack('<I', len(shape))
        for d in reversed(shape):
            self.info += struct.pack('<Q', d)
        self.info += struct.pack('<IQ', FORMATS[fmt][0], len(self.data))
        self.data += raw
        self.n_t += 1

    def write(self, path):
        out = bytearray(b'GGUF' + struct.pack('<IQQ', 3, self.n_t, self.n_kv)) + self.kv + self.info
        while len(out) % 32:
            out.append(0)
        with open(path, 'wb') as f:
            f.write(out + self.data)


def fmt_values(v):
    return ' '.join(repr(float(x)) for x in v)


def blocks(args):
    rng = np.random.default_rng(args.seed)
    rows, cols, T = 8, 512, 5
    g = Gguf()
    x = rng.standard_normal((T, cols))
    lines = ['x %d %d %s' % (T, cols, fmt_values(x.reshape(-1).astype(np.float32)))]
    x = x.astype(np.float32).astype(np.float64)  # the values the C++ side reads
    for fmt in FORMATS:
        raw = random_matrix(fmt, rows, cols, rng, extreme=args.extreme)
        g.tensor(fmt, [rows, cols], fmt, raw)
        w = dequantize(fmt, raw, rows * cols).reshape(rows, cols)
        lines.append('%s %d %d %s' % (fmt, rows, cols, fmt_values((x @ w.T).reshape(-1))))
        lines.append('bound %s %s' % (fmt, fmt_values((np.abs(x) @ np.abs(w).T).reshape(-1))))
        lines.append('row0 %s %s' % (fmt, fmt_values(w[0])))
    g.write(args.gguf)
    open(args.out, 'w').write('\n'.join(lines) + '\n')


def model(args):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import reference  # noqa: E402  (the float64 Llama forward)
    rng = np.random.default_rng(args.seed)
    D, F, L, H, Hkv, V = 256, 512, 2, 4, 2, 256
    hd = D // H
    g = Gguf()
    g.string('general.architecture', 'llama')
    for k, v in [('embedding_length', D), ('feed_forward_length', F), ('block_count', L), ('attention.head_count', H),
                 ('attention.head_count_kv', Hkv), ('context_length', 2048)]:
        g.u32('llama.' + k, v)
    g.f32('llama.rope.freq_base', 10000.0)
    g.f32('llama.attention.layer_norm_rms_epsilon', 1e-5)

    every = [f for f in QUANTISED] + ['F16']
    count = [0]

    def fmt_of(name):
        if args.format == 'all':  # the matrices in turn take each block format, then F16, and again
            count[0] += 1
            return every[(count[0] - 1) % len(every)]
        if args.format != 'mix':
            return args.format
        return 'Q6_K' if name in ('output', 'attn_v', 'ffn_down') else 'Q4_K'

    def matrix(name, gguf_name, rows, cols, scale):
        f = fmt_of(name)
        raw = random_matrix(f, rows, cols, rng, scale=scale)
        g.tensor(gguf_name, [rows, cols], f, raw)
        return dequantize(f, raw, rows * cols).reshape(rows, cols)

    def norm(gguf_name, n):
        v = rng.uniform(0.8, 1.2, n).astype('<f4')
        g.tensor(gguf_name, [n], 'F32', v.tobytes())
        return v.astype(np.float64)

    p = dict(dim=D, hidden=F, layers=L, heads=H, kv_heads=Hkv, vocab=V)
    p['emb'] = matrix('token_embd', 'token_embd.weight', V, D, 1.0)
    p['rms_final'] = norm('output_norm.weight', D)
    p['wcls'] = matrix('output', 'output.weight', V, D, 0.3)
    for key in ('rms_att', 'wq', 'wk', 'wv', 'wo', 'rms_ffn', 'w1', 'w2', 'w3'):
        p[key] = []
    for l in range(L):
        b = 'blk.%d.' % l
        p['rms_att'].append(norm(b + 'attn_norm.weight', D))
        p['wq'].append(matrix('attn_q', b + 'attn_q.weight', H * hd, D, 0.2))
        p['wk'].append(matrix('attn_k', b + 'attn_k.weight', Hkv * hd, D, 0.2))
        p['wv'].append(matrix('attn_v', b + 'attn_v.weight', Hkv * hd, D, 0.2))
        p['wo'].append(matrix('attn_output', b + 'attn_output.weight', D, H * hd, 0.2))
        p['rms_ffn'].append(norm(b + 'ffn_norm.weight', D))
        p['w1'].append(matrix('ffn_gate', b + 'ffn_gate.weight', F, D, 0.2))
        p['w3'].append(matrix('ffn_up', b + 'ffn_up.weight', F, D, 0.2))
        p['w2'].append(matrix('ffn_down', b + 'ffn_down.weight', D, F, 0.2))
    for key in ('rms_att', 'wq', 'wk', 'wv', 'wo', 'rms_ffn', 'w1', 'w2', 'w3'):
        p[key] = np.stack(p[key])
    tokens = rng.integers(0, V, args.length)
    nll = reference.forward(p, tokens, 'none', 1.0, 0)[0]
    g.write(args.gguf)
    open(args.out, 'w').write('tokens %s\nnll %s\n' % (' '.join(str(int(t)) for t in tokens), fmt_values(nll)))


# Published shapes (the models' config.json) of two Q4_K_M files people run.
SHAPES = {
    'qwen2.5-0.5b': dict(arch='qwen2', dim=896, hidden=4864, layers=24, heads=14, kv_heads=2, vocab=151936, theta=1e6, eps=1e-6,
                         context=32768, bias=True),
    'llama3.2-1b': dict(arch='llama', dim=2048, hidden=8192, layers=16, heads=32, kv_heads=8, vocab=128256, theta=5e5, eps=1e-5,
                        context=131072, bias=False),
}


def q4_k_m_type(role, layer, layers, cols):
    """llama.cpp's Q4_K_M choice (llama_tensor_get_type): Q6_K for the output (the tied embedding) and, on the layers
    use_more_bits picks, attn_v and ffn_down; Q4_K elsewhere; rows that are not whole 256-blocks fall back to Q8_0
    (for Q6_K) or Q5_0 (for Q4_K)."""
    more = layer is not None and (layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2)
    k = 'Q6_K' if role == 'output' or (role in ('attn_v', 'ffn_down') and more) else 'Q4_K'
    return k if cols % 256 == 0 else {'Q6_K': 'Q8_0', 'Q4_K': 'Q5_0'}[k]


# llama_tensor_get_type's fallback for rows that are not whole 256-value blocks
K_FALLBACK = {'Q2_K': 'Q4_0', 'Q3_K': 'Q4_0', 'Q4_K': 'Q5_0', 'Q5_K': 'Q5_1', 'Q6_K': 'Q8_0'}


def shapes(args):
    """A GGUF with the model's exact tensor shapes, random Q4_K_M blocks and no tokenizer; OUT.txt: tensor types."""
    m = SHAPES[args.shape]
    rng = np.random.default_rng(args.seed)
    D, F, L, H, Hkv, V = m['dim'], m['hidden'], m['layers'], m['heads'], m['kv_heads'], m['vocab']
    hd = D // H
    a = m['arch']
    g = Gguf()
    g.string('general.architecture', a)
    for k, v in [('embedding_length', D), ('feed_forward_length', F), ('block_count', L), ('attention.head_count', H),
                 ('attention.head_count_kv', Hkv), ('context_length', m['context'])]:
        g.u32(a + '.' + k, v)
    g.f32(a + '.rope.freq_base', m['theta'])
    g.f32(a + '.attention.layer_norm_rms_epsilon', m['eps'])
    count = {}

    def matrix(name, role, layer, rows, cols):
        f = q4_k_m_type(role, layer, L, cols) if args.type == 'Q4_K_M' else args.type
        if f in K_FALLBACK and cols % 256:
            f = K_FALLBACK[f]
        count[f] = count.get(f, 0) + rows * cols
        g.tensor(name, [rows, cols], f, random_matrix(f, rows, cols, rng, scale=0.05))

    def vector(name, n):
        count['F32'] = count.get('F32', 0) + n
        g.tensor(name, [n], 'F32', rng.uniform(0.8, 1.2, n).astype('<f4').tobytes())

    matrix('token_embd.weight', 'output', None, V, D)  # tied: the classifier too
    vector('output_norm.weight', D)
    for l in range(L):
        b = 'blk.%d.' % l
        vector(b + 'attn_norm.weight', D)
        matrix(b + 'attn_q.weight', 'attn_q', l, H * hd, D)
        matrix(b + 'attn_k.weight', 'attn_k', l, Hkv * hd, D)
        matrix(b + 'attn_v.weight', 'attn_v', l, Hkv * hd, D)
        if m['bias']:
            vector(b + 'attn_q.bias', H * hd)
            vector(b + 'attn_k.bias', Hkv * hd)
            vector(b + 'attn_v.bias', Hkv * hd)
        matrix(b + 'attn_output.weight', 'attn_output', l, D, H * hd)
        vector(b + 'ffn_norm.weight', D)
        matrix(b + 'ffn_gate.weight', 'ffn_gate', l, F, D)
        matrix(b + 'ffn_up.weight', 'ffn_up', l, F, D)
        matrix(b + 'ffn_down.weight', 'ffn_down', l, D, F)
    g.write(args.gguf)
    open(args.out, 'w').write('params %s\n' % ' '.join('%s=%d' % kv for kv in sorted(count.items())))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('what', choices=['blocks', 'model', 'shapes'])
    ap.add_argument('gguf')
    ap.add_argument('out')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--extreme', action='store_true')
    ap.add_argument('--format', default='Q4_K', choices=list(FORMATS) + ['mix', 'all'])
    ap.add_argument('--length', type=int, default=64)
    ap.add_argument('--shape', default='qwen2.5-0.5b', choices=list(SHAPES))
    ap.add_argument('--type', default='Q4_K_M', choices=['Q4_K_M'] + list(FORMATS))
    args = ap.parse_args()
    {'blocks': blocks, 'model': model, 'shapes': shapes}[args.what](args)


if __name__ == '__main__':
    main()
