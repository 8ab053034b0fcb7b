// posenc: the SIMD hot paths, written once with posenc::simd (xsimd).
#pragma once
#include <cstddef>
#include <limits>

namespace posenc::kernels {

// --- RoPE / sinusoid tables: out[n] = scale * sin(angle[n]) for angles already reduced to
// [-pi, pi] (in double, by the caller). `out` may alias `angle`. cos(a) is sin of reduce(a + pi/2).
void sin_scaled(const float* angle, float* out, std::size_t n, float scale);

// --- RoPE rotation, given per-row cos/sin tables of `half = rotary_dim/2` values.
// x, out: rows*dim (may alias). Channels >= rotary_dim are copied unchanged.
void rope_rotate_half(const float* x, float* out, const float* cos, const float* sin, int rows, int dim,
                      int rotary_dim);
void rope_rotate_interleaved(const float* x, float* out, const float* cos, const float* sin, int rows, int dim,
                             int rotary_dim);
// Backward of the rotation: the transpose (rotate by -angle). Same shapes.
void rope_rotate_half_backward(const float* dy, float* dx, const float* cos, const float* sin, int rows, int dim,
                               int rotary_dim);
void rope_rotate_interleaved_backward(const float* dy, float* dx, const float* cos, const float* sin, int rows,
                                      int dim, int rotary_dim);

// --- Matrix multiply, row-major. C[M,N] (+)= A[M,K] @ B[K,N].
void matmul(const float* A, const float* B, float* C, int M, int K, int N, bool accumulate);
// C[M,N] (+)= A[M,K] @ B[N,K]^T
void matmul_bt(const float* A, const float* B, float* C, int M, int K, int N, bool accumulate);
// C[K,N] (+)= A[M,K]^T @ B[M,N]
void matmul_at(const float* A, const float* B, float* C, int M, int K, int N, bool accumulate);

// --- Attention scores and softmax (one head).
// S[Tq,Tk] = scale * Q[Tq,d] K[Tk,d]^T - alibi_slope * |i_pos - j| + bias[Tq,Tk] (if bias != nullptr),
// then a row softmax in place. Query i sits at position i_pos = i + (Tk - Tq).
// causal: keys j > i_pos are masked and end as exactly 0. Requires 0 <= Tq <= Tk and d >= 1 (unchecked:
// callers validate; d = 0 is undefined behaviour, found by fuzz_encodings).
// sink (finite: an attention sink, as gpt-oss's): one more logit in every row's softmax denominator, with no
// value, so a row's probabilities sum to 1 / (1 + exp(sink) / sum_j exp(s_ij)) < 1. -inf: none.
void attention_scores_softmax(const float* Q, const float* K, float* S, int Tq, int Tk, int d, float scale,
                              bool causal, float alibi_slope, const float* bias,
                              float sink = -std::numeric_limits<float>::infinity());
// Position bias for attention_forward, a function of the query row and of the key's offset from
// it, so that it is never materialised as [Tq, Tk]:
//   bias(i, j) = table[i * row_stride + clamp(j - i_pos + offset, 0, len - 1)].
// T5: one table per head, table[x] = t5[bucket(x - offset)] (row_stride 0, offset = len - 1 = Tk - 1).
// Shaw: row i holds scale * q_i . a_r for r = 0..k (row_stride >= len = k + 1, offset = k).
struct RelativeBias {
  const float* table = nullptr;
  std::ptrdiff_t row_stride = 0;
  int offset = 0;
  int len = 0;
};

// Attention output without the [Tq, Tk] matrix (streaming, online softmax over key blocks):
//   O[Tq, dv] = softmax(scale Q K^T - alibi_slope |i_pos - j| + bias, causal) V
// Q [Tq, d], K [Tk, d], V [Tk, dv]; O rows at O + i * ldo. Query i sits at i_pos = i + (Tk - Tq);
// requires Tq <= Tk. Equal to attention_scores_softmax followed by P @ V up to rounding.
// stats (optional; null costs nothing): per query row i, from the same pass (no second softmax),
// entropy[i] = -sum_j p_ij log p_ij in nats and first[i] = p_i0, the mass on the first key, and
// lse[i] = log sum_j exp(s_ij), so that p_ij = exp(s_ij - lse[i]) for the row's scores s (each pointer may
// be null). A row that sees no key gets 0 for entropy and first and +inf for lse (every weight 0).
// window (causal only; 0: none): query i sees only the `window` keys j with i_pos - window < j <= i_pos
// (HF's sliding window: itself and the window - 1 keys before it); the others get exactly 0 weight and
// their key blocks are not visited.
struct RowStats {
  float* entropy = nullptr;  // [Tq]
  float* first = nullptr;    // [Tq]
  float* lse = nullptr;      // [Tq]
};
// far (optional; causal only): a second set of queries and keys, Q2 [Tq, d] and K2 [Tk, d], that scores the keys
// `distance` or more positions before the query instead (ReRoPE: i_pos - j >= distance scores scale Q2_i . K2_j);
// the nearer keys score from Q and K.
struct FarScores {
  const float* Q = nullptr;
  const float* K = nullptr;
  int distance = 0;
};
// sink: as in attention_scores_softmax; the stats then count it as one more outcome (its mass is in the entropy,
// and lse is the log of the whole denominator, so p_ij = exp(s_ij - lse[i]) still holds).
void attention_forward(const float* Q, const float* K, const float* V, float* O, int Tq, int Tk, int d, int dv,
                       int ldo, float scale, bool causal, float alibi_slope, const RelativeBias* bias,
                       const RowStats* stats = nullptr, int window = 0, const FarScores* far = nullptr,
                       float sink = -std::numeric_limits<float>::infinity());

// Row softmax in place. With causal, row i uses entries j <= i + (cols - rows) and zeroes the rest.
void softmax_rows(float* S, int rows, int cols, bool causal);
// Backward of a row softmax: dS = P * (dP - rowsum(dP * P)). P, dP, dS: rows*cols (dS may alias dP).
void softmax_rows_backward(const float* P, const float* dP, float* dS, int rows, int cols);

}  // namespace posenc::kernels
