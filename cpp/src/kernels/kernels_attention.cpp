// Attention scores + position bias + causal mask + softmax, written once with
// posenc::simd (xsimd).
//
// Shapes: Q [Tq, d], K [Tk, d], S [Tq, Tk], bias [Tq, Tk] (optional).
// Query i sits at position i_pos = i + (Tk - Tq), so a short query block
// lines up with the end of a longer key block (as with a KV cache).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "matmul_strided.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"
#include "softmax_row.hpp"

namespace posenc::kernels {
namespace {

using simd::fbatch;
constexpr int W = static_cast<int>(simd::width);
constexpr int RB = 4;      // query rows per register tile
constexpr int CB = 2 * W;  // key columns per register tile

// Number of visible keys for query row i.
inline int visible(int i, int rows, int cols, bool causal) {
  if (!causal) return cols;
  int v = i + (cols - rows) + 1;
  return v < 0 ? 0 : (v > cols ? cols : v);
}

// Row softmax over the first n entries; entries n..cols-1 are set to 0. A finite sink adds exp(sink) to the
// denominator only. exp(s - max) <= 1: detail::exp_nonpositive (a third cheaper than simd::exp).
void softmax_row(float* s, int n, int cols, const detail::ExpNonposConstants& ek,
                 float sink = -std::numeric_limits<float>::infinity()) {
  if (n > 0) {
    float m = std::max(detail::row_max(s, n), sink);
    if (m == -std::numeric_limits<float>::infinity()) m = 0.0f;  // every score masked by a -inf bias
    float sum = detail::exp_nonpositive_shift_sum(s, n, m, ek);
    if (sink != -std::numeric_limits<float>::infinity()) sum += std::exp(sink - m);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    const fbatch vinv = simd::splat(inv);
    int j = 0;
    for (; j + W <= n; j += W) simd::store(s + j, simd::load(s + j) * vinv);
    for (; j < n; ++j) s[j] *= inv;
  }
  for (int j = n; j < cols; ++j) s[j] = 0.0f;
}

// S[r0..r0+R, 0..ncols) = Q rows . K^T using KT [d, Tk] (K transposed).
// Register tile: R rows x CB columns, accumulated over d with broadcast q.
// R is a compile-time constant so the accumulators stay in registers.
template <int R>
void scores_block(const float* Q, const float* KT, float* S, int r0, int ncols, int Tk, int d) {
  const float* q = Q + static_cast<size_t>(r0) * d;
  int j = 0;
  for (; j + CB <= ncols; j += CB) {
    fbatch acc0[R], acc1[R];
    for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = simd::splat(0.0f);
    const float* kt = KT + j;
    for (int c = 0; c < d; ++c, kt += Tk) {
      const fbatch k0 = simd::load(kt), k1 = simd::load(kt + W);
      for (int r = 0; r < R; ++r) {
        const fbatch qv = simd::splat(q[r * d + c]);
        acc0[r] = simd::fma(qv, k0, acc0[r]);
        acc1[r] = simd::fma(qv, k1, acc1[r]);
      }
    }
    for (int r = 0; r < R; ++r) {
      float* srow = S + static_cast<size_t>(r0 + r) * Tk + j;
      simd::store(srow, acc0[r]);
      simd::store(srow + W, acc1[r]);
    }
  }
  for (; j < ncols; ++j)
    for (int r = 0; r < R; ++r) {
      float acc = 0.0f;
      for (int c = 0; c < d; ++c) acc += q[r * d + c] * KT[static_cast<size_t>(c) * Tk + j];
      S[static_cast<size_t>(r0 + r) * Tk + j] = acc;
    }
}

}  // namespace

void attention_scores_softmax(const float* Q, const float* K, float* S, int Tq, int Tk, int d, float scale,
                              bool causal, float alibi_slope, const float* bias, float sink) {
  thread_local std::vector<float> KT;
  KT.resize(static_cast<size_t>(d) * Tk);
  detail::transpose(K, Tk, d, KT.data());

  const int offset = Tk - Tq;
  const fbatch vscale = simd::splat(scale);
  const detail::ExpNonposConstants ek = detail::exp_nonpositive_constants();
  for (int r0 = 0; r0 < Tq; r0 += RB) {
    const int rb = Tq - r0 < RB ? Tq - r0 : RB;
    // Only compute the columns the last row of the tile can see.
    const int ncols = visible(r0 + rb - 1, Tq, Tk, causal);
    if (rb == RB)
      scores_block<RB>(Q, KT.data(), S, r0, ncols, Tk, d);
    else
      for (int r = r0; r < r0 + rb; ++r) scores_block<1>(Q, KT.data(), S, r, visible(r, Tq, Tk, causal), Tk, d);
    for (int r = r0; r < r0 + rb; ++r) {
      float* srow = S + static_cast<size_t>(r) * Tk;
      const float* brow = bias ? bias + static_cast<size_t>(r) * Tk : nullptr;
      const int n = visible(r, Tq, Tk, causal);
      const float ipos = static_cast<float>(r + offset);
      // score = scale * qk - m |i_pos - j| + bias
      int j = 0;
      if (alibi_slope != 0.0f) {
        for (; j + W <= n; j += W) {
          float dist[W];
          for (int l = 0; l < W; ++l) dist[l] = std::fabs(ipos - static_cast<float>(j + l));
          fbatch v = simd::load(srow + j) * vscale - simd::splat(alibi_slope) * simd::load(dist);
          if (brow) v += simd::load(brow + j);
          simd::store(srow + j, v);
        }
        for (; j < n; ++j)
          srow[j] = srow[j] * scale - alibi_slope * std::fabs(ipos - static_cast<float>(j)) + (brow ? brow[j] : 0.0f);
      } else {
        for (; j + W <= n; j += W) {
          fbatch v = simd::load(srow + j) * vscale;
          if (brow) v += simd::load(brow + j);
          simd::store(srow + j, v);
        }
        for (; j < n; ++j) srow[j] = srow[j] * scale + (brow ? brow[j] : 0.0f);
      }
      softmax_row(srow, n, Tk, ek, sink);
    }
  }
}

void softmax_rows(float* S, int rows, int cols, bool causal) {
  const detail::ExpNonposConstants ek = detail::exp_nonpositive_constants();
  for (int i = 0; i < rows; ++i) softmax_row(S + static_cast<size_t>(i) * cols, visible(i, rows, cols, causal), cols, ek);
}

void softmax_rows_backward(const float* P, const float* dP, float* dS, int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    const float* p = P + static_cast<size_t>(i) * cols;
    const float* dp = dP + static_cast<size_t>(i) * cols;
    float* ds = dS + static_cast<size_t>(i) * cols;
    int j = 0;
    fbatch vdot = simd::splat(0.0f);
    for (; j + W <= cols; j += W) vdot = simd::fma(simd::load(p + j), simd::load(dp + j), vdot);
    float dot = simd::reduce_add(vdot);
    for (; j < cols; ++j) dot += p[j] * dp[j];
    const fbatch vd = simd::splat(dot);
    for (j = 0; j + W <= cols; j += W) simd::store(ds + j, simd::load(p + j) * (simd::load(dp + j) - vd));
    for (; j < cols; ++j) ds[j] = p[j] * (dp[j] - dot);
  }
}

}  // namespace posenc::kernels
