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

// ===========================================================================
// Model hooks (encoding_model.hpp): one bucket-bias table t5 [H, num_buckets] shared by all
// layers; unidirectional buckets of relative = key - query = -(p - j) <= 0.
// The bias is built one way: per head, a vector over distance,
//   by_distance[x] = t5[h, bucket(x - (T - 1))]     x = j - p + T - 1 in [0, T)     [T]
// which the streaming kernel reads directly (kernels::RelativeBias) and which is expanded to
// rows [Tq, T] where the scores are materialised (training, attention maps).
//   backward: dt5[h, bucket(j - p)] += dS[i, j]   (query i at p = i + q0, before the scale)

#include <vector>

#include "../model/encoding_model.hpp"
#include "../model/model_impl.hpp"

namespace posenc {
namespace {

class T5Model : public EncodingModel {
 public:
  const char* causal_only() const override { return "its buckets are unidirectional (keys j <= i)"; }
  using EncodingModel::EncodingModel;
  void validate() const override {
    require_int_range("t5MaxDistance", cfg.t5_max_distance, cfg.t5_num_buckets / 2 + 1, 1 << 20);
    t5_validate(options());
  }
  uint64_t global_parameters() const override { return uint64_t(cfg.heads) * cfg.t5_num_buckets; }
  void add_tensors(const AddTensor& add) override {
    table = add("t5.bias", {cfg.heads, cfg.t5_num_buckets}, false, 0.02f);
  }
  uint64_t bias_floats(int T, bool streaming) const override {
    return uint64_t(T) + (streaming ? 0 : uint64_t(T) * T);
  }
  void prepare(ModelImpl&, int T, const ForwardOptions&) override {
    built_l = built_h = rows_l = rows_h = -1;
    if (T <= bucket_rows) return;
    bucket_by_distance.resize(T);
    for (int d = 0; d < T; ++d) bucket_by_distance[d] = t5_bucket(-d, options());  // relative = -d
    bucket_rows = T;
  }
  const float* bias(ModelImpl& m, int l, int h, int, int q0, const float*) override {
    const float* d = by_distance(m, l, h);
    float* rows = m.acts.bias + m.T;
    if (rows_l != l || rows_h != h) {
      expand_distance_bias(d, m.T, 0, rows);
      rows_l = l;
      rows_h = h;
    }
    return rows + static_cast<std::ptrdiff_t>(q0) * m.T;
  }
  const kernels::RelativeBias* stream_bias(ModelImpl& m, int l, int h, int, int, const float*) override {
    rb = {by_distance(m, l, h), 0, m.T - 1, m.T};
    return &rb;
  }
  void bias_backward(ModelImpl& m, int, int h, int, int q0, const float*, const float* dS, float*) override {
    float* dtable = m.G(table) + static_cast<std::ptrdiff_t>(h) * cfg.t5_num_buckets;
    const int32_t* bkt = bucket_by_distance.data();
    for (int p = q0; p < m.T; ++p) {
      const float* row = dS + static_cast<std::ptrdiff_t>(p - q0) * m.T;
      for (int j = 0; j <= p; ++j) dtable[bkt[p - j]] += row[j];
    }
  }

 private:
  T5BucketOptions options() const { return T5BucketOptions{false, cfg.t5_num_buckets, cfg.t5_max_distance}; }
  // The [T] vector of head h in acts.bias (built once per head and forward).
  const float* by_distance(ModelImpl& m, int l, int h) {
    float* d = m.acts.bias;
    if (built_l != l || built_h != h) {
      const float* t = m.P(table) + static_cast<std::ptrdiff_t>(h) * cfg.t5_num_buckets;
      for (int x = 0; x < m.T; ++x) d[x] = t[bucket_by_distance[m.T - 1 - x]];
      built_l = l;
      built_h = h;
    }
    return d;
  }
  std::size_t table = 0;
  int bucket_rows = 0;
  std::vector<int32_t> bucket_by_distance;  // [rows]: bucket of relative position -d
  int built_l = -1, built_h = -1, rows_l = -1, rows_h = -1;
  kernels::RelativeBias rb;
};

}  // namespace

EncodingModel* make_t5_model(const ModelConfig& c) { return new T5Model(c); }

}  // namespace posenc
