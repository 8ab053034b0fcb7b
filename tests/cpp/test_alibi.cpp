// ALiBi slopes (ofirpress/attention_with_linear_biases get_slopes) and bias values.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "posenc/alibi.hpp"
#include "posenc/error.hpp"

namespace {

using posenc::AlibiBiasOptions;

std::vector<float> Slopes(int heads) {
  std::vector<float> s(heads);
  posenc::alibi_slopes(heads, s.data());
  return s;
}

// The rule restated in closed form: a power of two n gives 2^(-8 (h+1) / n);
// otherwise p = 2^floor(log2 n) gives those for p, then 2^(-8 (2k+1) / (2p)), k < n - p.
std::vector<double> ClosedFormSlopes(int n) {
  int p = 1;
  while (2 * p <= n) p *= 2;
  std::vector<double> s;
  for (int h = 0; h < p; ++h) s.push_back(std::exp2(-8.0 * (h + 1) / p));
  for (int k = 0; k < n - p; ++k) s.push_back(std::exp2(-8.0 * (2 * k + 1) / (2 * p)));
  return s;
}

TEST(Alibi, EightHeadsAreExactPowersOfTwo) {
  const std::vector<float> s = Slopes(8);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(s[h], std::ldexp(1.0f, -(h + 1))) << "h=" << h;  // 1/2 ... 1/256
}

TEST(Alibi, NonPowersOfTwoFollowTheReferenceRule) {
  // 6 heads: slopes(4) = 1/4, 1/16, 1/64, 1/256, then slopes(8)[0::2][:2] = 1/2, 1/8.
  const std::vector<float> six = Slopes(6);
  const float expect6[6] = {0.25f, 0.0625f, 0.015625f, 0.00390625f, 0.5f, 0.125f};
  for (int h = 0; h < 6; ++h) EXPECT_EQ(six[h], expect6[h]) << "h=" << h;
  // 12 heads: 1/2 .. 1/256, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  const std::vector<float> twelve = Slopes(12);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(twelve[h], std::ldexp(1.0f, -(h + 1)));
  for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(twelve[8 + k], static_cast<float>(std::exp2(-0.5 - k)));
  for (int n : {1, 2, 3, 5, 6, 7, 12, 16, 20, 24, 32, 40, 64, 96, 100}) {
    const std::vector<float> got = Slopes(n);
    const std::vector<double> want = ClosedFormSlopes(n);
    ASSERT_EQ(want.size(), static_cast<size_t>(n));
    for (int h = 0; h < n; ++h) EXPECT_FLOAT_EQ(got[h], static_cast<float>(want[h])) << "n=" << n << " h=" << h;
  }
  EXPECT_EQ(Slopes(1)[0], 1.0f / 256);  // 2^(-2^-(0-3)) = 2^-8
}

std::vector<float> Bias(const AlibiBiasOptions& o) {
  std::vector<float> out(static_cast<size_t>(o.heads) * o.query_length * o.key_length, 123.0f);
  posenc::alibi_bias(o, out.data());
  return out;
}

TEST(Alibi, CausalBiasSquare) {
  AlibiBiasOptions o;
  o.heads = 2, o.query_length = 4, o.key_length = 4;
  const std::vector<float> b = Bias(o);
  const float m[2] = {1.0f / 16, 1.0f / 256};  // slopes for 2 heads: 2^-4, 2^-8
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const float v = b[(h * 4 + i) * 4 + j];
        if (j > i)
          EXPECT_TRUE(std::isinf(v) && v < 0) << h << i << j;
        else
          EXPECT_EQ(v, -m[h] * (i - j)) << h << i << j;
      }
}

TEST(Alibi, ShortQueriesAlignToTheLastKeys) {
  AlibiBiasOptions o;
  o.heads = 1, o.query_length = 2, o.key_length = 5;  // queries at positions 3 and 4
  const std::vector<float> b = Bias(o);
  const float m = 1.0f / 256;
  const float ninf = -INFINITY;
  const std::vector<float> expect = {-3 * m, -2 * m, -m,     0,  ninf,  //
                                     -4 * m, -3 * m, -2 * m, -m, 0};
  EXPECT_EQ(b, expect);
}

TEST(Alibi, SymmetricBias) {
  AlibiBiasOptions o;
  o.heads = 8, o.query_length = 3, o.key_length = 6, o.causal = false;
  const std::vector<float> b = Bias(o);
  const std::vector<float> m = Slopes(8);
  for (int h = 0; h < 8; ++h)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 6; ++j) {
        const int i_pos = i + 3;
        EXPECT_EQ(b[(h * 3 + i) * 6 + j], -m[h] * std::abs(i_pos - j));
      }
}

TEST(Alibi, Errors) {
  using posenc::ErrorKind;
  float buf[64];
  ExpectError([&] { posenc::alibi_slopes(0, buf); }, ErrorKind::Range, "heads must be an integer in [1,");
  ExpectError([&] { posenc::alibi_slopes(-4, buf); }, ErrorKind::Range, "heads");
  ExpectError([&] { posenc::alibi_slopes(4, nullptr); }, ErrorKind::Type, "out");
  AlibiBiasOptions o;
  o.heads = 2, o.query_length = 5, o.key_length = 3;
  ExpectError([&] { posenc::alibi_bias(o, buf); }, ErrorKind::Range,
              "query_length must be an integer in [0, key_length=3] (got 5)");
  o.query_length = -1;
  ExpectError([&] { posenc::alibi_bias(o, buf); }, ErrorKind::Range, "query_length");
  o.query_length = 1, o.key_length = -2;
  ExpectError([&] { posenc::alibi_bias(o, buf); }, ErrorKind::Range, "key_length");
  o.key_length = 3, o.heads = 0;
  ExpectError([&] { posenc::alibi_bias(o, buf); }, ErrorKind::Range, "heads");
  o.heads = 2;
  ExpectError([&] { posenc::alibi_bias(o, nullptr); }, ErrorKind::Type, "out");
}

}  // namespace
