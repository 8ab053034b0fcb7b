// One pixel row of pool_attention (attention_pool.hpp) at a time, from that band of query rows
// only: pool_attention runs it over whole maps. posenc::lm's forward pools the same pixels (begin/end)
// from each band's scores and its rows' log-sum-exp instead (lm_forward.cpp, head_map).
#pragma once

#include <cstddef>
#include <vector>

namespace posenc {

struct PoolBands {
  PoolBands(int T, int px);  // RangeError naming px unless 1 <= px <= T
  int begin(int y) const { return edge[y]; }  // first query row of pixel row y
  int end(int y) const { return edge[y] + 1 > edge[y + 1] ? edge[y] + 1 : edge[y + 1]; }
  // Rows [begin(y), end(y)) of a map, row i at band + (i - begin(y)) * ld (keys 0..i read)
  // -> out [px]; returns the sum of the rows' maxima (for the peak).
  double pool(int y, const float* band, std::ptrdiff_t ld, float* out);

  int T, px;
  std::vector<int> edge;  // edge[x] = floor(x T / px), x = 0 .. px
  std::vector<float> col;
};

}  // namespace posenc
