// matmul, matmul_at, matmul_bt against a naive double-precision reference
// (run for the SIMD and the scalar build).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../../cpp/src/kernels/matmul_strided.hpp"  // internal: sub-matrix forms used by the model
#include "posenc/kernels.hpp"

namespace {

std::vector<float> rand_vec(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

enum class Op { AB, AtB, ABt };

// Reference in double. Shapes follow kernels.hpp:
//  AB : C[M,N] = A[M,K] B[K,N]     AtB: C[K,N] = A[M,K]^T B[M,N]     ABt: C[M,N] = A[M,K] B[N,K]^T
std::vector<double> reference(Op op, const std::vector<float>& A, const std::vector<float>& B, int M, int K, int N) {
  if (op == Op::AtB) {
    std::vector<double> C(static_cast<size_t>(K) * N, 0.0);
    for (int k = 0; k < K; ++k)
      for (int n = 0; n < N; ++n) {
        double s = 0;
        for (int m = 0; m < M; ++m) s += double(A[m * K + k]) * B[m * N + n];
        C[k * N + n] = s;
      }
    return C;
  }
  std::vector<double> C(static_cast<size_t>(M) * N, 0.0);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(A[m * K + k]) * (op == Op::AB ? B[k * N + n] : B[n * K + k]);
      C[m * N + n] = s;
    }
  return C;
}

void run(Op op, int M, int K, int N, bool accumulate, unsigned seed) {
  const size_t a_size = static_cast<size_t>(M) * K;
  const size_t b_size = op == Op::AtB ? static_cast<size_t>(M) * N : static_cast<size_t>(K) * N;
  const size_t c_size = op == Op::AtB ? static_cast<size_t>(K) * N : static_cast<size_t>(M) * N;
  auto A = rand_vec(a_size, seed), B = rand_vec(b_size, seed + 1), C0 = rand_vec(c_size, seed + 2);
  auto ref = reference(op, A, B, M, K, N);
  std::vector<float> C = C0;
  switch (op) {
    case Op::AB: posenc::kernels::matmul(A.data(), B.data(), C.data(), M, K, N, accumulate); break;
    case Op::AtB: posenc::kernels::matmul_at(A.data(), B.data(), C.data(), M, K, N, accumulate); break;
    case Op::ABt: posenc::kernels::matmul_bt(A.data(), B.data(), C.data(), M, K, N, accumulate); break;
  }
  const int red = op == Op::AtB ? M : K;  // reduction length
  const double tol = 1e-5 * (red + 1) + 1e-5;
  for (size_t i = 0; i < c_size; ++i) {
    const double want = ref[i] + (accumulate ? C0[i] : 0.0);
    ASSERT_NEAR(C[i], want, tol) << "op " << int(op) << " M=" << M << " K=" << K << " N=" << N
                                 << " accumulate=" << accumulate << " at " << i;
  }
}

const int kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 63, 64, 67};

class MatmulOdd : public ::testing::TestWithParam<Op> {};

TEST_P(MatmulOdd, MatchesDoubleReferenceOnOddSizes) {
  unsigned seed = 1;
  for (int M : kSizes)
    for (int N : kSizes) {
      // Several reduction lengths per (M, N) pair, cycling through the list.
      for (int t = 0; t < 3; ++t) {
        const int K = kSizes[(M + 3 * N + 7 * t) % (sizeof kSizes / sizeof kSizes[0])];
        run(GetParam(), M, K, N, (M + N + t) % 2 == 0, seed++);
      }
    }
}

TEST_P(MatmulOdd, AccumulateAddsToExistingValues) {
  run(GetParam(), 13, 29, 37, true, 99);
  run(GetParam(), 13, 29, 37, false, 99);
}

// Reduction longer than one cache block (KC = 256) and wider than one column panel.
TEST_P(MatmulOdd, LongReductionAndWidePanels) {
  run(GetParam(), 9, 300, 21, false, 7);
  run(GetParam(), 9, 300, 21, true, 8);
  run(GetParam(), 5, 17, 300, true, 9);
  run(GetParam(), 66, 513, 67, false, 10);
}

TEST_P(MatmulOdd, EmptyReductionZeroesOrKeeps) {
  const Op op = GetParam();
  // K = 0 (or M = 0 for matmul_at): the product is zero.
  std::vector<float> A(1), B(64, 1.0f), C(64, 5.0f);
  auto call = [&](bool acc) {
    if (op == Op::AB) posenc::kernels::matmul(A.data(), B.data(), C.data(), 8, 0, 8, acc);
    if (op == Op::ABt) posenc::kernels::matmul_bt(A.data(), B.data(), C.data(), 8, 0, 8, acc);
    if (op == Op::AtB) posenc::kernels::matmul_at(A.data(), B.data(), C.data(), 0, 8, 8, acc);
  };
  call(true);
  for (float c : C) EXPECT_EQ(c, 5.0f);
  call(false);
  for (float c : C) EXPECT_EQ(c, 0.0f);
}

// Sub-matrices with row strides larger than their widths (the causal attention blocks).
TEST(MatmulStrided, SubMatricesMatchReference) {
  unsigned seed = 500;
  for (int M : {1, 5, 16, 19})
    for (int K : {1, 7, 16, 33})
      for (int N : {1, 6, 16, 21})
        for (bool acc : {false, true}) {
          const int pad = 3;
          // matmul_strided: A [M, K] in rows of K+pad, B [K, N] in rows of N+pad, C in rows of N+pad
          const int lda = K + pad, ldb = N + pad, ldc = N + pad;
          auto A = rand_vec(static_cast<size_t>(M) * lda, seed++), B = rand_vec(static_cast<size_t>(K) * ldb, seed++);
          auto C = rand_vec(static_cast<size_t>(M) * ldc, seed++);
          const auto C0 = C;
          posenc::kernels::detail::matmul_strided(A.data(), lda, B.data(), ldb, C.data(), ldc, M, K, N, acc);
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < ldc; ++j) {
              if (j >= N) {
                ASSERT_EQ(C[i * ldc + j], C0[i * ldc + j]) << "wrote outside the sub-matrix";
                continue;
              }
              double want = acc ? C0[i * ldc + j] : 0.0;
              for (int p = 0; p < K; ++p) want += double(A[i * lda + p]) * B[p * ldb + j];
              ASSERT_NEAR(C[i * ldc + j], want, 1e-5 * (K + 1)) << M << " " << K << " " << N;
            }
          // matmul_at_strided: A [M, K] rows of K+pad, B [M, N] rows of N+pad, C [K, N] rows of N+pad
          auto B2 = rand_vec(static_cast<size_t>(M) * ldb, seed++);
          auto C2 = rand_vec(static_cast<size_t>(K) * ldc, seed++);
          const auto C20 = C2;
          posenc::kernels::detail::matmul_at_strided(A.data(), lda, B2.data(), ldb, C2.data(), ldc, M, K, N, acc);
          for (int k = 0; k < K; ++k)
            for (int j = 0; j < ldc; ++j) {
              if (j >= N) {
                ASSERT_EQ(C2[k * ldc + j], C20[k * ldc + j]) << "wrote outside the sub-matrix";
                continue;
              }
              double want = acc ? C20[k * ldc + j] : 0.0;
              for (int m = 0; m < M; ++m) want += double(A[m * lda + k]) * B2[m * ldb + j];
              ASSERT_NEAR(C2[k * ldc + j], want, 1e-5 * (M + 1)) << M << " " << K << " " << N;
            }
        }
}

INSTANTIATE_TEST_SUITE_P(Matmul, MatmulOdd, ::testing::Values(Op::AB, Op::AtB, Op::ABt),
                         [](const ::testing::TestParamInfo<Op>& i) {
                           return std::string(i.param == Op::AB ? "AB" : i.param == Op::AtB ? "AtB" : "ABt");
                         });

}  // namespace
