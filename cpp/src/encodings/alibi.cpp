// ALiBi (Press, Smith & Lewis 2022).
//
// Slopes follow get_slopes in ofirpress/attention_with_linear_biases,
// fairseq/models/transformer.py (commit 3b7c2eca):
//   get_slopes_power_of_2(n): start = 2**(-2**-(log2(n)-3)); [start * start**i for i in range(n)]
//   otherwise: p = 2**floor(log2(n));
//              get_slopes_power_of_2(p) + get_slopes(2*p)[0::2][:n-p]
// Computed in double (as Python does), stored as float.
#include "posenc/alibi.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();
constexpr int kMaxHeads = 1 << 20;

// Slopes for a power-of-two head count n: start * start^i, start = 2^(-2^-(log2(n) - 3)) = 2^(-8/n).
std::vector<double> slopes_power_of_2(int n) {
  const double log2n = std::log2(static_cast<double>(n));
  const double start = std::pow(2.0, -std::pow(2.0, -(log2n - 3.0)));
  std::vector<double> s(n);
  for (int i = 0; i < n; ++i) s[i] = start * std::pow(start, i);
  return s;
}

bool is_power_of_2(int n) { return n > 0 && (n & (n - 1)) == 0; }

std::vector<double> slopes(int n) {
  if (is_power_of_2(n)) return slopes_power_of_2(n);
  int p = 1;
  while (p * 2 <= n) p *= 2;  // closest lower power of two
  std::vector<double> s = slopes_power_of_2(p);
  const std::vector<double> twice = slopes_power_of_2(2 * p);  // get_slopes(2p) is the power-of-two path
  for (int k = 0; k < n - p; ++k) s.push_back(twice[2 * k]);   // [0::2][:n-p]
  return s;
}

void validate(const AlibiBiasOptions& o, const float* out) {
  require_int_range("heads", o.heads, 1, kMaxHeads);
  require_int_range("key_length", o.key_length, 0, kMaxInt);
  if (o.query_length < 0 || o.query_length > o.key_length)
    range_error("query_length", "an integer in [0, key_length=" + std::to_string(o.key_length) + "]",
                std::to_string(o.query_length));
  if (o.query_length > 0 && o.key_length > 0 && !out)
    type_error("out", "a non-null buffer of heads*Tq*Tk floats", "null");
}

}  // namespace

void alibi_slopes(int heads, float* out) {
  require_int_range("heads", heads, 1, kMaxHeads);
  if (!out) type_error("out", "a non-null buffer of heads floats", "null");
  const std::vector<double> s = slopes(heads);
  for (int h = 0; h < heads; ++h) out[h] = static_cast<float>(s[h]);
}

void alibi_bias(const AlibiBiasOptions& o, float* out) {
  validate(o, out);
  const int tq = o.query_length, tk = o.key_length;
  if (tq == 0 || tk == 0) return;
  std::vector<float> m(o.heads);
  alibi_slopes(o.heads, m.data());
  const long long offset = static_cast<long long>(tk) - tq;  // query i sits at position i + offset
  float* p = out;
  for (int h = 0; h < o.heads; ++h) {
    for (int i = 0; i < tq; ++i) {
      const long long i_pos = i + offset;
      for (int j = 0; j < tk; ++j, ++p) {
        const long long d = i_pos - j;
        if (o.causal)
          *p = d >= 0 ? -(m[h] * static_cast<float>(d)) : -INFINITY;
        else
          *p = -(m[h] * static_cast<float>(d >= 0 ? d : -d));
      }
    }
  }
}

}  // namespace posenc

// ===========================================================================
// Model hooks (encoding_model.hpp): score(i, j) -= slope_h * (i - j), fixed slopes [H]
// (the attention kernels apply it; nothing to learn, so no backward).

#include "../model/encoding_model.hpp"
#include "../model/model_impl.hpp"

namespace posenc {
namespace {

class AlibiModel : public EncodingModel {
 public:
  explicit AlibiModel(const ModelConfig& c) : EncodingModel(c) {}
  void prepare(ModelImpl& m, int, const ForwardOptions&) override {
    if (!slopes.empty()) return;
    slopes.resize(m.H);
    alibi_slopes(m.H, slopes.data());
  }
  float alibi_slope(int h) const override { return slopes[h]; }

 private:
  std::vector<float> slopes;  // [H]
};

}  // namespace

EncodingModel* make_alibi_model(const ModelConfig& c) { return new AlibiModel(c); }

}  // namespace posenc
