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
#include <utility>

#if !POSENC_SCALAR
#include <xsimd/xsimd.hpp>
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
inline fbatch max(const fbatch& a, const fbatch& b) { return xsimd::max(a, b); }
inline fbatch exp(const fbatch& a) { return xsimd::exp(a); }
inline std::pair<fbatch, fbatch> sincos(const fbatch& a) { return xsimd::sincos(a); }
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
inline fbatch exp(const fbatch& a) { POSENC_LANES(std::exp(a.v[i])); }
inline std::pair<fbatch, fbatch> sincos(const fbatch& a) {
  fbatch s, c;
  for (std::size_t i = 0; i < width; ++i) { s.v[i] = std::sin(a.v[i]); c.v[i] = std::cos(a.v[i]); }
  return {s, c};
}
inline float reduce_add(const fbatch& a) { float s = 0; for (float x : a.v) s += x; return s; }
inline float reduce_max(const fbatch& a) { float m = a.v[0]; for (float x : a.v) m = x > m ? x : m; return m; }
inline fbatch swap_pairs(const fbatch& a) { POSENC_LANES(a.v[i ^ 1u]); }
#undef POSENC_LANES

#endif

}  // namespace posenc::simd
