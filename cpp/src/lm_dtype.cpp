// posenc::lm: the storage formats of weights (lm_weights.hpp's DType) - one table row each: name,
// ggml type id, block size and bytes, decoder - and tensors dequantised to float32 (the vectors,
// and any matrix the forward keeps as float32), with the byte count and every value checked.
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
#include <cmath>

#include "lm_internal.hpp"

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

void dec_q4_0(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 18, y += 32) {
    const float d = h_at(p);
    const uint8_t* q = p + 2;
    for (int j = 0; j < 16; ++j) {
      y[j] = d * static_cast<float>((q[j] & 0xF) - 8);
      y[j + 16] = d * static_cast<float>((q[j] >> 4) - 8);
    }
  }
}
void dec_q4_1(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 20, y += 32) {
    const float d = h_at(p), m = h_at(p + 2);
    const uint8_t* q = p + 4;
    for (int j = 0; j < 16; ++j) {
      y[j] = d * static_cast<float>(q[j] & 0xF) + m;
      y[j + 16] = d * static_cast<float>(q[j] >> 4) + m;
    }
  }
}
// Q5: the fifth bit of value j is bit j of qh (values 0..31 in order).
void dec_q5_0(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 22, y += 32) {
    const float d = h_at(p);
    const uint32_t qh = u32_at(p + 2);
    const uint8_t* q = p + 6;
    for (int j = 0; j < 16; ++j) {
      const int lo = (q[j] & 0xF) | (((qh >> j) & 1) << 4), hi = (q[j] >> 4) | (((qh >> (j + 16)) & 1) << 4);
      y[j] = d * static_cast<float>(lo - 16);
      y[j + 16] = d * static_cast<float>(hi - 16);
    }
  }
}
void dec_q5_1(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 24, y += 32) {
    const float d = h_at(p), m = h_at(p + 2);
    const uint32_t qh = u32_at(p + 4);
    const uint8_t* q = p + 8;
    for (int j = 0; j < 16; ++j) {
      const int lo = (q[j] & 0xF) | (((qh >> j) & 1) << 4), hi = (q[j] >> 4) | (((qh >> (j + 16)) & 1) << 4);
      y[j] = d * static_cast<float>(lo) + m;
      y[j + 16] = d * static_cast<float>(hi) + m;
    }
  }
}
void dec_q8_0(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 34, y += 32) {
    const float d = h_at(p);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(static_cast<int8_t>(p[2 + j]));
  }
}

// Q2_K: 16 sub-blocks of 16; sub-block s uses scales[s] (low nibble scale, high nibble min). Within each
// 128-value half, qs[32 bytes] hold four 2-bit planes (shift 0, 2, 4, 6), each plane 2 sub-blocks of 16.
void dec_q2_k(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 84) {
    const uint8_t* sc = p;
    const float d = h_at(p + 80), dmin = h_at(p + 82);
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q = p + 16 + 32 * half;
      for (int plane = 0; plane < 4; ++plane)
        for (int k = 0; k < 2; ++k, y += 16) {
          const int s = *sc++;
          const float dl = d * static_cast<float>(s & 0xF), ml = dmin * static_cast<float>(s >> 4);
          for (int l = 0; l < 16; ++l) y[l] = dl * static_cast<float>((q[16 * k + l] >> (2 * plane)) & 3) - ml;
        }
    }
  }
}

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
// halves); a clear bit subtracts 4.
void dec_q3_k(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 110) {
    const uint8_t* hm = p;
    const float d = h_at(p + 108);
    int sc[16];
    q3_scales(p + 96, sc);
    int s = 0;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q = p + 32 + 32 * half;
      for (int plane = 0; plane < 4; ++plane) {
        const int bit = 4 * half + plane;
        for (int k = 0; k < 2; ++k, y += 16) {
          const float dl = d * static_cast<float>(sc[s++]);
          for (int l = 0; l < 16; ++l) {
            const int i = 16 * k + l;
            y[l] = dl * static_cast<float>(((q[i] >> (2 * plane)) & 3) - (((hm[i] >> bit) & 1) ? 0 : 4));
          }
        }
      }
    }
  }
}

// Q4_K / Q5_K's 8 six-bit scales and mins in 12 bytes: j < 4: scale = s[j] & 63, min = s[j + 4] & 63;
// j >= 4: scale = low4(s[j + 4]) | (s[j - 4] >> 6) << 4, min = high4(s[j + 4]) | (s[j] >> 6) << 4.
// A block at p: d, dmin, then those 12 bytes; gives sub-block j's step d * scale and offset dmin * min.
void k4_step_offset(const uint8_t* p, int j, float& step, float& offset) {
  const uint8_t* s = p + 4;
  const int sc = j < 4 ? s[j] & 63 : (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
  const int mn = j < 4 ? s[j + 4] & 63 : (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  step = h_at(p) * static_cast<float>(sc);
  offset = h_at(p + 2) * static_cast<float>(mn);
}
// Q4_K: 8 sub-blocks of 32; pairs of sub-blocks share 32 bytes of qs (low nibbles, then high).
void dec_q4_k(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 144) {
    for (int j = 0; j < 8; ++j, y += 32) {
      float dl, ml;
      k4_step_offset(p, j, dl, ml);
      const uint8_t* q = p + 16 + 32 * (j / 2);
      const int shift = 4 * (j % 2);
      for (int l = 0; l < 32; ++l) y[l] = dl * static_cast<float>((q[l] >> shift) & 0xF) - ml;
    }
  }
}
// Q5_K: Q4_K plus a fifth bit, bit j of qh[l] for sub-block j.
void dec_q5_k(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 176) {
    const uint8_t* qh = p + 16;
    for (int j = 0; j < 8; ++j, y += 32) {
      float dl, ml;
      k4_step_offset(p, j, dl, ml);
      const uint8_t* q = p + 48 + 32 * (j / 2);
      const int shift = 4 * (j % 2);
      for (int l = 0; l < 32; ++l) y[l] = dl * static_cast<float>(((q[l] >> shift) & 0xF) | (((qh[l] >> j) & 1) << 4)) - ml;
    }
  }
}
// Q6_K: per 128-value half, ql[64] and qh[32]; value 32 c + l (c = 0..3, l < 32) takes the low or high
// nibble of ql[l + 32 (c % 2)] (high for c >= 2) and bits 2c, 2c+1 of qh[l]; scale 8 half + 2 c + l / 16.
void dec_q6_k(const uint8_t* p, float* y, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b, p += 210) {
    const float d = h_at(p + 208);
    const int8_t* sc = reinterpret_cast<const int8_t*>(p + 192);
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = p + 64 * half;
      const uint8_t* qh = p + 128 + 32 * half;
      for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 2; ++k, y += 16) {  // 16 values a scale: loops of fixed shifts, which vectorise
          const float step = d * static_cast<float>(sc[8 * half + 2 * c + k]);
          const uint8_t* lq = ql + 32 * (c % 2) + 16 * k;
          const uint8_t* hq = qh + 16 * k;
          const int lshift = 4 * (c / 2), hshift = 2 * c;
          for (int l = 0; l < 16; ++l)
            y[l] = step * static_cast<float>((((lq[l] >> lshift) & 0xF) | (((hq[l] >> hshift) & 3) << 4)) - 32);
        }
    }
  }
}

// The one table of formats (DType order).
constexpr Format kFormats[] = {
    {DType::F32, "F32", 0, 1, 4, dec_f32},        {DType::F16, "F16", 1, 1, 2, dec_f16},
    {DType::BF16, "BF16", 30, 1, 2, dec_bf16},    {DType::Q8_0, "Q8_0", 8, 32, 34, dec_q8_0},
    {DType::Q4_0, "Q4_0", 2, 32, 18, dec_q4_0},   {DType::Q4_1, "Q4_1", 3, 32, 20, dec_q4_1},
    {DType::Q5_0, "Q5_0", 6, 32, 22, dec_q5_0},   {DType::Q5_1, "Q5_1", 7, 32, 24, dec_q5_1},
    {DType::Q2_K, "Q2_K", 10, 256, 84, dec_q2_k}, {DType::Q3_K, "Q3_K", 11, 256, 110, dec_q3_k},
    {DType::Q4_K, "Q4_K", 12, 256, 144, dec_q4_k}, {DType::Q5_K, "Q5_K", 13, 256, 176, dec_q5_k},
    {DType::Q6_K, "Q6_K", 14, 256, 210, dec_q6_k},
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
