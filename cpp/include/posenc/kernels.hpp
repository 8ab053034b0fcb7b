// posenc: the SIMD hot paths, written once with posenc::simd (xsimd).
#pragma once
#include <cstddef>

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
// causal: keys j > i_pos are masked and end as exactly 0. Requires Tq <= Tk.
void attention_scores_softmax(const float* Q, const float* K, float* S, int Tq, int Tk, int d, float scale,
                              bool causal, float alibi_slope, const float* bias);
// Row softmax in place. With causal, row i uses entries j <= i + (cols - rows) and zeroes the rest.
void softmax_rows(float* S, int rows, int cols, bool causal);
// Backward of a row softmax: dS = P * (dP - rowsum(dP * P)). P, dP, dS: rows*cols (dS may alias dP).
void softmax_rows_backward(const float* P, const float* dP, float* dS, int rows, int cols);

}  // namespace posenc::kernels
