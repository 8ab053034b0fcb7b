// posenc::lm: weight matrices in their file's format (lm_weights.hpp) and the one matrix product of
// the forward. A block-format matrix is multiplied a panel of kPanel rows at a time, in one of two ways:
//  - its format's kernel (lm_dtype.cpp): blocks unpacked in registers and multiplied into the sums of a
//    few rows of x at once, float32 activations and accumulation;
//  - where T is large enough that it pays (kKernelMaxT): the panel's blocks decoded to float32, transposed,
//    and multiplied by the register-tiled float kernel (kernels::matmul), the decoding paid once for all T.
#include <algorithm>

#include "lm_internal.hpp"
#include "../kernels/matmul_strided.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"
#include "posenc/threads.hpp"

namespace posenc::lm {
namespace {

using idx = std::ptrdiff_t;
constexpr int kPanel = 64;  // rows of W decoded at a time
constexpr int kDirect = 4;  // T below this: dot products straight from the decoded rows, no transpose
// T (of the whole product) up to which a format's kernel multiplies, above which the decoded panels do
// (bench/quant_matmul.cpp, 2048 x 2048: natively the kernel led at T = 16 by 1.5-2.5x (Q5_0 0.9x) and the panels
// from T = 64; in wasm (V8) the kernel led at T = 1 by 1.2-1.9x and trailed from T = 16).
#if defined(__wasm__)
constexpr int kKernelMaxT = 3;
#else
constexpr int kKernelMaxT = 32;
#endif

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

namespace {

// Rows of x per work item when the rows are split: a multiple of the kernel's row tile (4), large enough that
// an item's share of the work dwarfs the cost of handing it out (and, for a block format, of decoding its panel).
constexpr int kRowChunk = 32;
// Column panels of the float32 kernel (kernels_matmul.cpp's NC): an item of whole panels computes every output
// exactly as the whole product does, the leftover columns included.
constexpr int kColPanel = 256;

// How many pieces to cut n into (each at least `min` long) so that `threads` threads share them evenly.
int pieces(int n, int min, int threads) {
  if (threads <= 1) return 1;
  return std::max(1, std::min(n / min, 4 * threads));
}

// One panel of a block-format W: rows [r0, r0 + m) of W against rows [t0, t1) of x.
void panel_product(float* out, const float* x, const Weight& W, const Format& f, int T, int r0, int t0, int t1,
                   bool accumulate, bool kernel) {
  const int m = std::min(kPanel, W.rows - r0);
  if (kernel) {
    const std::size_t rb = row_bytes(f, W.cols);
    f.product(W.raw() + r0 * rb, rb, m, W.cols, x + static_cast<idx>(t0) * W.cols, W.cols, t1 - t0,
              out + static_cast<idx>(t0) * W.rows + r0, W.rows, accumulate);
    return;
  }
  Scratch& s = scratch();
  s.rows.resize(static_cast<std::size_t>(m) * W.cols);
  f.decode(W.raw() + r0 * row_bytes(f, W.cols), s.rows.data(), s.rows.size() / f.block);
  if (T < kDirect) {  // (by the whole product's T, so that every output is computed the same way however it is split)
    for (int t = t0; t < t1; ++t)
      for (int r = 0; r < m; ++r) {
        float& o = out[static_cast<idx>(t) * W.rows + r0 + r];
        const float v = dot(x + static_cast<idx>(t) * W.cols, s.rows.data() + static_cast<idx>(r) * W.cols, W.cols);
        o = accumulate ? o + v : v;
      }
    return;
  }
  s.cols.resize(s.rows.size());
  kernels::detail::transpose(s.rows.data(), m, W.cols, s.cols.data());  // [cols, m]
  kernels::detail::matmul_strided(x + static_cast<idx>(t0) * W.cols, W.cols, s.cols.data(), m,
                                  out + static_cast<idx>(t0) * W.rows + r0, W.rows, t1 - t0, W.cols, m, accumulate);
}

}  // namespace

// Split over threads::current() threads into items that each compute a set of outputs whole, by the same
// kernel calls as on one thread (a row of x or a column panel never changes how an output is summed), so
// the result has the same bits on any number of threads.
void matmul(float* out, const float* x, const Weight& W, int T, bool accumulate, BlockPath path) {
  const int threads = threads::for_work(static_cast<double>(T) * W.rows * W.cols);
  if (W.dtype == DType::F32) {
    const float* w = f32(W);
    const int panels = (W.rows + kColPanel - 1) / kColPanel;
    if (threads <= 1) return kernels::matmul(x, w, out, T, W.cols, W.rows, accumulate);
    if (panels >= 2 * threads) {  // whole column panels (the classifier: many)
      const int per = (panels + pieces(panels, 1, threads) - 1) / pieces(panels, 1, threads);
      return threads::parallel_for((panels + per - 1) / per, threads, [&](int i) {
        const int c0 = i * per * kColPanel, c1 = std::min(W.rows, c0 + per * kColPanel);
        kernels::detail::matmul_strided(x, W.cols, w + c0, W.rows, out + c0, W.rows, T, W.cols, c1 - c0, accumulate);
      });
    }
    const int n = pieces(T, kRowChunk, threads), per = (T + n - 1) / n;  // rows of x
    return threads::parallel_for((T + per - 1) / per, threads, [&](int i) {
      const int t0 = i * per, t1 = std::min(T, t0 + per);
      kernels::matmul(x + static_cast<idx>(t0) * W.cols, w, out + static_cast<idx>(t0) * W.rows, t1 - t0, W.cols, W.rows, accumulate);
    });
  }
  const Format& f = format(W.dtype);
  const bool has_kernel = f.product && W.cols % f.product_block == 0;
  const bool kernel = path == BlockPath::Kernel ? has_kernel : path == BlockPath::Auto && has_kernel && T <= kKernelMaxT;
  const int panels = (W.rows + kPanel - 1) / kPanel;
  // Each item: one panel against a share of the rows (the panel decoded by each item that uses it).
  const int splits = panels >= 4 * threads ? 1 : pieces(T, kRowChunk, threads), per = (T + splits - 1) / splits;
  const int row_items = (T + per - 1) / per;
  threads::parallel_for(panels * row_items, threads, [&](int i) {
    const int p = i / row_items, t0 = (i % row_items) * per;
    panel_product(out, x, W, f, T, p * kPanel, t0, std::min(T, t0 + per), accumulate, kernel);
  });
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
