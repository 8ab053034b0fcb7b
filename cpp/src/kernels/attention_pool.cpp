// Max-pooled attention pictures (attention_pool.hpp). One pass over each map: a band of query rows
// (one pixel row) is folded into its column maxima (SIMD over the keys), which the band's pixels
// then pool. The bands' edges are shared with posenc::lm's forward, which pools the same pixels band
// by band from scores and never holds a whole [T, T] map (attention_pool_band.hpp).
#include "posenc/attention_pool.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attention_pool_band.hpp"
#include "posenc/error.hpp"
#include "posenc/simd.hpp"

namespace posenc {

PoolBands::PoolBands(int T, int px) : T(T), px(px), edge(static_cast<std::size_t>(px) + 1), col(static_cast<std::size_t>(T)) {
  if (T < 1 || px < 1 || px > T)
    throw Error(ErrorKind::Range, "px must be an integer in [1, " + std::to_string(std::max(T, 1)) + "] (got " +
                                      std::to_string(px) + ")");
  const double cell = static_cast<double>(T) / px;
  for (int x = 0; x <= px; ++x) edge[x] = std::min(T, static_cast<int>(std::floor(x * cell)));
}

double PoolBands::pool(int y, const float* band, std::ptrdiff_t ld, float* out) {
  using simd::fbatch;
  constexpr int W = static_cast<int>(simd::width);
  const int i0 = begin(y), i1 = end(y);
  double peak_sum = 0.0;
  std::fill(col.begin(), col.begin() + i1, 0.0f);
  for (int i = i0; i < i1; ++i) {  // keys 0..i of row i into col; the row's maximum into peak_sum
    const float* row = band + static_cast<std::ptrdiff_t>(i - i0) * ld;
    const int n = i + 1;
    int j = 0;
    fbatch rmax = simd::splat(0.0f);
    for (; j + W <= n; j += W) {
      const fbatch p = simd::load(row + j);
      rmax = simd::max(rmax, p);
      simd::store(col.data() + j, simd::max(simd::load(col.data() + j), p));
    }
    float r = simd::reduce_max(rmax);
    for (; j < n; ++j) {
      r = std::max(r, row[j]);
      col[j] = std::max(col[j], row[j]);
    }
    peak_sum += r;
  }
  for (int x = 0; x < px; ++x) {
    const int j0 = edge[x];
    float v = -1.0f;
    if (j0 < i1) {
      const int j1 = std::min(i1, end(x));
      v = 0.0f;
      for (int j = j0; j < j1; ++j) v = std::max(v, col[j]);
    }
    out[x] = v;
  }
  return peak_sum;
}

void pool_attention(const float* maps, int count, int T, int px, float* pooled, float* peaks) {
  PoolBands bands(T, px);
  for (int m = 0; m < count; ++m) {
    const float* map = maps + static_cast<std::size_t>(m) * T * T;
    float* out = pooled + static_cast<std::size_t>(m) * px * px;
    double peak_sum = 0.0;
    for (int y = 0; y < px; ++y)
      peak_sum += bands.pool(y, map + static_cast<std::size_t>(bands.begin(y)) * T, T, out + static_cast<std::size_t>(y) * px);
    peaks[m] = static_cast<float>(peak_sum / T);
  }
}

}  // namespace posenc
