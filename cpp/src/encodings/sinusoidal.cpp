// Sinusoidal absolute encoding (Vaswani et al. 2017, section 3.5).
//
// Paper spacing:          w_i = base^(-2i/d)                (the paper, fairseq)
// Tensor2Tensor spacing:  w_i = exp(-i ln(base) / max(d/2 - 1, 1)) (tensor2tensor get_timing_signal_1d)
// Angles p*w_i are formed in double and reduced modulo 2*pi before sin/cos.
// An odd d has floor(d/2) sin/cos pairs and one more channel, the last:
//  - concat layout (tensor2tensor, fairseq): a zero column, as get_timing_signal_1d's
//    tf.pad(signal, [[0, 0], [0, channels % 2]]) and fairseq's torch.cat([emb, zeros]);
//  - interleaved layout with paper spacing: the paper's per-channel formula,
//    PE[p, d-1] = sin(p * base^(-2*floor(d/2)/d)) (as HF's per-channel
//    `pos / 10000^(2*(j//2)/dim)` tables compute it);
//  - interleaved layout with tensor2tensor spacing: a zero column (t2t's padding).
#include "posenc/sinusoidal.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/rope.hpp"

namespace posenc {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();

void validate(const SinusoidalOptions& o) {
  require_int_range("length", o.length, 0, kMaxInt);
  const bool t2t = o.spacing == SinusoidSpacing::Tensor2Tensor;
  if (o.spacing != SinusoidSpacing::Paper && !t2t)
    range_error("spacing", "'paper' or 'tensor2tensor'", std::to_string(static_cast<int>(o.spacing)));
  if (o.layout != SinusoidLayout::Interleaved && o.layout != SinusoidLayout::Concat)
    range_error("layout", "'interleaved' or 'concat'", std::to_string(static_cast<int>(o.layout)));
  if (o.dim < 2 || o.dim > (1 << 16)) range_error("dim", "an integer in [2, 65536]", std::to_string(o.dim));
  if (!std::isfinite(o.base) || o.base <= 1) range_error("base", "a finite number > 1", format_number(o.base));
  require_int_range("start", o.start, 0, kMaxInt);
  require_int_range("start + length", static_cast<long long>(o.start) + o.length, 0, kMaxInt);
}

void frequencies(const SinusoidalOptions& o, double* w) {
  const int half = o.dim / 2;
  if (o.spacing == SinusoidSpacing::Paper) {
    for (int i = 0; i < half; ++i) w[i] = std::pow(o.base, -2.0 * i / o.dim);
  } else {
    const double step = std::log(o.base) / std::max(half - 1, 1);  // t2t: max(num_timescales - 1, 1)
    for (int i = 0; i < half; ++i) w[i] = std::exp(-i * step);
  }
}

// Channel of sin(p w_i) and cos(p w_i) in a row, for each layout.
inline std::size_t sin_channel(const SinusoidalOptions& o, int i) {
  return o.layout == SinusoidLayout::Interleaved ? 2 * static_cast<std::size_t>(i) : static_cast<std::size_t>(i);
}
inline std::size_t cos_channel(const SinusoidalOptions& o, int i) {
  return o.layout == SinusoidLayout::Interleaved ? 2 * static_cast<std::size_t>(i) + 1
                                                 : static_cast<std::size_t>(o.dim / 2 + i);
}

// The extra channel of an odd dim (see the top of this file).
float last_channel(const SinusoidalOptions& o, double p) {
  if (o.layout != SinusoidLayout::Interleaved || o.spacing != SinusoidSpacing::Paper) return 0.0f;
  const int half = o.dim / 2;
  const double angle = std::fmod(p * std::pow(o.base, -2.0 * half / o.dim), 2 * 3.14159265358979323846);
  return static_cast<float>(std::sin(angle));
}

}  // namespace

void sinusoid_frequencies(const SinusoidalOptions& o, double* w) {
  validate(o);
  if (!w) type_error("w", "a non-null buffer of dim/2 doubles", "null");
  frequencies(o, w);
}

void sinusoidal(const SinusoidalOptions& o, float* out) {
  validate(o);
  if (o.length == 0) return;
  if (!out) type_error("out", "a non-null buffer of length*dim floats", "null");
  const int half = o.dim / 2;
  std::vector<double> freq(half);
  frequencies(o, freq.data());
  // The same sin/cos tables RoPE rotates by (angles reduced in double, SIMD
  // sin/cos), laid out as the sinusoid's channels.
  std::vector<int32_t> positions(o.length);
  for (int r = 0; r < o.length; ++r) positions[r] = o.start + r;  // validate() bounds start + length
  RopeApplyOptions angles;
  angles.length = o.length;
  angles.dim = angles.rotary_dim = 2 * half;
  angles.inv_freq = freq.data();
  angles.positions = positions.data();
  const std::size_t n = static_cast<std::size_t>(o.length) * half;
  std::vector<float> cos(n), sin(n);
  rope_tables(angles, cos.data(), sin.data());
  for (int r = 0; r < o.length; ++r) {
    float* row = out + static_cast<std::size_t>(r) * o.dim;
    for (int i = 0; i < half; ++i) {
      row[sin_channel(o, i)] = sin[static_cast<std::size_t>(r) * half + i];
      row[cos_channel(o, i)] = cos[static_cast<std::size_t>(r) * half + i];
    }
    if (o.dim % 2) row[o.dim - 1] = last_channel(o, static_cast<double>(o.start) + r);
  }
}

}  // namespace posenc

// ===========================================================================
// Model hooks (encoding_model.hpp): x0[b, t] += kSinusoidalScale * PE[t]   PE [T, C] (no parameters)
//   forward:  the table grows with T (prefixes stay valid); backward: nothing to learn.

#include <vector>

#include "../model/encoding_model.hpp"
#include "../model/model_impl.hpp"

namespace posenc {
namespace {

class SinusoidalModel : public EncodingModel {
 public:
  using EncodingModel::EncodingModel;
  void validate() const override {
    if (cfg.d_model % 2 != 0) range_error("dModel", "even for encoding 'sinusoidal'", std::to_string(cfg.d_model));
  }
  void prepare(ModelImpl& m, int T, const ForwardOptions&) override {
    if (T <= rows) return;
    table.resize(static_cast<std::size_t>(T) * m.C);
    SinusoidalOptions so;
    so.length = T;
    so.dim = m.C;
    sinusoidal(so, table.data());
    for (float& x : table) x *= kSinusoidalScale;
    rows = T;
  }
  bool adds_position() const override { return true; }
  void embed_forward(ModelImpl& m, int, int t, float* x) override {
    const float* r = table.data() + static_cast<std::size_t>(t) * m.C;
    for (int i = 0; i < m.C; ++i) x[i] += r[i];
  }

 private:
  int rows = 0;
  std::vector<float> table;  // [rows, C], already multiplied by kSinusoidalScale
};

}  // namespace

EncodingModel* make_sinusoidal_model(const ModelConfig& c) { return new SinusoidalModel(c); }

}  // namespace posenc
