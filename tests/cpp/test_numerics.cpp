// Numerics at the edges (issue 8, item 7): no NaN or Inf from any encoding up to
// position 1e6 or any RoPE scaling factor up to 1000, checked against float64
// references; extreme but valid model configs (1 or 64 heads, d_model 2 or 512)
// either work or are refused with an error naming the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "posenc/alibi.hpp"
#include "posenc/kernels.hpp"
#include "posenc/learned.hpp"
#include "posenc/model.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/shaw.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"
#include "test_util.hpp"

namespace {

using posenc::RopeLayout;
using posenc::RopeScaling;
using posenc::RopeType;

constexpr int32_t kMillion = 1000000;

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

TEST(numerics, SinusoidalAtOneMillionMatchesFloat64) {
  using posenc::SinusoidLayout;
  using posenc::SinusoidSpacing;
  for (int dim : {2, 4, 64, 512})
    for (SinusoidSpacing spacing : {SinusoidSpacing::Paper, SinusoidSpacing::Tensor2Tensor})
      for (SinusoidLayout layout : {SinusoidLayout::Interleaved, SinusoidLayout::Concat}) {
        if (spacing == SinusoidSpacing::Tensor2Tensor && dim < 4) continue;
        posenc::SinusoidalOptions o;
        o.length = 4, o.dim = dim, o.start = kMillion - 3, o.spacing = spacing, o.layout = layout;
        std::vector<float> out(static_cast<std::size_t>(o.length) * dim);
        posenc::sinusoidal(o, out.data());
        std::vector<double> w(dim / 2);
        posenc::sinusoid_frequencies(o, w.data());
        for (int r = 0; r < o.length; ++r)
          for (int i = 0; i < dim / 2; ++i) {
            const double a = static_cast<double>(o.start + r) * w[i];
            const std::size_t s = layout == SinusoidLayout::Interleaved ? 2 * i : i;
            const std::size_t c = layout == SinusoidLayout::Interleaved ? 2 * i + 1 : dim / 2 + i;
            ASSERT_NEAR(out[r * dim + s], std::sin(a), 2e-6) << "dim " << dim << " row " << r << " i " << i;
            ASSERT_NEAR(out[r * dim + c], std::cos(a), 2e-6) << "dim " << dim << " row " << r << " i " << i;
          }
      }
}

// Every rope_type with its factor from 1 to 1000, HF-style parameters.
std::vector<RopeScaling> scalings(int dim) {
  std::vector<RopeScaling> out;
  out.push_back(RopeScaling{});  // default
  for (double f : {1.0, 2.0, 8.0, 32.0, 100.0, 1000.0}) {
    auto add = [&](RopeType type) -> RopeScaling& {
      out.emplace_back().type = type;
      out.back().factor = f;
      return out.back();
    };
    add(posenc::parse_rope_type("linear"));
    if (dim >= 4) add(posenc::parse_rope_type("dynamic")).max_position_embeddings = 2048;  // HF's dynamic divides by dim - 2
    add(posenc::parse_rope_type("yarn")).original_max_position_embeddings = 4096;
    RopeScaling& deepseek = add(posenc::parse_rope_type("yarn"));
    deepseek.original_max_position_embeddings = 4096;
    deepseek.mscale = deepseek.mscale_all_dim = 0.707;
    RopeScaling& llama = add(posenc::parse_rope_type("llama3"));
    llama.low_freq_factor = 1.0, llama.high_freq_factor = 4.0, llama.original_max_position_embeddings = 8192;
    RopeScaling& longrope = add(posenc::parse_rope_type("longrope"));
    longrope.original_max_position_embeddings = 4096;
    for (int i = 0; i < dim / 2; ++i) {  // Phi-3-like ramps from 1 up to the factor
      longrope.long_factor.push_back(1.0 + (f - 1.0) * i / std::max(dim / 2 - 1, 1));
      longrope.short_factor.push_back(1.0 + 0.1 * i / std::max(dim / 2 - 1, 1));
    }
  }
  return out;
}

// Rotates rows by the frequencies at `positions`, and checks each value against the
// float64 rotation (angle p*w in double, then std::sin/cos) and the pair's norm.
void check_rope(const posenc::RopeFrequencies& f, int dim, RopeLayout layout, const std::vector<int32_t>& positions,
                const std::string& what) {
  const int n = static_cast<int>(positions.size()), half = dim / 2;
  std::vector<float> x(static_cast<std::size_t>(n) * dim), out(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(std::sin(0.7 * k) + 0.25);
  posenc::RopeApplyOptions o;
  o.length = n, o.dim = dim, o.rotary_dim = dim, o.layout = layout, o.inv_freq = f.inv_freq.data();
  o.attention_scale = f.attention_scale, o.positions = positions.data();
  posenc::apply_rope(o, x.data(), out.data());
  ASSERT_TRUE(all_finite(out)) << what;
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < half; ++i) {
      const std::size_t a = static_cast<std::size_t>(r) * dim + (layout == RopeLayout::Half ? i : 2 * i);
      const std::size_t b = static_cast<std::size_t>(r) * dim + (layout == RopeLayout::Half ? i + half : 2 * i + 1);
      const double angle = positions[r] * f.inv_freq[i], c = std::cos(angle), s = std::sin(angle);
      const double want_a = f.attention_scale * (x[a] * c - x[b] * s), want_b = f.attention_scale * (x[b] * c + x[a] * s);
      const double tol = 2e-6 * f.attention_scale * (std::fabs(x[a]) + std::fabs(x[b]));
      ASSERT_NEAR(out[a], want_a, tol) << what << " row " << r << " pair " << i;
      ASSERT_NEAR(out[b], want_b, tol) << what << " row " << r << " pair " << i;
    }
}

TEST(numerics, RopeEveryScalingUpToFactor1000AtPositionOneMillion) {
  const std::vector<int32_t> positions = {0, 1, 4095, 4096, kMillion - 1, kMillion};
  int checked = 0;
  for (int dim : {2, 4, 64, 128, 512})
    for (const RopeScaling& s : scalings(dim))
      for (double base : {1e4, 5e5}) {
        const posenc::RopeFrequencies f = posenc::rope_frequencies(dim, base, s, kMillion + 1);
        const std::string what = std::string(posenc::rope_type_name(s.type)) + " factor " +
                                 std::to_string(s.factor.value_or(1)) + " dim " + std::to_string(dim);
        ASSERT_TRUE(std::isfinite(f.attention_scale) && f.attention_scale > 0) << what;
        for (double w : f.inv_freq) ASSERT_TRUE(std::isfinite(w) && w > 0) << what;
        for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::Half}) check_rope(f, dim, layout, positions, what);
        ++checked;
      }
  EXPECT_EQ(checked, 2 * (1 + 6 * 5) + 4 * 2 * (1 + 6 * 6));  // dim 2 has no dynamic
}

TEST(numerics, RelativeEncodingsAtOneMillion) {
  // ALiBi: query at position 1e6 over every key; -m * distance stays finite and exact.
  for (int heads : {1, 8}) {
    posenc::AlibiBiasOptions o;
    o.heads = heads, o.query_length = 1, o.key_length = kMillion + 1;
    std::vector<float> bias(static_cast<std::size_t>(heads) * o.key_length), m(heads);
    posenc::alibi_bias(o, bias.data());
    posenc::alibi_slopes(heads, m.data());
    ASSERT_TRUE(all_finite(bias));
    for (int h = 0; h < heads; ++h) {
      EXPECT_EQ(bias[static_cast<std::size_t>(h) * o.key_length], -(m[h] * 1e6f));
      EXPECT_EQ(bias[static_cast<std::size_t>(h) * o.key_length + kMillion], 0.0f);
    }
  }
  // T5: the farthest bucket on each side.
  const posenc::T5BucketOptions bidi{true, 32, 128}, uni{false, 32, 128};
  EXPECT_EQ(posenc::t5_bucket(kMillion, bidi), 31);
  EXPECT_EQ(posenc::t5_bucket(-kMillion, bidi), 15);
  EXPECT_EQ(posenc::t5_bucket(-kMillion, uni), 31);
  EXPECT_EQ(posenc::t5_bucket(kMillion, uni), 0);
  // Shaw: clipped at both ends.
  std::vector<int32_t> idx(kMillion + 1);
  posenc::shaw_index(1, kMillion + 1, 16, idx.data());
  EXPECT_EQ(idx.front(), 0);
  EXPECT_EQ(idx.back(), 16);
  // Learned: position 1e6 of a 64-row table, by policy.
  std::vector<float> table(64 * 4);
  for (std::size_t k = 0; k < table.size(); ++k) table[k] = static_cast<float>(k);
  const int32_t far = kMillion;
  std::vector<float> row(4);
  posenc::learned_lookup(table.data(), 64, 4, &far, 1, posenc::OutOfRange::Clamp, row.data());
  EXPECT_EQ(row, std::vector<float>(table.end() - 4, table.end()));
  posenc::learned_lookup(table.data(), 64, 4, &far, 1, posenc::OutOfRange::Zero, row.data());
  EXPECT_EQ(row, std::vector<float>(4, 0.0f));
  ExpectError([&] { posenc::learned_lookup(table.data(), 64, 4, &far, 1, posenc::OutOfRange::Error, row.data()); },
              posenc::ErrorKind::Range, "position 1000000 is past the learned table");
}

TEST(numerics, AttentionOverOneMillionKeys) {
  // One query at position 1e6 with ALiBi's steepest slope (1/2): scores down to -5e5.
  const int tk = kMillion + 1, d = 2;
  std::vector<float> q = {0.5f, -1.0f}, k(static_cast<std::size_t>(tk) * d), v(tk * 2), p(tk), o(2);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(std::cos(0.001 * i));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
  posenc::kernels::attention_scores_softmax(q.data(), k.data(), p.data(), 1, tk, d, 0.7f, true, 0.5f, nullptr);
  ASSERT_TRUE(all_finite(p));
  double sum = 0;
  for (float x : p) sum += x;
  EXPECT_NEAR(sum, 1.0, 1e-5);
  EXPECT_GT(p.back(), 0.3f);  // the nearest keys carry the mass
  // The streaming kernel the model uses for inference agrees.
  posenc::kernels::attention_forward(q.data(), k.data(), v.data(), o.data(), 1, tk, d, 2, 2, 0.7f, true, 0.5f,
                                     nullptr);
  for (int c = 0; c < 2; ++c) {
    double want = 0;
    for (int j = 0; j < tk; ++j) want += double(p[j]) * v[static_cast<std::size_t>(j) * 2 + c];
    EXPECT_NEAR(o[c], want, 1e-4) << c;
  }
}

// ---------------------------------------------------------------------------
// Extreme model configs

struct Shape {
  int heads, d_model;
};

TEST(numerics, ExtremeModelConfigsWorkOrAreRefusedClearly) {
  using posenc::Encoding;
  const std::vector<Encoding> all = all_encodings();
  const int T = 12, V = 11;
  std::vector<int32_t> tokens(T), targets(T);
  for (int t = 0; t < T; ++t) tokens[t] = (t * 5 + 1) % V, targets[t] = t + 1 < T ? (t * 5 + 6) % V : -1;
  int worked = 0, refused = 0;
  for (const Shape& shape : {Shape{1, 2}, Shape{2, 2}, Shape{1, 512}, Shape{64, 512}, Shape{64, 64}})
    for (Encoding e : all) {
      posenc::ModelConfig c;
      c.encoding = e, c.layers = 1, c.heads = shape.heads, c.d_model = shape.d_model, c.vocab_size = V;
      c.max_length = 16, c.t5_num_buckets = 8, c.t5_max_distance = 32, c.shaw_k = 4;
      const std::string what = std::string(posenc::encoding_name(e)) + " heads " + std::to_string(shape.heads) +
                               " dModel " + std::to_string(shape.d_model);
      if (posenc::find_encoding(e)->qk_transform && c.head_dim() % 2 != 0) {  // a head dim of 1 cannot rotate
        ExpectError([&] { posenc::Model m(c); }, posenc::ErrorKind::Range,
                    std::string("head dim) must be even for encoding '") + posenc::encoding_name(e) + "'");
        ++refused;
        continue;
      }
      posenc::Model m(c);
      posenc::ForwardOptions fo;
      fo.want_attention = true;
      const float* logits = m.forward(tokens.data(), 1, T, fo);
      ASSERT_TRUE(std::all_of(logits, logits + T * V, [](float x) { return std::isfinite(x); })) << what;
      const std::vector<float>& maps = m.attention_maps();
      ASSERT_EQ(maps.size(), static_cast<std::size_t>(shape.heads) * T * T) << what;
      for (std::size_t r = 0; r < maps.size() / T; ++r) {
        double sum = 0;
        for (int j = 0; j < T; ++j) sum += maps[r * T + j];
        if (posenc::find_encoding(e)->sink)  // the sink takes the rest
          ASSERT_TRUE(sum > 0.0 && sum < 1.0) << what << " row " << r << " sums to " << sum;
        else
          ASSERT_NEAR(sum, 1.0, 1e-4) << what << " row " << r;
      }
      const posenc::LossResult step = m.train_step(tokens.data(), targets.data(), 1, T, 1e-3f);
      ASSERT_TRUE(std::isfinite(step.loss) && std::isfinite(step.grad_norm)) << what;
      const posenc::LossResult after = m.evaluate(tokens.data(), targets.data(), 1, T);
      ASSERT_TRUE(std::isfinite(after.loss)) << what;
      ++worked;
    }
  // every rotary encoding refuses heads 2 / dModel 2 and heads 64 / dModel 64 (head dim 1)
  const int rotary = static_cast<int>(std::count_if(all.begin(), all.end(), [](Encoding e) {
    return posenc::find_encoding(e)->qk_transform;
  }));
  EXPECT_GE(rotary, 1);
  EXPECT_EQ(refused, 2 * rotary);
  EXPECT_EQ(worked, 5 * static_cast<int>(all.size()) - 2 * rotary);
}

// T = 1e6 (attention maps of 1e12 floats) is refused before any allocation.
TEST(numerics, MillionTokenSequenceRefusedUpFront) {
  posenc::ModelConfig c;
  c.encoding = posenc::parse_encoding("alibi"), c.layers = 1, c.heads = 1, c.d_model = 4, c.vocab_size = 5;
  posenc::Model m(c);
  std::vector<int32_t> tokens(kMillion, 1);
  posenc::ForwardOptions fo;
  fo.want_attention = true;
  ExpectError([&] { m.forward(tokens.data(), 1, kMillion, fo); }, posenc::ErrorKind::Range,
              "T must be an integer in [1, 16384] (got 1000000)");
}

}  // namespace
