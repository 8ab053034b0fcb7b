// T5 relative position buckets, as HF transformers'
// T5Attention._relative_position_bucket (models/t5/modeling_t5.py), itself
// adapted from Mesh TensorFlow:
//
//   relative_buckets = 0
//   if bidirectional:
//       num_buckets //= 2
//       relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
//       relative_position = torch.abs(relative_position)
//   else:
//       relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
//   max_exact = num_buckets // 2
//   is_small = relative_position < max_exact
//   relative_position_if_large = max_exact + (
//       torch.log(relative_position.float() / max_exact)
//       / math.log(max_distance / max_exact)
//       * (num_buckets - max_exact)
//   ).to(torch.long)
//   relative_position_if_large = torch.min(relative_position_if_large, num_buckets - 1)
//   relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
//
// The large branch runs in float32 as torch does (a float32 tensor combined
// with Python scalars stays float32); .to(torch.long) truncates toward zero.
#include "posenc/t5.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr int kMaxBuckets = 1 << 20;
constexpr int kMaxInt = std::numeric_limits<int>::max();

// num_buckets after the bidirectional halving, and max_exact = that // 2.
int side_buckets(const T5BucketOptions& o) { return o.bidirectional ? o.num_buckets / 2 : o.num_buckets; }

}  // namespace

void t5_validate(const T5BucketOptions& o) {
  // max_exact must be >= 1 (it is a divisor): bidirectional needs num_buckets >= 4.
  const int min_buckets = o.bidirectional ? 4 : 2;
  if (o.num_buckets < min_buckets || o.num_buckets > kMaxBuckets)
    range_error("num_buckets",
                "an integer in [" + std::to_string(min_buckets) + ", " + std::to_string(kMaxBuckets) + "]" +
                    (o.bidirectional ? " when bidirectional" : " when unidirectional"),
                std::to_string(o.num_buckets));
  const int max_exact = side_buckets(o) / 2;
  // log(max_distance / max_exact) is a divisor: it must be > 0.
  if (o.max_distance <= max_exact)
    range_error("max_distance", "an integer > max_exact = " + std::to_string(max_exact),
                std::to_string(o.max_distance));
}

namespace {

// The bucket for validated options.
int32_t bucket_unchecked(int32_t relative, const T5BucketOptions& o) {
  int nb = o.num_buckets;
  int64_t rel = relative;  // int64 as in torch, so |INT32_MIN| does not overflow
  int64_t bucket = 0;
  if (o.bidirectional) {
    nb /= 2;
    if (rel > 0) bucket += nb;
    rel = rel < 0 ? -rel : rel;
  } else {
    rel = rel < 0 ? -rel : 0;
  }
  const int max_exact = nb / 2;
  if (rel < max_exact) return static_cast<int32_t>(bucket + rel);

  const float ratio = static_cast<float>(rel) / static_cast<float>(max_exact);
  const float log_range = static_cast<float>(std::log(static_cast<double>(o.max_distance) / max_exact));
  const float scaled = std::log(ratio) / log_range * static_cast<float>(nb - max_exact);  // >= 0
  const int64_t large = max_exact + static_cast<int64_t>(std::min(scaled, 1e18f));        // trunc toward 0
  return static_cast<int32_t>(bucket + std::min<int64_t>(large, nb - 1));
}

}  // namespace

// Validates too (a few integer compares): bad options would otherwise divide by zero.
int32_t t5_bucket(int32_t relative, const T5BucketOptions& o) {
  t5_validate(o);
  return bucket_unchecked(relative, o);
}

void t5_buckets(const int32_t* relative, int count, const T5BucketOptions& o, int32_t* out) {
  t5_validate(o);
  require_int_range("count", count, 0, kMaxInt);
  if (count == 0) return;
  if (!relative) type_error("relative", "a non-null buffer of count ints", "null");
  if (!out) type_error("out", "a non-null buffer of count ints", "null");
  for (int k = 0; k < count; ++k) out[k] = bucket_unchecked(relative[k], o);
}

}  // namespace posenc
