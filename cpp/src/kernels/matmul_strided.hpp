// Internal: the matmul kernels of kernels.hpp on sub-matrices, with explicit
// row strides (in floats). Used by the model for causal attention blocks.
#pragma once

#include <cstddef>

namespace posenc::kernels::detail {

// KT[cols, rows] = K[rows, cols]^T, both row-major: the keys as S = Q K^T's right-hand side for matmul_strided.
inline void transpose(const float* K, int rows, int cols, float* KT) {
  for (int j = 0; j < rows; ++j)
    for (int c = 0; c < cols; ++c) KT[static_cast<std::ptrdiff_t>(c) * rows + j] = K[static_cast<std::ptrdiff_t>(j) * cols + c];
}

// C[M,N] (+)= A[M,K] @ B[K,N];   A row i at A + i*lda, B row p at B + p*ldb, C row i at C + i*ldc.
void matmul_strided(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int M, int K, int N,
                    bool accumulate);
// C[K,N] (+)= A[M,K]^T @ B[M,N]; A row m at A + m*lda, B row m at B + m*ldb, C row k at C + k*ldc.
void matmul_at_strided(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int M, int K, int N,
                       bool accumulate);

}  // namespace posenc::kernels::detail
