// The encodings that change the attention softmax itself, each against an independent float64 reference of
// layer 0's probabilities (LN1 and the qkv projection recomputed in double from the model's weights, RoPE
// rotated in double), with z = q.k / sqrt(hd) the RoPE scores:
//  - SSMax (Nakanishi 2025, arXiv 2501.19399), from the paper's equation
//    SSMax(z)_j = n^(s z_j) / sum_j' n^(s z_j'), s the layer's learned scalar per head and n the number of keys
//    the query sees (p + 1 causal, T bidirectional). The reference raises n to a power; the model scales q by s log n.
//  - Learned attention sinks (gpt-oss), from HF's eager_attention_forward (models/gpt_oss/modeling_gpt_oss.py):
//    the head's sink logit concatenated to each row of masked scores, the max subtracted, a softmax, the sink's
//    column dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "posenc/model.hpp"
#include "reference_attention.hpp"
#include "test_util.hpp"

namespace {

using posenc::Model;
using posenc::RopeLayout;

// A query's n in the reference: the keys it sees, or a wrong n (to show the test would see it).
using KeysSeen = std::function<double(int query)>;

struct Case {
  std::string name;
  int T;
  RopeLayout layout = RopeLayout::Half;
  bool causal = true;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

posenc::ModelConfig one_layer(const Case& c, posenc::Encoding e) {
  posenc::ModelConfig cfg;
  cfg.encoding = e;
  cfg.layers = 1, cfg.heads = 2, cfg.d_model = 16, cfg.vocab_size = 11, cfg.max_length = 16, cfg.seed = 5;
  cfg.rope_layout = c.layout;
  cfg.causal = c.causal;
  return cfg;
}

// q, k [T, C] of layer 0, rotated.
void rotated_qk(const Model& m, const std::vector<int32_t>& tok, std::vector<double>& q, std::vector<double>& k) {
  const posenc::ModelConfig& cfg = m.config();
  reference::layer0_qk(m, tok, q, k);
  for (std::vector<double>* x : {&q, &k})
    reference::rope_rotate(*x, static_cast<int>(tok.size()), cfg.heads, cfg.d_model, cfg.rope_base,
                           cfg.rope_layout == RopeLayout::Interleaved);
}

// z = q_i . k_j / sqrt(hd) of head h (q, k [T, C]).
double score(const std::vector<double>& q, const std::vector<double>& k, int C, int hd, int h, int i, int j) {
  double d = 0;
  for (int e = 0; e < hd; ++e) d += q[static_cast<size_t>(i) * C + h * hd + e] * k[static_cast<size_t>(j) * C + h * hd + e];
  return d / std::sqrt(static_cast<double>(hd));
}

// The model's layer-0 maps [H, T, T] for tok.
std::vector<float> model_maps(Model& m, const std::vector<int32_t>& tok) {
  posenc::ForwardOptions o;
  o.want_attention = true;
  m.forward(tok.data(), 1, static_cast<int>(tok.size()), o);
  return m.attention_maps();
}

// n_of(i): the n the reference uses for query i.
std::vector<double> ssmax_reference(const Model& m, const std::vector<int32_t>& tok, bool causal, const KeysSeen& n_of) {
  const posenc::ModelConfig& cfg = m.config();
  const int C = cfg.d_model, H = cfg.heads, hd = C / H, T = static_cast<int>(tok.size());
  std::vector<double> q, k;
  rotated_qk(m, tok, q, k);
  const float* s = m.parameters() + m.find_tensor("h0.attn.ssmax")->offset;
  std::vector<double> p(static_cast<size_t>(H) * T * T, 0.0);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      const int keys = causal ? i + 1 : T;
      std::vector<double> z(keys);
      double zmax = -INFINITY, sum = 0;
      for (int j = 0; j < keys; ++j) {
        z[j] = score(q, k, C, hd, h, i, j);
        zmax = std::max(zmax, z[j]);
      }
      const double n = n_of(i);
      for (int j = 0; j < keys; ++j) sum += (z[j] = std::pow(n, double(s[h]) * (z[j] - zmax)));
      for (int j = 0; j < keys; ++j) p[(static_cast<size_t>(h) * T + i) * T + j] = z[j] / sum;
    }
  return p;
}

class SSMaxReference : public ::testing::TestWithParam<Case> {};

TEST_P(SSMaxReference, AttentionMatchesThePapersEquationInFloat64) {
  const Case& c = GetParam();
  Model m(one_layer(c, posenc::parse_encoding("ssmax")));
  float* s = m.parameters() + m.find_tensor("h0.attn.ssmax")->offset;
  // It starts as RoPE at the training length: s = 1 / log(16).
  for (int h = 0; h < 2; ++h) EXPECT_NEAR(s[h], 1.0 / std::log(16.0), 1e-7);
  for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 3.0f;
  s[0] = 0.2f, s[1] = 0.7f;  // two different heads, neither 1 / log(anything in range)
  const auto tok = random_tokens(c.T, 11, 3);
  const std::vector<float> maps = model_maps(m, tok);
  const int T = c.T;
  const std::vector<double> want =
      ssmax_reference(m, tok, c.causal, [&](int i) { return c.causal ? i + 1.0 : double(T); });
  ASSERT_EQ(maps.size(), want.size());
  const reference::Compare r = reference::compare(maps, want);
  EXPECT_LT(r.worst, 2e-5) << c.name;
  EXPECT_GT(r.spread, c.T) << c.name << ": attention is flat or one-hot, the test would not see the scaling";
  // The test sees each detail: n fixed at the training length (plain RoPE at a temperature), or the whole
  // sequence's length for every causal query, would each be off by far more than the tolerance.
  EXPECT_GT(reference::compare(maps, ssmax_reference(m, tok, c.causal, [](int) { return 16.0; })).worst, 1e-2);
  if (c.causal)
    EXPECT_GT(reference::compare(maps, ssmax_reference(m, tok, true, [&](int) { return double(T); })).worst, 1e-2);
}

const Case kCases[] = {{"half", 24}, {"interleaved_T40", 40, RopeLayout::Interleaved}, {"bidirectional", 20, RopeLayout::Half, false}};
std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(SSMax, SSMaxReference, ::testing::ValuesIn(kCases), case_name);

// HF's eager attention with sinks: softmax over [masked scores, sink], the sink's column dropped. with_sink false:
// a plain softmax (to show the test would see the sink missing).
std::vector<double> sinks_reference(const Model& m, const std::vector<int32_t>& tok, bool with_sink) {
  const posenc::ModelConfig& cfg = m.config();
  const int C = cfg.d_model, H = cfg.heads, hd = C / H, T = static_cast<int>(tok.size());
  std::vector<double> q, k;
  rotated_qk(m, tok, q, k);
  const float* z = m.parameters() + m.find_tensor("h0.attn.sinks")->offset;
  std::vector<double> p(static_cast<size_t>(H) * T * T, 0.0);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      std::vector<double> logits(T + 1, -INFINITY);  // [T keys, the sink]
      for (int j = 0; j < T; ++j) {
        if (cfg.causal && j > i) continue;  // the mask
        logits[j] = score(q, k, C, hd, h, i, j);
      }
      if (with_sink) logits[T] = z[h];
      const double mx = *std::max_element(logits.begin(), logits.end());
      double sum = 0;
      for (double& x : logits) sum += (x = std::exp(x - mx));
      for (int j = 0; j < T; ++j) p[(static_cast<size_t>(h) * T + i) * T + j] = logits[j] / sum;
    }
  return p;
}

class SinksReference : public ::testing::TestWithParam<Case> {};

TEST_P(SinksReference, AttentionMatchesHFsEagerAttentionInFloat64) {
  const Case& c = GetParam();
  Model m(one_layer(c, posenc::parse_encoding("sinks")));
  for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 3.0f;
  float* z = m.parameters() + m.find_tensor("h0.attn.sinks")->offset;
  z[0] = 1.5f, z[1] = -0.5f;  // one sink that takes much of the weight, one that takes little
  const auto tok = random_tokens(c.T, 11, 3);
  const std::vector<float> maps = model_maps(m, tok);
  const std::vector<double> want = sinks_reference(m, tok, true);
  ASSERT_EQ(maps.size(), want.size());
  const reference::Compare r = reference::compare(maps, want);
  EXPECT_LT(r.worst, 2e-5) << c.name;
  EXPECT_GT(r.spread, c.T) << c.name << ": attention is flat or one-hot, the test would not see the sink";
  // Rows sum to less than 1 (the sink's share), and a plain softmax would be far off.
  double least = 1.0;
  for (int i = 0; i < 2 * c.T; ++i) {
    double row = 0;
    for (int j = 0; j < c.T; ++j) row += maps[static_cast<size_t>(i) * c.T + j];
    least = std::min(least, row);
  }
  EXPECT_LT(least, 0.9) << c.name;
  EXPECT_GT(reference::compare(maps, sinks_reference(m, tok, false)).worst, 1e-2) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Sinks, SinksReference, ::testing::ValuesIn(kCases), case_name);

}  // namespace
