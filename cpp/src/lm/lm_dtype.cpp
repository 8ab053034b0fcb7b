// posenc::lm: the storage formats of weights (lm_weights.hpp's DType) - one table row each: name,
// ggml type id, block size and bytes, decoder - and tensors dequantised to float32 (the vectors,
// and any matrix the forward keeps as float32), with the byte count and every value checked.
//
// Each block format is one unpacker (a struct below: block, bytes, unpack) and one table row. unpack(p, put)
// turns the block at p into float batches in registers, calling put(i, w) with values i .. i + width - 1; the
// same unpacker is the format's decoder (put stores) and its matrix kernel (put multiplies w into the sums of
// several rows of x, so that a block is unpacked once for up to kTile tokens).
//
// Block layouts are ggml's (ggml-common.h; a block's f16 scales are IEEE half, little-endian):
//   Q4_0  32 values, 18 B: d; qs[16]            x[j] = d (lo4(qs[j]) - 8), x[j+16] = d (hi4(qs[j]) - 8)
//   Q4_1  32 values, 20 B: d, m; qs[16]         x = d q + m
//   Q5_0  32 values, 22 B: d; qh (u32); qs[16]  q = nibble | (bit j, or j + 16 for x[j+16], of qh) << 4, x = d (q - 16)
//   Q5_1  32 values, 24 B: d, m; qh; qs[16]     x = d q + m
//   Q8_0  32 values, 34 B: d; int8 qs[32]       x = d q
//   Q2_K 256 values, 84 B: scales[16] (4-bit scale | 4-bit min), qs[64] (2-bit), d, dmin
//   Q3_K 256 values, 110 B: hmask[32], qs[64] (2-bit), scales[12] (16 6-bit scales, biased by 32), d
//   Q4_K 256 values, 144 B: d, dmin, scales[12] (8 6-bit scales and 8 6-bit mins), qs[128]
//   Q5_K 256 values, 176 B: d, dmin, scales[12], qh[32], qs[128]
//   Q6_K 256 values, 210 B: ql[128], qh[64], int8 scales[16], d
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "lm_internal.hpp"
#include "posenc/simd.hpp"

namespace posenc::lm {

namespace {

uint16_t u16_at(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t u32_at(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }
float h_at(const uint8_t* p) { return f16_to_f32(u16_at(p)); }

// Each decoder turns n blocks at p into n * block floats at y.
void dec_f32(const uint8_t* p, float* y, std::size_t n) { std::memcpy(y, p, 4 * n); }
// 16-bit values read as whole little-endian words (both targets are little-endian): loops the compiler vectorises.
uint16_t u16_le(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return h;
}
void dec_f16(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = f16_to_f32(u16_le(p + 2 * i));
}
void dec_bf16(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = bf16_to_f32(u16_le(p + 2 * i));
}

using simd::bytes16;
using simd::fbatch;
constexpr int kWidth = static_cast<int>(simd::width);

// put(at + i, value_i * step (+ offset)) for the 16 bytes of q (unsigned, or Signed int8), `width` at a time.
template <bool Signed, class Put, std::size_t... K>
void emit16(const bytes16& q, const fbatch& step, int at, Put& put, std::index_sequence<K...>) {
  (put(at + static_cast<int>(K) * kWidth, simd::byte_floats<static_cast<int>(K), Signed>(q) * step), ...);
}
template <bool Signed, class Put, std::size_t... K>
void emit16(const bytes16& q, const fbatch& step, const fbatch& offset, int at, Put& put, std::index_sequence<K...>) {
  (put(at + static_cast<int>(K) * kWidth, simd::fma(simd::byte_floats<static_cast<int>(K), Signed>(q), step, offset)), ...);
}
using Groups16 = std::make_index_sequence<16 / simd::width>;
template <bool Signed, class Put>
void emit(const bytes16& q, const fbatch& step, int at, Put& put) {
  emit16<Signed>(q, step, at, put, Groups16{});
}
template <bool Signed, class Put>
void emit(const bytes16& q, const fbatch& step, const fbatch& offset, int at, Put& put) {
  emit16<Signed>(q, step, offset, at, put, Groups16{});
}
fbatch half(const uint8_t* p) { return simd::splat(h_at(p)); }
const bytes16 kLow4 = simd::bytes_splat(0x0F);
// Bit j % 8 in byte j: with spread_bytes, selects bit j of a 16-bit word for byte j.
const bytes16 kBitOfByte = [] {
  uint8_t b[16];
  for (int j = 0; j < 16; ++j) b[j] = static_cast<uint8_t>(1u << (j % 8));
  return simd::load16(b);
}();

struct Q4_0 {
  static constexpr int block = 32, bytes = 18;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const fbatch d = half(p);
    const bytes16 q = simd::load16(p + 2), eight = simd::bytes_splat(8);
    emit<true>((q & kLow4) - eight, d, 0, put);
    emit<true>(simd::shr(q, 4) - eight, d, 16, put);
  }
};
struct Q4_1 {
  static constexpr int block = 32, bytes = 20;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const fbatch d = half(p), m = half(p + 2);
    const bytes16 q = simd::load16(p + 4);
    emit<false>(q & kLow4, d, m, 0, put);
    emit<false>(simd::shr(q, 4), d, m, 16, put);
  }
};
// Q5: the fifth bit of value j is bit j of qh (values 0..31 in order).
template <class Put>
void q5_values(const uint8_t* qh_at, const uint8_t* qs, Put&& done) {
  const uint32_t qh = u32_at(qh_at);
  const bytes16 q = simd::load16(qs);
  done((q & kLow4) | simd::where_bits(simd::spread_bytes(qh & 0xFFFF), kBitOfByte, 0x10),
       simd::shr(q, 4) | simd::where_bits(simd::spread_bytes(qh >> 16), kBitOfByte, 0x10));
}
struct Q5_0 {
  static constexpr int block = 32, bytes = 22;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const fbatch d = half(p);
    const bytes16 sixteen = simd::bytes_splat(16);
    q5_values(p + 2, p + 6, [&](const bytes16& lo, const bytes16& hi) {
      emit<true>(lo - sixteen, d, 0, put);
      emit<true>(hi - sixteen, d, 16, put);
    });
  }
};
struct Q5_1 {
  static constexpr int block = 32, bytes = 24;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const fbatch d = half(p), m = half(p + 2);
    q5_values(p + 4, p + 8, [&](const bytes16& lo, const bytes16& hi) {
      emit<false>(lo, d, m, 0, put);
      emit<false>(hi, d, m, 16, put);
    });
  }
};
struct Q8_0 {
  static constexpr int block = 32, bytes = 34;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const fbatch d = half(p);
    emit<true>(simd::load16(p + 2), d, 0, put);
    emit<true>(simd::load16(p + 18), d, 16, put);
  }
};

// Q2_K: 16 sub-blocks of 16; sub-block s uses scales[s] (low nibble scale, high nibble min). Within each
// 128-value half, qs[32 bytes] hold four 2-bit planes (shift 0, 2, 4, 6), each plane 2 sub-blocks of 16.
struct Q2_K {
  static constexpr int block = 256, bytes = 84;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const float d = h_at(p + 80), dmin = h_at(p + 82);
    const bytes16 three = simd::bytes_splat(3);
    for (int half = 0; half < 2; ++half) {
      const bytes16 q[2] = {simd::load16(p + 16 + 32 * half), simd::load16(p + 32 + 32 * half)};
      for (int plane = 0; plane < 4; ++plane)
        for (int k = 0; k < 2; ++k) {
          const int s = p[8 * half + 2 * plane + k];
          emit<false>(simd::shr(q[k], 2 * plane) & three, simd::splat(d * static_cast<float>(s & 0xF)),
                      simd::splat(-dmin * static_cast<float>(s >> 4)), 128 * half + 32 * plane + 16 * k, put);
        }
    }
  }
};

// Q3_K's 16 six-bit scales: the low 4 bits from bytes 0-7 (low nibbles for scales 0-7, high for 8-15),
// the top 2 bits from bytes 8-11 (scale s: byte 8 + s % 4, bits 2 (s / 4) and up).
void q3_scales(const uint8_t* s, int out[16]) {
  for (int i = 0; i < 16; ++i) {
    const int low = i < 8 ? s[i] & 0xF : s[i - 8] >> 4;
    const int high = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
    out[i] = (low | (high << 4)) - 32;
  }
}
// Q3_K: like Q2_K's planes, plus a high bit from hmask (bit m of hmask[l], m counting planes over both
// halves); a clear bit subtracts 4: the value is (2 bits | high bit << 2) - 4.
struct Q3_K {
  static constexpr int block = 256, bytes = 110;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const float d = h_at(p + 108);
    int sc[16];
    q3_scales(p + 96, sc);
    const bytes16 hm[2] = {simd::load16(p), simd::load16(p + 16)};
    const bytes16 three = simd::bytes_splat(3), four = simd::bytes_splat(4);
    for (int half = 0; half < 2; ++half) {
      const bytes16 q[2] = {simd::load16(p + 32 + 32 * half), simd::load16(p + 48 + 32 * half)};
      for (int plane = 0; plane < 4; ++plane) {
        const bytes16 bit = simd::bytes_splat(static_cast<uint8_t>(1u << (4 * half + plane)));
        for (int k = 0; k < 2; ++k) {
          const bytes16 v = (simd::shr(q[k], 2 * plane) & three) | simd::where_bits(hm[k], bit, 4);
          emit<true>(v - four, simd::splat(d * static_cast<float>(sc[8 * half + 2 * plane + k])),
                     128 * half + 32 * plane + 16 * k, put);
        }
      }
    }
  }
};

// Q4_K / Q5_K's 8 six-bit scales and mins in 12 bytes: j < 4: scale = s[j] & 63, min = s[j + 4] & 63;
// j >= 4: scale = low4(s[j + 4]) | (s[j - 4] >> 6) << 4, min = high4(s[j + 4]) | (s[j] >> 6) << 4.
// A block at p: d, dmin, then those 12 bytes; gives sub-block j's step d * scale and offset -dmin * min.
void k4_step_offset(const uint8_t* p, float d, float dmin, int j, fbatch& step, fbatch& offset) {
  const uint8_t* s = p + 4;
  const int sc = j < 4 ? s[j] & 63 : (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
  const int mn = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  step = simd::splat(d * static_cast<float>(sc));
  offset = simd::splat(-(dmin * static_cast<float>(mn)));
}
// Q4_K: 8 sub-blocks of 32; pairs of sub-blocks share 32 bytes of qs (low nibbles, then high).
// Q5_K: the same plus a fifth bit, bit j of qh[l] for sub-block j.
template <bool Fifth, int QsAt>
struct K4 {
  static constexpr int block = 256, bytes = Fifth ? 176 : 144;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const float d = h_at(p), dmin = h_at(p + 2);
    bytes16 qh[2] = {kLow4, kLow4};
    if constexpr (Fifth) qh[0] = simd::load16(p + 16), qh[1] = simd::load16(p + 32);
    for (int pair = 0; pair < 4; ++pair) {
      const bytes16 q[2] = {simd::load16(p + QsAt + 32 * pair), simd::load16(p + QsAt + 16 + 32 * pair)};
      for (int odd = 0; odd < 2; ++odd) {
        const int j = 2 * pair + odd;
        fbatch step, offset;
        k4_step_offset(p, d, dmin, j, step, offset);
        const bytes16 bit = simd::bytes_splat(static_cast<uint8_t>(1u << j));
        for (int k = 0; k < 2; ++k) {
          bytes16 v = simd::shr(q[k], 4 * odd) & kLow4;
          if constexpr (Fifth) v = v | simd::where_bits(qh[k], bit, 0x10);
          emit<false>(v, step, offset, 32 * j + 16 * k, put);
        }
      }
    }
  }
};
using Q4_K = K4<false, 16>;
using Q5_K = K4<true, 48>;
// Q6_K: per 128-value half, ql[64] and qh[32]; value 32 c + l (c = 0..3, l < 32) takes the low or high
// nibble of ql[l + 32 (c % 2)] (high for c >= 2) and bits 2c, 2c+1 of qh[l]; scale 8 half + 2 c + l / 16.
struct Q6_K {
  static constexpr int block = 256, bytes = 210;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    const float d = h_at(p + 208);
    const int8_t* sc = reinterpret_cast<const int8_t*>(p + 192);
    const bytes16 three = simd::bytes_splat(3), bias = simd::bytes_splat(32);
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = p + 64 * half;
      const bytes16 qh[2] = {simd::load16(p + 128 + 32 * half), simd::load16(p + 144 + 32 * half)};
      for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 2; ++k) {
          const bytes16 lo = simd::shr(simd::load16(ql + 32 * (c % 2) + 16 * k), 4 * (c / 2)) & kLow4;
          const bytes16 hi = simd::shl(simd::shr(qh[k], 2 * c) & three, 4);
          emit<true>((lo | hi) - bias, simd::splat(d * static_cast<float>(sc[8 * half + 2 * c + k])),
                     128 * half + 32 * c + 16 * k, put);
        }
    }
  }
};

// 16-bit floats, for the kernel only (their decoders above take any number of values): 4 batches a group.
template <fbatch (*Widen)(const uint8_t*)>
struct Halves {
  static constexpr int block = 4 * kWidth, bytes = 2 * block;
  template <class Put>
  static void unpack(const uint8_t* p, Put&& put) {
    for (int k = 0; k < 4; ++k) put(k * kWidth, Widen(p + 2 * kWidth * k));
  }
};
using F16s = Halves<simd::f16_floats>;
using BF16s = Halves<simd::bf16_floats>;

// A block format's decoder: its unpacker, storing.
template <class U>
void decode(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += U::bytes, y += U::block)
    U::unpack(p, [y](int i, const fbatch& w) { simd::store(y + i, w); });
}

// The kernel: NT rows of x against one row of W, its blocks unpacked once for all NT. Each output's sum runs
// over the row in the same order (lane-wise over groups of width values, then across lanes) whatever NT is.
constexpr int kTile = 8;
template <class U, int NT>
void tile(const uint8_t* w, int blocks, const float* x, int ldx, float* out, int ldo, bool accumulate) {
  fbatch acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = simd::splat(0.0f);
  for (int b = 0; b < blocks; ++b, w += U::bytes, x += U::block)
    U::unpack(w, [&](int i, const fbatch& v) {
      for (int t = 0; t < NT; ++t) acc[t] = simd::fma(simd::load(x + static_cast<std::ptrdiff_t>(t) * ldx + i), v, acc[t]);
    });
  for (int t = 0; t < NT; ++t) {
    const float s = simd::reduce_add(acc[t]);
    float& o = out[static_cast<std::ptrdiff_t>(t) * ldo];
    o = accumulate ? o + s : s;
  }
}
template <class U, std::size_t... N>
constexpr auto tiles(std::index_sequence<N...>) {  // tile<U, n> for n = 1 .. kTile
  return std::array{tile<U, static_cast<int>(N) + 1>...};
}
template <class U>
void product(const uint8_t* w, std::size_t row_bytes, int rows, int cols, const float* x, int ldx, int T, float* out,
             int ldo, bool accumulate) {
  static constexpr auto kTiles = tiles<U>(std::make_index_sequence<kTile>{});
  const int blocks = cols / U::block;
  for (int t0 = 0; t0 < T; t0 += kTile) {
    const auto run = kTiles[std::min(kTile, T - t0) - 1];
    for (int r = 0; r < rows; ++r)
      run(w + r * row_bytes, blocks, x + static_cast<std::ptrdiff_t>(t0) * ldx, ldx,
          out + static_cast<std::ptrdiff_t>(t0) * ldo + r, ldo, accumulate);
  }
}

// A table row for a block format: its numbers and functions, all from its unpacker.
template <class U>
constexpr Format block_format(DType t, const char* name, uint32_t ggml) {
  return {t, name, ggml, U::block, U::bytes, decode<U>, product<U>, U::block};
}

// The one table of formats (DType order).
const Format kFormats[] = {
    {DType::F32, "F32", 0, 1, 4, dec_f32, nullptr, 0},
    {DType::F16, "F16", 1, 1, 2, dec_f16, product<F16s>, F16s::block},
    {DType::BF16, "BF16", 30, 1, 2, dec_bf16, product<BF16s>, BF16s::block},
    block_format<Q8_0>(DType::Q8_0, "Q8_0", 8),
    block_format<Q4_0>(DType::Q4_0, "Q4_0", 2),
    block_format<Q4_1>(DType::Q4_1, "Q4_1", 3),
    block_format<Q5_0>(DType::Q5_0, "Q5_0", 6),
    block_format<Q5_1>(DType::Q5_1, "Q5_1", 7),
    block_format<Q2_K>(DType::Q2_K, "Q2_K", 10),
    block_format<Q3_K>(DType::Q3_K, "Q3_K", 11),
    block_format<Q4_K>(DType::Q4_K, "Q4_K", 12),
    block_format<Q5_K>(DType::Q5_K, "Q5_K", 13),
    block_format<Q6_K>(DType::Q6_K, "Q6_K", 14),
};
constexpr std::size_t kFormatCount = sizeof kFormats / sizeof kFormats[0];


uint64_t element_count(const TensorBytes& t) {
  uint64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 1 || d > (int64_t{1} << 40) || n > (uint64_t{1} << 62) / static_cast<uint64_t>(d))
      throw Error(ErrorKind::Range, "tensor " + t.name + " has an invalid dimension " + std::to_string(d));
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

}  // namespace

const Format& format(DType t) {
  const auto i = static_cast<std::size_t>(t);
  if (i >= kFormatCount) throw Error(ErrorKind::Range, "unknown dtype " + std::to_string(i));
  return kFormats[i];
}

const Format* format_of_ggml(uint32_t ggml_type) {
  for (const Format& f : kFormats)
    if (f.ggml == ggml_type) return &f;
  return nullptr;
}

std::string format_list() {
  std::string s;
  for (const Format& f : kFormats) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

const char* dtype_name(DType t) {
  const auto i = static_cast<std::size_t>(t);
  return i < kFormatCount ? kFormats[i].name : "unknown";
}

std::vector<const char*> dtype_names() {
  std::vector<const char*> out;
  for (const Format& f : kFormats) out.push_back(f.name);
  return out;
}

uint64_t checked_bytes(const TensorBytes& t) {
  const uint64_t n = element_count(t);
  const Format& f = format(t.dtype);
  if (t.shape.empty() || t.shape.back() % f.block != 0)
    throw Error(ErrorKind::Range, "tensor " + t.name + " is " + f.name + " but its rows are not a multiple of " +
                                      std::to_string(f.block) + " values");
  const uint64_t bytes = n / f.block * f.block_bytes;
  if (t.bytes != bytes)
    throw Error(ErrorKind::Range, "tensor " + t.name + " has " + std::to_string(t.bytes) + " bytes; its shape and dtype " +
                                      f.name + " need " + std::to_string(bytes));
  if (!t.data) throw Error(ErrorKind::Type, "tensor " + t.name + " has no data (null pointer)");
  return n;
}

void check_finite(const std::string& name, const float* v, std::size_t n, uint64_t first) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i]))
      throw Error(ErrorKind::Range, "tensor " + name + " has " + (std::isnan(v[i]) ? "a NaN" : "an infinite value") +
                                        " at element " + std::to_string(first + i));
}

std::vector<float> dequantise(const TensorBytes& t) {
  const uint64_t n = checked_bytes(t);
  const Format& f = format(t.dtype);
  std::vector<float> out(static_cast<std::size_t>(n));
  f.decode(t.data, out.data(), out.size() / f.block);
  check_finite(t.name, out.data(), out.size(), 0);
  return out;
}

}  // namespace posenc::lm
