// posenc::lm: weight matrices in their file's format (lm_weights.hpp) and the one matrix product of
// the forward. A block-format matrix is multiplied a panel of kPanel rows at a time: the panel's
// blocks are decoded to float32 (its format's decoder, lm_dtype.cpp), transposed, and multiplied by
// the register-tiled kernel (kernels::matmul) with float32 activations and accumulation; so the
// decoding is paid once per panel for all T rows of x.
#include <algorithm>

#include "lm_internal.hpp"
#include "matmul_strided.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"

namespace posenc::lm {
namespace {

using idx = std::ptrdiff_t;
constexpr int kPanel = 64;  // rows of W decoded at a time
constexpr int kDirect = 4;  // T below this: dot products straight from the decoded rows, no transpose

const float* f32(const Weight& W) { return reinterpret_cast<const float*>(W.raw()); }

std::size_t row_bytes(const Format& f, int cols) { return static_cast<std::size_t>(cols / f.block) * f.block_bytes; }

struct Scratch {
  std::vector<float> rows, cols;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

float dot(const float* a, const float* b, int n) {
  constexpr int W = static_cast<int>(simd::width);
  simd::fbatch acc = simd::splat(0.0f);
  int i = 0;
  for (; i + W <= n; i += W) acc = simd::fma(simd::load(a + i), simd::load(b + i), acc);
  float s = simd::reduce_add(acc);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

bool fits_in_place(const TensorBytes& t) {
  return t.dtype != DType::F32 || reinterpret_cast<std::uintptr_t>(t.data) % alignof(float) == 0;
}

Weight make_weight(const TensorBytes& t, bool in_place) {
  const uint64_t n = checked_bytes(t);
  if (t.shape.size() != 2) throw Error(ErrorKind::Range, "tensor " + t.name + " must be a matrix");
  const Format& f = format(t.dtype);
  Weight w;
  w.dtype = t.dtype;
  w.rows = static_cast<int>(t.shape[0]);
  w.cols = static_cast<int>(t.shape[1]);
  const std::size_t rb = row_bytes(f, w.cols);
  std::vector<float>& buf = scratch().rows;
  for (int r0 = 0; r0 < w.rows; r0 += kPanel) {  // decoded kPanel rows at a time: every value checked finite
    const int m = std::min(kPanel, w.rows - r0);
    buf.resize(static_cast<std::size_t>(m) * w.cols);
    f.decode(t.data + r0 * rb, buf.data(), buf.size() / f.block);
    check_finite(t.name, buf.data(), buf.size(), static_cast<uint64_t>(r0) * w.cols);
  }
  in_place = in_place && fits_in_place(t);
  if (t.dtype != DType::F32) {
    if (in_place) {
      w.view = t.data, w.view_bytes = t.bytes;
    } else {
      w.data.assign(t.data, t.data + t.bytes);
    }
    return w;
  }
  // float32 [rows, cols] -> [cols, rows]: where it lies (from one copy of it), or into its own bytes.
  std::vector<float> src(static_cast<std::size_t>(n));
  std::memcpy(src.data(), t.data, t.bytes);
  float* out;
  if (in_place) {
    out = reinterpret_cast<float*>(const_cast<uint8_t*>(t.data));
    w.view = t.data, w.view_bytes = t.bytes;
  } else {
    w.data.resize(t.bytes);
    out = reinterpret_cast<float*>(w.data.data());
  }
  for (int r = 0; r < w.rows; ++r)
    for (int c = 0; c < w.cols; ++c) out[static_cast<idx>(c) * w.rows + r] = src[static_cast<idx>(r) * w.cols + c];
  return w;
}

void matmul(float* out, const float* x, const Weight& W, int T, bool accumulate) {
  if (W.dtype == DType::F32) return kernels::matmul(x, f32(W), out, T, W.cols, W.rows, accumulate);
  const Format& f = format(W.dtype);
  const std::size_t rb = row_bytes(f, W.cols);
  Scratch& s = scratch();
  for (int r0 = 0; r0 < W.rows; r0 += kPanel) {
    const int m = std::min(kPanel, W.rows - r0);
    s.rows.resize(static_cast<std::size_t>(m) * W.cols);
    f.decode(W.raw() + r0 * rb, s.rows.data(), s.rows.size() / f.block);
    if (T < kDirect) {
      for (int t = 0; t < T; ++t)
        for (int r = 0; r < m; ++r) {
          float& o = out[static_cast<idx>(t) * W.rows + r0 + r];
          const float v = dot(x + static_cast<idx>(t) * W.cols, s.rows.data() + static_cast<idx>(r) * W.cols, W.cols);
          o = accumulate ? o + v : v;
        }
      continue;
    }
    s.cols.resize(s.rows.size());
    kernels::detail::transpose(s.rows.data(), m, W.cols, s.cols.data());  // [cols, m]
    kernels::detail::matmul_strided(x, W.cols, s.cols.data(), m, out + r0, W.rows, T, W.cols, m, accumulate);
  }
}

void weight_row(const Weight& W, int r, float* out) {
  if (W.dtype == DType::F32) {
    for (int c = 0; c < W.cols; ++c) out[c] = f32(W)[static_cast<idx>(c) * W.rows + r];
    return;
  }
  const Format& f = format(W.dtype);
  f.decode(W.raw() + r * row_bytes(f, W.cols), out, static_cast<std::size_t>(W.cols / f.block));
}

}  // namespace posenc::lm
