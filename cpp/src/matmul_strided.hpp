// Internal: the matmul kernels of kernels.hpp on sub-matrices, with explicit
// row strides (in floats). Used by the model for causal attention blocks.
#pragma once

namespace posenc::kernels::detail {

// C[M,N] (+)= A[M,K] @ B[K,N];   A row i at A + i*lda, B row p at B + p*ldb, C row i at C + i*ldc.
void matmul_strided(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int M, int K, int N,
                    bool accumulate);
// C[K,N] (+)= A[M,K]^T @ B[M,N]; A row m at A + m*lda, B row m at B + m*ldb, C row k at C + k*ldc.
void matmul_at_strided(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int M, int K, int N,
                       bool accumulate);

}  // namespace posenc::kernels::detail
