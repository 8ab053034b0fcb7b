// FIRE (Li et al. 2023) against an independent float64 reference written from the paper's
// formula: b_h(i, j) = f(psi(i - j) / psi(max(L, i))), psi(x) = log(c x + 1), f an MLP
// 1 -> hidden -> heads (here with the tanh GELU, as cpp/src/encodings/fire.cpp documents), added to the
// scaled scores of a one-layer model. Also its defining property: progressive interpolation
// keeps every normalised distance in [0, 1], so past the threshold the bias of the farthest key
// stays the one learned for the farthest distance.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "posenc/model.hpp"
#include "reference_attention.hpp"
#include "test_util.hpp"

namespace {

using posenc::Encoding;
using posenc::Model;
using posenc::ModelConfig;

struct Case {
  std::string name;
  int T;
  int threshold;
  double c;
  int hidden;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

double gelu(double u) { return 0.5 * u * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (u + 0.044715 * u * u * u))); }

class FireReference : public ::testing::TestWithParam<Case> {};

TEST_P(FireReference, AttentionMatchesTheFloat64Reference) {
  const Case& c = GetParam();
  ModelConfig cfg;
  cfg.encoding = posenc::parse_encoding("fire");
  cfg.layers = 1, cfg.heads = 2, cfg.d_model = 16, cfg.vocab_size = 11, cfg.max_length = 16, cfg.seed = 9;
  cfg.fire_threshold = c.threshold;
  cfg.fire_c = c.c;
  cfg.fire_hidden = c.hidden;
  Model m(cfg);
  for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 3.0f;
  // A bias of a few units: scale the output layer up.
  float* w2 = m.parameters() + m.find_tensor("h0.attn.fire.fc2.weight")->offset;
  for (int i = 0; i < c.hidden * 2; ++i) w2[i] *= 40.0f;
  const auto tok = random_tokens(c.T, cfg.vocab_size, 2);
  posenc::ForwardOptions o;
  o.want_attention = true;
  m.forward(tok.data(), 1, c.T, o);

  std::vector<double> q, k;
  reference::layer0_qk(m, tok, q, k);
  const float* w1 = m.parameters() + m.find_tensor("h0.attn.fire.fc1.weight")->offset;
  const float* b1 = m.parameters() + m.find_tensor("h0.attn.fire.fc1.bias")->offset;
  const double L = c.threshold ? c.threshold : cfg.max_length;
  auto psi = [&](double x) { return std::log(c.c * x + 1.0); };
  auto bias = [&](int h, int i, int j) {
    const double x = psi(i - j) / psi(std::max(L, static_cast<double>(i)));
    double s = 0;
    for (int u = 0; u < c.hidden; ++u) s += double(w2[u * 2 + h]) * gelu(double(w1[u]) * x + b1[u]);
    return s;
  };
  const std::vector<double> want = reference::maps(q, k, c.T, 2, 16, bias);
  const reference::Compare r = reference::compare(m.attention_maps(), want);
  EXPECT_LT(r.worst, 2e-5) << c.name;
  EXPECT_GT(r.spread, c.T) << c.name << ": attention is flat or one-hot, the test would not see positions";
}

INSTANTIATE_TEST_SUITE_P(Fire, FireReference,
                         ::testing::Values(Case{"defaults", 24, 0, 1.0, 32}, Case{"past_threshold", 40, 8, 1.0, 32},
                                           Case{"c_small_hidden", 30, 12, 0.25, 4}),
                         [](const auto& info) { return info.param.name; });

// Inference without maps materialises (the registry says FIRE cannot stream) and equals the
// maps path; a long sequence is refused up front rather than allocating [T, T] blindly.
TEST(Fire, InferenceWithoutMapsEqualsMapsAndLongSequencesAreRefused) {
  ModelConfig cfg;
  cfg.encoding = posenc::parse_encoding("fire");
  cfg.layers = 2, cfg.heads = 2, cfg.d_model = 8, cfg.vocab_size = 7, cfg.max_length = 8;
  EXPECT_FALSE(posenc::find_encoding(posenc::parse_encoding("fire"))->streaming);
  Model m(cfg);
  const auto tok = random_tokens(2 * 30, 7, 5);
  const std::vector<float> plain(m.forward(tok.data(), 2, 30), m.forward(tok.data(), 2, 30) + 2 * 30 * 7);
  posenc::ForwardOptions o;
  o.want_attention = true;
  const float* with_maps = m.forward(tok.data(), 2, 30, o);
  for (int i = 0; i < 2 * 30 * 7; ++i) ASSERT_NEAR(plain[i], with_maps[i], 1e-5);
  ExpectError([&] { m.forward(random_tokens(16384, 7, 1).data(), 1, 16384); }, posenc::ErrorKind::Range,
              "MB of activations");
}

}  // namespace
