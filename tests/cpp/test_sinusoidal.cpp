// Sinusoidal encoding: direct double formula, the block-rotation property
// PE(p+k) = R(k) PE(p), tensor2tensor spacing, large positions, and errors.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/sinusoidal.hpp"

namespace {

using posenc::SinusoidalOptions;
using posenc::SinusoidLayout;
using posenc::SinusoidSpacing;

std::vector<float> Encode(const SinusoidalOptions& o) {
  std::vector<float> out(static_cast<size_t>(o.length) * o.dim);
  posenc::sinusoidal(o, out.data());
  return out;
}

// Channels of sin/cos for frequency i, written out independently of the library.
int SinChannel(SinusoidLayout l, int /*dim*/, int i) { return l == SinusoidLayout::Interleaved ? 2 * i : i; }
int CosChannel(SinusoidLayout l, int dim, int i) { return l == SinusoidLayout::Interleaved ? 2 * i + 1 : dim / 2 + i; }

class SinusoidalLayouts : public ::testing::TestWithParam<SinusoidLayout> {};

TEST_P(SinusoidalLayouts, MatchesDirectDoubleFormula) {
  SinusoidalOptions o;
  o.length = 40, o.dim = 16, o.base = 10000, o.layout = GetParam(), o.start = 3;
  const std::vector<float> pe = Encode(o);
  for (int r = 0; r < o.length; ++r) {
    const double p = o.start + r;
    for (int i = 0; i < o.dim / 2; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / o.dim);
      EXPECT_NEAR(pe[r * o.dim + SinChannel(o.layout, o.dim, i)], std::sin(p * w), 2e-7) << "r=" << r << " i=" << i;
      EXPECT_NEAR(pe[r * o.dim + CosChannel(o.layout, o.dim, i)], std::cos(p * w), 2e-7) << "r=" << r << " i=" << i;
    }
  }
  // Row 0 of the paper encoding at position 0 is (0, 1, 0, 1, ...).
  o.start = 0;
  const std::vector<float> zero = Encode(o);
  for (int i = 0; i < o.dim / 2; ++i) {
    EXPECT_EQ(zero[SinChannel(o.layout, o.dim, i)], 0.0f);
    EXPECT_EQ(zero[CosChannel(o.layout, o.dim, i)], 1.0f);
  }
}

// PE(p + k) = R(k) PE(p), with R(k) block-diagonal: for each frequency w,
// [sin; cos](p + k) = [[cos kw, sin kw], [-sin kw, cos kw]] [sin; cos](p).
// R(k) depends on k only: the same matrix must work for every p.
TEST_P(SinusoidalLayouts, ShiftIsAFixedBlockRotation) {
  const SinusoidLayout layout = GetParam();
  for (SinusoidSpacing spacing : {SinusoidSpacing::Paper, SinusoidSpacing::Tensor2Tensor}) {
    SinusoidalOptions o;
    o.length = 1, o.dim = 32, o.base = 10000, o.layout = layout, o.spacing = spacing;
    std::vector<double> w(o.dim / 2);
    posenc::sinusoid_frequencies(o, w.data());
    for (int k : {1, 5, 100, 4097}) {
      for (int p : {0, 7, 1000, 123456}) {
        o.start = p;
        const std::vector<float> a = Encode(o);
        o.start = p + k;
        const std::vector<float> b = Encode(o);
        for (int i = 0; i < o.dim / 2; ++i) {
          const double c = std::cos(k * w[i]), s = std::sin(k * w[i]);
          const double sp = a[SinChannel(layout, o.dim, i)], cp = a[CosChannel(layout, o.dim, i)];
          EXPECT_NEAR(b[SinChannel(layout, o.dim, i)], c * sp + s * cp, 1e-6) << "p=" << p << " k=" << k << " i=" << i;
          EXPECT_NEAR(b[CosChannel(layout, o.dim, i)], -s * sp + c * cp, 1e-6) << "p=" << p << " k=" << k << " i=" << i;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layout, SinusoidalLayouts,
                         ::testing::Values(SinusoidLayout::Interleaved, SinusoidLayout::Concat), [](const auto& info) {
                           return std::string(info.param == SinusoidLayout::Interleaved ? "Interleaved" : "Concat");
                         });

TEST(Sinusoidal, FrequencySpacings) {
  SinusoidalOptions o;
  o.dim = 8, o.base = 10000;
  double w[4];
  posenc::sinusoid_frequencies(o, w);  // paper: 10000^(-2i/8) = 1, 0.1, 0.01, 0.001
  const double paper[4] = {1, 0.1, 0.01, 0.001};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(w[i], paper[i], 1e-15 * (1 + paper[i]));
  o.spacing = SinusoidSpacing::Tensor2Tensor;  // exp(-i ln(1e4) / 3): 1, 1e4^(-1/3), 1e4^(-2/3), 1e-4
  posenc::sinusoid_frequencies(o, w);
  const double t2t[4] = {1, 0.046415888336127788, 0.0021544346900318843, 1e-4};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(w[i], t2t[i], 1e-15);
  // The last t2t frequency reaches exactly 1/base; paper spacing stops at base^(-(d-2)/d).
  o.dim = 64;
  std::vector<double> v(32);
  posenc::sinusoid_frequencies(o, v.data());
  EXPECT_NEAR(v[31], 1e-4, 1e-18);
}

TEST(Sinusoidal, ConcatIsAChannelPermutationOfInterleaved) {
  SinusoidalOptions o;
  o.length = 9, o.dim = 12, o.start = 50;
  const std::vector<float> inter = Encode(o);
  o.layout = SinusoidLayout::Concat;
  const std::vector<float> concat = Encode(o);
  for (int r = 0; r < o.length; ++r)
    for (int i = 0; i < o.dim / 2; ++i) {
      EXPECT_EQ(concat[r * o.dim + i], inter[r * o.dim + 2 * i]);
      EXPECT_EQ(concat[r * o.dim + o.dim / 2 + i], inter[r * o.dim + 2 * i + 1]);
    }
}

TEST(Sinusoidal, AccurateAtLargePositions) {
  SinusoidalOptions o;
  o.length = 3, o.dim = 64, o.start = 1000000000;  // 1e9
  const std::vector<float> pe = Encode(o);
  double max_err = 0;
  for (int r = 0; r < o.length; ++r)
    for (int i = 0; i < 32; ++i) {
      const double angle = (1e9 + r) * std::pow(10000.0, -2.0 * i / 64);
      max_err = std::max(max_err, std::abs(pe[r * 64 + 2 * i] - std::sin(angle)));
      max_err = std::max(max_err, std::abs(pe[r * 64 + 2 * i + 1] - std::cos(angle)));
    }
  EXPECT_LT(max_err, 1e-6);
}

TEST(Sinusoidal, EmptyLengthWritesNothing) {
  SinusoidalOptions o;
  o.length = 0, o.dim = 4;
  EXPECT_NO_THROW(posenc::sinusoidal(o, nullptr));
}

TEST(Sinusoidal, Errors) {
  using posenc::ErrorKind;
  float buf[64];
  auto run = [&](SinusoidalOptions o) { return [o, &buf] { posenc::sinusoidal(o, buf); }; };
  SinusoidalOptions o;
  o.length = 2, o.dim = 8;
  o.dim = 1;
  ExpectError(run(o), ErrorKind::Range, "dim must be an integer in [2, 65536] (got 1)");
  o.dim = 0;
  ExpectError(run(o), ErrorKind::Range, "dim");
  o.dim = 8;
  o.base = 1;
  ExpectError(run(o), ErrorKind::Range, "base must be a finite number > 1 (got 1)");
  o.base = NAN;
  ExpectError(run(o), ErrorKind::Range, "base");
  o.base = INFINITY;
  ExpectError(run(o), ErrorKind::Range, "base");
  o.base = 10000, o.length = -1;
  ExpectError(run(o), ErrorKind::Range, "length");
  o.length = 2, o.start = -5;
  ExpectError(run(o), ErrorKind::Range, "start");
  o.start = 0, o.layout = static_cast<SinusoidLayout>(9);
  ExpectError(run(o), ErrorKind::Range, "layout");
  o.layout = SinusoidLayout::Concat, o.spacing = static_cast<SinusoidSpacing>(9);
  ExpectError(run(o), ErrorKind::Range, "spacing");
  o.spacing = SinusoidSpacing::Paper;
  ExpectError([&] { posenc::sinusoidal(o, nullptr); }, ErrorKind::Type, "out");
  ExpectError([&] { posenc::sinusoid_frequencies(o, nullptr); }, ErrorKind::Type, "w");
}

}  // namespace

namespace {
// tensor2tensor get_timing_signal_1d: num_timescales = channels // 2, increment
// log(max/min) / max(num_timescales - 1, 1), concat [sin, cos], then pad channels % 2 zeros.
TEST(Sinusoidal, OddDimPadsLikeTensor2Tensor) {
  for (int dim : {2, 3, 7, 9}) {
    SinusoidalOptions o;
    o.length = 5, o.dim = dim, o.layout = SinusoidLayout::Concat, o.spacing = SinusoidSpacing::Tensor2Tensor, o.start = 3;
    std::vector<float> out(5 * dim);
    posenc::sinusoidal(o, out.data());
    const int half = dim / 2;
    const double inc = std::log(10000.0) / std::max(half - 1, 1);
    for (int r = 0; r < 5; ++r) {
      for (int i = 0; i < half; ++i) {
        const double a = (3 + r) * std::exp(-i * inc);
        EXPECT_NEAR(out[r * dim + i], std::sin(a), 1e-6) << dim;
        EXPECT_NEAR(out[r * dim + half + i], std::cos(a), 1e-6) << dim;
      }
      if (dim % 2) EXPECT_EQ(out[r * dim + dim - 1], 0.0f) << "padding column, dim " << dim;
    }
  }
  // the paper's interleaved formula defines the odd channel: sin(p / base^(2*(j//2)/d))
  SinusoidalOptions p;
  p.length = 4, p.dim = 7;
  std::vector<float> out(28);
  posenc::sinusoidal(p, out.data());
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 7; ++j) {
      const double a = r / std::pow(10000.0, 2.0 * (j / 2) / 7);
      EXPECT_NEAR(out[r * 7 + j], j % 2 ? std::cos(a) : std::sin(a), 1e-6) << "paper j=" << j;
    }
}
}  // namespace
