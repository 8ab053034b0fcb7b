// The weight formats the GPU forward decodes in its shaders: per dtype (the core's names, lm.forwardInputs()), a WGSL
// function weight(n, k) -> f32 giving element (row n, column k) of a matrix of p.n rows by p.k columns whose bytes
// lie in `w: array<u32>` as the core keeps them (lm_weights.hpp): float32 transposed to [cols, rows]; F16 and BF16 row
// by row; ggml's blocks row by row (Q8_0, Q4_0: 32 values a block; Q4_K, Q6_K: 256). The shader that includes one
// declares `w` and a uniform `p` with fields n and k.

// Bytes and halves at a byte offset (ggml's blocks are not 4-byte aligned).
const BYTES = /* wgsl */ `
fn byte_at(o: u32) -> u32 { return (w[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }
fn half_at(o: u32) -> f32 { return unpack2x16float(byte_at(o) | (byte_at(o + 1u) << 8u)).x; }
fn i8_at(o: u32) -> f32 { return f32(bitcast<i32>(byte_at(o) << 24u) >> 24u); }
// the first byte of the block of \`size\` values in \`bytes\` bytes holding element (n, k)
fn block_at(n: u32, k: u32, size: u32, bytes: u32) -> u32 { return (n * (p.k / size) + k / size) * bytes; }
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
  // {f16 d; u8 q[16]}: value j < 16 in the low nibble of q[j], j >= 16 in the high nibble of q[j - 16]; d * (nibble - 8)
  Q4_0: BYTES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 32u, 18u);
  return half_at(b) * (f32((byte_at(b + 2u + k % 16u) >> (4u * ((k % 32u) / 16u))) & 15u) - 8.0);
}`,
  // {f16 d; f16 dmin; u8 scales[12]; u8 q[128]}: eight sub-blocks of 32 with 6-bit scales and mins; the 64 values of
  // part c are the low nibbles of q[32c ..] (sub-block 2c) then their high nibbles (sub-block 2c + 1)
  Q4_K: BYTES + /* wgsl */ `
fn weight(n: u32, k: u32) -> f32 {
  let b = block_at(n, k, 256u, 144u);
  let e = k % 256u;
  let c = e / 64u;
  let hi = (e % 64u) / 32u;
  let j = 2u * c + hi;
  var sc: u32;
  var mn: u32;
  if (j < 4u) {
    sc = byte_at(b + 4u + j) & 63u;
    mn = byte_at(b + 8u + j) & 63u;
  } else {
    sc = (byte_at(b + 8u + j) & 15u) | ((byte_at(b + j) >> 6u) << 4u);
    mn = (byte_at(b + 8u + j) >> 4u) | ((byte_at(b + 4u + j) >> 6u) << 4u);
  }
  let q = (byte_at(b + 16u + 32u * c + e % 32u) >> (4u * hi)) & 15u;
  return half_at(b) * f32(sc) * f32(q) - half_at(b + 2u) * f32(mn);
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
