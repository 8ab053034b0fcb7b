// Streaming attention (online softmax, as in FlashAttention-2), written once
// with posenc::simd (xsimd). Memory is O(T d) instead of O(T^2): the scores
// exist only as one [kBr, kBc] block at a time, small enough to stay in L1.
//
// For each block of kBr queries, the key blocks it can see are visited, the
// last one (the diagonal block, where a causal row's largest score usually is)
// first; per query row a shift m and the sum l of exp(s - m) are kept, and the
// output row is rescaled by exp(m_old - m_new) when m moves:
//   S = Q_blk K_blk^T              (the register-tiled matmul kernel, on K^T)
//   s = scale S + bias, masked      (ALiBi from the distance; T5 / Shaw from RelativeBias)
//   P = exp(s - m_new);  l = l exp(m_old - m_new) + rowsum(P);  O = O exp(m_old - m_new) + P V_blk
//   finally O /= l.
// m moves lazily (as in FlashAttention 4): only when a block's maximum passes it by more than
// ln 256, so exp(s - m) <= 256 and most blocks skip the rescale (softmax is the same for any shift).
// exp(s - m) is detail::exp_nonpositive (2^((s - m) log2 e), no range reduction; its argument
// here is at most ln 256): a third cheaper than the general simd::exp, and exp was the largest
// single cost here.
// With FarScores (ReRoPE), a block holding keys `distance` or more before some row has a second score block made
// from the second queries and keys, copied over those keys' scores before the mask and the softmax.
// Masked entries of a diagonal block become exact zeros in P, so the P V
// product can run over the whole block.
// Statistics (RowStats), in the same pass: next to m and l each row keeps the tilt
// t = sum exp(s - m) (s - m), rescaled with m as l is (t' = corr (t + l (m_old - m_new))), and its
// first key's score s0; at the end entropy = log l - t / l and first-key mass exp(s0 - m) / l.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "matmul_strided.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"
#include "softmax_row.hpp"

namespace posenc::kernels {
namespace {

using simd::fbatch;
using idx = std::ptrdiff_t;
constexpr int W = static_cast<int>(simd::width);
constexpr int kBr = 64;  // queries per block
constexpr int kBc = 64;  // keys per block: S block 16 KB, K^T and V blocks 4 KB at d = 16
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kRescaleSlack = 5.54517744f;  // ln 256

struct Scratch {
  std::vector<float> kt;   // K^T [d, Tk]
  std::vector<float> q;    // one query block, times scale [kBr, d]
  std::vector<float> s;    // one score block [kBr, kBc]
  std::vector<float> m, l;  // running max and sum per query row of the block
  std::vector<float> t, s0;  // statistics: tilt and first key's score per query row of the block
  std::vector<float> kt2, q2, s2;  // FarScores: K2^T, the block's second queries (scaled), their score block
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

fbatch iota() {
  alignas(64) float v[W];
  for (int i = 0; i < W; ++i) v[i] = static_cast<float>(i);
  return simd::load(v);
}

// s[0..n) -= slope * |j0 + j - ipos|   (ALiBi: the distance between key and query)
void add_alibi(float* s, int n, float slope, int j0, int ipos) {
  const fbatch neg_slope = simd::splat(-slope);
  const float base = static_cast<float>(j0 - ipos);
  fbatch off = simd::splat(base) + iota();
  const fbatch step = simd::splat(static_cast<float>(W));
  int j = 0;
  for (; j + W <= n; j += W, off += step)
    simd::store(s + j, simd::fma(neg_slope, simd::max(off, -off), simd::load(s + j)));
  for (; j < n; ++j) s[j] -= slope * std::fabs(base + static_cast<float>(j));
}

// s[j] += row[clamp(x0 + j, 0, len - 1)] for j in [0, n): a constant left part, a contiguous
// middle and a constant right part.
void add_relative(float* s, int n, const float* row, int x0, int len) {
  const int lo = std::clamp(-x0, 0, n);              // j < lo: index < 0
  const int hi = std::clamp(len - x0, lo, n);        // j >= hi: index > len - 1
  for (int j = 0; j < lo; ++j) s[j] += row[0];
  int j = lo;
  const float* r = row + x0;
  for (; j + W <= hi; j += W) simd::store(s + j, simd::load(s + j) + simd::load(r + j));
  for (; j < hi; ++j) s[j] += r[j];
  for (; j < n; ++j) s[j] += row[len - 1];
}

// s[j] = exp(s[j] - m) for j < n, 0 for n <= j < cols; returns the sum. s[j] - m <= kRescaleSlack.
// With tilt, adds sum_j exp(s[j] - m) (s[j] - m) to *tilt.
float exp_row(float* s, int n, int cols, float m, const detail::ExpNonposConstants& ek, float* tilt) {
  const float sum = tilt ? detail::exp_nonpositive_shift_sum<true>(s, n, m, ek, tilt) : detail::exp_nonpositive_shift_sum(s, n, m, ek);
  if (n < cols) std::memset(s + std::max(n, 0), 0, sizeof(float) * static_cast<std::size_t>(cols - std::max(n, 0)));
  return sum;
}

// The statistics of rows r0 .. r0 + rb from the block's m, l, tilt and first scores.
void finish_stats(const RowStats& st, int r0, int rb, const Scratch& sc) {
  for (int r = 0; r < rb; ++r) {
    const float l = sc.l[r];
    const bool any = l > 0.0f;
    if (st.entropy) st.entropy[r0 + r] = any ? std::max(0.0f, std::log(l) - sc.t[r] / l) : 0.0f;
    if (st.first) st.first[r0 + r] = any && sc.s0[r] != kNegInf ? std::exp(sc.s0[r] - sc.m[r]) / l : 0.0f;
    if (st.lse) st.lse[r0 + r] = any ? sc.m[r] + std::log(l) : std::numeric_limits<float>::infinity();
  }
}

void scale_row(float* o, int n, float k) {
  const fbatch vk = simd::splat(k);
  int j = 0;
  for (; j + W <= n; j += W) simd::store(o + j, simd::load(o + j) * vk);
  for (; j < n; ++j) o[j] *= k;
}

}  // namespace

void attention_forward(const float* Q, const float* K, const float* V, float* O, int Tq, int Tk, int d, int dv,
                       int ldo, float scale, bool causal, float alibi_slope, const RelativeBias* bias,
                       const RowStats* stats, int window, const FarScores* far, float sink) {
  if (Tq <= 0 || dv <= 0) return;
  if (!causal) far = nullptr;
  const bool want = stats && (stats->entropy || stats->first || stats->lse);
  const bool tilt = stats && stats->entropy;  // (the entropy's running sum, in the exp pass)
  Scratch& sc = scratch();
  const int q_off = Tk - Tq;  // query i sits at position i + q_off
  sc.kt.resize(static_cast<std::size_t>(d) * Tk);
  detail::transpose(K, Tk, d, sc.kt.data());
  sc.q.resize(static_cast<std::size_t>(kBr) * d);
  sc.s.resize(static_cast<std::size_t>(kBr) * kBc);
  sc.m.resize(kBr);
  sc.l.resize(kBr);
  sc.t.resize(kBr);
  sc.s0.resize(kBr);
  if (far) {
    sc.kt2.resize(sc.kt.size());
    detail::transpose(far->K, Tk, d, sc.kt2.data());
    sc.q2.resize(sc.q.size());
    sc.s2.resize(sc.s.size());
  }
  float* S = sc.s.data();
  const float* kt = sc.kt.data();
  const detail::ExpNonposConstants ek = detail::exp_nonpositive_constants();
  // A sink: one more term of each row's denominator (and of its entropy's sum), with no value.
  auto add_sink = [&](int rb) {
    if (sink == kNegInf) return;
    for (int r = 0; r < rb; ++r) {
      if (sc.m[r] == kNegInf) sc.m[r] = sink;  // no key counted yet (o is 0)
      const float e = std::exp(sink - sc.m[r]);
      if (tilt) sc.t[r] += e * (sink - sc.m[r]);
      sc.l[r] += e;
    }
  };

  for (int r0 = 0; r0 < Tq; r0 += kBr) {
    const int rb = std::min(kBr, Tq - r0);
    // keys visible to the block's last row
    const int c_end = causal ? std::min(Tk, r0 + rb - 1 + q_off + 1) : Tk;
    // with a window, the first key the block's first row sees; key blocks wholly before it are skipped
    const bool windowed = causal && window > 0;
    const int c_begin = windowed ? std::max(0, r0 + q_off - window + 1) : 0;
    std::fill(sc.m.begin(), sc.m.end(), kNegInf);
    std::fill(sc.l.begin(), sc.l.end(), 0.0f);
    std::fill(sc.t.begin(), sc.t.end(), 0.0f);
    std::fill(sc.s0.begin(), sc.s0.end(), kNegInf);
    float* Ob = O + static_cast<idx>(r0) * ldo;
    if (c_end <= 0) {  // no key visible (Tk = 0): zero output
      for (int r = 0; r < rb; ++r) std::memset(Ob + static_cast<idx>(r) * ldo, 0, sizeof(float) * dv);
      add_sink(rb);
      if (want) finish_stats(*stats, r0, rb, sc);
      continue;
    }
    // scale folded into the queries once per block, instead of into every score
    float* qs = sc.q.data();
    std::memcpy(qs, Q + static_cast<idx>(r0) * d, sizeof(float) * static_cast<std::size_t>(rb) * d);
    scale_row(qs, rb * d, scale);
    if (far) {
      std::memcpy(sc.q2.data(), far->Q + static_cast<idx>(r0) * d, sizeof(float) * static_cast<std::size_t>(rb) * d);
      scale_row(sc.q2.data(), rb * d, scale);
    }
    // The last key block first (for causal attention, the diagonal one: the recent keys, where a row's
    // largest score usually is), then the others in order.
    const int last = (c_end - 1) / kBc * kBc, b_begin = c_begin / kBc;
    for (int b = b_begin; b * kBc < c_end; ++b) {
      const bool first = b == b_begin;
      const int c0 = first ? last : (b - 1) * kBc;
      const int nc = std::min(kBc, c_end - c0);
      detail::matmul_strided(qs, d, kt + c0, Tk, S, kBc, rb, d, nc, false);
      // the block's far keys (some row's i_pos - j >= distance): their scores from the second queries and keys
      const bool far_block = far && c0 <= r0 + rb - 1 + q_off - far->distance;
      if (far_block) detail::matmul_strided(sc.q2.data(), d, sc.kt2.data() + c0, Tk, sc.s2.data(), kBc, rb, d, nc, false);
      for (int r = 0; r < rb; ++r) {
        float* s = S + static_cast<idx>(r) * kBc;
        const int ipos = r0 + r + q_off;
        if (far_block) {  // keys j <= ipos - distance
          const int n_far = std::clamp(ipos - far->distance + 1 - c0, 0, nc);
          std::memcpy(s, sc.s2.data() + static_cast<idx>(r) * kBc, sizeof(float) * static_cast<std::size_t>(n_far));
        }
        int n = causal ? std::min(nc, ipos - c0 + 1) : nc;  // may be <= 0
        // with a window, the block's keys before lo are outside the row's window: zero weight, and the row
        // works on s + lo, n - lo
        const int lo = windowed ? std::clamp(ipos - window + 1 - c0, 0, nc) : 0;
        float* o = Ob + static_cast<idx>(r) * ldo;
        if (n - lo <= 0) {
          std::memset(s, 0, sizeof(float) * nc);
          continue;
        }
        if (lo) {
          std::memset(s, 0, sizeof(float) * lo);
          s += lo;
          n -= lo;
        }
        const int cols = nc - lo;
        if (alibi_slope != 0.0f) add_alibi(s, n, alibi_slope, c0 + lo, ipos);
        if (bias)
          add_relative(s, n, bias->table + static_cast<idx>(r0 + r) * bias->row_stride, c0 + lo - ipos + bias->offset,
                       bias->len);
        if (want && c0 + lo == 0) sc.s0[r] = s[0];
        const float m_old = sc.m[r];
        const float blk_max = detail::row_max(s, n);
        // Lazy rescaling: the shift m moves only when a block's maximum passes it by more than
        // kRescaleSlack, so exp(s - m) <= 256 and most blocks skip the rescale of o and l.
        if (m_old == kNegInf || blk_max > m_old + kRescaleSlack) {
          if (blk_max == kNegInf) {  // every score so far is -inf (an infinite bias): nothing to add yet
            std::memset(s, 0, sizeof(float) * cols);
            if (first) std::memset(o, 0, sizeof(float) * dv);
            continue;
          }
          if (!first) {
            const float corr = m_old == kNegInf ? 0.0f : std::exp(m_old - blk_max);
            scale_row(o, dv, corr);
            if (tilt) sc.t[r] = corr == 0.0f ? 0.0f : corr * (sc.t[r] + sc.l[r] * (m_old - blk_max));
            sc.l[r] *= corr;
          }
          sc.m[r] = blk_max;
        }
        sc.l[r] += exp_row(s, n, cols, sc.m[r], ek, tilt ? &sc.t[r] : nullptr);
      }
      detail::matmul_strided(S, kBc, V + static_cast<idx>(c0) * dv, dv, Ob, ldo, rb, nc, dv, !first);
    }
    add_sink(rb);
    for (int r = 0; r < rb; ++r) {
      const float l = sc.l[r];
      scale_row(Ob + static_cast<idx>(r) * ldo, dv, l > 0.0f ? 1.0f / l : 0.0f);
    }
    if (want) finish_stats(*stats, r0, rb, sc);
  }
}

namespace detail {
float exp_nonpositive_table[10] = {
    1.44269504088896341f, -127.0f, 12582912.0f,                  // log2(e), clamp, magic = 1.5 * 2^23
    0.00132647424f, 0.00967151765f, 0.0555073358f, 0.240222424f,  // c5 .. c2
    0.693147004f, 1.0f,                                          // c1, 1
    __builtin_bit_cast(float, __builtin_bit_cast(uint32_t, 12582912.0f) - 127u),  // magic_bias
};
}  // namespace detail

}  // namespace posenc::kernels
