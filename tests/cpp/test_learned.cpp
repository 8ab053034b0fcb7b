// Learned absolute table: row lookup and the three out-of-range policies.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/learned.hpp"

namespace {

using posenc::OutOfRange;

// table[r, c] = 100 r + c + 1: every entry distinct and non-zero.
std::vector<float> Table(int rows, int dim) {
  std::vector<float> t(rows * dim);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < dim; ++c) t[r * dim + c] = 100.0f * r + c + 1;
  return t;
}

TEST(Learned, LooksUpRows) {
  const int rows = 64, dim = 5;
  const std::vector<float> t = Table(rows, dim);
  const std::vector<int32_t> pos = {0, 63, 7, 7, 31};
  std::vector<float> out(pos.size() * dim, -1.0f);
  posenc::learned_lookup(t.data(), rows, dim, pos.data(), static_cast<int>(pos.size()), OutOfRange::Error, out.data());
  for (size_t k = 0; k < pos.size(); ++k)
    for (int c = 0; c < dim; ++c) EXPECT_EQ(out[k * dim + c], 100.0f * pos[k] + c + 1) << "k=" << k;
}

TEST(Learned, ClampReusesLastRowAndZeroGivesZeros) {
  const int rows = 4, dim = 3;
  const std::vector<float> t = Table(rows, dim);
  const std::vector<int32_t> pos = {2, 4, 1000000, 3};
  std::vector<float> out(pos.size() * dim, -1.0f);
  posenc::learned_lookup(t.data(), rows, dim, pos.data(), 4, OutOfRange::Clamp, out.data());
  const int expect_clamp[4] = {2, 3, 3, 3};
  for (int k = 0; k < 4; ++k)
    for (int c = 0; c < dim; ++c) EXPECT_EQ(out[k * dim + c], 100.0f * expect_clamp[k] + c + 1);
  posenc::learned_lookup(t.data(), rows, dim, pos.data(), 4, OutOfRange::Zero, out.data());
  for (int c = 0; c < dim; ++c) {
    EXPECT_EQ(out[0 * dim + c], 200.0f + c + 1);
    EXPECT_EQ(out[1 * dim + c], 0.0f);
    EXPECT_EQ(out[2 * dim + c], 0.0f);
    EXPECT_EQ(out[3 * dim + c], 300.0f + c + 1);
  }
}

TEST(Learned, ErrorPolicyNamesThePositionAndTheAlternatives) {
  const int rows = 64, dim = 2;
  const std::vector<float> t = Table(rows, dim);
  const std::vector<int32_t> pos = {1, 70};
  std::vector<float> out(4, -1.0f);
  ExpectError([&] { posenc::learned_lookup(t.data(), rows, dim, pos.data(), 2, OutOfRange::Error, out.data()); },
              posenc::ErrorKind::Range,
              "position 70 is past the learned table (rows 64): allowed 0..63, or choose outOfRange 'clamp' or 'zero'");
  for (float v : out) EXPECT_EQ(v, -1.0f);  // nothing written before the throw
  const int32_t edge = 64;                  // the first invalid position
  ExpectError([&] { posenc::learned_lookup(t.data(), rows, dim, &edge, 1, OutOfRange::Error, out.data()); },
              posenc::ErrorKind::Range, "position 64");
}

TEST(Learned, InvalidArguments) {
  using posenc::ErrorKind;
  const std::vector<float> t = Table(4, 2);
  std::vector<float> out(8);
  const int32_t neg[2] = {0, -1};
  for (OutOfRange p : {OutOfRange::Error, OutOfRange::Clamp, OutOfRange::Zero})
    ExpectError([&] { posenc::learned_lookup(t.data(), 4, 2, neg, 2, p, out.data()); }, ErrorKind::Range,
                "positions[1] must be an integer >= 0 (got -1)");
  const int32_t ok[1] = {0};
  ExpectError([&] { posenc::learned_lookup(t.data(), 0, 2, ok, 1, OutOfRange::Clamp, out.data()); }, ErrorKind::Range,
              "rows");
  ExpectError([&] { posenc::learned_lookup(t.data(), 4, 0, ok, 1, OutOfRange::Clamp, out.data()); }, ErrorKind::Range,
              "dim");
  ExpectError([&] { posenc::learned_lookup(t.data(), 4, 2, ok, -1, OutOfRange::Clamp, out.data()); }, ErrorKind::Range,
              "count");
  ExpectError([&] { posenc::learned_lookup(t.data(), 4, 2, ok, 1, static_cast<OutOfRange>(7), out.data()); },
              ErrorKind::Range, "outOfRange");
  ExpectError([&] { posenc::learned_lookup(nullptr, 4, 2, ok, 1, OutOfRange::Clamp, out.data()); }, ErrorKind::Type,
              "table");
  ExpectError([&] { posenc::learned_lookup(t.data(), 4, 2, nullptr, 1, OutOfRange::Clamp, out.data()); },
              ErrorKind::Type, "positions");
  ExpectError([&] { posenc::learned_lookup(t.data(), 4, 2, ok, 1, OutOfRange::Clamp, nullptr); }, ErrorKind::Type,
              "out");
  EXPECT_NO_THROW(posenc::learned_lookup(t.data(), 4, 2, nullptr, 0, OutOfRange::Error, nullptr));
}

}  // namespace
