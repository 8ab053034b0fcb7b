// T5 buckets: values from HF's rule (hand-checked and an independent float32
// table), monotonicity, uni/bidirectional, and errors.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/t5.hpp"

namespace {

using posenc::T5BucketOptions;

// Independent float32 transcription of HF's torch code, one step per line.
int ReferenceBucket(long long rel, bool bidirectional, int num_buckets, int max_distance) {
  long long ret = 0;
  long long n = num_buckets;
  if (bidirectional) {
    n = n / 2;
    ret += (rel > 0 ? 1 : 0) * n;
    rel = std::llabs(rel);
  } else {
    rel = -std::min(rel, 0LL);
  }
  const long long max_exact = n / 2;
  if (rel < max_exact) return static_cast<int>(ret + rel);
  const float as_float = static_cast<float>(rel);                  // relative_position.float()
  const float divided = as_float / static_cast<float>(max_exact);  // / max_exact
  const float logged = logf(divided);                              // torch.log (float32)
  const double py_log = std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact));
  const float over = logged / static_cast<float>(py_log);        // / math.log(...)
  const float times = over * static_cast<float>(n - max_exact);  // * (num_buckets - max_exact)
  long long large = max_exact + static_cast<long long>(times);   // .to(torch.long)
  if (large > n - 1) large = n - 1;
  return static_cast<int>(ret + large);
}

TEST(T5Bucket, HandCheckedDefaultBidirectional) {
  const T5BucketOptions o;  // bidirectional, 32 buckets, max_distance 128
  EXPECT_EQ(posenc::t5_bucket(0, o), 0);
  EXPECT_EQ(posenc::t5_bucket(-1, o), 1);
  EXPECT_EQ(posenc::t5_bucket(1, o), 17);
  EXPECT_EQ(posenc::t5_bucket(-7, o), 7);
  EXPECT_EQ(posenc::t5_bucket(7, o), 23);
  EXPECT_EQ(posenc::t5_bucket(-200, o), 15);
  EXPECT_EQ(posenc::t5_bucket(200, o), 31);
  EXPECT_EQ(posenc::t5_bucket(INT32_MIN, o), 15);
  EXPECT_EQ(posenc::t5_bucket(INT32_MAX, o), 31);
  // The classic T5 table: |rel| 8..11 -> 8, 12..15 -> 9, 16..22 -> 10, 23..31 -> 11,
  // 32..45 -> 12, 46..63 -> 13, 64..90 -> 14, >= 91 -> 15 (16 more for rel > 0).
  const int first[] = {8, 12, 16, 23, 32, 46, 64, 91, 128};
  for (int b = 0; b < 8; ++b)
    for (int r = first[b]; r < first[b + 1]; ++r) {
      EXPECT_EQ(posenc::t5_bucket(-r, o), 8 + b) << "rel=" << -r;
      EXPECT_EQ(posenc::t5_bucket(r, o), 24 + b) << "rel=" << r;
    }
}

TEST(T5Bucket, HandCheckedUnidirectional) {
  T5BucketOptions o;
  o.bidirectional = false;  // decoder: 32 buckets, max_exact 16, future keys share bucket 0
  EXPECT_EQ(posenc::t5_bucket(5, o), 0);
  EXPECT_EQ(posenc::t5_bucket(1000, o), 0);
  EXPECT_EQ(posenc::t5_bucket(0, o), 0);
  EXPECT_EQ(posenc::t5_bucket(-15, o), 15);
  EXPECT_EQ(posenc::t5_bucket(-16, o), 16);   // 16 + trunc(log(1) ...) = 16
  EXPECT_EQ(posenc::t5_bucket(-32, o), 21);   // 16 + trunc(log 2 / log 8 * 16) = 16 + 5
  EXPECT_EQ(posenc::t5_bucket(-127, o), 31);  // 16 + trunc(15.9...) = 31
  EXPECT_EQ(posenc::t5_bucket(-128, o), 31);  // 16 + 16 capped at 31
  EXPECT_EQ(posenc::t5_bucket(-100000, o), 31);
}

TEST(T5Bucket, MatchesIndependentFloat32Table) {
  struct Config {
    bool bi;
    int nb, md;
  };
  const Config configs[] = {{true, 32, 128}, {false, 32, 128}, {true, 64, 256}, {false, 64, 256}, {true, 16, 32},
                            {true, 4, 2},    {false, 2, 5},    {true, 33, 100}, {true, 320, 800}};
  for (const Config& c : configs) {
    T5BucketOptions o;
    o.bidirectional = c.bi, o.num_buckets = c.nb, o.max_distance = c.md;
    std::vector<int32_t> rel;
    for (int r = -3000; r <= 3000; ++r) rel.push_back(r);
    std::vector<int32_t> out(rel.size());
    posenc::t5_buckets(rel.data(), static_cast<int>(rel.size()), o, out.data());
    for (size_t k = 0; k < rel.size(); ++k)
      ASSERT_EQ(out[k], ReferenceBucket(rel[k], c.bi, c.nb, c.md))
          << "rel=" << rel[k] << " bi=" << c.bi << " nb=" << c.nb << " md=" << c.md;
  }
}

TEST(T5Bucket, MonotoneInDistanceAndInRange) {
  for (bool bi : {true, false}) {
    T5BucketOptions o;
    o.bidirectional = bi, o.num_buckets = 32, o.max_distance = 128;
    int prev_neg = -1, prev_pos = -1;
    for (int d = 0; d <= 5000; ++d) {
      const int neg = posenc::t5_bucket(-d, o), pos = posenc::t5_bucket(d, o);
      EXPECT_GE(neg, prev_neg) << "d=" << d;
      EXPECT_GE(pos, prev_pos) << "d=" << d;
      EXPECT_GE(neg, 0);
      EXPECT_LT(neg, 32);
      EXPECT_GE(pos, 0);
      EXPECT_LT(pos, 32);
      if (bi && d > 0) {
        EXPECT_EQ(pos, neg + 16);  // the two directions are offset copies
      }
      prev_neg = neg, prev_pos = pos;
    }
    EXPECT_EQ(prev_neg, bi ? 15 : 31);  // every far distance shares the last bucket
  }
}

TEST(T5Bucket, Errors) {
  using posenc::ErrorKind;
  T5BucketOptions o;
  o.num_buckets = 3;
  ExpectError([&] { posenc::t5_validate(o); }, ErrorKind::Range, "num_buckets must be an integer in [4,");
  o.bidirectional = false, o.num_buckets = 1;
  ExpectError([&] { posenc::t5_validate(o); }, ErrorKind::Range, "num_buckets must be an integer in [2,");
  o.num_buckets = 32, o.max_distance = 16;  // unidirectional max_exact = 16
  ExpectError([&] { posenc::t5_validate(o); }, ErrorKind::Range, "max_distance must be an integer > max_exact = 16");
  o.bidirectional = true, o.max_distance = 8;  // bidirectional max_exact = 8
  ExpectError([&] { posenc::t5_validate(o); }, ErrorKind::Range, "max_distance");
  o.max_distance = 9;
  EXPECT_NO_THROW(posenc::t5_validate(o));
  int32_t rel[2] = {0, 1}, out[2];
  ExpectError([&] { posenc::t5_buckets(nullptr, 2, o, out); }, ErrorKind::Type, "relative");
  ExpectError([&] { posenc::t5_buckets(rel, 2, o, nullptr); }, ErrorKind::Type, "out");
  ExpectError([&] { posenc::t5_buckets(rel, -1, o, out); }, ErrorKind::Range, "count");
  o.max_distance = 0;
  ExpectError([&] { posenc::t5_buckets(rel, 2, o, out); }, ErrorKind::Range, "max_distance");
  ExpectError([&] { posenc::t5_bucket(-5, o); }, ErrorKind::Range, "max_distance");
}

// Which buckets next-token training at T = 32 reaches (distances 0 .. 30: position 31 is never
// scored), from an independent float64 transcription of HF's unidirectional formula. HF's
// default 32 buckets / max_distance 128 leave buckets 21 .. 31 untrained; 16 / 32 (the
// experiment's) use every bucket.
int hf_bucket_unidirectional(int n, int num_buckets, int max_distance) {
  const int max_exact = num_buckets / 2;
  if (n < max_exact) return n;
  const int large = max_exact + static_cast<int>(std::log(static_cast<double>(n) / max_exact) /
                                                 std::log(static_cast<double>(max_distance) / max_exact) *
                                                 (num_buckets - max_exact));
  return std::min(large, num_buckets - 1);
}

TEST(T5Bucket, BucketsReachedByTrainingAtLength32) {
  auto reached = [](int nb, int md) {
    std::vector<bool> r(nb, false);
    for (int n = 0; n <= 30; ++n) {
      const int b = posenc::t5_bucket(-n, T5BucketOptions{false, nb, md});
      EXPECT_EQ(b, hf_bucket_unidirectional(n, nb, md)) << n;
      r[b] = true;
    }
    return r;
  };
  const std::vector<bool> hf = reached(32, 128);
  for (int b = 0; b < 32; ++b) EXPECT_EQ(hf[b], b <= 20) << "HF default, bucket " << b;
  const std::vector<bool> ours = reached(16, 32);
  for (int b = 0; b < 16; ++b) EXPECT_TRUE(ours[b]) << "16 / 32, bucket " << b;
}

}  // namespace

