// SSMax (Nakanishi 2025, arXiv 2501.19399) against an independent float64 reference written from
// the paper's equation, SSMax(z)_j = n^(s z_j) / sum_j' n^(s z_j'), with z = q.k / sqrt(hd) the RoPE
// scores of layer 0 (LN1 and the qkv projection recomputed in double from the model's weights),
// s the layer's learned scalar per head and n the number of keys the query sees (p + 1 causal,
// T bidirectional). The reference raises n to a power; the model scales q by s log n.
#include <gtest/gtest.h>

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

posenc::ModelConfig one_layer(const Case& c) {
  posenc::ModelConfig cfg;
  cfg.encoding = posenc::Encoding::SSMax;
  cfg.layers = 1, cfg.heads = 2, cfg.d_model = 16, cfg.vocab_size = 11, cfg.max_length = 16, cfg.seed = 5;
  cfg.rope_layout = c.layout;
  cfg.causal = c.causal;
  return cfg;
}

// n_of(i): the n the reference uses for query i.
std::vector<double> ssmax_reference(const Model& m, const std::vector<int32_t>& tok, bool causal, const KeysSeen& n_of) {
  const posenc::ModelConfig& cfg = m.config();
  const int C = cfg.d_model, H = cfg.heads, hd = C / H, T = static_cast<int>(tok.size()), half = hd / 2;
  std::vector<double> q, k;
  reference::layer0_qk(m, tok, q, k);
  for (std::vector<double>* x : {&q, &k})
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < half; ++i) {
          double* row = x->data() + static_cast<size_t>(t) * C + h * hd;
          const bool inter = cfg.rope_layout == RopeLayout::Interleaved;
          const int a = inter ? 2 * i : i, b = inter ? 2 * i + 1 : i + half;
          const double angle = t * std::pow(cfg.rope_base, -2.0 * i / hd);
          const double x0 = row[a], x1 = row[b];
          row[a] = x0 * std::cos(angle) - x1 * std::sin(angle);
          row[b] = x1 * std::cos(angle) + x0 * std::sin(angle);
        }
  const float* s = m.parameters() + m.find_tensor("h0.attn.ssmax")->offset;
  std::vector<double> p(static_cast<size_t>(H) * T * T, 0.0);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      const int keys = causal ? i + 1 : T;
      std::vector<double> z(keys);
      double zmax = -INFINITY, sum = 0;
      for (int j = 0; j < keys; ++j) {
        double d = 0;
        for (int e = 0; e < hd; ++e) d += q[static_cast<size_t>(i) * C + h * hd + e] * k[static_cast<size_t>(j) * C + h * hd + e];
        z[j] = d / std::sqrt(static_cast<double>(hd));
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
  Model m(one_layer(c));
  float* s = m.parameters() + m.find_tensor("h0.attn.ssmax")->offset;
  // It starts as RoPE at the training length: s = 1 / log(16).
  for (int h = 0; h < 2; ++h) EXPECT_NEAR(s[h], 1.0 / std::log(16.0), 1e-7);
  for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 3.0f;
  s[0] = 0.2f, s[1] = 0.7f;  // two different heads, neither 1 / log(anything in range)
  const auto tok = random_tokens(c.T, 11, 3);
  posenc::ForwardOptions o;
  o.want_attention = true;
  m.forward(tok.data(), 1, c.T, o);
  const std::vector<float>& maps = m.attention_maps();
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

INSTANTIATE_TEST_SUITE_P(SSMax, SSMaxReference,
                         ::testing::Values(Case{"half", 24}, Case{"interleaved_T40", 40, RopeLayout::Interleaved},
                                           Case{"bidirectional", 20, RopeLayout::Half, false}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
