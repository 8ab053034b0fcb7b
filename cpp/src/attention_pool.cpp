// Max-pooled attention pictures (attention_pool.hpp). One pass over each map: a band of query rows
// (one pixel row) is folded into its column maxima (SIMD over the keys), which the band's pixels
// then pool.
#include "posenc/attention_pool.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/simd.hpp"

namespace posenc {

void pool_attention(const float* maps, int count, int T, int px, float* pooled, float* peaks) {
  if (T < 1 || px < 1 || px > T)
    throw Error(ErrorKind::Range, "px must be an integer in [1, " + std::to_string(std::max(T, 1)) + "] (got " +
                                      std::to_string(px) + ")");
  using simd::fbatch;
  constexpr int W = static_cast<int>(simd::width);
  const double cell = static_cast<double>(T) / px;
  std::vector<int> edge(static_cast<std::size_t>(px) + 1);  // edge[x] = floor(x cell), x = 0 .. px
  for (int x = 0; x <= px; ++x) edge[x] = std::min(T, static_cast<int>(std::floor(x * cell)));
  const auto end_of = [&](int y) { return std::max(edge[y] + 1, edge[y + 1]); };
  std::vector<float> col(static_cast<std::size_t>(T));
  for (int m = 0; m < count; ++m) {
    const float* map = maps + static_cast<std::size_t>(m) * T * T;
    float* out = pooled + static_cast<std::size_t>(m) * px * px;
    double peak_sum = 0.0;
    for (int y = 0; y < px; ++y) {
      const int i0 = edge[y], i1 = end_of(y);
      std::fill(col.begin(), col.begin() + i1, 0.0f);
      for (int i = i0; i < i1; ++i) {  // keys 0..i of row i into col; the row's maximum into peak_sum
        const float* row = map + static_cast<std::size_t>(i) * T;
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
          const int j1 = std::min(i1, end_of(x));
          v = 0.0f;
          for (int j = j0; j < j1; ++j) v = std::max(v, col[j]);
        }
        out[static_cast<std::size_t>(y) * px + x] = v;
      }
    }
    peaks[m] = static_cast<float>(peak_sum / T);
  }
}

}  // namespace posenc
