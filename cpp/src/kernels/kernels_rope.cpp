// RoPE rotation kernels, written once with posenc::simd (xsimd).
//
// Shapes: x, out [rows, dim]; cos, sin [rows, half] with half = rotary_dim / 2.
// Channels >= rotary_dim pass through. Backward is the transpose of the
// rotation, i.e. the same kernel with sin negated.
#include <cmath>
#include <cstring>
#include <vector>

#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"

namespace posenc::kernels {
namespace {

using simd::fbatch;
constexpr int W = static_cast<int>(simd::width);

void copy_tail(const float* x, float* out, int dim, int rotary_dim) {
  if (x != out && dim > rotary_dim) std::memcpy(out + rotary_dim, x + rotary_dim, sizeof(float) * (dim - rotary_dim));
}

// Half layout: pair (i, i + half). a' = a cos - b sin, b' = b cos + a sin.
// `sign` = +1 forward, -1 backward (rotate by -angle).
void rotate_half(const float* x, float* out, const float* cos, const float* sin, int rows, int dim, int rotary_dim,
                 float sign) {
  const int half = rotary_dim / 2;
  const fbatch vsign = simd::splat(sign);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * dim;
    float* orow = out + static_cast<size_t>(r) * dim;
    const float* c = cos + static_cast<size_t>(r) * half;
    const float* s = sin + static_cast<size_t>(r) * half;
    int i = 0;
    for (; i + W <= half; i += W) {
      fbatch a = simd::load(xr + i), b = simd::load(xr + half + i);
      fbatch vc = simd::load(c + i), vs = simd::load(s + i) * vsign;
      simd::store(orow + i, a * vc - b * vs);
      simd::store(orow + half + i, simd::fma(a, vs, b * vc));
    }
    for (; i < half; ++i) {
      float a = xr[i], b = xr[half + i], vc = c[i], vs = s[i] * sign;
      orow[i] = a * vc - b * vs;
      orow[half + i] = b * vc + a * vs;
    }
    copy_tail(xr, orow, dim, rotary_dim);
  }
}

// Interleaved layout: pair (2i, 2i+1). With x = (a0, b0, a1, b1, ...):
// out = x * (c0, c0, c1, c1, ...) + swap_pairs(x) * (-s0, s0, -s1, s1, ...).
// cos/sin are expanded into that lane order once per row.
void rotate_interleaved(const float* x, float* out, const float* cos, const float* sin, int rows, int dim,
                        int rotary_dim, float sign) {
  const int half = rotary_dim / 2;
  thread_local std::vector<float> ce, se;  // reused: no allocation per call once grown
  ce.resize(rotary_dim);
  se.resize(rotary_dim);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * dim;
    float* orow = out + static_cast<size_t>(r) * dim;
    const float* c = cos + static_cast<size_t>(r) * half;
    const float* s = sin + static_cast<size_t>(r) * half;
    for (int i = 0; i < half; ++i) {
      ce[2 * i] = ce[2 * i + 1] = c[i];
      se[2 * i] = -sign * s[i];
      se[2 * i + 1] = sign * s[i];
    }
    int i = 0;
    for (; i + W <= rotary_dim; i += W) {  // W is even, so pairs never straddle a batch
      fbatch v = simd::load(xr + i);
      simd::store(orow + i, simd::fma(simd::swap_pairs(v), simd::load(se.data() + i), v * simd::load(ce.data() + i)));
    }
    for (; i < rotary_dim; i += 2) {
      float a = xr[i], b = xr[i + 1];
      orow[i] = a * ce[i] + b * se[i];
      orow[i + 1] = b * ce[i + 1] + a * se[i + 1];
    }
    copy_tail(xr, orow, dim, rotary_dim);
  }
}

}  // namespace

void sin_scaled(const float* angle, float* out, std::size_t n, float scale) {
  const fbatch vscale = simd::splat(scale);
  const simd::SinConstants k = simd::sin_constants();
  std::size_t i = 0;
  for (; i + W <= n; i += W) simd::store(out + i, simd::sin_reduced(simd::load(angle + i), k) * vscale);
  for (; i < n; ++i) out[i] = std::sin(angle[i]) * scale;
}

void rope_rotate_half(const float* x, float* out, const float* cos, const float* sin, int rows, int dim,
                      int rotary_dim) {
  rotate_half(x, out, cos, sin, rows, dim, rotary_dim, 1.0f);
}
void rope_rotate_half_backward(const float* dy, float* dx, const float* cos, const float* sin, int rows, int dim,
                               int rotary_dim) {
  rotate_half(dy, dx, cos, sin, rows, dim, rotary_dim, -1.0f);
}
void rope_rotate_interleaved(const float* x, float* out, const float* cos, const float* sin, int rows, int dim,
                             int rotary_dim) {
  rotate_interleaved(x, out, cos, sin, rows, dim, rotary_dim, 1.0f);
}
void rope_rotate_interleaved_backward(const float* dy, float* dx, const float* cos, const float* sin, int rows,
                                      int dim, int rotary_dim) {
  rotate_interleaved(dy, dx, cos, sin, rows, dim, rotary_dim, -1.0f);
}

}  // namespace posenc::kernels
