// posenc: the SIMD vocabulary every kernel is written in.
//
// Kernels are written once against `posenc::simd::fbatch` (xsimd's API).
//  - Native builds use xsimd's best x86 arch (AVX2+FMA with -mavx2 -mfma).
//  - The wasm SIMD build uses xsimd's SSE4.1 arch, which Emscripten lowers to
//    wasm SIMD128 (-msimd128 -msse4.1; xsimd 8.1 has no wasm backend).
//  - The scalar build (POSENC_SCALAR=1) replaces the batch with a 4-lane
//    struct of plain floats, so the *same kernel source* compiles to scalar
//    code. It exists for benchmarks and for testing the kernels without SIMD.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#if !POSENC_SCALAR
#include <xsimd/xsimd.hpp>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif
#endif

namespace posenc::simd {

#if !POSENC_SCALAR

using fbatch = xsimd::batch<float>;
inline constexpr std::size_t width = fbatch::size;
inline const char* arch_name() { return xsimd::default_arch::name(); }

inline fbatch load(const float* p) { return fbatch::load_unaligned(p); }
inline void store(float* p, const fbatch& v) { v.store_unaligned(p); }
inline fbatch splat(float v) { return fbatch(v); }
inline fbatch fma(const fbatch& a, const fbatch& b, const fbatch& c) { return xsimd::fma(a, b, c); }
// max and min: in wasm, the "pseudo" f32x4.pmax / pmin (b < a ? a : b style, one x86 maxps / minps
// in V8), not _mm_max_ps, which Emscripten lowers to a compare and a v128.bitselect (about five
// instructions in V8). They differ only for NaN and signed zeros, which no caller relies on.
#if defined(__wasm_simd128__)
inline fbatch max(const fbatch& a, const fbatch& b) {
  const __m128 x = a, y = b;
  return fbatch(static_cast<__m128>(wasm_f32x4_pmax(static_cast<v128_t>(x), static_cast<v128_t>(y))));
}
inline fbatch min(const fbatch& a, const fbatch& b) {
  const __m128 x = a, y = b;
  return fbatch(static_cast<__m128>(wasm_f32x4_pmin(static_cast<v128_t>(x), static_cast<v128_t>(y))));
}
#else
inline fbatch max(const fbatch& a, const fbatch& b) { return xsimd::max(a, b); }
inline fbatch min(const fbatch& a, const fbatch& b) { return xsimd::min(a, b); }
#endif
// exp and sin are written here rather than taken from xsimd: xsimd's
// versions convert float -> int32, which Emscripten 3.1.6 lowers to a scalar
// loop (_mm_cvttps_epi32). These use only add/mul/compare/bit ops, which map
// to single wasm SIMD128 and AVX2 instructions.
// Constants of the polynomial kernels (exp, sin; GELU's tanh in model_layers.cpp), splatted
// once before a loop and passed in. Why: V8 builds every wasm v128.const it meets inside a loop
// from general-purpose registers (about four instructions per use), which doubled the cost of
// exp in wasm. The values come from mutable global tables (cpp/src/kernels/simd_constants.cpp) so that
// the compiler cannot fold them back into v128.const: loaded once, they stay in registers (or
// in one stack slot). Native code is unaffected (x86 reads constants from memory anyway).
template <int N>
struct Constants {
  fbatch v[N];
  explicit Constants(const float* table) {
    for (int i = 0; i < N; ++i) v[i] = fbatch(table[i]);
  }
  const fbatch& operator[](int i) const { return v[i]; }
};
namespace detail {
// exp: 88.3, log2(e), magic, -ln2 (hi, lo), 8 Taylor coefficients, -87.3, magic_bias; sin: pi, pi/2, 7 coefficients.
extern float exp_table[15];
extern float sin_table[9];
}  // namespace detail
using ExpConstants = Constants<15>;
using SinConstants = Constants<9>;
inline ExpConstants exp_constants() { return ExpConstants(detail::exp_table); }
inline SinConstants sin_constants() { return SinConstants(detail::sin_table); }

// e^x; exactly 0 for x < -87.3 (so -inf scores give 0), accurate to ~2 ulp elsewhere.
// magic = 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits; the bits of
// nm = x log2(e) + magic, minus magic_bias (the bits of magic, less the exponent bias 127),
// shifted into the exponent field give 2^n.
inline fbatch exp(const fbatch& x, const ExpConstants& k) {
  using ibatch = xsimd::batch<int32_t>;
  const fbatch xc = min(x, k[0]);
  const fbatch nm = xsimd::fma(xc, k[1], k[2]);
  const fbatch n = nm - k[2];
  // r = x - n ln2, with ln2 split in two so the first product is exact (hi first, then lo).
  const fbatch r = xsimd::fma(n, k[4], xsimd::fma(n, k[3], xc));
  fbatch p = k[5];  // Horner, highest degree first: 1/7! ... 1/2, 1, 1
  for (int i = 6; i < 13; ++i) p = xsimd::fma(p, r, k[i]);
  const ibatch e = xsimd::bitwise_cast<ibatch>(nm) - xsimd::bitwise_cast<ibatch>(k[14]);
  const fbatch scale = xsimd::bitwise_cast<fbatch>(e << 23);
  return xsimd::select(x < k[13], fbatch(0.0f), p * scale);
}
inline fbatch exp(const fbatch& x) { return exp(x, exp_constants()); }

// sin on [-pi, pi] (callers reduce the angle in double first): fold into
// [-pi/2, pi/2] with sin(x) = sin(+-pi - x), then an odd Taylor polynomial.
// For cos, callers pass the reduced angle + pi/2.
inline fbatch sin_reduced(const fbatch& x, const SinConstants& k) {
  const fbatch pi = k[0], half_pi = k[1];
  const fbatch f = xsimd::select(x > half_pi, pi - x, xsimd::select(x < -half_pi, -pi - x, x));
  const fbatch f2 = f * f;
  fbatch p = k[2];  // 1/13!, -1/11!, ..., -1/3!, 1
  for (int i = 3; i < 9; ++i) p = xsimd::fma(p, f2, k[i]);
  return f * p;
}
inline float reduce_add(const fbatch& a) { return xsimd::hadd(a); }
inline float reduce_max(const fbatch& a) {
  alignas(64) float t[width];
  a.store_aligned(t);
  float m = t[0];
  for (std::size_t i = 1; i < width; ++i) m = t[i] > m ? t[i] : m;
  return m;
}
// (x0, x1, x2, x3, ...) -> (x1, x0, x3, x2, ...): swaps the two halves of each pair.
namespace detail {
struct pair_swap_index {
  static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};
}  // namespace detail
inline fbatch swap_pairs(const fbatch& a) {
  return xsimd::swizzle(a, xsimd::make_batch_constant<xsimd::batch<uint32_t>, detail::pair_swap_index>());
}

// --- Unpacking stored weights in registers (the block formats' kernels, lm_dtype.cpp).
// bytes16: 16 bytes in one register; byte_floats<K> widens bytes K*width .. K*width + width - 1 to floats
// (unsigned, or signed with Signed), so 16 bytes give 16 / width batches. Byte-wise shifts and masks unpack
// nibbles and bit planes; f16_floats / bf16_floats widen `width` 16-bit floats from memory.
struct bytes16 {
  __m128i v;
};
inline bytes16 load16(const uint8_t* p) { return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))}; }
inline bytes16 bytes_splat(uint8_t b) { return {_mm_set1_epi8(static_cast<char>(b))}; }
inline bytes16 operator&(const bytes16& a, const bytes16& b) { return {_mm_and_si128(a.v, b.v)}; }
inline bytes16 operator|(const bytes16& a, const bytes16& b) { return {_mm_or_si128(a.v, b.v)}; }
inline bytes16 operator-(const bytes16& a, const bytes16& b) { return {_mm_sub_epi8(a.v, b.v)}; }  // wraps
inline bytes16 shr(const bytes16& a, int n) {  // each byte >> n
  return {_mm_and_si128(_mm_srl_epi16(a.v, _mm_cvtsi32_si128(n)), _mm_set1_epi8(static_cast<char>(0xFF >> n)))};
}
inline bytes16 shl(const bytes16& a, int n) {  // each byte << n (bits leaving a byte are dropped)
  return {_mm_and_si128(_mm_sll_epi16(a.v, _mm_cvtsi32_si128(n)), _mm_set1_epi8(static_cast<char>((0xFF << n) & 0xFF)))};
}
// Each byte: `value` where all of its bits in `mask` are set, else 0.
inline bytes16 where_bits(const bytes16& a, const bytes16& mask, uint8_t value) {
  return {_mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(a.v, mask.v), mask.v), _mm_set1_epi8(static_cast<char>(value)))};
}
// Byte j = byte j / 8 of b (its low two bytes spread over 8 bytes each).
inline bytes16 spread_bytes(uint32_t b) {
  return {_mm_shuffle_epi8(_mm_cvtsi32_si128(static_cast<int>(b)), _mm_set_epi64x(0x0101010101010101, 0))};
}
template <int K, bool Signed = false>
inline fbatch byte_floats(const bytes16& a) {
  static_assert(K >= 0 && K * static_cast<int>(width) < 16, "byte_floats: K past the 16 bytes");
#if defined(__AVX2__)
  const __m128i b = _mm_srli_si128(a.v, 8 * K);
  return fbatch(_mm256_cvtepi32_ps(Signed ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b)));
#else
  const __m128i b = _mm_srli_si128(a.v, 4 * K);
  return fbatch(_mm_cvtepi32_ps(Signed ? _mm_cvtepi8_epi32(b) : _mm_cvtepu8_epi32(b)));
#endif
}
// `width` little-endian 16-bit words at p, widened to 32 bits.
inline xsimd::batch<uint32_t> u16_words(const uint8_t* p) {
#if defined(__AVX2__)
  return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
#else
  return _mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
#endif
}
// `width` IEEE halves at p as floats (finite values; subnormals exact: the body shifted into a float's place
// and scaled by 2^112).
inline fbatch f16_floats(const uint8_t* p) {
  using ubatch = xsimd::batch<uint32_t>;
  const ubatch h = u16_words(p);
  const fbatch body = xsimd::bitwise_cast<fbatch>((h & ubatch(0x7fffu)) << 13) * fbatch(0x1p112f);
  return xsimd::bitwise_cast<fbatch>(xsimd::bitwise_cast<ubatch>(body) | ((h & ubatch(0x8000u)) << 16));
}
inline fbatch bf16_floats(const uint8_t* p) { return xsimd::bitwise_cast<fbatch>(u16_words(p) << 16); }

#else  // POSENC_SCALAR: same interface, plain scalar code

struct fbatch {
  static constexpr std::size_t size = 4;
  float v[size];
};
inline constexpr std::size_t width = fbatch::size;
inline const char* arch_name() { return "scalar"; }

#define POSENC_LANES(expr)                         \
  fbatch r;                                        \
  for (std::size_t i = 0; i < width; ++i) r.v[i] = (expr); \
  return r

inline fbatch load(const float* p) { POSENC_LANES(p[i]); }
inline void store(float* p, const fbatch& a) { for (std::size_t i = 0; i < width; ++i) p[i] = a.v[i]; }
inline fbatch splat(float s) { POSENC_LANES(s); }
inline fbatch operator+(const fbatch& a, const fbatch& b) { POSENC_LANES(a.v[i] + b.v[i]); }
inline fbatch operator-(const fbatch& a, const fbatch& b) { POSENC_LANES(a.v[i] - b.v[i]); }
inline fbatch operator*(const fbatch& a, const fbatch& b) { POSENC_LANES(a.v[i] * b.v[i]); }
inline fbatch operator/(const fbatch& a, const fbatch& b) { POSENC_LANES(a.v[i] / b.v[i]); }
inline fbatch operator-(const fbatch& a) { POSENC_LANES(-a.v[i]); }
inline fbatch& operator+=(fbatch& a, const fbatch& b) { return a = a + b; }
inline fbatch& operator*=(fbatch& a, const fbatch& b) { return a = a * b; }
inline fbatch fma(const fbatch& a, const fbatch& b, const fbatch& c) { POSENC_LANES(a.v[i] * b.v[i] + c.v[i]); }
inline fbatch max(const fbatch& a, const fbatch& b) { POSENC_LANES(a.v[i] > b.v[i] ? a.v[i] : b.v[i]); }
inline fbatch min(const fbatch& a, const fbatch& b) { POSENC_LANES(a.v[i] < b.v[i] ? a.v[i] : b.v[i]); }
template <int N>
struct Constants {  // as in the SIMD build: N splatted values from a table
  fbatch v[N];
  explicit Constants(const float* table) {
    for (int i = 0; i < N; ++i) v[i] = splat(table[i]);
  }
  const fbatch& operator[](int i) const { return v[i]; }
};
struct ExpConstants {};
struct SinConstants {};
inline ExpConstants exp_constants() { return {}; }
inline SinConstants sin_constants() { return {}; }
inline fbatch exp(const fbatch& a, const ExpConstants&) { POSENC_LANES(std::exp(a.v[i])); }
inline fbatch exp(const fbatch& a) { POSENC_LANES(std::exp(a.v[i])); }
inline fbatch sin_reduced(const fbatch& a, const SinConstants&) { POSENC_LANES(std::sin(a.v[i])); }
inline float reduce_add(const fbatch& a) { float s = 0; for (float x : a.v) s += x; return s; }
inline float reduce_max(const fbatch& a) { float m = a.v[0]; for (float x : a.v) m = x > m ? x : m; return m; }
inline fbatch swap_pairs(const fbatch& a) { POSENC_LANES(a.v[i ^ 1u]); }

struct bytes16 {
  uint8_t b[16];
};
#define POSENC_BYTES(expr)                   \
  bytes16 r;                                 \
  for (int i = 0; i < 16; ++i) r.b[i] = static_cast<uint8_t>(expr); \
  return r
inline bytes16 load16(const uint8_t* p) { POSENC_BYTES(p[i]); }
inline bytes16 bytes_splat(uint8_t v) { POSENC_BYTES(v); }
inline bytes16 operator&(const bytes16& a, const bytes16& c) { POSENC_BYTES(a.b[i] & c.b[i]); }
inline bytes16 operator|(const bytes16& a, const bytes16& c) { POSENC_BYTES(a.b[i] | c.b[i]); }
inline bytes16 operator-(const bytes16& a, const bytes16& c) { POSENC_BYTES(a.b[i] - c.b[i]); }
inline bytes16 shr(const bytes16& a, int n) { POSENC_BYTES(a.b[i] >> n); }
inline bytes16 shl(const bytes16& a, int n) { POSENC_BYTES(a.b[i] << n); }
inline bytes16 where_bits(const bytes16& a, const bytes16& mask, uint8_t value) { POSENC_BYTES((a.b[i] & mask.b[i]) == mask.b[i] ? value : 0); }
inline bytes16 spread_bytes(uint32_t v) { POSENC_BYTES(v >> (8 * (i / 8))); }
#undef POSENC_BYTES
template <int K, bool Signed = false>
inline fbatch byte_floats(const bytes16& a) {
  static_assert(K >= 0 && K * static_cast<int>(width) < 16, "byte_floats: K past the 16 bytes");
  POSENC_LANES(Signed ? static_cast<float>(static_cast<int8_t>(a.b[K * width + i])) : static_cast<float>(a.b[K * width + i]));
}
inline fbatch f16_floats(const uint8_t* p) {
  fbatch r;
  for (std::size_t i = 0; i < width; ++i) {
    const uint32_t h = p[2 * i] | (p[2 * i + 1] << 8), body = (h & 0x7fffu) << 13, sign = (h & 0x8000u) << 16;
    float f;
    std::memcpy(&f, &body, 4);
    f *= 0x1p112f;
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= sign;
    std::memcpy(&r.v[i], &bits, 4);
  }
  return r;
}
inline fbatch bf16_floats(const uint8_t* p) {
  fbatch r;
  for (std::size_t i = 0; i < width; ++i) {
    const uint32_t bits = static_cast<uint32_t>(p[2 * i] | (p[2 * i + 1] << 8)) << 16;
    std::memcpy(&r.v[i], &bits, 4);
  }
  return r;
}
#undef POSENC_LANES

#endif

}  // namespace posenc::simd
