// Rotary position embedding (Su et al. 2021): cos/sin tables and rotation.
//
// Unlike HF (float32 positions @ float32 inv_freq), the angle p*w is formed in
// double and reduced modulo 2*pi before sin/cos, so the tables stay accurate to
// float precision at p = 1e6. As in HF's rotary embeddings, cos and sin are
// multiplied by attention_scale (HF's attention_scaling). The rotation itself
// is the SIMD kernel in kernels_rope.cpp; the model hooks that use both are in rope_model.cpp.
#include "posenc/rope.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/kernels.hpp"

namespace posenc {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr int kMaxInt = std::numeric_limits<int>::max();

void validate_shape(const RopeApplyOptions& o) {
  require_int_range("length", o.length, 0, kMaxInt);
  require_int_range("dim", o.dim, 2, kMaxInt);
  if (o.rotary_dim < 2 || o.rotary_dim > o.dim || o.rotary_dim % 2 != 0)
    range_error("rotary_dim", "an even integer in [2, dim=" + std::to_string(o.dim) + "]",
                std::to_string(o.rotary_dim));
  if (o.layout != RopeLayout::Interleaved && o.layout != RopeLayout::Half)
    range_error("layout", "'interleaved' or 'half'", std::to_string(static_cast<int>(o.layout)));
  // cos and sin are float tables: a larger scale would make them inf, and 0 * inf NaN (found by fuzz_encodings).
  if (!(o.attention_scale > 0 && o.attention_scale <= std::numeric_limits<float>::max()))
    range_error("attention_scale", "a finite number in (0, 3.4028234663852886e+38] (float32)",
                format_number(o.attention_scale));
}

// Returns the largest position (0 when there are no rows).
int validate_positions(const RopeApplyOptions& o) {
  if (!o.positions) return o.length > 0 ? o.length - 1 : 0;  // 0..length-1
  int largest = 0;
  for (int r = 0; r < o.length; ++r) {
    if (o.positions[r] < 0)
      range_error("positions[" + std::to_string(r) + "]", "an integer >= 0", std::to_string(o.positions[r]));
    largest = o.positions[r] > largest ? o.positions[r] : largest;
  }
  return largest;
}

// Every angle p*w must be a finite double (a huge w times a large p overflows: found by fuzz_encodings).
void validate_frequencies(const RopeApplyOptions& o, int largest_position) {
  if (!o.inv_freq) type_error("inv_freq", "a non-null buffer of rotary_dim/2 doubles", "null");
  for (int i = 0; i < o.rotary_dim / 2; ++i)
    if (!std::isfinite(o.inv_freq[i] * largest_position) || o.inv_freq[i] < 0)
      range_error("inv_freq[" + std::to_string(i) + "]",
                  "a finite number >= 0 whose angle at position " + std::to_string(largest_position) + " is finite",
                  format_number(o.inv_freq[i]));
}

void validate(const RopeApplyOptions& o) {
  validate_shape(o);
  validate_frequencies(o, validate_positions(o));
}

constexpr double kHalfPi = kTwoPi / 4;
// Up to this angle the sin (a) and cos (a + pi/2) angles are each reduced directly, to within
// ~1e-6 rad of each other; every int32 position times a frequency <= 1 stays below it.
constexpr double kDirectAngle = 4294967296.0;  // 2^32

// Angle reduced to [-pi, pi], in double: exact enough at p = 1e6 and beyond.
inline float reduce(double a) { return static_cast<float>(a - kTwoPi * std::nearbyint(a / kTwoPi)); }

// The sin and cos angles of a, in [-pi, pi]. Past kDirectAngle the direct form drifts (the quick
// reduction can leave [-pi, pi], and a + pi/2 rounds to a past 2^53: found by fuzz_encodings), so
// a is reduced exactly with std::remainder and the cos angle derived from it. Such an angle is
// only as good as its double, but sin and cos stay a rotation.
inline void reduce_angles(double a, float& sin_angle, float& cos_angle) {
  if (std::fabs(a) <= kDirectAngle) {
    sin_angle = reduce(a);
    cos_angle = reduce(a + kHalfPi);
    return;
  }
  const double s = std::remainder(a, kTwoPi), c = s + kHalfPi;
  sin_angle = static_cast<float>(s);
  cos_angle = static_cast<float>(c > kTwoPi / 2 ? c - kTwoPi : c);
}

// Tables for already-validated options: the angles p*w (and p*w + pi/2 for
// cos) are formed and reduced in double, then sin runs in float SIMD.
void fill_tables(const RopeApplyOptions& o, float* cos_out, float* sin_out) {
  const int half = o.rotary_dim / 2;
  for (int r = 0; r < o.length; ++r) {
    const double p = o.positions ? o.positions[r] : r;
    const std::size_t row = static_cast<std::size_t>(r) * half;
    for (int i = 0; i < half; ++i) reduce_angles(p * o.inv_freq[i], sin_out[row + i], cos_out[row + i]);
  }
  const std::size_t n = static_cast<std::size_t>(o.length) * half;
  const float scale = static_cast<float>(o.attention_scale);
  kernels::sin_scaled(sin_out, sin_out, n, scale);
  kernels::sin_scaled(cos_out, cos_out, n, scale);
}

}  // namespace

void rope_tables(const RopeApplyOptions& o, float* cos_out, float* sin_out) {
  validate(o);
  if (o.length == 0) return;
  if (!cos_out || !sin_out)
    type_error(!cos_out ? "cos_out" : "sin_out", "a non-null buffer of length*rotary_dim/2 floats", "null");
  fill_tables(o, cos_out, sin_out);
}

void apply_rope(const RopeApplyOptions& o, const float* x, float* out) {
  validate(o);
  if (o.length == 0) return;
  if (!x) type_error("x", "a non-null buffer of length*dim floats", "null");
  if (!out) type_error("out", "a non-null buffer of length*dim floats", "null");
  const std::size_t n = static_cast<std::size_t>(o.length) * (o.rotary_dim / 2);
  std::vector<float> cos(n), sin(n);
  fill_tables(o, cos.data(), sin.data());
  if (o.layout == RopeLayout::Half)
    kernels::rope_rotate_half(x, out, cos.data(), sin.data(), o.length, o.dim, o.rotary_dim);
  else
    kernels::rope_rotate_interleaved(x, out, cos.data(), sin.data(), o.length, o.dim, o.rotary_dim);
}

}  // namespace posenc
