// Matrix multiply kernels (row-major, single thread), written once with
// posenc::simd (xsimd): AVX2+FMA natively, SIMD128 in wasm, plain scalar code
// in the POSENC_SCALAR build.
//
//   matmul    C[M,N] (+)= A[M,K]   @ B[K,N]
//   matmul_at C[K,N] (+)= A[M,K]^T @ B[M,N]
//   matmul_bt C[M,N] (+)= A[M,K]   @ B[N,K]^T
//
// All three run one register-tiled micro-kernel: an MR x (NV*W) tile of C is
// held in registers while the reduction index p walks; each step loads NV
// vectors of one row of B and broadcasts MR values of A. A is addressed with
// two strides, so matmul (A row-major) and matmul_at (A read transposed) share
// the kernel with no copy. matmul_bt transposes B once into a scratch buffer
// (N*K floats, far cheaper than the M*N*K product).
//
// Blocking: the reduction is cut in KC-long slices and the columns in NC-wide
// panels so that the B block being reused (KC x NC) stays in L2 and each
// KC x (NV*W) micro-panel stays in L1 while all row tiles stream past it. The
// micro-panel is first copied into a contiguous block (when more than two row
// tiles reuse it): read in place, rows a power-of-two apart map to one L1 set
// and evict each other (QK^T at T = 1024 ran at half speed, natively and in wasm).
// Columns left over after the last full vector are computed from a
// zero-padded copy of those B columns, so every column uses the SIMD kernel.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "matmul_strided.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"

namespace posenc::kernels {
namespace {

using simd::fbatch;
using idx = std::ptrdiff_t;
constexpr int W = static_cast<int>(simd::width);

// Register tile: MR rows x NV vectors. AVX2 (16 ymm): 4 x 3 -> 12 accumulators.
// 4-lane builds (wasm SIMD128 run by a JIT with 16 xmm registers, one of them
// reserved, and the scalar build): 4 x 2 -> 8 accumulators, no spills.
constexpr int MR = 4;
constexpr int NV = (W >= 8) ? 3 : 2;
constexpr int NR = NV * W;
constexpr int KC = 256;   // reduction slice
constexpr int NC = 256;   // column panel (multiple of NR not required)

// Scratch reused across calls (grows, never shrinks): no allocation in steady state.
struct Scratch {
  std::vector<float> bt;    // matmul_bt: B transposed [K, N]
  std::vector<float> panel;  // one B micro-panel, contiguous [KC, NR]
  std::vector<float> edge;  // leftover columns of B, zero padded [KC, W]
  std::vector<float> tile;  // C tile for leftover columns [MR, W]
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// How A is addressed: A(r, p) = A[r * lda + p] (RowA: matmul, matmul_bt) or
// A[r + p * lda] (ColA: matmul_at). A compile-time unit stride lets the
// compiler fold the address arithmetic of the broadcasts.
enum class AMode { RowA, ColA };

// C[0..R, 0..V*W) (+)= sum_p A(r, p) * B[p, :], p in [0, kc).
// B row p at B + p * ldb; C row r at C + r * ldc.
template <int R, int V, AMode AM>
inline void micro(int kc, const float* A, idx lda, const float* B, idx ldb, float* C, idx ldc, bool accumulate) {
  const idx a_rs = AM == AMode::RowA ? lda : 1;
  const idx a_ps = AM == AMode::RowA ? 1 : lda;
  fbatch c[R][V];
  if (accumulate) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < V; ++v) c[r][v] = simd::load(C + r * ldc + v * W);
  } else {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < V; ++v) c[r][v] = simd::splat(0.0f);
  }
  for (int p = 0; p < kc; ++p) {
    const float* b = B + p * ldb;
    const float* a = A + p * a_ps;
    fbatch bv[V];
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) bv[v] = simd::load(b + v * W);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const fbatch ar = simd::splat(a[r * a_rs]);
#pragma GCC unroll 8
      for (int v = 0; v < V; ++v) c[r][v] = simd::fma(ar, bv[v], c[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) simd::store(C + r * ldc + v * W, c[r][v]);
}

// Row tiles of MR rows (and one short tile) for a fixed column block of V vectors.
// A one-vector column block (head_dim 8 on AVX2, the last 8 of 32 columns) holds only MR accumulators
// in an MR-row tile, too few to hide the FMA latency: it takes 2 * MR rows at a time on 8-lane builds.
// Each element of C still sums over p in the same order, so the results are the same bits.
constexpr int rows_per_tile(int V) { return V == 1 && W >= 8 ? 2 * MR : MR; }

template <int V, AMode AM>
void rows_pass(int M, int kc, const float* A, idx lda, const float* B, idx ldb, float* C, idx ldc, bool accumulate) {
  const idx a_rs = AM == AMode::RowA ? lda : 1;
  int i = 0;
  constexpr int R2 = rows_per_tile(V);
  if constexpr (R2 != MR)
    for (; i + R2 <= M; i += R2) micro<R2, V, AM>(kc, A + i * a_rs, lda, B, ldb, C + i * ldc, ldc, accumulate);
  for (; i + MR <= M; i += MR) micro<MR, V, AM>(kc, A + i * a_rs, lda, B, ldb, C + i * ldc, ldc, accumulate);
  switch (M - i) {
    case 1: micro<1, V, AM>(kc, A + i * a_rs, lda, B, ldb, C + i * ldc, ldc, accumulate); break;
    case 2: micro<2, V, AM>(kc, A + i * a_rs, lda, B, ldb, C + i * ldc, ldc, accumulate); break;
    case 3: micro<3, V, AM>(kc, A + i * a_rs, lda, B, ldb, C + i * ldc, ldc, accumulate); break;
    default: break;
  }
}

// Leftover columns (fewer than W): B columns [j0, N) copied into a zero-padded
// [kc, W] block; each row tile is computed into a [MR, W] tile and the valid
// columns are written (or added) to C.
template <AMode AM>
void edge_pass(int M, int kc, const float* A, idx lda, const float* B, idx ldb, float* C, idx ldc, int ncols,
               bool accumulate) {
  const idx a_rs = AM == AMode::RowA ? lda : 1;
  Scratch& s = scratch();
  if (s.edge.size() < static_cast<size_t>(kc) * W) s.edge.resize(static_cast<size_t>(kc) * W);
  if (s.tile.size() < static_cast<size_t>(MR) * W) s.tile.resize(static_cast<size_t>(MR) * W);
  float* e = s.edge.data();
  for (int p = 0; p < kc; ++p) {
    for (int j = 0; j < ncols; ++j) e[p * W + j] = B[p * ldb + j];
    for (int j = ncols; j < W; ++j) e[p * W + j] = 0.0f;
  }
  float* t = s.tile.data();
  for (int i = 0; i < M; i += MR) {
    const int rows = std::min(MR, M - i);
    const float* Ai = A + i * a_rs;
    switch (rows) {
      case 1: micro<1, 1, AM>(kc, Ai, lda, e, W, t, W, false); break;
      case 2: micro<2, 1, AM>(kc, Ai, lda, e, W, t, W, false); break;
      case 3: micro<3, 1, AM>(kc, Ai, lda, e, W, t, W, false); break;
      default: micro<MR, 1, AM>(kc, Ai, lda, e, W, t, W, false); break;
    }
    for (int r = 0; r < rows; ++r) {
      float* c = C + (i + r) * ldc;
      if (accumulate)
        for (int j = 0; j < ncols; ++j) c[j] += t[r * W + j];
      else
        for (int j = 0; j < ncols; ++j) c[j] = t[r * W + j];
    }
  }
}

// B[0..kc, 0..NR) (row stride ldb) -> a contiguous [kc, NR] block.
const float* pack_panel(const float* B, idx ldb, int kc) {
  Scratch& s = scratch();
  if (s.panel.size() < static_cast<size_t>(KC) * NR) s.panel.resize(static_cast<size_t>(KC) * NR);
  float* out = s.panel.data();
  for (int p = 0; p < kc; ++p)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) simd::store(out + p * NR + v * W, simd::load(B + p * ldb + v * W));
  return out;
}

// C[M,N] (+)= A'[M,K] @ B[K,N] with A'(i,p) = A[i*lda + p] (RowA) or A[i + p*lda] (ColA);
// row strides ldb of B and ldc of C.
template <AMode AM>
void gemm(int M, int K, int N, const float* A, idx lda, const float* B, idx ldb, float* C, idx ldc,
          bool accumulate) {
  const idx a_ps = AM == AMode::RowA ? 1 : lda;
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int i = 0; i < M; ++i) std::memset(C + i * ldc, 0, sizeof(float) * static_cast<size_t>(N));
    return;
  }
  for (int k0 = 0; k0 < K; k0 += KC) {
    const int kc = std::min(KC, K - k0);
    const bool acc = accumulate || k0 > 0;
    const float* Ak = A + k0 * a_ps;
    const float* Bk = B + k0 * ldb;
    for (int n0 = 0; n0 < N; n0 += NC) {
      const int nc = std::min(NC, N - n0);
      int j = 0;
      for (; j + NR <= nc; j += NR) {
        // Rows of B a power-of-two apart (ldb = 1024, 2048...) share an L1 set, so a strided
        // micro-panel evicts itself; a contiguous copy stays in L1 while the row tiles reuse it.
        if (M > 2 * MR) {
          const float* panel = pack_panel(Bk + n0 + j, ldb, kc);
          rows_pass<NV, AM>(M, kc, Ak, lda, panel, NR, C + n0 + j, ldc, acc);
        } else {
          rows_pass<NV, AM>(M, kc, Ak, lda, Bk + n0 + j, ldb, C + n0 + j, ldc, acc);
        }
      }
      if constexpr (NV > 2) {
        if (j + 2 * W <= nc) {
          rows_pass<2, AM>(M, kc, Ak, lda, Bk + n0 + j, ldb, C + n0 + j, ldc, acc);
          j += 2 * W;
        }
      }
      for (; j + W <= nc; j += W) rows_pass<1, AM>(M, kc, Ak, lda, Bk + n0 + j, ldb, C + n0 + j, ldc, acc);
      if (j < nc) edge_pass<AM>(M, kc, Ak, lda, Bk + n0 + j, ldb, C + n0 + j, ldc, nc - j, acc);
    }
  }
}

}  // namespace

void matmul(const float* A, const float* B, float* C, int M, int K, int N, bool accumulate) {
  gemm<AMode::RowA>(M, K, N, A, K, B, N, C, N, accumulate);
}

void matmul_at(const float* A, const float* B, float* C, int M, int K, int N, bool accumulate) {
  // C[K,N] = sum_m A[m,:]^T B[m,:]: output rows are A's columns, the reduction runs over m.
  gemm<AMode::ColA>(K, M, N, A, K, B, N, C, N, accumulate);
}

void matmul_bt(const float* A, const float* B, float* C, int M, int K, int N, bool accumulate) {
  if (M <= 0 || N <= 0) return;
  Scratch& s = scratch();
  const size_t need = static_cast<size_t>(K > 0 ? K : 0) * N;
  if (s.bt.size() < need) s.bt.resize(need);
  float* bt = s.bt.data();
  // Transpose B [N,K] -> bt [K,N] in 8x8 blocks (cache friendly for large N*K).
  for (int j0 = 0; j0 < N; j0 += 8)
    for (int p0 = 0; p0 < K; p0 += 8) {
      const int jn = std::min(N, j0 + 8), pn = std::min(K, p0 + 8);
      for (int j = j0; j < jn; ++j)
        for (int p = p0; p < pn; ++p) bt[static_cast<idx>(p) * N + j] = B[static_cast<idx>(j) * K + p];
    }
  gemm<AMode::RowA>(M, K, N, A, K, bt, N, C, N, accumulate);
}

namespace detail {
void matmul_strided(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int M, int K, int N,
                    bool accumulate) {
  gemm<AMode::RowA>(M, K, N, A, lda, B, ldb, C, ldc, accumulate);
}
void matmul_at_strided(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int M, int K, int N,
                       bool accumulate) {
  gemm<AMode::ColA>(K, M, N, A, lda, B, ldb, C, ldc, accumulate);
}
}  // namespace detail

}  // namespace posenc::kernels
