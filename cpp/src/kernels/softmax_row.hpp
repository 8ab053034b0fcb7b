// Internal: the pieces of a row softmax, shared by the materialised attention
// (kernels_attention.cpp) and the streamed one (kernels_attention_stream.cpp).
#pragma once

#include <cmath>
#include <limits>

#include "posenc/simd.hpp"

namespace posenc::kernels::detail {

// max of s[0..n); -inf when n <= 0.
inline float row_max(const float* s, int n) {
  constexpr int W = static_cast<int>(simd::width);
  float m = -std::numeric_limits<float>::infinity();
  int j = 0;
  if (n >= W) {
    simd::fbatch vm = simd::load(s);
    for (j = W; j + W <= n; j += W) vm = simd::max(vm, simd::load(s + j));
    m = simd::reduce_max(vm);
  }
  for (; j < n; ++j) m = s[j] > m ? s[j] : m;
  return m;
}

// s[j] = exp(s[j] - m) for j in [0, n); returns their sum.
inline float exp_shift_sum(float* s, int n, float m, const simd::ExpConstants& ek) {
  constexpr int W = static_cast<int>(simd::width);
  const simd::fbatch vm = simd::splat(m);
  simd::fbatch vsum = simd::splat(0.0f);
  int j = 0;
  for (; j + W <= n; j += W) {
    const simd::fbatch e = simd::exp(simd::load(s + j) - vm, ek);
    simd::store(s + j, e);
    vsum += e;
  }
  float sum = simd::reduce_add(vsum);
  for (; j < n; ++j) {
    s[j] = std::exp(s[j] - m);
    sum += s[j];
  }
  return sum;
}

// ---------------------------------------------------------------------------
// exp(x) for x <= 0 (a score minus its row max), and exactly 0 for x <= -88 (so -inf gives 0);
// also right for 0 < x < 88 (the streamed kernel's lazy shift lets x reach ln 256):
// 2^t with t = x log2(e). A third cheaper than simd::exp: no upper clamp; t - round(t) is
// exact, so no ln 2 reduction; a degree-5 polynomial instead of degree 7; and a clamp of t at
// -127 (the exponent field becomes 0, so the result is exactly 0) instead of a compare and
// select. The rounding of t costs relative accuracy only where exp(x) is small: the error is
// about (3 + |x|) ulp of the result, so a probability's absolute error stays below 1e-7.
// 2^f on [-1/2, 1/2] is 1 + f (c1 + f (c2 + ... c5)), a minimax fit of the relative error
// (Lawson's algorithm, coefficients rounded to float): at most 1.7e-7 with mul and add rounded
// separately (as in wasm), and 2^0 = 1 exactly.
// Table (mutable, for the reason in posenc::simd::Constants; in kernels_attention_stream.cpp):
// log2(e), -127, magic = 1.5 * 2^23, c5 .. c1, 1, magic_bias (the bits of magic less 127).
extern float exp_nonpositive_table[10];
using ExpNonposConstants = simd::Constants<10>;
inline ExpNonposConstants exp_nonpositive_constants() { return ExpNonposConstants(exp_nonpositive_table); }

#if !POSENC_SCALAR
inline simd::fbatch exp_nonpositive(const simd::fbatch& x, const ExpNonposConstants& k) {
  using ibatch = xsimd::batch<int32_t>;
  const simd::fbatch t = simd::max(x * k[0], k[1]);
  const simd::fbatch tn = t + k[2];        // round(t) in the low mantissa bits
  const simd::fbatch f = t - (tn - k[2]);  // in [-1/2, 1/2], exact
  simd::fbatch p = k[3];
  for (int i = 4; i < 9; ++i) p = xsimd::fma(p, f, k[i]);
  const ibatch e = xsimd::bitwise_cast<ibatch>(tn) - xsimd::bitwise_cast<ibatch>(k[9]);
  return p * xsimd::bitwise_cast<simd::fbatch>(e << 23);
}
#else
inline simd::fbatch exp_nonpositive(const simd::fbatch& x, const ExpNonposConstants& k) {
  simd::fbatch r;  // the same flush to 0 as the SIMD form
  for (std::size_t i = 0; i < simd::width; ++i) r.v[i] = x.v[i] * k[0].v[0] <= -127.0f ? 0.0f : std::exp(x.v[i]);
  return r;
}
#endif

// s[j] = exp(s[j] - m) for j in [0, n), m >= every s[j] (the row max, finite); returns their sum.
// With kTilt, also adds sum_j exp(s[j] - m) (s[j] - m) to *tilt (one fma per entry more): with the
// sum l, a row's entropy is log l - tilt / l (the streamed attention's statistics). An entry whose
// exp is 0 adds 0 (x is clamped at -100 for it, so a -inf score gives no NaN).
template <bool kTilt = false>
inline float exp_nonpositive_shift_sum(float* s, int n, float m, const ExpNonposConstants& k, float* tilt = nullptr) {
  constexpr int W = static_cast<int>(simd::width);
  const simd::fbatch vm = simd::splat(m);
  simd::fbatch vsum = simd::splat(0.0f), vt = simd::splat(0.0f);
  [[maybe_unused]] const simd::fbatch lo = simd::splat(-100.0f);
  int j = 0;
  for (; j + W <= n; j += W) {
    const simd::fbatch x = simd::load(s + j) - vm;
    const simd::fbatch e = exp_nonpositive(x, k);
    simd::store(s + j, e);
    vsum += e;
    if constexpr (kTilt) vt = simd::fma(e, simd::max(x, lo), vt);
  }
  float sum = simd::reduce_add(vsum), t = 0.0f;
  if constexpr (kTilt) t = simd::reduce_add(vt);
  for (; j < n; ++j) {
    const float x = s[j] - m;
    s[j] = x * exp_nonpositive_table[0] <= -127.0f ? 0.0f : std::exp(x);
    sum += s[j];
    if constexpr (kTilt) t += s[j] > 0.0f ? s[j] * x : 0.0f;
  }
  if constexpr (kTilt) *tilt += t;
  return sum;
}

}  // namespace posenc::kernels::detail
