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
#include <initializer_list>
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
// exp and sin are written here rather than taken from xsimd: xsimd's
// versions convert float -> int32, which Emscripten 3.1.6 lowers to a scalar
// loop (_mm_cvttps_epi32). These use only add/mul/compare/bit ops, which map
// to single wasm SIMD128 and AVX2 instructions.
namespace detail {
inline fbatch horner(const fbatch& x, std::initializer_list<float> c) {  // c: highest degree first
  auto it = c.begin();
  fbatch acc = fbatch(*it++);
  for (; it != c.end(); ++it) acc = xsimd::fma(acc, x, fbatch(*it));
  return acc;
}
}  // namespace detail

// e^x; exactly 0 for x < -87.3 (so -inf scores give 0), accurate to ~2 ulp elsewhere.
inline fbatch exp(const fbatch& x) {
  using ibatch = xsimd::batch<int32_t>;
  const fbatch magic(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits
  const fbatch xc = xsimd::min(x, fbatch(88.3f));
  const fbatch nm = xsimd::fma(xc, fbatch(1.44269504088896341f), magic);
  const fbatch n = nm - magic;
  // r = x - n ln2, with ln2 split in two so the first product is exact (hi first, then lo).
  const fbatch r = xsimd::fma(n, fbatch(-1.42860682030941723e-06f), xsimd::fma(n, fbatch(-0.693145751953125f), xc));
  const fbatch p = detail::horner(r, {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f});
  const ibatch ni = xsimd::bitwise_cast<ibatch>(nm) - xsimd::bitwise_cast<ibatch>(magic);
  const fbatch scale = xsimd::bitwise_cast<fbatch>((ni + ibatch(127)) << 23);
  return xsimd::select(x < fbatch(-87.3f), fbatch(0.0f), p * scale);
}

// sin on [-pi, pi] (callers reduce the angle in double first): fold into
// [-pi/2, pi/2] with sin(x) = sin(+-pi - x), then an odd Taylor polynomial.
// For cos, callers pass the reduced angle + pi/2.
inline fbatch sin_reduced(const fbatch& x) {
  const fbatch pi(3.14159265358979f), half_pi(1.57079632679490f);
  const fbatch f = xsimd::select(x > half_pi, pi - x, xsimd::select(x < -half_pi, -pi - x, x));
  const fbatch f2 = f * f;
  return f * detail::horner(f2, {1.0f / 6227020800.0f, -1.0f / 39916800.0f, 1.0f / 362880.0f, -1.0f / 5040.0f,
                                 1.0f / 120.0f, -1.0f / 6.0f, 1.0f});
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
inline fbatch sin_reduced(const fbatch& a) { POSENC_LANES(std::sin(a.v[i])); }
inline float reduce_add(const fbatch& a) { float s = 0; for (float x : a.v) s += x; return s; }
inline float reduce_max(const fbatch& a) { float m = a.v[0]; for (float x : a.v) m = x > m ? x : m; return m; }
inline fbatch swap_pairs(const fbatch& a) { POSENC_LANES(a.v[i ^ 1u]); }
#undef POSENC_LANES

#endif

}  // namespace posenc::simd
