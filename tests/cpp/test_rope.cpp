// RoPE: relative-position property, layout equivalence, partial rotary,
// explicit positions, table accuracy at p = 1e6, attention_scale, errors.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/rope.hpp"

namespace {

using posenc::RopeApplyOptions;
using posenc::RopeLayout;

std::vector<double> InvFreq(int rotary_dim, double base = 10000) {
  std::vector<double> w(rotary_dim / 2);
  for (int i = 0; i < rotary_dim / 2; ++i) w[i] = std::pow(base, -2.0 * i / rotary_dim);
  return w;
}

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

RopeApplyOptions Options(int length, int dim, int rotary_dim, RopeLayout layout, const std::vector<double>& w,
                         const int32_t* positions = nullptr) {
  RopeApplyOptions o;
  o.length = length, o.dim = dim, o.rotary_dim = rotary_dim, o.layout = layout;
  o.inv_freq = w.data(), o.positions = positions;
  return o;
}

std::vector<float> Rotate(const RopeApplyOptions& o, const std::vector<float>& x) {
  std::vector<float> out(x.size(), NAN);
  posenc::apply_rope(o, x.data(), out.data());
  return out;
}

// The (a, b) channels of rotation pair i for each layout.
int PairA(RopeLayout l, int /*r*/, int i) { return l == RopeLayout::Interleaved ? 2 * i : i; }
int PairB(RopeLayout l, int r, int i) { return l == RopeLayout::Interleaved ? 2 * i + 1 : i + r / 2; }

// Double reference: rotate each pair of one row by p * w_i.
std::vector<double> ReferenceRow(const float* x, int dim, int r, RopeLayout l, const std::vector<double>& w, double p,
                                 double scale = 1) {
  std::vector<double> y(x, x + dim);
  for (int i = 0; i < r / 2; ++i) {
    const double a = x[PairA(l, r, i)], b = x[PairB(l, r, i)];
    const double c = std::cos(p * w[i]) * scale, s = std::sin(p * w[i]) * scale;
    y[PairA(l, r, i)] = a * c - b * s;
    y[PairB(l, r, i)] = b * c + a * s;
  }
  return y;
}

double Dot(const float* a, const float* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

class RopeLayouts : public ::testing::TestWithParam<RopeLayout> {};

// <R(m) q, R(n) k> depends on m - n only.
TEST_P(RopeLayouts, ScoresDependOnlyOnTheOffset) {
  const int dim = 64;
  const std::vector<double> w = InvFreq(dim);
  const std::vector<float> q = Random(dim, 1), k = Random(dim, 2);
  std::vector<double> first_scores;
  for (int offset : {0, 1, 3, 17, 250, 4096, -9, -1000}) {
    double first = NAN;
    for (int n : {0, 11, 777, 31415, 99000}) {
      const int32_t m = n + offset;
      if (m < 0) continue;
      const int32_t pm = m, pn = n;
      const std::vector<float> qr = Rotate(Options(1, dim, dim, GetParam(), w, &pm), q);
      const std::vector<float> kr = Rotate(Options(1, dim, dim, GetParam(), w, &pn), k);
      const double score = Dot(qr.data(), kr.data(), dim);
      if (std::isnan(first)) first = score;
      EXPECT_NEAR(score, first, 2e-4) << "offset=" << offset << " n=" << n;
    }
    // Closed form: <q, R(-t w) k> = sum_i (q_a k_a + q_b k_b) cos(t w_i) + (q_a k_b - q_b k_a) sin(t w_i), t = m - n.
    double want = 0;
    for (int i = 0; i < dim / 2; ++i) {
      const double qa = q[PairA(GetParam(), dim, i)], qb = q[PairB(GetParam(), dim, i)];
      const double ka = k[PairA(GetParam(), dim, i)], kb = k[PairB(GetParam(), dim, i)];
      want += (qa * ka + qb * kb) * std::cos(offset * w[i]) + (qa * kb - qb * ka) * std::sin(offset * w[i]);
    }
    EXPECT_NEAR(first, want, 2e-4) << "offset=" << offset;
    first_scores.push_back(first);
  }
  // The scores do change with the offset (the property is not vacuous).
  EXPECT_GT(std::abs(first_scores[0] - first_scores[2]), 1e-2);
}

TEST_P(RopeLayouts, MatchesDoubleReferenceAndPassesTailThrough) {
  const int length = 6, dim = 10, rotary = 6;
  const std::vector<double> w = InvFreq(rotary);
  const std::vector<float> x = Random(length * dim, 3);
  const std::vector<float> y = Rotate(Options(length, dim, rotary, GetParam(), w), x);
  for (int r = 0; r < length; ++r) {
    const std::vector<double> ref = ReferenceRow(&x[r * dim], dim, rotary, GetParam(), w, r);
    for (int c = 0; c < dim; ++c) {
      if (c >= rotary)
        EXPECT_EQ(y[r * dim + c], x[r * dim + c]) << "tail channel " << c;
      else
        EXPECT_NEAR(y[r * dim + c], ref[c], 1e-5) << "r=" << r << " c=" << c;
    }
  }
  // In place (x and out alias) gives the same result.
  std::vector<float> inplace = x;
  posenc::apply_rope(Options(length, dim, rotary, GetParam(), w), inplace.data(), inplace.data());
  EXPECT_EQ(inplace, y);
}

TEST_P(RopeLayouts, ExplicitPositionsEqualRotatingAtThosePositions) {
  const int dim = 16;
  const std::vector<double> w = InvFreq(dim);
  const std::vector<int32_t> pos = {5, 9, 1000000};
  const std::vector<float> x = Random(3 * dim, 4);
  const std::vector<float> y = Rotate(Options(3, dim, dim, GetParam(), w, pos.data()), x);
  for (int r = 0; r < 3; ++r) {
    const std::vector<double> ref = ReferenceRow(&x[r * dim], dim, dim, GetParam(), w, pos[r]);
    for (int c = 0; c < dim; ++c) EXPECT_NEAR(y[r * dim + c], ref[c], 2e-5) << "p=" << pos[r] << " c=" << c;
  }
  // Positions 5 and 9 equal rows 5 and 9 of the implicit 0..length-1 sequence.
  std::vector<float> seq(10 * dim, 0.0f);
  std::copy(x.begin(), x.begin() + dim, seq.begin() + 5 * dim);
  std::copy(x.begin() + dim, x.begin() + 2 * dim, seq.begin() + 9 * dim);
  const std::vector<float> ys = Rotate(Options(10, dim, dim, GetParam(), w), seq);
  for (int c = 0; c < dim; ++c) {
    EXPECT_EQ(ys[5 * dim + c], y[c]);
    EXPECT_EQ(ys[9 * dim + c], y[dim + c]);
  }
}

TEST_P(RopeLayouts, AttentionScaleMultipliesTheRotatedChannels) {
  const int length = 4, dim = 12, rotary = 8;
  const std::vector<double> w = InvFreq(rotary);
  const std::vector<float> x = Random(length * dim, 5);
  RopeApplyOptions o = Options(length, dim, rotary, GetParam(), w);
  const std::vector<float> plain = Rotate(o, x);
  o.attention_scale = 1.5;
  const std::vector<float> scaled = Rotate(o, x);
  for (int r = 0; r < length; ++r)
    for (int c = 0; c < dim; ++c) {
      if (c < rotary)
        EXPECT_NEAR(scaled[r * dim + c], 1.5f * plain[r * dim + c], 1e-5);
      else
        EXPECT_EQ(scaled[r * dim + c], x[r * dim + c]);
    }
}

INSTANTIATE_TEST_SUITE_P(Layout, RopeLayouts, ::testing::Values(RopeLayout::Interleaved, RopeLayout::Half),
                         [](const auto& info) {
                           return std::string(info.param == RopeLayout::Interleaved ? "Interleaved" : "Half");
                         });

// Interleaved channel (2i, 2i+1) <-> half channel (i, i + r/2).
TEST(Rope, LayoutsAgreeAfterChannelPermutation) {
  const int length = 5, dim = 20, rotary = 16, h = rotary / 2;
  const std::vector<double> w = InvFreq(rotary, 500000);
  const std::vector<float> xi = Random(length * dim, 6);
  std::vector<float> xh = xi;
  for (int r = 0; r < length; ++r)
    for (int i = 0; i < h; ++i) {
      xh[r * dim + i] = xi[r * dim + 2 * i];
      xh[r * dim + i + h] = xi[r * dim + 2 * i + 1];
    }
  const std::vector<int32_t> pos = {0, 1, 77, 4096, 65535};
  const std::vector<float> yi = Rotate(Options(length, dim, rotary, RopeLayout::Interleaved, w, pos.data()), xi);
  const std::vector<float> yh = Rotate(Options(length, dim, rotary, RopeLayout::Half, w, pos.data()), xh);
  for (int r = 0; r < length; ++r) {
    for (int i = 0; i < h; ++i) {
      EXPECT_NEAR(yi[r * dim + 2 * i], yh[r * dim + i], 1e-6);
      EXPECT_NEAR(yi[r * dim + 2 * i + 1], yh[r * dim + i + h], 1e-6);
    }
    for (int c = rotary; c < dim; ++c) EXPECT_EQ(yi[r * dim + c], yh[r * dim + c]);
  }
}

TEST(Rope, TablesAtOneMillionMatchFloat64) {
  const int rotary = 128;
  const std::vector<double> w = InvFreq(rotary, 10000);
  const int32_t p = 1000000;
  std::vector<float> cos(rotary / 2), sin(rotary / 2);
  posenc::rope_tables(Options(1, rotary, rotary, RopeLayout::Half, w, &p), cos.data(), sin.data());
  double ours = 0, naive = 0;
  for (int i = 0; i < rotary / 2; ++i) {
    const double angle = static_cast<double>(p) * w[i];  // float64 reference
    ours = std::max({ours, std::abs(cos[i] - std::cos(angle)), std::abs(sin[i] - std::sin(angle))});
    // What float32 positions @ float32 inv_freq (HF's way) gives:
    const float naive_angle = static_cast<float>(p) * static_cast<float>(w[i]);
    naive = std::max(
        {naive, std::abs(std::cos(naive_angle) - std::cos(angle)), std::abs(std::sin(naive_angle) - std::sin(angle))});
  }
  EXPECT_LT(ours, 1e-4);
  EXPECT_LT(ours, 1e-6);   // in fact float rounding only
  EXPECT_GT(naive, 1e-4);  // the naive float32 angle fails the same bound
}

TEST(Rope, TablesHoldScaledCosAndSin) {
  const std::vector<double> w = InvFreq(8);
  RopeApplyOptions o = Options(3, 8, 8, RopeLayout::Interleaved, w);
  o.attention_scale = 0.5;
  std::vector<float> cos(12), sin(12);
  posenc::rope_tables(o, cos.data(), sin.data());
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(cos[r * 4 + i], 0.5 * std::cos(r * w[i]), 1e-7);
      EXPECT_NEAR(sin[r * 4 + i], 0.5 * std::sin(r * w[i]), 1e-7);
    }
}

TEST(Rope, Errors) {
  using posenc::ErrorKind;
  const std::vector<double> w = InvFreq(8);
  std::vector<float> x(64), out(64), c(64), s(64);
  auto apply = [&](RopeApplyOptions o) { return [o, &x, &out] { posenc::apply_rope(o, x.data(), out.data()); }; };
  RopeApplyOptions o = Options(2, 8, 8, RopeLayout::Half, w);
  o.rotary_dim = 7;
  ExpectError(apply(o), ErrorKind::Range, "rotary_dim must be an even integer in [2, dim=8] (got 7)");
  o.rotary_dim = 10;
  ExpectError(apply(o), ErrorKind::Range, "rotary_dim");
  o.rotary_dim = 0;
  ExpectError(apply(o), ErrorKind::Range, "rotary_dim");
  o.rotary_dim = 8, o.length = -1;
  ExpectError(apply(o), ErrorKind::Range, "length");
  o.length = 2, o.dim = 0;
  ExpectError(apply(o), ErrorKind::Range, "dim");
  o.dim = 8, o.attention_scale = 0;
  ExpectError(apply(o), ErrorKind::Range, "attention_scale must be a finite number in (0, 3.4028234663852886e+38] (float32) (got 0)");
  o.attention_scale = NAN;
  ExpectError(apply(o), ErrorKind::Range, "attention_scale");
  o.attention_scale = 1, o.layout = static_cast<RopeLayout>(5);
  ExpectError(apply(o), ErrorKind::Range, "layout");
  o.layout = RopeLayout::Interleaved;
  const int32_t bad_pos[2] = {3, -1};
  o.positions = bad_pos;
  ExpectError(apply(o), ErrorKind::Range, "positions[1] must be an integer >= 0 (got -1)");
  o.positions = nullptr;
  std::vector<double> nan_w = w;
  nan_w[2] = NAN;
  o.inv_freq = nan_w.data();
  ExpectError(apply(o), ErrorKind::Range, "inv_freq[2]");
  o.inv_freq = nullptr;
  ExpectError(apply(o), ErrorKind::Type, "inv_freq");
  o.inv_freq = w.data();
  ExpectError([&] { posenc::apply_rope(o, nullptr, out.data()); }, ErrorKind::Type, "x");
  ExpectError([&] { posenc::apply_rope(o, x.data(), nullptr); }, ErrorKind::Type, "out");
  ExpectError([&] { posenc::rope_tables(o, nullptr, s.data()); }, ErrorKind::Type, "cos_out");
  ExpectError([&] { posenc::rope_tables(o, c.data(), nullptr); }, ErrorKind::Type, "sin_out");
  o.length = 0;
  EXPECT_NO_THROW(posenc::apply_rope(o, nullptr, nullptr));
}

}  // namespace
