// Attention pictures (posenc::pool_attention) against their definition, pixel by pixel, on random
// maps whose entries above the diagonal are large (they must not show), at shapes where the cells
// are 1, 2 and 3 rows, uneven (T / px not an integer) and the whole map (px = 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "posenc/attention_pool.hpp"
#include "posenc/error.hpp"
#include "test_util.hpp"

namespace {

// The definition: each pixel's maximum over its cell (keys j <= i only), -1 with no key below the diagonal.
void reference(const float* map, int T, int px, std::vector<float>& out, float& peak) {
  const double cell = static_cast<double>(T) / px;
  auto lo = [&](int y) { return static_cast<int>(std::floor(y * cell)); };
  auto hi = [&](int y) { return std::max(lo(y) + 1, static_cast<int>(std::floor((y + 1) * cell))); };
  out.assign(static_cast<std::size_t>(px) * px, -1.0f);
  for (int y = 0; y < px; ++y)
    for (int x = 0; x < px; ++x) {
      if (lo(x) > hi(y) - 1) continue;
      float m = 0.0f;
      for (int i = lo(y); i < hi(y); ++i)
        for (int j = lo(x); j < hi(x) && j <= i; ++j) m = std::max(m, map[i * T + j]);
      out[y * px + x] = m;
    }
  double sum = 0.0;
  for (int i = 0; i < T; ++i) {
    float m = 0.0f;
    for (int j = 0; j <= i; ++j) m = std::max(m, map[i * T + j]);
    sum += m;
  }
  peak = static_cast<float>(sum / T);
}

TEST(attention_pool, EveryPixelIsItsCellsLargestWeightBelowTheDiagonal) {
  for (auto [T, px] : std::vector<std::pair<int, int>>{{1, 1}, {7, 7}, {7, 3}, {49, 24}, {61, 24}, {64, 1}, {130, 64}, {512, 192}}) {
    const int count = 3;
    std::vector<float> maps = random_vec(static_cast<std::size_t>(count) * T * T, 7 + T);
    for (int m = 0; m < count; ++m)
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
          float& p = maps[(static_cast<std::size_t>(m) * T + i) * T + j];
          p = j > i ? 9.0f : std::fabs(p);
        }
    std::vector<float> pooled(static_cast<std::size_t>(count) * px * px), peaks(count), ref;
    posenc::pool_attention(maps.data(), count, T, px, pooled.data(), peaks.data());
    for (int m = 0; m < count; ++m) {
      float peak = 0.0f;
      reference(maps.data() + static_cast<std::size_t>(m) * T * T, T, px, ref, peak);
      for (int k = 0; k < px * px; ++k)
        ASSERT_EQ(pooled[static_cast<std::size_t>(m) * px * px + k], ref[k]) << "T " << T << " px " << px << " map " << m << " pixel " << k;
      EXPECT_EQ(peaks[m], peak) << "T " << T << " px " << px;
    }
  }
}

TEST(attention_pool, PxOutsideOneToTIsARangeErrorNamingIt) {
  std::vector<float> maps(16), pooled(64), peaks(1);
  for (int px : {0, -1, 5})
    ExpectError([&] { posenc::pool_attention(maps.data(), 1, 4, px, pooled.data(), peaks.data()); }, posenc::ErrorKind::Range,
                "px must be an integer in [1, 4]");
}

}  // namespace
