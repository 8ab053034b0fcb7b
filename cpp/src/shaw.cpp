// Shaw, Uszkoreit & Vaswani (2018) relative position index:
// index(i, j) = clip(j - i_pos, -k, k) + k, in [0, 2k], with i_pos = i + (Tk - Tq).
#include "posenc/shaw.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();

void validate(int query_length, int key_length, int max_distance, const int32_t* out) {
  require_int_range("key_length", key_length, 0, kMaxInt);
  if (query_length < 0 || query_length > key_length)
    range_error("query_length", "an integer in [0, key_length=" + std::to_string(key_length) + "]",
                std::to_string(query_length));
  // 2k + 1 indices must fit in int32.
  require_int_range("max_distance", max_distance, 1, (kMaxInt - 1) / 2);
  if (query_length > 0 && key_length > 0 && !out) type_error("out", "a non-null buffer of Tq*Tk ints", "null");
}

}  // namespace

void shaw_index(int query_length, int key_length, int max_distance, int32_t* out) {
  validate(query_length, key_length, max_distance, out);
  const long long offset = static_cast<long long>(key_length) - query_length;
  const long long k = max_distance;
  for (int i = 0; i < query_length; ++i) {
    const long long i_pos = i + offset;
    int32_t* row = out + static_cast<std::size_t>(i) * key_length;
    for (int j = 0; j < key_length; ++j) row[j] = static_cast<int32_t>(std::clamp(j - i_pos, -k, k) + k);
  }
}

}  // namespace posenc
