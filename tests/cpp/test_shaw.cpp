// Shaw et al. relative index: clip(j - i_pos, -k, k) + k with i_pos = i + Tk - Tq.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/shaw.hpp"

namespace {

std::vector<int32_t> Index(int tq, int tk, int k) {
  std::vector<int32_t> out(static_cast<size_t>(tq) * tk, -7);
  posenc::shaw_index(tq, tk, k, out.data());
  return out;
}

TEST(Shaw, SquareHandChecked) {
  // k = 2, T = 4: rows are clip(j - i, -2, 2) + 2.
  const std::vector<int32_t> expect = {2, 3, 4, 4,  //
                                       1, 2, 3, 4,  //
                                       0, 1, 2, 3,  //
                                       0, 0, 1, 2};
  EXPECT_EQ(Index(4, 4, 2), expect);
}

TEST(Shaw, QueriesAlignToTheLastKeys) {
  // Tq = 2, Tk = 5: query 0 is at position 3, query 1 at position 4.
  const std::vector<int32_t> expect = {0, 0, 1, 2, 3,  //
                                       0, 0, 0, 1, 2};
  EXPECT_EQ(Index(2, 5, 2), expect);
  // A single query (KV-cache decoding step) sees itself at index k, the past below.
  const std::vector<int32_t> last = Index(1, 6, 3);
  EXPECT_EQ(last, (std::vector<int32_t>{0, 0, 0, 1, 2, 3}));
}

TEST(Shaw, RangeAndToeplitzStructure) {
  for (int k : {1, 3, 16}) {
    const int tq = 7, tk = 19;
    const std::vector<int32_t> idx = Index(tq, tk, k);
    for (int i = 0; i < tq; ++i)
      for (int j = 0; j < tk; ++j) {
        const int v = idx[i * tk + j];
        EXPECT_GE(v, 0);
        EXPECT_LE(v, 2 * k);
        if (i > 0 && j > 0) {
          EXPECT_EQ(v, idx[(i - 1) * tk + (j - 1)]);  // depends on j - i only
        }
        const int rel = j - (i + tk - tq);
        if (rel >= -k && rel <= k) {
          EXPECT_EQ(v, rel + k);
        }
      }
  }
}

TEST(Shaw, Errors) {
  using posenc::ErrorKind;
  int32_t buf[64];
  ExpectError([&] { posenc::shaw_index(2, 2, 0, buf); }, ErrorKind::Range, "max_distance");
  ExpectError([&] { posenc::shaw_index(2, 2, -3, buf); }, ErrorKind::Range, "max_distance");
  ExpectError([&] { posenc::shaw_index(5, 3, 2, buf); }, ErrorKind::Range,
              "query_length must be an integer in [0, key_length=3] (got 5)");
  ExpectError([&] { posenc::shaw_index(-1, 3, 2, buf); }, ErrorKind::Range, "query_length");
  ExpectError([&] { posenc::shaw_index(0, -1, 2, buf); }, ErrorKind::Range, "key_length");
  ExpectError([&] { posenc::shaw_index(2, 2, 2, nullptr); }, ErrorKind::Type, "out");
  EXPECT_NO_THROW(posenc::shaw_index(0, 4, 2, nullptr));
}

}  // namespace
