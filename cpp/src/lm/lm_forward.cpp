// posenc::lm: the inference forward of a Llama-architecture model (lm.hpp), in the core's kernels:
// RMSNorm, GQA attention with RoPE (either layout, any HF rope type of rope_scaling.hpp) streamed
// by kernels::attention_forward, SwiGLU, and the NLL computed 64 rows of logits at a time. A family's
// own steps (its Family row: q/k norms, norms after attention and MLP) and a layer's own rules
// (Config::layers: NoPE, sliding window) are taken where they fall, top to bottom.
// Shapes: T tokens, D = dim, F = hidden_dim, H / Hkv heads of hd channels, V = vocab.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "../kernels/attention_pool_band.hpp"
#include "../kind_table.hpp"
#include "lm_internal.hpp"
#include "../kernels/matmul_strided.hpp"
#include "posenc/checkpoint.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"
#include "posenc/threads.hpp"
#include "../kernels/softmax_row.hpp"

namespace posenc::lm {
namespace {

using simd::fbatch;
constexpr int W = static_cast<int>(simd::width);
using idx = std::ptrdiff_t;
constexpr int kRowBlock = 64;  // rows of logits, FFN activations and attention statistics at a time
constexpr int kAttRows = 256;  // query rows of one head per work item on several threads (a multiple of the kernel's 64)

// out[T, D] = x / sqrt(mean(x^2) + eps) * w
void rmsnorm(float* out, const float* x, const float* w, int T, int D, float eps) {
  for (int t = 0; t < T; ++t) {
    const float* xr = x + static_cast<idx>(t) * D;
    float* o = out + static_cast<idx>(t) * D;
    fbatch acc = simd::splat(0.0f);
    int i = 0;
    for (; i + W <= D; i += W) acc = simd::fma(simd::load(xr + i), simd::load(xr + i), acc);
    float ss = simd::reduce_add(acc);
    for (; i < D; ++i) ss += xr[i] * xr[i];
    const float r = 1.0f / std::sqrt(ss / D + eps);
    const fbatch vr = simd::splat(r);
    for (i = 0; i + W <= D; i += W) simd::store(o + i, simd::load(xr + i) * vr * simd::load(w + i));
    for (; i < D; ++i) o[i] = xr[i] * r * w[i];
  }
}

// y[T, C] += b[C] (no-op when b is empty)
void add_bias(float* y, const std::vector<float>& b, int T, int C) {
  if (b.empty()) return;
  for (int t = 0; t < T; ++t) {
    float* r = y + static_cast<idx>(t) * C;
    int i = 0;
    for (; i + W <= C; i += W) simd::store(r + i, simd::load(r + i) + simd::load(b.data() + i));
    for (; i < C; ++i) r[i] += b[i];
  }
}

// x[n] += y[n]
void add_into(float* x, const float* y, std::size_t n) {
  std::size_t i = 0;
  for (; i + W <= n; i += W) simd::store(x + i, simd::load(x + i) + simd::load(y + i));
  for (; i < n; ++i) x[i] += y[i];
}

// g[n] = gelu_tanh(g) * u: gelu with the tanh approximation, 0.5 g (1 + tanh(z)) = g / (1 + e^(-2z)),
// z = sqrt(2 / pi) (g + 0.044715 g^3) (GeGLU, Gemma's gelu_pytorch_tanh)
void geglu(float* g, const float* u, std::size_t n) {
  const simd::ExpConstants k = simd::exp_constants();
  const float c = -2.0f * 0.7978845608028654f, c3 = c * 0.044715f;
  const fbatch one = simd::splat(1.0f), vc = simd::splat(c), vc3 = simd::splat(c3);
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    const fbatch x = simd::load(g + i);
    simd::store(g + i, x / (one + simd::exp(x * (vc + vc3 * x * x), k)) * simd::load(u + i));
  }
  for (; i < n; ++i) g[i] = g[i] / (1.0f + std::exp(g[i] * (c + c3 * g[i] * g[i]))) * u[i];
}

// g[n] = silu(g) * u = g / (1 + e^-g) * u
void swiglu(float* g, const float* u, std::size_t n) {
  const simd::ExpConstants k = simd::exp_constants();
  const fbatch one = simd::splat(1.0f);
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    const fbatch x = simd::load(g + i);
    simd::store(g + i, x / (one + simd::exp(-x, k)) * simd::load(u + i));
  }
  for (; i < n; ++i) g[i] = g[i] / (1.0f + std::exp(-g[i])) * u[i];
}

// x [T, H*hd] -> out [H, T, hd]
void split_heads(const float* x, float* out, int T, int H, int hd) {
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      std::copy_n(x + (static_cast<idx>(t) * H + h) * hd, hd, out + (static_cast<idx>(h) * T + t) * hd);
}

// log sum_j e^row[j]
float logsumexp(const float* row, int n) {
  fbatch m = simd::splat(row[0]);
  int j = 0;
  for (; j + W <= n; j += W) m = simd::max(m, simd::load(row + j));
  float mx = simd::reduce_max(m);
  for (; j < n; ++j) mx = std::max(mx, row[j]);
  const simd::ExpConstants k = simd::exp_constants();
  const fbatch vm = simd::splat(mx);
  fbatch acc = simd::splat(0.0f);
  for (j = 0; j + W <= n; j += W) acc += simd::exp(simd::load(row + j) - vm, k);
  float s = simd::reduce_add(acc);
  for (; j < n; ++j) s += std::exp(row[j] - mx);
  return mx + std::log(s);
}

struct Buffers {
  std::vector<float> x, xn, q, k, v, qh, kh, vh, att, cos, sin, g, u, row_entropy, row_first;
  std::vector<float> qh2, kh2;                   // ReRoPE: the far scores' queries and keys [H or Hkv, T, hd]
  std::vector<float> row_lse;                    // [H, T]: the map layer's log-sum-exp per head and row
  std::vector<float> kt, qs, scores, cells;      // head_map's scratch
  std::vector<float> kt2, scores2;               // head_map's with ReRoPE's far scores
};

// A layer's RoPE: its base and whether the forward's scaling applies to it
std::pair<double, bool> rope_key(const Config& c, int layer) {
  const Config::Layer rule = layer < 0 || c.layers.empty() ? Config::Layer{} : c.layers[layer];
  return {rule.theta > 0 ? rule.theta : c.rope_theta, rule.scaled};
}

// cos, sin [rows, rd/2] of row p at position positions[p] (nullptr: p) with inv_freq
struct RopeTable {
  std::vector<float> cos, sin;
};
RopeTable rope_table(const Config& c, const RopeFrequencies& f, int rows, const int32_t* positions) {
  RopeTable t;
  RopeApplyOptions o;
  o.length = rows;
  o.dim = c.hd();
  o.rotary_dim = c.rd();
  o.layout = rope_layout(c);
  o.inv_freq = f.inv_freq.data();
  o.attention_scale = f.attention_scale;
  o.positions = positions;
  t.cos.resize(static_cast<std::size_t>(rows) * (c.rd() / 2));
  t.sin.resize(t.cos.size());
  rope_tables(o, t.cos.data(), t.sin.data());
  return t;
}

struct Rope {
  RopeLayout layout;
  int hd, rd;
  RopeTable main;       // [P + T, rd/2]
  // ReRoPE (far > 0): the far scores' query and key tables [P + T, rd/2]; far_k empty: the keys do not rotate
  int far = 0;
  RopeTable far_q, far_k;
  void rotate(const RopeTable& t, float* x, int T, int P) const {  // x [T, hd], one head, at rows P .. P + T - 1
    const idx at = static_cast<idx>(P) * (rd / 2);
    if (layout == RopeLayout::Half)
      kernels::rope_rotate_half(x, x, t.cos.data() + at, t.sin.data() + at, T, hd, rd);
    else
      kernels::rope_rotate_interleaved(x, x, t.cos.data() + at, t.sin.data() + at, T, hd, rd);
  }
  void rotate(float* x, int T, int P) const { rotate(main, x, T, P); }
};

// A layer's RoPE over rows [0, T): at the input's length (every scaling as one call), or with dynamic NTK as
// generated with a cache, row p at seq_len = p + 1 (HF's per-step frequencies: the default ones up to the context);
// with ReRoPE, the far scores' tables (bojone/rerope): the query at position `window` and the key not rotated, or
// (Leaky, leak k) both by the frequencies over k, the query at its position + window (k - 1), the key at its own.
Rope make_rope(const Config& c, const RopeScaling& scaling, int T, int layer, const ForwardOptions& fo) {
  Rope r{rope_layout(c), c.hd(), c.rd(), {}, 0, {}, {}};
  const bool cached = fo.dynamic == DynamicForm::Cached && scaling.type == parse_rope_type("dynamic") && rope_key(c, layer).second;
  if (!cached) {
    r.main = rope_table(c, forward_rope_frequencies(c, scaling, T, layer), T, nullptr);
  } else {
    r.main.cos.resize(static_cast<std::size_t>(T) * (c.rd() / 2));
    r.main.sin.resize(r.main.cos.size());
    for (int32_t p = 0; p < T; ++p) {
      const RopeTable row = rope_table(c, forward_rope_frequencies(c, scaling, p + 1, layer), 1, &p);
      std::copy(row.cos.begin(), row.cos.end(), r.main.cos.begin() + static_cast<idx>(p) * (c.rd() / 2));
      std::copy(row.sin.begin(), row.sin.end(), r.main.sin.begin() + static_cast<idx>(p) * (c.rd() / 2));
    }
  }
  if (fo.extend.method == ExtendMethod::ReRope) {
    r.far = static_cast<int>(extend_value(fo.extend, "window"));
    const double leak = extend_value(fo.extend, "leak");
    std::vector<int32_t> q(static_cast<std::size_t>(T));
    RopeFrequencies f = forward_rope_frequencies(c, scaling, T, layer);
    if (std::isnan(leak)) {
      std::fill(q.begin(), q.end(), r.far);
      r.far_q = rope_table(c, f, T, q.data());
    } else {
      const int k = static_cast<int>(leak);
      for (int p = 0; p < T; ++p) q[p] = p + r.far * (k - 1);
      for (double& w : f.inv_freq) w /= k;
      r.far_q = rope_table(c, f, T, q.data());
      r.far_k = rope_table(c, f, T, nullptr);
    }
  }
  return r;
}

// The pooled picture of one head and its peak (the pixels of attention_pool_band.hpp), from its scores alone:
// a weight is exp(s - lse), lse being its row's log-sum-exp from the streamed pass (RowStats::lse), and exp is
// increasing, so a pixel's largest weight is exp(the largest score of its cell - lse): a row costs its scores and
// one exp per pixel, not one per key. Shapes: q [T, hd], k [T, hd], lse [T], pooled [px, px]; scratch kt [hd, T]
// (K transposed), qs [rows, hd] (a band's queries, scaled), scores [rows, i1] (theirs), cells [px].
// The rows are P .. P + Tq - 1 (q and lse hold those; k holds the keys of rows 0 .. P + Tq - 1): a forward's
// own rows (P = 0), or a stream's step, whose rows add to the pixels of the bands they fall in (a band's pixels
// are set when its first row comes). Returns the sum over the rows of their largest weight (the peak's numerator).
// With a window (> 0), row i sees keys (i - window, i] only: cells wholly before that are 0.
// far (ReRoPE): scores of keys far->distance or more before the row from far->Q (rows as q) and far->K (as k).
double head_map(const float* q, const float* k, const float* lse, int P, int Tq, int hd, float scale, int window,
                const PoolBands& bands, float* pooled, Buffers& b, const kernels::FarScores* far = nullptr) {
  const int K = P + Tq;
  b.kt.resize(static_cast<std::size_t>(hd) * K);
  kernels::detail::transpose(k, K, hd, b.kt.data());
  if (far) {
    b.kt2.resize(b.kt.size());
    kernels::detail::transpose(far->K, K, hd, b.kt2.data());
  }
  b.cells.resize(static_cast<std::size_t>(bands.px));
  const kernels::detail::ExpNonposConstants ek = kernels::detail::exp_nonpositive_constants();
  double peak = 0;
  for (int y = 0; y < bands.px; ++y) {
    const int i0 = std::max(bands.begin(y), P), i1 = std::min(bands.end(y), K), rows = i1 - i0;
    if (rows <= 0) continue;
    b.qs.resize(static_cast<std::size_t>(rows) * hd);
    for (idx e = 0; e < static_cast<idx>(rows) * hd; ++e) b.qs[e] = q[static_cast<idx>(i0 - P) * hd + e] * scale;
    b.scores.resize(static_cast<std::size_t>(rows) * i1);
    kernels::detail::matmul_strided(b.qs.data(), hd, b.kt.data(), K, b.scores.data(), i1, rows, hd, i1, false);
    if (far && i1 - 1 - far->distance >= 0) {  // the far keys' scores (j <= i - distance) from the second queries and keys
      for (idx e = 0; e < static_cast<idx>(rows) * hd; ++e) b.qs[e] = far->Q[static_cast<idx>(i0 - P) * hd + e] * scale;
      b.scores2.resize(b.scores.size());
      kernels::detail::matmul_strided(b.qs.data(), hd, b.kt2.data(), K, b.scores2.data(), i1, rows, hd, i1, false);
      for (int i = i0; i < i1; ++i) {
        const idx row = static_cast<idx>(i - i0) * i1;
        const int n_far = std::clamp(i - far->distance + 1, 0, i1);
        std::copy_n(b.scores2.data() + row, n_far, b.scores.data() + row);
      }
    }
    float* out = pooled + static_cast<idx>(y) * bands.px;
    if (i0 == bands.begin(y))  // the band's first row: its pixels start at 0 (-1: no key of the cell visible)
      for (int x = 0; x < bands.px; ++x) out[x] = bands.begin(x) < bands.end(y) ? 0.0f : -1.0f;
    for (int i = i0; i < i1; ++i) {
      const float* s = b.scores.data() + static_cast<idx>(i - i0) * i1;
      float top = -std::numeric_limits<float>::infinity();
      int n = 0;  // the cells row i sees: keys lo..i
      const int lo = window > 0 ? std::max(0, i - window + 1) : 0;
      for (; n < bands.px && bands.begin(n) <= i; ++n) {
        const int j0 = std::max(bands.begin(n), lo), j1 = std::min(bands.end(n), i + 1);
        b.cells[n] = j1 > j0 ? kernels::detail::row_max(s + j0, j1 - j0) : -std::numeric_limits<float>::infinity();
        top = std::max(top, b.cells[n]);
      }
      kernels::detail::exp_nonpositive_shift_sum(b.cells.data(), n, lse[i - P], ek);
      for (int x = 0; x < n; ++x)
        if (bands.end(x) > lo) out[x] = std::max(out[x], b.cells[x]);
      peak += std::exp(static_cast<double>(top) - lse[i - P]);
    }
  }
  return peak;
}

void check_inputs(const Model& m, const int32_t* tokens, int T, const ForwardOptions& o) {
  const Config& c = m.config();
  require_int_range("T", T, 1, kMaxLength);
  if (!tokens) type_error("tokens", "a buffer of T token ids", "null");
  for (int t = 0; t < T; ++t)
    if (tokens[t] < 0 || tokens[t] >= c.vocab_size)
      range_error("tokens[" + std::to_string(t) + "]", "a token id in [0, " + std::to_string(c.vocab_size - 1) + "]",
                  std::to_string(tokens[t]));
  require_int_range("map_layer", o.map_layer, -1, c.n_layers - 1);
  for (int n : o.stats_lengths) require_int_range("stats_lengths[i]", n, 1, T);
  if (o.map_layer >= 0) require_int_range("map_px", o.map_px, 1, T);
  for (int r : o.logits_rows) require_int_range("logits_rows[i]", r, 0, T - 1);
  require_int_range("keep", o.keep, 0, T);
  require_int_range("threads", o.threads, 0, threads::available());
  const int form = static_cast<int>(o.dynamic);
  if (form < 0 || form >= static_cast<int>(dynamic_forms().size())) range_error("dynamic", one_of(dynamic_forms()), std::to_string(form));
  if (o.dynamic == DynamicForm::Cached && o.scaling.type != parse_rope_type("dynamic"))
    range_error("dynamic", "'call' unless the scaling is dynamic NTK (the cached form is dynamic NTK's)", "'cached' with " +
                std::string(rope_type_name(o.scaling.type)));
  if (!o.past && !o.keep) return;
  if (o.scaling.type == parse_rope_type("dynamic") && o.dynamic == DynamicForm::Call)
    range_error("past and keep", "no dynamic NTK scaling as one call (its frequencies follow the whole input's length; "
                                 "its cached form can)", "dynamic");
  if (o.extend.method == ExtendMethod::ReRope)
    range_error("past and keep", "no ReRoPE (its far scores need keys the cache does not carry)", "rerope");
  if (!o.past) return;
  if (o.head_stats || o.map_layer >= 0)
    range_error("past", "a forward without head statistics or maps (they are means over every row)", "a past");
  require_int_range("past.rows", o.past->rows, 1, kMaxLength - T);
  const std::size_t n = static_cast<std::size_t>(c.n_layers) * c.n_kv_heads * o.past->rows * c.hd();
  if (o.past->k.size() != n || o.past->v.size() != n)
    range_error("past", "keys and values of " + std::to_string(n) + " floats each (layers x kv heads x rows x head_dim)",
                std::to_string(o.past->k.size()) + " and " + std::to_string(o.past->v.size()));
}

// A stream's state across its steps (Stream::State holds it): the cache of all T rows, [L, Hkv, T, hd] keys and
// values, float32 or float16; the statistics' sums over the rows so far; the maps' pixels and the peaks' sums.
struct StreamCache {
  KvType type = KvType::F32;
  int rows = 0;                          // T: the whole input's length
  std::vector<float> k32, v32;           // F32
  std::vector<uint16_t> k16, v16;        // F16
  std::vector<float> k2_32;              // ReRoPE: the far scores' keys, as k32 / k16 (empty without it)
  std::vector<uint16_t> k2_16;
  std::vector<int> lengths;              // the statistics' lengths (S)
  std::vector<double> entropy, sink;     // [S, L, H]: sums over the rows so far below each length
  std::vector<float> maps;               // [H, px, px]
  std::vector<double> peaks;             // [H]: sums over the rows so far
};

// The keys and values attention reads for one layer: [Hkv] heads of rows 0 .. P + T - 1, `stride` floats apart.
struct KeysValues {
  const float* k;
  const float* v;
  idx stride;
  const float* k2 = nullptr;  // ReRoPE: the far scores' keys, as k
};

struct Forward {
  const Model& m;
  const Config& c;
  const Family& fam;
  int T, D, F, H, Hkv, hd;
  int P = 0;                 // rows before this forward's tokens (ForwardOptions::past)
  const KvCache* past = nullptr;
  int keep = 0;              // rows of this forward kept in res.cache
  Buffers b;
  std::vector<float> kfull, vfull;  // with a past or a 16-bit stream cache: [Hkv, P + T, hd], the earlier rows then this forward's
  std::vector<float> k2full;        // ReRoPE's far keys from a 16-bit stream cache, as kfull
  StreamCache* sc = nullptr;        // a stream's step: its rows are P .. P + T - 1 of sc->rows
  bool far_layer = false;           // this layer scores ReRoPE's far keys (qh2, kh2)
  ForwardResult res;

  Forward(const Model& model, int T_, const ForwardOptions& o)
      : m(model), c(model.config()), fam(family(c.arch)), T(T_), D(c.dim), F(c.hidden_dim), H(c.n_heads), Hkv(c.n_kv_heads), hd(c.hd()),
        P(o.past ? o.past->rows : 0), past(o.past), keep(o.keep) {
    const std::size_t t = static_cast<std::size_t>(T);
    b.x.resize(t * D);
    b.xn.resize(t * D);
    b.q.resize(t * H * hd);
    b.qh.resize(b.q.size());
    b.att.resize(b.q.size());
    b.k.resize(t * Hkv * hd);
    b.v.resize(b.k.size());
    b.kh.resize(b.k.size());
    b.vh.resize(b.k.size());
    if (P) {
      kfull.resize(static_cast<std::size_t>(Hkv) * (P + T) * hd);
      vfull.resize(kfull.size());
    }
    if (keep) {
      res.cache.rows = P + keep;
      res.cache.k.resize(static_cast<std::size_t>(c.n_layers) * Hkv * (P + keep) * hd);
      res.cache.v.resize(res.cache.k.size());
    }
  }

  // With a past: kfull, vfull [Hkv, P + T, hd] = layer l's past rows, then kh, vh [Hkv, T, hd]. With keep:
  // res.cache's layer l = the first P + keep rows of those. Returns the keys and values attention reads.
  KeysValues keys_values(int l) {
    if (sc) return cached(l);
    const idx rows = P + T;
    const float* k = b.kh.data();
    const float* v = b.vh.data();
    if (P) {
      for (int g = 0; g < Hkv; ++g) {
        const idx src = (static_cast<idx>(l) * Hkv + g) * P * hd, dst = g * rows * hd;
        std::copy_n(past->k.data() + src, static_cast<idx>(P) * hd, kfull.data() + dst);
        std::copy_n(past->v.data() + src, static_cast<idx>(P) * hd, vfull.data() + dst);
        std::copy_n(b.kh.data() + static_cast<idx>(g) * T * hd, static_cast<idx>(T) * hd, kfull.data() + dst + static_cast<idx>(P) * hd);
        std::copy_n(b.vh.data() + static_cast<idx>(g) * T * hd, static_cast<idx>(T) * hd, vfull.data() + dst + static_cast<idx>(P) * hd);
      }
      k = kfull.data();
      v = vfull.data();
    }
    if (keep) {
      const idx kept = static_cast<idx>(P + keep) * hd;
      for (int g = 0; g < Hkv; ++g) {
        const idx dst = (static_cast<idx>(l) * Hkv + g) * kept;
        std::copy_n(k + g * rows * hd, kept, res.cache.k.data() + dst);
        std::copy_n(v + g * rows * hd, kept, res.cache.v.data() + dst);
      }
    }
    return {k, v, rows * hd, far_layer ? b.kh2.data() : nullptr};  // (ReRoPE: no past, no keep)
  }

  // A stream's step: this step's rows kh, vh [Hkv, T, hd] go into the cache at rows P .. P + T - 1 of layer l; the
  // cache's rows 0 .. P + T - 1 are read in place (float32) or decoded into kfull, vfull (float16: attention then sees
  // every key and value, this step's too, as the cache holds them).
  KeysValues cached(int l) {
    const idx cap = sc->rows, n = P + T, layer = static_cast<idx>(l) * Hkv * cap * hd, own = static_cast<idx>(T) * hd;
    const bool far = far_layer;
    if (sc->type == KvType::F32) {
      for (int g = 0; g < Hkv; ++g) {
        const idx at = layer + (g * cap + P) * hd;
        std::copy_n(b.kh.data() + g * own, own, sc->k32.data() + at);
        std::copy_n(b.vh.data() + g * own, own, sc->v32.data() + at);
        if (far) std::copy_n(b.kh2.data() + g * own, own, sc->k2_32.data() + at);
      }
      return {sc->k32.data() + layer, sc->v32.data() + layer, cap * hd, far ? sc->k2_32.data() + layer : nullptr};
    }
    kfull.resize(static_cast<std::size_t>(Hkv) * n * hd);
    vfull.resize(kfull.size());
    if (far) k2full.resize(kfull.size());
    for (int g = 0; g < Hkv; ++g) {
      const idx at = layer + (g * cap + P) * hd;
      for (idx e = 0; e < own; ++e) {
        sc->k16[at + e] = float_to_half(b.kh[g * own + e]);
        sc->v16[at + e] = float_to_half(b.vh[g * own + e]);
        if (far) sc->k2_16[at + e] = float_to_half(b.kh2[g * own + e]);
      }
      const uint16_t* k = sc->k16.data() + layer + g * cap * hd;
      const uint16_t* v = sc->v16.data() + layer + g * cap * hd;
      for (idx e = 0; e < n * hd; ++e) {
        kfull[g * n * hd + e] = f16_to_f32(k[e]);
        vfull[g * n * hd + e] = f16_to_f32(v[e]);
      }
      if (far)
        for (idx e = 0; e < n * hd; ++e) k2full[g * n * hd + e] = f16_to_f32(sc->k2_16[layer + g * cap * hd + e]);
    }
    return {kfull.data(), vfull.data(), n * hd, far ? k2full.data() : nullptr};
  }

  // ReRoPE (bojone/rerope), before the layer's rotation: each query scaled by max(1, log(p + 1) / log(context)) at
  // its position p (unless logn is 0), then qh2, kh2 = the far scores' queries and keys (Rope::far_q, far_k).
  void rerope_inputs(const Rope& rope, const ForwardOptions& o) {
    const idx head = static_cast<idx>(T) * hd;
    if (extend_value(o.extend, "logn") != 0) {
      const double given = extend_value(o.extend, "context");
      const double log_context = std::log(std::isnan(given) ? static_cast<double>(c.context) : given);
      for (int t = 0; t < T; ++t) {
        const float f = static_cast<float>(std::max(1.0, std::log(static_cast<double>(P + t + 1)) / log_context));
        for (int h = 0; h < H; ++h)
          for (int e = 0; e < hd; ++e) b.qh[h * head + static_cast<idx>(t) * hd + e] *= f;
      }
    }
    b.qh2 = b.qh;
    b.kh2 = b.kh;
    for (int h = 0; h < H; ++h) rope.rotate(rope.far_q, b.qh2.data() + h * head, T, P);
    if (!rope.far_k.cos.empty())
      for (int g = 0; g < Hkv; ++g) rope.rotate(rope.far_k, b.kh2.data() + g * head, T, P);
  }

  // x [T, D] = embedding rows of the tokens (tied: rows of the classifier), times sqrt(D) in the family's with
  // embed_scale (Gemma: HF multiplies by sqrt(hidden_size) rounded to the embeddings' float32)
  void embed(const int32_t* tok) {
    const Weight& e = Access::embed(m).empty() ? Access::cls(m) : Access::embed(m);
    const float scale = fam.embed_scale ? static_cast<float>(std::sqrt(static_cast<double>(D))) : 1.0f;
    for (int t = 0; t < T; ++t) {
      float* row = b.x.data() + static_cast<idx>(t) * D;
      weight_row(e, tok[t], row);
      if (scale != 1.0f)
        for (int d = 0; d < D; ++d) row[d] *= scale;
    }
  }

  // x += Wo attention(rope(Wq xn), rope(Wk xn), Wv xn), xn = rmsnorm(x); with the family's q/k norms (before
  // RoPE), without RoPE on a NoPE layer, over the layer's window, and with the family's norms where they fall
  void attention(const Model::Layer& L, const Rope& rope, bool stats, bool map, const ForwardOptions& o, int l) {
    const int Q = H * hd, KV = Hkv * hd;
    const Config::Layer rule = c.layers.empty() ? Config::Layer{} : c.layers[l];
    const float eps = static_cast<float>(c.norm_eps);
    if (fam.pre_norms) rmsnorm(b.xn.data(), b.x.data(), L.attn_norm.data(), T, D, eps);
    const float* in = fam.pre_norms ? b.xn.data() : b.x.data();  // OLMo 2: the residual stream itself
    matmul(b.q.data(), in, L.wq, T, false);  // q [T, Q]
    matmul(b.k.data(), in, L.wk, T, false);  // k [T, KV]
    matmul(b.v.data(), in, L.wv, T, false);  // v [T, KV]
    add_bias(b.q.data(), L.bq, T, Q);
    add_bias(b.k.data(), L.bk, T, KV);
    add_bias(b.v.data(), L.bv, T, KV);
    if (fam.qk_norm == QkNorm::PerHead) {  // Qwen3: each head's hd channels, one weight for all heads
      rmsnorm(b.q.data(), b.q.data(), L.q_norm.data(), T * H, hd, eps);
      rmsnorm(b.k.data(), b.k.data(), L.k_norm.data(), T * Hkv, hd, eps);
    } else if (fam.qk_norm == QkNorm::Whole) {  // OLMo 2: the whole projection
      rmsnorm(b.q.data(), b.q.data(), L.q_norm.data(), T, Q, eps);
      rmsnorm(b.k.data(), b.k.data(), L.k_norm.data(), T, KV, eps);
    }
    split_heads(b.q.data(), b.qh.data(), T, H, hd);  // [H, T, hd]
    split_heads(b.k.data(), b.kh.data(), T, Hkv, hd);
    split_heads(b.v.data(), b.vh.data(), T, Hkv, hd);
    const idx head = static_cast<idx>(T) * hd;
    const bool far = rule.rope && rope.far > 0;  // ReRoPE (a NoPE layer has no positions to rectify)
    far_layer = far;
    if (far) rerope_inputs(rope, o);
    if (rule.rope)  // each query head, then each key head
      threads::parallel_for(H + Hkv, threads::for_work(static_cast<double>(H + Hkv) * T * hd * 2), [&](int i) {
        rope.rotate(i < H ? b.qh.data() + i * head : b.kh.data() + (i - H) * head, T, P);
      });
    const KeysValues kv = keys_values(l);
    const float scale = 1.0f / std::sqrt(static_cast<float>(c.attn_scalar > 0 ? c.attn_scalar : hd));
    const int group = H / Hkv;
    if (map) b.row_lse.resize(static_cast<std::size_t>(H) * T);
    // att [T, Q]: head h at columns h*hd; query i at position P + i. Work items of one head's rows [t0, t1),
    // kAttRows rows each (whole query blocks of the streamed attention, so each row is computed as in one call).
    const int n = threads::for_work(static_cast<double>(H) * T * (P + T) * hd);
    const int per = n > 1 ? kAttRows : T, chunks = (T + per - 1) / per;
    threads::parallel_for(H * chunks, n, [&](int i) {
      const int h = i / chunks, t0 = i % chunks * per, t1 = std::min(T, t0 + per);
      const idx at = static_cast<idx>(h) * T + t0;
      const kernels::RowStats rows{stats ? b.row_entropy.data() + at : nullptr, stats ? b.row_first.data() + at : nullptr,
                                   map ? b.row_lse.data() + at : nullptr};
      const kernels::FarScores fs{far ? b.qh2.data() + h * head + static_cast<idx>(t0) * hd : nullptr,
                                  far ? kv.k2 + (h / group) * kv.stride : nullptr, rope.far};
      kernels::attention_forward(b.qh.data() + h * head + static_cast<idx>(t0) * hd, kv.k + (h / group) * kv.stride,
                                 kv.v + (h / group) * kv.stride, b.att.data() + static_cast<idx>(t0) * Q + static_cast<idx>(h) * hd,
                                 t1 - t0, P + t1, hd, hd, Q, scale, true, 0.0f, nullptr, stats || map ? &rows : nullptr, rule.window,
                                 far ? &fs : nullptr);
    });
    if (stats)
      for (int h = 0; h < H; ++h) record_stats(l, h, o);
    if (map) record_maps(scale, group, o.map_px, rule.window, kv, far ? rope.far : 0);
    if (fam.post_norms) {  // x += rmsnorm(att @ wo)
      matmul(b.xn.data(), b.att.data(), L.wo, T, false);
      rmsnorm(b.xn.data(), b.xn.data(), L.attn_post_norm.data(), T, D, eps);
      add_into(b.x.data(), b.xn.data(), static_cast<std::size_t>(T) * D);
    } else {
      matmul(b.x.data(), b.att.data(), L.wo, T, true);  // x [T, D] += att @ wo
    }
  }

  // Head h of layer l's statistics at each stats length n: means of the per-row values over rows [0, n) (a stream's
  // step: its rows' values added to the sums, divided at the end).
  void record_stats(int l, int h, const ForwardOptions& o) {
    if (sc) {
      const idx LH = static_cast<idx>(c.n_layers) * H;
      for (std::size_t s = 0; s < sc->lengths.size(); ++s) {
        const int n = std::min(T, sc->lengths[s] - P);
        double e = 0, f = 0;
        for (int i = 0; i < n; ++i) {
          e += b.row_entropy[static_cast<idx>(h) * T + i];
          f += b.row_first[static_cast<idx>(h) * T + i];
        }
        sc->entropy[static_cast<idx>(s) * LH + static_cast<idx>(l) * H + h] += e;
        sc->sink[static_cast<idx>(s) * LH + static_cast<idx>(l) * H + h] += f;
      }
      return;
    }
    const std::size_t S = o.stats_lengths.empty() ? 1 : o.stats_lengths.size();
    const idx LH = static_cast<idx>(c.n_layers) * H;
    for (std::size_t s = 0; s < S; ++s) {
      const int n = o.stats_lengths.empty() ? T : o.stats_lengths[s];
      double e = 0, f = 0;
      for (int i = 0; i < n; ++i) {
        e += b.row_entropy[static_cast<idx>(h) * T + i];
        f += b.row_first[static_cast<idx>(h) * T + i];
      }
      res.entropy[static_cast<idx>(s) * LH + static_cast<idx>(l) * H + h] = static_cast<float>(e / n);
      res.sink[static_cast<idx>(s) * LH + static_cast<idx>(l) * H + h] = static_cast<float>(f / n);
    }
  }

  // The chosen layer's heads pooled to px x px (a second pass over their scores, no softmax: head_map); a stream's
  // step adds its rows to the stream's pixels and peak sums.
  void record_maps(float scale, int group, int px, int window, const KeysValues& kv, int far) {
    const idx head = static_cast<idx>(T) * hd;
    const PoolBands bands(sc ? sc->rows : T, px);
    if (!sc) {
      res.maps.resize(static_cast<std::size_t>(H) * px * px);
      res.peaks.resize(H);
    }
    float* maps = sc ? sc->maps.data() : res.maps.data();
    for (int h = 0; h < H; ++h) {
      const kernels::FarScores fs{far ? b.qh2.data() + h * head : nullptr, far ? kv.k2 + (h / group) * kv.stride : nullptr, far};
      const double peak = head_map(b.qh.data() + h * head, kv.k + (h / group) * kv.stride, b.row_lse.data() + h * static_cast<idx>(T), P, T,
                                   hd, scale, window, bands, maps + static_cast<idx>(h) * px * px, b, far ? &fs : nullptr);
      if (sc) sc->peaks[h] += peak;
      else res.peaks[h] = static_cast<float>(peak / T);
    }
  }

  // x += W_down (silu(W_gate xn) * W_up xn), xn = rmsnorm(x), kRowBlock rows at a time; with the family's
  // norms where they fall. With enough blocks for every thread, a work item is one whole block (its products on
  // its thread: a block's rows never depend on another's, and a product gives the same bits however it is split);
  // with fewer, the blocks run in turn and each product is split.
  void ffn(const Model::Layer& L) {
    const float eps = static_cast<float>(c.norm_eps);
    if (fam.pre_norms) rmsnorm(b.xn.data(), b.x.data(), L.ffn_norm.data(), T, D, eps);
    const int blocks = (T + kRowBlock - 1) / kRowBlock, n = threads::for_work(static_cast<double>(T) * 3 * D * F);
    if (n > 1 && blocks >= 2 * n)
      return threads::parallel_for(blocks, n, [&](int i) { ffn_block(L, i * kRowBlock, ffn_scratch()); });
    for (int t0 = 0; t0 < T; t0 += kRowBlock) ffn_block(L, t0, b);
  }

  // The scratch of a work item's FFN block: its thread's own (each thread runs one item at a time).
  static Buffers& ffn_scratch() {
    thread_local Buffers s;
    return s;
  }

  // Rows [t0, t0 + kRowBlock) of the FFN, with s.g, s.u as the gate and up activations [kRowBlock, F]
  void ffn_block(const Model::Layer& L, int t0, Buffers& s) {
    const float eps = static_cast<float>(c.norm_eps);
    const int n = std::min(kRowBlock, T - t0);
    s.g.resize(static_cast<std::size_t>(kRowBlock) * F);
    s.u.resize(s.g.size());
    const float* xn = (fam.pre_norms ? b.xn.data() : b.x.data()) + static_cast<idx>(t0) * D;  // OLMo 2: x itself
    matmul(s.g.data(), xn, L.w_gate, n, false);  // g [n, F]
    matmul(s.u.data(), xn, L.w_up, n, false);    // u [n, F]
    if (fam.act == Activation::GeluTanh)
      geglu(s.g.data(), s.u.data(), static_cast<std::size_t>(n) * F);
    else
      swiglu(s.g.data(), s.u.data(), static_cast<std::size_t>(n) * F);
    float* x = b.x.data() + static_cast<idx>(t0) * D;
    if (fam.post_norms) {  // x += rmsnorm(down), the block's xn rows (read) as scratch
      float* y = b.xn.data() + static_cast<idx>(t0) * D;
      matmul(y, s.g.data(), L.w_down, n, false);
      rmsnorm(y, y, L.ffn_post_norm.data(), n, D, eps);
      add_into(x, y, static_cast<std::size_t>(n) * D);
    } else {
      matmul(x, s.g.data(), L.w_down, n, true);
    }
  }

  // nll[i] = logsumexp(logits_i) - logits_i[tok[i+1]], logits [kRowBlock, V] at a time (a stream's step: its rows
  // that predict a token, its last one too unless it is the input's)
  void head(const int32_t* tok, const ForwardOptions& o) {
    const int V = c.vocab_size;
    rmsnorm(b.xn.data(), b.x.data(), Access::out_norm(m).data(), T, D, static_cast<float>(c.norm_eps));
    std::vector<float> logits(static_cast<std::size_t>(kRowBlock) * V);
    const int predicting = sc ? std::min(T, sc->rows - P - 1) : T - 1;
    res.nll.resize(static_cast<std::size_t>(predicting));
    res.logits.resize(o.logits_rows.size() * V);
    for (int t0 = 0; t0 < T; t0 += kRowBlock) {
      const int n = std::min(kRowBlock, T - t0);
      matmul(logits.data(), b.xn.data() + static_cast<idx>(t0) * D, Access::cls(m), n, false);
      threads::parallel_for(n, threads::for_work(static_cast<double>(n) * V * 16), [&](int i) {  // (an exp: ~16 multiply-adds)
        const float* row = logits.data() + static_cast<idx>(i) * V;
        const int t = t0 + i;
        if (t < predicting) res.nll[t] = logsumexp(row, V) - row[tok[t + 1]];
        for (std::size_t r = 0; r < o.logits_rows.size(); ++r)
          if (o.logits_rows[r] == t) std::copy_n(row, V, res.logits.data() + r * V);
      });
    }
    for (int t = 0; t < predicting; ++t)
      if (!std::isfinite(res.nll[t]))
        throw Error(ErrorKind::Range, "the forward pass overflowed: nll[" + std::to_string(P + t) + "] is " + format_number(res.nll[t]) +
                                          " (the weights give non-finite activations)");
  }
};


// One RoPE table per (base, scaled) that the layers use (Gemma 3: its local and its global layers), over positions
// [0, n) at the input's length n
struct Ropes {
  std::vector<std::pair<std::pair<double, bool>, Rope>> tables;
  std::vector<int> of;  // layer -> its table
  const Rope& operator[](int l) const { return tables[of[l]].second; }
};
Ropes make_ropes(const Config& c, const RopeScaling& scaling, int n, const ForwardOptions& fo) {
  Ropes r;
  for (int l = 0; l < c.n_layers; ++l) {
    const std::pair<double, bool> key = rope_key(c, l);
    auto it = std::find_if(r.tables.begin(), r.tables.end(), [&](const auto& t) { return t.first == key; });
    if (it == r.tables.end()) {
      r.tables.emplace_back(key, make_rope(c, scaling, n, l, fo));
      it = r.tables.end() - 1;
    }
    r.of.push_back(static_cast<int>(it - r.tables.begin()));
  }
  return r;
}

// The layers and the head over f's rows (tokens: theirs, and the one after when there is one)
void run(Forward& f, const int32_t* tokens, const Ropes& ropes, const ForwardOptions& o) {
  const Config& c = f.c;
  if (o.head_stats) {
    f.b.row_entropy.resize(static_cast<std::size_t>(c.n_heads) * f.T);  // [H, T]
    f.b.row_first.resize(f.b.row_entropy.size());
  }
  f.embed(tokens);
  const std::vector<Model::Layer>& layers = Access::layers(f.m);
  for (int l = 0; l < c.n_layers; ++l) {
    f.attention(layers[l], ropes[l], o.head_stats, o.map_layer == l, o, l);
    f.ffn(layers[l]);
  }
  f.head(tokens, o);
}

ForwardOptions forward_options(const StreamOptions& s) {
  ForwardOptions o;
  o.scaling = s.scaling;
  o.head_stats = s.head_stats;
  o.stats_lengths = s.stats_lengths;
  o.map_layer = s.map_layer;
  o.map_px = s.map_px;
  o.threads = s.threads;
  o.extend = s.extend;
  o.dynamic = s.dynamic;
  return o;
}

}  // namespace

RopeFrequencies forward_rope_frequencies(const Config& c, const RopeScaling& scaling, int rows, int layer) {
  require_int_range("rows", rows, 1, kMaxLength);
  require_int_range("layer", layer, -1, c.n_layers - 1);
  const auto [theta, scaled] = rope_key(c, layer);
  RopeScaling s = scaled ? scaling : RopeScaling{};
  if (!s.max_position_embeddings) s.max_position_embeddings = c.context;
  if (!s.original_max_position_embeddings) s.original_max_position_embeddings = c.context;
  return rope_frequencies(c.rd(), theta, s, rows);  // dynamic: seq_len = rows
}

static ForwardResult forward_resolved(const Model& model, const int32_t* tokens, int T, const ForwardOptions& o);
ForwardResult forward(const Model& model, const int32_t* tokens, int T, const ForwardOptions& o) {
  check_inputs(model, tokens, T, o);
  ForwardOptions resolved = o;
  resolved.extend = resolve_extend(o.extend, o.scaling);
  return forward_resolved(model, tokens, T, resolved);
}

static ForwardResult forward_resolved(const Model& model, const int32_t* tokens, int T, const ForwardOptions& o) {
  const threads::Scope threads(o.threads ? o.threads : threads::default_count());
  Forward f(model, T, o);
  const Config& c = model.config();
  const Ropes ropes = make_ropes(c, o.scaling, f.P + T, o);
  if (o.head_stats) {
    const std::size_t S = o.stats_lengths.empty() ? 1 : o.stats_lengths.size();
    f.res.entropy.assign(S * c.n_layers * c.n_heads, 0.0f);
    f.res.sink.assign(f.res.entropy.size(), 0.0f);
  }
  run(f, tokens, ropes, o);
  return std::move(f.res);
}

// --- Stream
const char* kv_type_name(KvType t) { return t == KvType::F16 ? "float16" : "float32"; }
int kv_bytes(KvType t) { return t == KvType::F16 ? 2 : 4; }
std::size_t kv_cache_bytes(const Config& c, int T, KvType t) {
  return std::size_t{2} * c.n_layers * c.n_kv_heads * static_cast<std::size_t>(T) * c.hd() * kv_bytes(t);
}
KvType kv_type_for(const Config& c, int T) { return kv_cache_bytes(c, T, KvType::F32) <= kKvF32Bytes ? KvType::F32 : KvType::F16; }

StreamMemory stream_memory(const Model& m, int T, const StreamOptions& o) {
  const Config& c = m.config();
  const std::size_t n = static_cast<std::size_t>(std::clamp(o.chunk, 1, std::max(1, T))), t = static_cast<std::size_t>(T);
  const std::size_t D = c.dim, F = c.hidden_dim, V = c.vocab_size, hd = c.hd(), Q = c.n_heads * hd, KV = c.n_kv_heads * hd;
  StreamMemory r;
  r.weights = m.weight_bytes();
  r.cache = kv_cache_bytes(c, T, o.kv);
  std::size_t floats = n * (2 * D + 3 * Q + 4 * KV)                           // a step's activations (Buffers)
                       + 2 * kRowBlock * F + kRowBlock * V                    // the FFN's and the logits' row blocks
                       + kRowBlock * std::max({D, F, Q})                      // a weight block decoded to float32
                       + t * c.rd() * 2                                       // RoPE tables (up to two bases)
                       + n * (3 + c.n_heads) + n;                             // row statistics, log-sum-exps, the step's NLL
  if (o.kv == KvType::F16) floats += 2 * KV * t;                              // one layer's keys and values, decoded
  if (o.map_layer >= 0 && o.map_px > 0) {
    const std::size_t px = o.map_px, band = (t + px - 1) / px + 1;
    floats += hd * t + band * (hd + t) + px + c.n_heads * px * px;            // head_map's scratch, the pixels
  }
  r.work = floats * 4 + t * 4;                                                 // + the tokens
  return r;
}

struct Stream::State {
  const Model* m;
  std::vector<int32_t> tokens;
  ForwardOptions o;
  int chunk;
  Ropes ropes;
  StreamCache cache;
  int done = 0;
};

Stream::Stream(const Model& m, const int32_t* tokens, int T, const StreamOptions& so) {
  const Config& c = m.config();
  ForwardOptions o = forward_options(so);
  check_inputs(m, tokens, T, o);
  o.extend = resolve_extend(o.extend, o.scaling);
  require_int_range("chunk", so.chunk, 1, kMaxLength);
  s_ = std::make_unique<State>(State{&m, std::vector<int32_t>(tokens, tokens + T), o, so.chunk, make_ropes(c, so.scaling, T, o), {}, 0});
  StreamCache& sc = s_->cache;
  sc.type = so.kv;
  sc.rows = T;
  const std::size_t n = static_cast<std::size_t>(c.n_layers) * c.n_kv_heads * T * c.hd();
  const bool far = o.extend.method == ExtendMethod::ReRope;
  if (so.kv == KvType::F32) {
    sc.k32.resize(n);
    sc.v32.resize(n);
    if (far) sc.k2_32.resize(n);
  } else {
    sc.k16.resize(n);
    sc.v16.resize(n);
    if (far) sc.k2_16.resize(n);
  }
  if (so.head_stats) {
    sc.lengths = so.stats_lengths.empty() ? std::vector<int>{T} : so.stats_lengths;
    sc.entropy.assign(sc.lengths.size() * c.n_layers * c.n_heads, 0.0);
    sc.sink.assign(sc.entropy.size(), 0.0);
  }
  if (so.map_layer >= 0) {
    sc.maps.assign(static_cast<std::size_t>(c.n_heads) * so.map_px * so.map_px, 0.0f);
    sc.peaks.assign(static_cast<std::size_t>(c.n_heads), 0.0);
  }
}
Stream::~Stream() = default;
Stream::Stream(Stream&&) noexcept = default;
Stream& Stream::operator=(Stream&&) noexcept = default;
int Stream::length() const { return s_->cache.rows; }
int Stream::done() const { return s_->done; }

std::vector<float> Stream::step(int n) {
  State& s = *s_;
  require_int_range("n", n, 1, s.chunk);
  if (s.done >= s.cache.rows) range_error("step", "a stream with rows left to run", "every row already run");
  const int T = std::min(n, s.cache.rows - s.done);
  const threads::Scope threads(s.o.threads ? s.o.threads : threads::default_count());
  ForwardOptions o = s.o;
  Forward f(*s.m, T, ForwardOptions{});
  f.P = s.done;
  f.sc = &s.cache;
  run(f, s.tokens.data() + s.done, s.ropes, o);
  s.done += T;
  return std::move(f.res.nll);
}

ForwardResult Stream::result() const {
  const State& s = *s_;
  if (s.done < s.cache.rows)
    range_error("result", "a stream whose rows have all run", std::to_string(s.done) + " of " + std::to_string(s.cache.rows) + " rows run");
  ForwardResult r;
  const StreamCache& sc = s.cache;
  const std::size_t LH = static_cast<std::size_t>(s.m->config().n_layers) * s.m->config().n_heads;
  for (std::size_t i = 0; i < sc.entropy.size(); ++i) {
    const double len = sc.lengths[i / LH];
    r.entropy.push_back(static_cast<float>(sc.entropy[i] / len));
    r.sink.push_back(static_cast<float>(sc.sink[i] / len));
  }
  r.maps = sc.maps;
  for (double p : sc.peaks) r.peaks.push_back(static_cast<float>(p / sc.rows));
  return r;
}

}  // namespace posenc::lm
