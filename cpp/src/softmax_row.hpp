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

}  // namespace posenc::kernels::detail
