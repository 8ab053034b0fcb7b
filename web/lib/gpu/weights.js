// The weight formats the GPU forward decodes in its shaders: per dtype (the core's names, lm.forwardInputs()), a WGSL
// function weight(n, k) -> f32 giving element (row n, column k) of a matrix of p.n rows by p.k columns whose bytes
// lie in `w: array<u32>` as the core keeps them (lm_weights.hpp): float32 transposed to [cols, rows]; F16 and BF16 row
// by row; ggml's blocks row by row (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0: 32 values a block; Q2_K to Q6_K: 256), each decoded
// as ggml's dequantize_row_* lays it out (ggml-common.h, ggml-quants.c). The shader that includes one
// declares `w` and a uniform `p` with fields n and k.

// Bytes and halves at a byte offset (ggml's blocks are not 4-byte aligned).
const BYTES = /* wgsl */ `
fn byte_at(o: u32) -> u32 { return (w[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }
fn half_at(o: u32) -> f32 { return unpack2x16float(byte_at(o) | (byte_at(o + 1u) << 8u)).x; }
fn i8_at(o: u32) -> f32 { return f32(bitcast<i32>(byte_at(o) << 24u) >> 24u); }
fn u32_at(o: u32) -> u32 { return byte_at(o) | (byte_at(o + 1u) << 8u) | (byte_at(o + 2u) << 16u) | (byte_at(o + 3u) << 24u); }
// the first byte of the block of \`size\` values in \`bytes\` bytes holding element (n, k)
fn block_at(n: u32, k: u32, size: u32, bytes: u32) -> u32 { return (n * (p.k / size) + k / size) * bytes; }
`;

// The 32-value formats' 4-bit part: value e (0..31) is the low nibble of qs[e] for e < 16, the high nibble of
// qs[e - 16] otherwise (qs: the 16 bytes at `qs`); the 5-bit formats add bit e of the u32 at `qh` as the fifth bit.
const NIBBLES = BYTES + /* wgsl */ `
fn nibble32(qs: u32, e: u32) -> u32 { return (byte_at(qs + e % 16u) >> (4u * (e / 16u))) & 15u; }
fn five32(qh: u32, qs: u32, e: u32) -> u32 { return nibble32(qs, e) | (((u32_at(qh) >> e) & 1u) << 4u); }
`;

// Q4_K and Q5_K: {f16 d; f16 dmin; u8 scales[12]; ...}, eight sub-blocks of 32 with 6-bit scales and mins packed in
// the 12 bytes: sub-block j < 4 takes scale s[j] & 63 and min s[j + 4] & 63; j >= 4 takes the low (scale) or high
// (min) nibble of s[j + 4] and, as bits 4-5, the top two bits of s[j - 4] (scale) or s[j] (min). value: d * scale * q
// - dmin * min. Element e of a block is in sub-block j = e / 32; its 4 low bits are the low (j even) or high nibble of
// qs[32 (j / 2) + e % 32].
const K_SCALES = BYTES + /* wgsl */ `
fn k_nibble(qs: u32, e: u32) -> u32 { return (byte_at(qs + 32u * (e / 64u) + e % 32u) >> (4u * ((e / 32u) % 2u))) & 15u; }
fn k_value(b: u32, j: u32, q: u32) -> f32 {
  var sc: u32;
  var mn: u32;
  if (j < 4u) {
    sc = byte_at(b + 4u + j) & 63u;
    mn = byte_at(b + 8u + j) & 63u;
  } else {
    sc = (byte_at(b + 8u + j) & 15u) | ((byte_at(b + j) >> 6u) << 4u);
    mn = (byte_at(b + 8u + j) >> 4u) | ((byte_at(b + 4u + j) >> 6u) << 4u);
  }
  return half_at(b) * f32(sc) * f32(q) - half_at(b + 2u) * f32(mn);
}
`;

// Q2_K and Q3_K's 2-bit planes: in half h = e / 128, plane r = (e % 128) / 32 holds bits 2r of the 32 bytes of qs
// from 32h; value e's byte is qs[32h + e % 32] and its sub-block (of 16) is e / 16.
const PLANES = BYTES + /* wgsl */ `
fn plane2(qs: u32, e: u32) -> u32 { return (byte_at(qs + 32u * (e / 128u) + e % 32u) >> (2u * ((e % 128u) / 32u))) & 3u; }
`;

export const WEIGHT_DECODERS = {
  F32: /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 { return bitcast<f32>(w[k * p.n + n]); }`,
  F16: /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 { let i = n * p.k + k; return unpack2x16float(w[i >> 1u])[i & 1u]; }`,
  BF16: /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 { let i = n * p.k + k; return bitcast<f32>(((w[i >> 1u] >> ((i & 1u) * 16u)) & 0xffffu) << 16u); }`,
  // {f16 d; int8 q[32]}: d * q
  Q8_0: BYTES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 32u, 34u);
  return half_at(b) * i8_at(b + 2u + k % 32u);
}`,
  // {f16 d; u8 qs[16]}: d * (nibble - 8)
  Q4_0: NIBBLES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 32u, 18u);
  return half_at(b) * (f32(nibble32(b + 2u, k % 32u)) - 8.0);
}`,
  // {f16 d; f16 m; u8 qs[16]}: d * nibble + m
  Q4_1: NIBBLES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 32u, 20u);
  return half_at(b) * f32(nibble32(b + 4u, k % 32u)) + half_at(b + 2u);
}`,
  // {f16 d; u32 qh; u8 qs[16]}: d * (q - 16)
  Q5_0: NIBBLES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 32u, 22u);
  return half_at(b) * (f32(five32(b + 2u, b + 6u, k % 32u)) - 16.0);
}`,
  // {f16 d; f16 m; u32 qh; u8 qs[16]}: d * q + m
  Q5_1: NIBBLES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 32u, 24u);
  return half_at(b) * f32(five32(b + 4u, b + 8u, k % 32u)) + half_at(b + 2u);
}`,
  // {u8 scales[16]; u8 qs[64]; f16 d; f16 dmin}: sub-block s's scales[s] holds its 4-bit scale (low nibble) and min
  // (high); d * scale * q - dmin * min
  Q2_K: PLANES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 256u, 84u);
  let e = k % 256u;
  let s = byte_at(b + e / 16u);
  return half_at(b + 80u) * f32(s & 15u) * f32(plane2(b + 16u, e)) - half_at(b + 82u) * f32(s >> 4u);
}`,
  // {u8 hmask[32]; u8 qs[64]; u8 scales[12]; f16 d}: the third bit of value e is bit 4h + r (half, plane) of
  // hmask[e % 32], and a clear bit subtracts 4; sub-block s's 6-bit scale (biased by 32) has its low 4 bits in the low
  // (s < 8) or high nibble of scales[s % 8] and its top 2 at bits 2 (s / 4) of scales[8 + s % 4]; d * scale * q
  Q3_K: PLANES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 256u, 110u);
  let e = k % 256u;
  let s = e / 16u;
  let sc = ((byte_at(b + 96u + s % 8u) >> (4u * (s / 8u))) & 15u) | (((byte_at(b + 104u + s % 4u) >> (2u * (s / 4u))) & 3u) << 4u);
  let high = (byte_at(b + e % 32u) >> (e / 32u)) & 1u;
  return half_at(b + 108u) * (f32(sc) - 32.0) * (f32(plane2(b + 32u, e) | (high << 2u)) - 4.0);
}`,
  // {f16 d; f16 dmin; u8 scales[12]; u8 qs[128]}
  Q4_K: K_SCALES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 256u, 144u);
  return k_value(b, (k % 256u) / 32u, k_nibble(b + 16u, k % 256u));
}`,
  // {f16 d; f16 dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]}: Q4_K's nibbles, and a fifth bit: bit j of qh[e % 32] for
  // sub-block j
  Q5_K: K_SCALES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 256u, 176u);
  let j = (k % 256u) / 32u;
  return k_value(b, j, k_nibble(b + 48u, k % 256u) | (((byte_at(b + 16u + k % 32u) >> j) & 1u) << 4u));
}`,
  // {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}: two halves of 128; in half h, quarter r's value l (0..31) has its low
  // 4 bits in ql[64h + l + 32 (r & 1)] (the high nibble when r >= 2), its high 2 bits at bits 2r of qh[32h + l], its
  // scale scales[8h + l / 16 + 2r]; d * scale * (q - 32)
  Q6_K: BYTES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 256u, 210u);
  let h = (k % 256u) / 128u;
  let r = (k % 128u) / 32u;
  let l = k % 32u;
  let q = ((byte_at(b + 64u * h + l + 32u * (r & 1u)) >> (4u * (r / 2u))) & 15u) | (((byte_at(b + 128u + 32u * h + l) >> (2u * r)) & 3u) << 4u);
  return half_at(b + 208u) * i8_at(b + 192u + 8u * h + l / 16u + 2u * r) * (f32(q) - 32.0);
}`,
};

/** The dtypes the GPU forward decodes. */
export const GPU_DTYPES = Object.keys(WEIGHT_DECODERS);
