// Kernels against plain double-precision references (run for the SIMD and the scalar build).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "posenc/kernels.hpp"
#include "test_util.hpp"

namespace {


// Reference: scores, bias, mask and softmax in double.
std::vector<double> reference_attention(const std::vector<float>& Q, const std::vector<float>& K, int Tq, int Tk, int d,
                                        double scale, bool causal, double slope, const float* bias) {
  std::vector<double> S(static_cast<size_t>(Tq) * Tk, 0.0);
  for (int i = 0; i < Tq; ++i) {
    const int ipos = i + Tk - Tq;
    double m = -INFINITY;
    std::vector<double> row(Tk, -INFINITY);
    for (int j = 0; j < Tk; ++j) {
      if (causal && j > ipos) continue;
      double s = 0;
      for (int c = 0; c < d; ++c) s += double(Q[i * d + c]) * K[j * d + c];
      s = s * scale - slope * std::abs(ipos - j) + (bias ? bias[i * Tk + j] : 0.0);
      row[j] = s;
      m = std::max(m, s);
    }
    double sum = 0;
    for (int j = 0; j < Tk; ++j) sum += std::isinf(row[j]) ? 0.0 : std::exp(row[j] - m);
    for (int j = 0; j < Tk; ++j) S[i * Tk + j] = std::isinf(row[j]) ? 0.0 : std::exp(row[j] - m) / sum;
  }
  return S;
}

struct AttnCase {
  int Tq, Tk, d;
  bool causal;
  float slope;
  bool with_bias;
};

class AttentionKernel : public ::testing::TestWithParam<AttnCase> {};

TEST_P(AttentionKernel, MatchesDoubleReference) {
  const auto c = GetParam();
  auto Q = random_vec(size_t(c.Tq) * c.d, 1), K = random_vec(size_t(c.Tk) * c.d, 2);
  auto B = random_vec(size_t(c.Tq) * c.Tk, 3, 2.0f);
  const float* bias = c.with_bias ? B.data() : nullptr;
  std::vector<float> S(size_t(c.Tq) * c.Tk, 123.0f);
  const float scale = 1.0f / std::sqrt(float(c.d));
  posenc::kernels::attention_scores_softmax(Q.data(), K.data(), S.data(), c.Tq, c.Tk, c.d, scale, c.causal, c.slope,
                                            bias);
  auto ref = reference_attention(Q, K, c.Tq, c.Tk, c.d, scale, c.causal, c.slope, bias);
  for (size_t n = 0; n < S.size(); ++n) ASSERT_NEAR(S[n], ref[n], 2e-6) << "entry " << n;
  for (int i = 0; i < c.Tq; ++i) {
    double sum = 0;
    for (int j = 0; j < c.Tk; ++j) sum += S[i * c.Tk + j];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionKernel,
                         ::testing::Values(AttnCase{1, 1, 1, true, 0, false}, AttnCase{7, 7, 5, true, 0, false},
                                           AttnCase{33, 33, 16, true, 0.25f, false},
                                           AttnCase{17, 40, 8, true, 0.5f, true},
                                           AttnCase{19, 19, 64, false, 0.125f, false},
                                           AttnCase{64, 64, 64, true, 0, true}, AttnCase{5, 70, 3, false, 0, true}));

TEST(SoftmaxKernel, CausalRowsAndMaskedZeros) {
  std::vector<float> S = random_vec(6 * 9, 4, 3.0f);
  posenc::kernels::softmax_rows(S.data(), 6, 9, true);
  for (int i = 0; i < 6; ++i) {
    double sum = 0;
    for (int j = 0; j < 9; ++j) {
      if (j > i + 3) EXPECT_EQ(S[i * 9 + j], 0.0f);
      sum += S[i * 9 + j];
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

TEST(SoftmaxKernel, BackwardMatchesFiniteDifferences) {
  const int rows = 3, cols = 11;
  auto X = random_vec(rows * cols, 5, 2.0f), G = random_vec(rows * cols, 6);
  auto P = X;
  posenc::kernels::softmax_rows(P.data(), rows, cols, false);
  std::vector<float> dS(rows * cols);
  posenc::kernels::softmax_rows_backward(P.data(), G.data(), dS.data(), rows, cols);
  // L = sum(G * softmax(X)); dL/dX by central differences in double.
  for (int n = 0; n < rows * cols; ++n) {
    auto loss = [&](double delta) {
      const int i = n / cols;
      double m = -INFINITY, sum = 0, L = 0;
      std::vector<double> row(cols);
      for (int j = 0; j < cols; ++j) row[j] = X[i * cols + j] + (i * cols + j == n ? delta : 0.0), m = std::max(m, row[j]);
      for (double v : row) sum += std::exp(v - m);
      for (int j = 0; j < cols; ++j) L += G[i * cols + j] * std::exp(row[j] - m) / sum;
      return L;
    };
    const double fd = (loss(1e-5) - loss(-1e-5)) / 2e-5;
    EXPECT_NEAR(dS[n], fd, 1e-4) << "entry " << n;
  }
}

// Reference rotation in double for both layouts, then forward and backward kernels.
TEST(RopeKernel, RotationAndTransposeMatchReference) {
  const int rows = 5, dim = 20, rot = 12, half = rot / 2;
  auto X = random_vec(rows * dim, 7), C = random_vec(rows * half, 8), S = random_vec(rows * half, 9);
  for (int layout = 0; layout < 2; ++layout) {
    std::vector<float> out(rows * dim), back(rows * dim);
    auto fwd = layout ? posenc::kernels::rope_rotate_half : posenc::kernels::rope_rotate_interleaved;
    auto bwd = layout ? posenc::kernels::rope_rotate_half_backward : posenc::kernels::rope_rotate_interleaved_backward;
    fwd(X.data(), out.data(), C.data(), S.data(), rows, dim, rot);
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < half; ++i) {
        const int ia = layout ? i : 2 * i, ib = layout ? i + half : 2 * i + 1;
        const double a = X[r * dim + ia], b = X[r * dim + ib], c = C[r * half + i], s = S[r * half + i];
        EXPECT_NEAR(out[r * dim + ia], a * c - b * s, 1e-6);
        EXPECT_NEAR(out[r * dim + ib], b * c + a * s, 1e-6);
      }
    for (int r = 0; r < rows; ++r)
      for (int k = rot; k < dim; ++k) EXPECT_EQ(out[r * dim + k], X[r * dim + k]);
    // <R x, y> == <x, R^T y>: the backward kernel is the transpose.
    auto Y = random_vec(rows * dim, 10);
    bwd(Y.data(), back.data(), C.data(), S.data(), rows, dim, rot);
    double lhs = 0, rhs = 0;
    for (int n = 0; n < rows * dim; ++n) lhs += double(out[n]) * Y[n], rhs += double(X[n]) * back[n];
    EXPECT_NEAR(lhs, rhs, 1e-4);
  }
}

}  // namespace

namespace {
TEST(SinKernel, MatchesDoubleOnTheReducedRange) {
  const int n = 4001;
  std::vector<float> a(n), s(n);
  for (int i = 0; i < n; ++i) a[i] = static_cast<float>(-M_PI + 2 * M_PI * i / (n - 1));
  posenc::kernels::sin_scaled(a.data(), s.data(), n, 0.5f);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(s[i], 0.5 * std::sin(double(a[i])), 1e-7) << a[i];
  posenc::kernels::sin_scaled(a.data(), a.data(), n, 1.0f);  // in place
  EXPECT_NEAR(a[n / 4], -1.0, 1e-7);
}
}  // namespace

#include "posenc/simd.hpp"
namespace {
TEST(SimdMath, ExpIsAccurateAndZeroForMaskedScores) {
  using namespace posenc::simd;
  const int W = static_cast<int>(width);
  std::vector<float> x, y(W);
  for (double v = -80.0; v <= 88.0; v += 0.01) x.push_back(static_cast<float>(v));  // normal results
  for (size_t i = 0; i + W <= x.size(); i += W) {
    store(y.data(), posenc::simd::exp(load(x.data() + i)));
    for (int l = 0; l < W; ++l) {
      const double want = std::exp(double(x[i + l]));
      ASSERT_NEAR(y[l] / want, 1.0, 4e-7) << x[i + l];
    }
  }
  std::vector<float> masked(W, -INFINITY);
  store(y.data(), posenc::simd::exp(load(masked.data())));
  for (int l = 0; l < W; ++l) EXPECT_EQ(y[l], 0.0f);
}
}  // namespace

#include "../../cpp/src/kernels/softmax_row.hpp"  // internal: the softmax's exp of x <= 0
namespace {
// exp_nonpositive against double exp over the whole range a softmax feeds it (x = s - shift: <= 0,
// and up to ln 256 in the streamed kernel, whose shift trails the row max lazily):
// relative error within (3 + |x|) float ulp (the rounding of x log2(e) grows with |x|), 1 at 0
// exactly, and exactly 0 at and past -88.1 (x log2 e <= -127) and for -inf.
TEST(SimdMath, ExpNonpositiveIsAccurateWhereASoftmaxNeedsIt) {
  using namespace posenc::simd;
  namespace d = posenc::kernels::detail;
  const int W = static_cast<int>(width);
  const d::ExpNonposConstants k = d::exp_nonpositive_constants();
  std::vector<float> x, y(W);
  for (double v = -87.0; v <= std::log(256.0); v += 0.0037) x.push_back(static_cast<float>(v));
  for (double v = -1.0; v <= 0.0; v += 1.0 / 4096) x.push_back(static_cast<float>(v));  // near the max
  while (x.size() % W) x.push_back(0.0f);
  double worst = 0;
  for (size_t i = 0; i < x.size(); i += W) {
    store(y.data(), d::exp_nonpositive(load(x.data() + i), k));
    for (int l = 0; l < W; ++l) {
      const double want = std::exp(double(x[i + l]));
      const double ulps = std::abs(y[l] - want) / want / 0x1p-23;
      worst = std::max(worst, ulps / (3.0 + std::abs(double(x[i + l]))));
      ASSERT_LE(ulps, 3.0 + std::abs(double(x[i + l]))) << x[i + l];
    }
  }
  EXPECT_GT(worst, 0.0);  // the polynomial is not exact: the bound is being exercised
  const float edge[] = {0.0f, -88.1f, -100.0f, -INFINITY};
  std::vector<float> e(W, 0.0f);
  for (float v : edge) {
    std::fill(e.begin(), e.end(), v);
    store(y.data(), d::exp_nonpositive(load(e.data()), k));
    for (int l = 0; l < W; ++l) EXPECT_EQ(y[l], v == 0.0f ? 1.0f : 0.0f) << v;
  }
}

// The row form: s[j] = exp(s[j] - m) and their sum, for row lengths that exercise the tail.
TEST(SimdMath, ExpNonpositiveShiftSumMatchesDouble) {
  namespace d = posenc::kernels::detail;
  const d::ExpNonposConstants k = d::exp_nonpositive_constants();
  for (int n : {1, 3, 4, 7, 16, 61, 64}) {
    std::vector<float> s(n);
    for (int j = 0; j < n; ++j) s[j] = static_cast<float>(std::sin(0.7 * j + n) * 6.0);
    const float m = *std::max_element(s.begin(), s.end());
    std::vector<double> want(n);
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += want[j] = std::exp(double(s[j]) - m);
    const float got = d::exp_nonpositive_shift_sum(s.data(), n, m, k);
    EXPECT_NEAR(got, sum, 1e-6 * sum) << n;
    for (int j = 0; j < n; ++j) EXPECT_NEAR(s[j], want[j], 1e-6) << n << " " << j;
  }
}
}  // namespace

