// libFuzzer target: every public entry point of the encoding core and its
// kernels, with sizes, positions, scaling parameters and data decoded from the
// fuzzer's bytes (NaN, Inf, negative and huge values included). See
// fuzz_input.hpp for the contract; each case below also checks the entry
// point's documented invariants on tame inputs.
//
// Sizes: a request whose buffers would exceed kCap elements is made with null
// buffers, and the core must refuse it (posenc::Error) rather than write.
// fuzz-runs: 40000 (npm test's seeded run: about 10 s here)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "posenc/alibi.hpp"
#include "posenc/kernels.hpp"
#include "posenc/learned.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/shaw.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"

namespace {

using namespace posenc;
using fuzz::call;
using fuzz::Input;
using fuzz::Tame;

constexpr uint64_t kCap = 1 << 15;  // elements per buffer: keeps one input fast under ASan
constexpr double kPi = 3.14159265358979323846;

// a * b * ... as a count of elements; 0 if any factor is negative (an invalid
// size the core must refuse), saturating instead of overflowing.
uint64_t elems(std::initializer_list<long long> dims) {
  uint64_t n = 1;
  for (long long d : dims) {
    if (d < 0) return 0;
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) return UINT64_MAX;
  }
  return n;
}

// A buffer of `need` elements, or null when that is over the cap (big = true).
template <class T>
T* buffer(std::vector<T>& v, uint64_t need, bool& big) {
  if (need > kCap) {
    big = true;
    return nullptr;
  }
  v.assign(static_cast<std::size_t>(need), T{});
  return v.data();
}

// A call with a buffer left null because the request was too large must be refused.
void expect_refused_if_big(bool big, bool ok) { FUZZ_CHECK(!(big && ok), "accepted a huge request with null buffers"); }

bool near(double got, double want, double tol) { return std::fabs(got - want) <= tol; }

// An even dimension most of the time, sometimes odd, zero, negative or huge.
int dimension(Input& in, int cap) {
  const int d = in.size(cap);
  return in.byte() < 200 && d > 0 ? d & ~1 : d;
}

// ---------------------------------------------------------------------------

void sinusoidal_case(Input& in) {
  SinusoidalOptions o;
  o.length = in.size(256);
  o.dim = dimension(in, 256);
  o.base = in.flag() ? 10000.0 : in.any_double();
  o.layout = static_cast<SinusoidLayout>(in.byte() % 3);
  o.spacing = static_cast<SinusoidSpacing>(in.byte() % 3);
  o.start = in.flag() ? in.range(0, 1000000) : in.any_int();
  bool big = false;
  std::vector<float> out;
  float* p = buffer(out, elems({o.length, o.dim}), big);
  const bool ok = call([&] { sinusoidal(o, p); });
  expect_refused_if_big(big, ok);
  if (ok && o.length > 0) {
    for (float v : out) FUZZ_CHECK(std::fabs(v) <= 1.0f + 1e-5f, "sinusoid value outside [-1, 1] or NaN");
    // Channel 0 has w_0 = 1 for both spacings: sin(start), cos(start), exact in double.
    const std::size_t cos0 = o.layout == SinusoidLayout::Interleaved ? 1 : static_cast<std::size_t>(o.dim / 2);
    FUZZ_CHECK(near(out[0], std::sin(static_cast<double>(o.start)), 2e-6), "sinusoid sin(start) inaccurate");
    FUZZ_CHECK(near(out[cos0], std::cos(static_cast<double>(o.start)), 2e-6), "sinusoid cos(start) inaccurate");
  }
  std::vector<double> w;
  big = false;
  double* pw = buffer(w, elems({o.dim / 2}), big);
  const bool ok_w = call([&] { sinusoid_frequencies(o, pw); });
  if (ok_w)
    for (double f : w) FUZZ_CHECK(f >= 0 && f <= 1, "sinusoid frequency outside [0, 1]");
}

void learned_case(Input& in) {
  const int rows = in.size(128), dim = in.size(64), count = in.size(256);
  const OutOfRange policy = static_cast<OutOfRange>(in.byte() % 4);
  bool big = false;
  Tame tame;
  std::vector<float> table, out;
  std::vector<int32_t> pos;
  float* pt = buffer(table, elems({rows, dim}), big);
  if (pt) in.fill(pt, table.size(), tame);
  int32_t* pp = buffer(pos, elems({count}), big);
  for (int32_t& p : pos) p = in.flag() ? in.range(0, std::clamp(rows, 0, 1 << 20) + 2) : in.any_int();
  float* po = buffer(out, elems({count, dim}), big);
  const bool ok = call([&] { learned_lookup(pt, rows, dim, pp, count, policy, po); });
  expect_refused_if_big(big, ok);
  if (!ok) return;
  for (int k = 0; k < count; ++k) {
    const int32_t p = pos[k];
    FUZZ_CHECK(p >= 0 && (p < rows || policy != OutOfRange::Error), "learned lookup accepted a bad position");
    const float* got = out.data() + static_cast<std::size_t>(k) * dim;
    if (p >= rows && policy == OutOfRange::Zero) {
      for (int i = 0; i < dim; ++i) FUZZ_CHECK(got[i] == 0.0f, "learned 'zero' policy wrote a non-zero");
      continue;
    }
    const float* want = table.data() + static_cast<std::size_t>(std::min(p, rows - 1)) * dim;
    FUZZ_CHECK(std::memcmp(got, want, sizeof(float) * dim) == 0, "learned lookup copied the wrong row");
  }
}

void t5_case(Input& in) {
  T5BucketOptions o;
  o.bidirectional = in.flag();
  o.num_buckets = in.flag() ? in.range(0, 80) : in.any_int();
  o.max_distance = in.flag() ? in.range(0, 300) : in.any_int();
  const int32_t one = in.any_int();
  int32_t b = -1;
  if (call([&] { b = t5_bucket(one, o); }))
    FUZZ_CHECK(b >= 0 && b < o.num_buckets, "t5 bucket outside [0, num_buckets)");
  const int count = in.size(512);
  bool big = false;
  std::vector<int32_t> rel, out;
  int32_t* pr = buffer(rel, elems({count}), big);
  for (int32_t& r : rel) r = in.flag() ? in.range(-300, 300) : in.any_int();
  int32_t* po = buffer(out, elems({count}), big);
  const bool ok = call([&] { t5_buckets(pr, count, o, po); });
  expect_refused_if_big(big, ok);
  if (!ok) return;
  for (int k = 0; k < count; ++k) {
    FUZZ_CHECK(out[k] >= 0 && out[k] < o.num_buckets, "t5 bucket outside [0, num_buckets)");
    FUZZ_CHECK(out[k] == t5_bucket(rel[k], o), "t5_buckets differs from t5_bucket");
  }
}

void shaw_case(Input& in) {
  const int tq = in.size(128), tk = in.size(256), k = in.flag() ? in.range(-2, 40) : in.any_int();
  bool big = false;
  std::vector<int32_t> out;
  int32_t* po = buffer(out, elems({tq, tk}), big);
  const bool ok = call([&] { shaw_index(tq, tk, k, po); });
  expect_refused_if_big(big, ok);
  if (!ok) return;
  for (int i = 0; i < tq; ++i)
    for (int j = 0; j < tk; ++j) {
      const long long rel = std::clamp<long long>(j - (i + static_cast<long long>(tk) - tq), -k, k) + k;
      FUZZ_CHECK(out[static_cast<std::size_t>(i) * tk + j] == rel, "shaw index differs from clip(j - i, -k, k) + k");
    }
}

void alibi_case(Input& in) {
  const int heads = in.flag() ? in.size(2048) : in.any_int();
  bool big = false;
  std::vector<float> slopes;
  float* ps = buffer(slopes, elems({heads}), big);
  const bool ok = call([&] { alibi_slopes(heads, ps); });
  expect_refused_if_big(big, ok);
  if (ok) {
    for (float m : slopes) FUZZ_CHECK(m > 0.0f && m <= 1.0f, "alibi slope outside (0, 1]");
    if ((heads & (heads - 1)) == 0)  // power of two: 2^(-8/n) first
      FUZZ_CHECK(near(slopes[0], std::pow(2.0, -8.0 / heads), 1e-6), "alibi first slope is not 2^(-8/n)");
  }

  AlibiBiasOptions o;
  o.heads = in.flag() ? in.size(64) : heads;
  o.query_length = in.size(128);
  o.key_length = in.flag() ? o.query_length : in.size(256);
  o.causal = in.flag();
  big = false;
  std::vector<float> bias, m;
  float* pb = buffer(bias, elems({o.heads, o.query_length, o.key_length}), big);
  const bool ok_bias = call([&] { alibi_bias(o, pb); });
  expect_refused_if_big(big, ok_bias);
  if (!ok_bias || bias.empty()) return;
  m.resize(o.heads);
  alibi_slopes(o.heads, m.data());
  const int tq = o.query_length, tk = o.key_length;
  for (int h = 0; h < o.heads; ++h)
    for (int i = 0; i < tq; ++i)
      for (int j = 0; j < tk; ++j) {
        const float v = bias[(static_cast<std::size_t>(h) * tq + i) * tk + j];
        const long long d = i + static_cast<long long>(tk - tq) - j;
        if (o.causal && d < 0) {
          FUZZ_CHECK(v == -INFINITY, "causal alibi bias not -inf above the diagonal");
        } else {
          FUZZ_CHECK(std::isfinite(v) && v <= 0.0f, "alibi bias not finite and <= 0");
          FUZZ_CHECK(v == -(m[h] * static_cast<float>(d < 0 ? -d : d)), "alibi bias is not -m |i - j|");
        }
      }
}

// Positions for `length` rows: null (0..length-1), or explicit ones (>= 0 unless `any`).
int32_t* positions(Input& in, std::vector<int32_t>& pos, int length, bool any) {
  if (in.flag() || length <= 0 || static_cast<uint64_t>(length) > kCap) return nullptr;
  pos.resize(length);
  for (int32_t& p : pos) {
    switch (in.byte() % 4) {
      case 0: p = in.range(0, 1000000); break;
      case 1: p = in.range(999990, 1000010); break;
      case 2: p = any ? in.any_int() : std::abs(in.any_int() % 2147483647); break;
      default: p = in.range(0, 64);
    }
  }
  return pos.data();
}

// Rotation by a scaled rotation matrix: every pair keeps its norm times the scale,
// and channels past rotary_dim pass through. Checked on tame inputs.
void check_rotation(const RopeApplyOptions& o, const std::vector<float>& x, const std::vector<float>& out) {
  const int half = o.rotary_dim / 2;
  for (int r = 0; r < o.length; ++r) {
    const float* xr = x.data() + static_cast<std::size_t>(r) * o.dim;
    const float* yr = out.data() + static_cast<std::size_t>(r) * o.dim;
    for (int i = 0; i < half; ++i) {
      const int a = o.layout == RopeLayout::Half ? i : 2 * i, b = o.layout == RopeLayout::Half ? i + half : 2 * i + 1;
      const double in_norm = std::hypot(double(xr[a]), double(xr[b])) * o.attention_scale;
      const double out_norm = std::hypot(double(yr[a]), double(yr[b]));
      FUZZ_CHECK(std::isfinite(out_norm), "RoPE output not finite for tame input");
      FUZZ_CHECK(near(out_norm, in_norm, 1e-4 * in_norm + 1e-30), "RoPE changed a pair's norm (times the scale)");
    }
    for (int c = o.rotary_dim; c < o.dim; ++c) FUZZ_CHECK(yr[c] == xr[c] || xr[c] != xr[c], "RoPE changed a pass-through channel");
  }
}

// apply_rope (+ rope_tables, + the backward kernels) on options whose buffers fit.
// `must_succeed`: the options are valid, so a refusal is a bug.
void apply_case(Input& in, RopeApplyOptions o, Tame tame, bool must_succeed) {
  bool big = false;
  std::vector<float> x, out, c, s;
  float* px = buffer(x, elems({o.length, o.dim}), big);
  if (px) in.fill(px, x.size(), tame);
  float* pout = buffer(out, elems({o.length, o.dim}), big);
  const bool in_place = px && in.flag();  // x and out may alias
  if (in_place) out = x;
  const bool ok = call([&] { apply_rope(o, in_place ? out.data() : px, in_place ? out.data() : pout); });
  expect_refused_if_big(big, ok);
  FUZZ_CHECK(ok || !must_succeed, "apply_rope refused valid options (frequencies from rope_frequencies)");
  if (!ok || o.length <= 0) return;
  tame.note(o.attention_scale);
  if (tame.ok) check_rotation(o, x, out);

  // The tables: scaled cos and sin, so |value| <= scale; backward undoes forward.
  const uint64_t n = elems({o.length, o.rotary_dim / 2});
  if (n > kCap) return;
  c.resize(n);
  s.resize(n);
  FUZZ_CHECK(call([&] { rope_tables(o, c.data(), s.data()); }), "rope_tables refused what apply_rope accepted");
  const double bound = o.attention_scale * (1 + 1e-5);
  for (std::size_t k = 0; k < n; ++k) {
    FUZZ_CHECK(std::fabs(c[k]) <= bound && std::fabs(s[k]) <= bound, "RoPE table value beyond the scale (or NaN)");
    FUZZ_CHECK(near(double(c[k]) * c[k] + double(s[k]) * s[k], o.attention_scale * o.attention_scale,
                    1e-5 * o.attention_scale * o.attention_scale + 1e-30),
               "RoPE table: cos^2 + sin^2 is not scale^2");
  }
  if (!tame.ok) return;
  std::vector<float> back(out.size());
  if (o.layout == RopeLayout::Half)
    kernels::rope_rotate_half_backward(out.data(), back.data(), c.data(), s.data(), o.length, o.dim, o.rotary_dim);
  else
    kernels::rope_rotate_interleaved_backward(out.data(), back.data(), c.data(), s.data(), o.length, o.dim,
                                              o.rotary_dim);
  // Rounding is relative to the row's largest value: a pair mixes a small and a large one.
  const double s2 = o.attention_scale * o.attention_scale;
  for (int r = 0; r < o.length; ++r) {
    const float* xr = x.data() + static_cast<std::size_t>(r) * o.dim;
    const float* br = back.data() + static_cast<std::size_t>(r) * o.dim;
    double largest = 0;
    for (int k = 0; k < o.rotary_dim; ++k) largest = std::max(largest, std::fabs(double(xr[k])));
    if (largest * s2 > 1e30) continue;  // x scaled twice would overflow a float
    for (int k = 0; k < o.rotary_dim; ++k)
      FUZZ_CHECK(near(br[k], xr[k] * s2, 1e-5 * largest * s2 + 1e-30), "RoPE backward(forward(x)) is not scale^2 x");
  }
}

void rope_frequencies_case(Input& in) {
  const int dim = dimension(in, 512);
  const double base = in.flag() ? in.pick<double>({10000.0, 500000.0, 1e6}) : in.any_double();
  const RopeScaling sc = fuzz::scaling(in, dim);
  const std::optional<int> seq_len = in.flag() ? std::optional<int>(in.flag() ? in.range(0, 1 << 20) : in.any_int())
                                               : std::nullopt;
  RopeFrequencies f;
  if (!call([&] { f = rope_frequencies(dim, base, sc, seq_len); })) return;
  FUZZ_CHECK(static_cast<int>(f.inv_freq.size()) == dim / 2, "rope_frequencies returned the wrong count");
  for (double w : f.inv_freq) FUZZ_CHECK(std::isfinite(w) && w >= 0, "inverse frequency not finite and >= 0");
  FUZZ_CHECK(std::isfinite(f.attention_scale) && f.attention_scale > 0, "attention scale not finite and > 0");

  // Whatever rope_frequencies returns, apply_rope takes (up to position 1e6 here).
  RopeApplyOptions o;
  o.rotary_dim = dim;
  o.dim = dim + 2 * in.range(0, 3) + (in.flag() ? 1 : 0);
  o.length = in.range(0, 48);
  o.layout = in.flag() ? RopeLayout::Half : RopeLayout::Interleaved;
  o.inv_freq = f.inv_freq.data();
  o.attention_scale = f.attention_scale;
  std::vector<int32_t> pos;
  o.positions = positions(in, pos, o.length, false);
  // Valid unless an angle p*w overflows a double (a documented refusal).
  const double largest = pos.empty() ? std::max(o.length - 1, 0) : *std::max_element(pos.begin(), pos.end());
  bool angles_finite = true;
  for (double w : f.inv_freq) angles_finite = angles_finite && std::isfinite(w * largest);
  apply_case(in, o, Tame{}, /*must_succeed=*/angles_finite && static_cast<uint64_t>(o.length) * o.dim <= kCap);
}

void apply_rope_case(Input& in) {
  RopeApplyOptions o;
  o.length = in.size(128);
  o.dim = dimension(in, 256);
  switch (in.byte() % 4) {
    case 0: o.rotary_dim = o.dim; break;
    case 1: o.rotary_dim = o.dim > 2 ? 2 * in.range(1, o.dim / 2) : o.dim; break;  // partial rotary
    case 2: o.rotary_dim = in.range(-2, 300); break;
    default: o.rotary_dim = in.any_int();
  }
  o.layout = static_cast<RopeLayout>(in.byte() % 3);
  o.attention_scale = in.flag() ? 1.0 : in.any_double();
  Tame tame;
  std::vector<double> inv;
  const uint64_t half = elems({o.rotary_dim / 2});
  if (half <= kCap && in.byte() != 0) {  // else null: must be refused
    inv.resize(half);
    for (std::size_t i = 0; i < half; ++i)
      inv[i] = in.byte() < 224 ? std::pow(10000.0, -2.0 * i / std::max(o.rotary_dim, 1)) : tame.note(in.any_double());
    o.inv_freq = inv.data();
  }
  std::vector<int32_t> pos;
  o.positions = positions(in, pos, o.length, true);
  apply_case(in, o, tame, false);
}

// One attention head: valid shapes (the kernel's precondition Tq <= Tk), any values.
void attention_case(Input& in) {
  const int tk = in.range(0, 96), tq = in.range(0, tk), d = in.range(1, 80);  // kernels.hpp: d >= 1
  const bool causal = in.flag();
  Tame tame;
  const float scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(std::max(d, 1))) : static_cast<float>(tame.note(in.any_double()));
  const float slope = in.flag() ? 0.0f : static_cast<float>(tame.note(in.any_double()));
  std::vector<float> q(static_cast<std::size_t>(tq) * d), k(static_cast<std::size_t>(tk) * d);
  std::vector<float> s(static_cast<std::size_t>(tq) * tk), bias;
  in.fill(q.data(), q.size(), tame);
  in.fill(k.data(), k.size(), tame);
  bool masked_bias = false;  // -inf biases are a documented use (every score masked -> zeros)
  if (in.flag()) {
    bias.resize(s.size());
    in.fill(bias.data(), bias.size(), tame);
    for (int n = in.byte() % 8; n > 0 && !bias.empty(); --n) bias[in.u32() % bias.size()] = -INFINITY, masked_bias = true;
  }
  FUZZ_CHECK(call([&] {
               kernels::attention_scores_softmax(q.data(), k.data(), s.data(), tq, tk, d, scale, causal, slope,
                                                 bias.empty() ? nullptr : bias.data());
             }),
             "attention kernel threw");
  // Tame also needs every score scale*q.k - slope*|i-j| + bias to fit in a float: finite inputs
  // whose scores overflow give inf - inf = NaN (a float32 limit; the JS API bounds its inputs).
  double qmax = 0, kmax = 0, bmax = 0;
  for (float v : q) qmax = std::max(qmax, std::fabs(double(v)));
  for (float v : k) kmax = std::max(kmax, std::fabs(double(v)));
  for (float v : bias) bmax = v == -INFINITY ? bmax : std::max(bmax, std::fabs(double(v)));
  if (std::fabs(scale) * qmax * kmax * d + std::fabs(slope) * tk + bmax > 1e37) return;
  if (!tame.ok) return;
  for (int i = 0; i < tq; ++i) {
    const int visible = causal ? i + (tk - tq) + 1 : tk;
    double sum = 0;
    bool all_masked = true;
    for (int j = 0; j < tk; ++j) {
      const float p = s[static_cast<std::size_t>(i) * tk + j];
      FUZZ_CHECK(std::isfinite(p) && p >= 0.0f && p <= 1.0f + 1e-6f, "attention probability not in [0, 1]");
      if (j >= visible) FUZZ_CHECK(p == 0.0f, "attention to a masked key");
      if (j < visible && !(masked_bias && bias[static_cast<std::size_t>(i) * tk + j] == -INFINITY)) all_masked = false;
      sum += p;
    }
    FUZZ_CHECK(near(sum, all_masked ? 0.0 : 1.0, 1e-4), "attention row does not sum to 1");
  }
}

// The streaming kernel (no [Tq, Tk] matrix) against attention_scores_softmax followed by
// P V in double, with a relative-position bias table read through its clamp rule. Sizes
// span several 64-key blocks; O rows are strided and the gaps between them must stay untouched.
void attention_stream_case(Input& in) {
  const int tk = in.range(0, 160), tq = in.range(0, tk), d = in.range(1, 24), dv = in.range(1, 24);
  const int ldo = dv + in.range(0, 3);
  const bool causal = in.flag();
  Tame tame;
  const float scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(d)) : static_cast<float>(tame.note(in.any_double()));
  const float slope = in.flag() ? 0.0f : static_cast<float>(tame.note(in.any_double()));
  std::vector<float> q(static_cast<std::size_t>(tq) * d), k(static_cast<std::size_t>(tk) * d),
      v(static_cast<std::size_t>(tk) * dv);
  in.fill(q.data(), q.size(), tame);
  in.fill(k.data(), k.size(), tame);
  in.fill(v.data(), v.size(), tame);
  kernels::RelativeBias rb;
  std::vector<float> table, dense;  // dense: the same bias as [Tq, Tk], for the reference
  if (in.flag() && tk > 0) {
    rb.len = in.range(1, 2 * tk);
    rb.offset = in.range(-tk, rb.len + tk);
    rb.row_stride = in.flag() ? 0 : rb.len + in.range(0, 2);
    table.resize(rb.row_stride == 0 ? rb.len : static_cast<std::size_t>(std::max(tq, 1)) * rb.row_stride);
    in.fill(table.data(), table.size(), tame);
    for (int n = in.byte() % 4; n > 0; --n) table[in.u32() % table.size()] = -INFINITY;
    rb.table = table.data();
    dense.resize(static_cast<std::size_t>(tq) * tk);
    for (int i = 0; i < tq; ++i)
      for (int j = 0; j < tk; ++j) {
        const long long x = std::clamp<long long>(j - (i + static_cast<long long>(tk - tq)) + rb.offset, 0, rb.len - 1);
        dense[static_cast<std::size_t>(i) * tk + j] = table[static_cast<std::size_t>(i) * rb.row_stride + x];
      }
  }
  constexpr float kSentinel = 12345.0f;
  std::vector<float> o(static_cast<std::size_t>(tq) * ldo, kSentinel), p(static_cast<std::size_t>(tq) * tk);
  kernels::attention_forward(q.data(), k.data(), v.data(), o.data(), tq, tk, d, dv, ldo, scale, causal, slope,
                             table.empty() ? nullptr : &rb);
  for (int i = 0; i < tq; ++i)
    for (int c = dv; c < ldo; ++c)
      FUZZ_CHECK(o[static_cast<std::size_t>(i) * ldo + c] == kSentinel, "attention_forward wrote past dv in a row");
  if (!tame.ok || tk == 0) return;
  double qmax = 0, kmax = 0, bmax = 0, vmax = 0;
  for (float x : q) qmax = std::max(qmax, std::fabs(double(x)));
  for (float x : k) kmax = std::max(kmax, std::fabs(double(x)));
  for (float x : v) vmax = std::max(vmax, std::fabs(double(x)));
  for (float x : table) bmax = x == -INFINITY ? bmax : std::max(bmax, std::fabs(double(x)));
  const double score_bound = std::fabs(scale) * qmax * kmax * d + std::fabs(slope) * tk + bmax;
  if (score_bound > 1e30 || vmax * tk > 1e30) return;  // scores or sums near float overflow
  kernels::attention_scores_softmax(q.data(), k.data(), p.data(), tq, tk, d, scale, causal, slope,
                                    dense.empty() ? nullptr : dense.data());
  // exp differs between the two by a few ulp of the score: relative to how large the scores get.
  const double tol = (1e-4 + 1e-6 * score_bound) * vmax * 4 + 1e-30;
  for (int i = 0; i < tq; ++i)
    for (int c = 0; c < dv; ++c) {
      double want = 0;
      for (int j = 0; j < tk; ++j) want += double(p[static_cast<std::size_t>(i) * tk + j]) * v[static_cast<std::size_t>(j) * dv + c];
      const float got = o[static_cast<std::size_t>(i) * ldo + c];
      FUZZ_CHECK(std::isfinite(got), "attention_forward output not finite for tame input");
      FUZZ_CHECK(near(got, want, tol), "attention_forward differs from attention_scores_softmax + P V");
    }
}

void softmax_case(Input& in) {
  const int rows = in.range(0, 64), cols = in.range(0, 128);
  const bool causal = in.flag();
  Tame tame;
  std::vector<float> s(static_cast<std::size_t>(rows) * cols), dp(s.size()), ds(s.size());
  in.fill(s.data(), s.size(), tame);
  in.fill(dp.data(), dp.size(), tame);
  kernels::softmax_rows(s.data(), rows, cols, causal);
  kernels::softmax_rows_backward(s.data(), dp.data(), ds.data(), rows, cols);
  if (!tame.ok) return;
  FUZZ_CHECK(fuzz::all_finite(s.data(), s.size()) && fuzz::all_finite(ds.data(), ds.size()),
             "softmax (or its backward) not finite for tame input");
  for (int i = 0; i < rows; ++i) {
    double sum = 0;
    for (int j = 0; j < cols; ++j) sum += s[static_cast<std::size_t>(i) * cols + j];
    const bool empty = causal && i + (cols - rows) + 1 <= 0;
    FUZZ_CHECK(near(sum, empty || cols == 0 ? 0.0 : 1.0, 1e-4), "softmax row does not sum to 1");
  }
}

// The three matmul kernels against a double reference.
void matmul_case(Input& in) {
  const int M = in.range(0, 40), K = in.range(0, 40), N = in.range(0, 40);
  const bool acc = in.flag();
  const int which = in.byte() % 3;
  Tame tame;
  // A, B in the layout each kernel reads: matmul A[M,K] B[K,N]; bt B[N,K]; at A[M,K] -> C[K,N] from B[M,N].
  const int rowsA = M, colsA = K, rowsC = which == 2 ? K : M, colsC = N;
  std::vector<float> A(static_cast<std::size_t>(rowsA) * colsA), B(static_cast<std::size_t>(which == 2 ? M : (which == 1 ? N : K)) * (which == 1 ? K : N));
  std::vector<float> C(static_cast<std::size_t>(rowsC) * colsC);
  in.fill(A.data(), A.size(), tame);
  in.fill(B.data(), B.size(), tame);
  in.fill(C.data(), C.size(), tame);
  const std::vector<float> C0 = C;
  if (which == 0) kernels::matmul(A.data(), B.data(), C.data(), M, K, N, acc);
  if (which == 1) kernels::matmul_bt(A.data(), B.data(), C.data(), M, K, N, acc);
  if (which == 2) kernels::matmul_at(A.data(), B.data(), C.data(), M, K, N, acc);
  if (!tame.ok) return;
  for (int r = 0; r < rowsC; ++r)
    for (int c = 0; c < colsC; ++c) {
      double want = acc ? C0[static_cast<std::size_t>(r) * colsC + c] : 0.0, mag = std::fabs(want);
      const int inner = which == 2 ? M : K;
      for (int t = 0; t < inner; ++t) {
        double a, b;
        if (which == 0) a = A[static_cast<std::size_t>(r) * K + t], b = B[static_cast<std::size_t>(t) * N + c];
        else if (which == 1) a = A[static_cast<std::size_t>(r) * K + t], b = B[static_cast<std::size_t>(c) * K + t];
        else a = A[static_cast<std::size_t>(t) * K + r], b = B[static_cast<std::size_t>(t) * N + c];
        want += a * b;
        mag += std::fabs(a * b);
      }
      FUZZ_CHECK(near(C[static_cast<std::size_t>(r) * colsC + c], want, 1e-5 * mag + 1e-6), "matmul differs from the reference");
    }
}

void sin_case(Input& in) {
  const std::size_t n = static_cast<std::size_t>(in.range(0, 300));
  Tame tame;
  const float scale = in.flag() ? 1.0f : static_cast<float>(tame.note(in.any_double()));
  std::vector<float> a(n), out(n);
  in.fill(a.data(), n, tame);
  for (float& v : a) v = std::isfinite(v) ? std::fmod(v, static_cast<float>(kPi)) : v;  // the documented [-pi, pi]
  kernels::sin_scaled(a.data(), out.data(), n, scale);
  if (!tame.ok) return;
  for (std::size_t i = 0; i < n; ++i)
    FUZZ_CHECK(near(out[i], scale * std::sin(static_cast<double>(a[i])), 1e-6 * (std::fabs(scale) + 1e-30)),
               "sin_scaled inaccurate on [-pi, pi]");
}

void rope_type_case(Input& in) {
  std::string name;
  for (int n = in.byte() % 12; n > 0; --n) name.push_back(static_cast<char>(in.byte()));
  if (in.flag()) name = in.pick<const char*>({"default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional", "ntk"});
  RopeType t;
  if (call([&] { t = parse_rope_type(name); })) FUZZ_CHECK(name == rope_type_name(t), "rope type name does not round-trip");
  rope_type_name(static_cast<RopeType>(in.byte()));
}

// Query scales (Llama 4 temperature, llama_4_scaling_beta) and DeepSeek's softmax scale:
// any input either throws posenc::Error or gives finite values; the scales are >= 1 for a, b > 0.
void query_scale_case(Input& in) {
  const auto kind = static_cast<QueryScaleKind>(in.byte() % 3);
  const double a = in.flag() ? in.pick<double>({0.1, 0.0, -0.5}) : in.any_double();
  const double b = in.flag() ? in.pick<double>({8192.0, 16384.0, 1.0}) : in.any_double();
  std::vector<double> pos(in.byte() % 16);
  for (double& p : pos) p = in.flag() ? in.range(0, 1 << 30) : in.any_double();
  std::vector<double> out(pos.size());
  if (call([&] { query_scale(kind, a, b, pos.data(), static_cast<int>(pos.size()), out.data()); }))
    for (double v : out) {
      FUZZ_CHECK(std::isfinite(v), "query scale not finite");
      if (a >= 0) FUZZ_CHECK(v >= 1, "query scale below 1 for a >= 0");
    }
  double m = 0;
  const double factor = in.flag() ? in.pick<double>({40.0, 1.0, 0.5}) : in.any_double();
  const double mad = in.flag() ? in.pick<double>({1.0, 0.0, 0.707}) : in.any_double();
  if (call([&] { m = deepseek_softmax_scale(factor, mad); })) FUZZ_CHECK(std::isfinite(m) && m > 0, "softmax scale not finite and > 0");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Input in(data, size);
  switch (in.byte() % 14) {
    case 0: sinusoidal_case(in); break;
    case 1: learned_case(in); break;
    case 2: t5_case(in); break;
    case 3: shaw_case(in); break;
    case 4: alibi_case(in); break;
    case 5: rope_frequencies_case(in); break;
    case 6: apply_rope_case(in); break;
    case 7: attention_case(in); break;
    case 8: softmax_case(in); break;
    case 9: matmul_case(in); break;
    case 10: sin_case(in); break;
    case 11: rope_type_case(in); break;
    case 12: query_scale_case(in); break;
    default: attention_stream_case(in); break;
  }
  return 0;
}
