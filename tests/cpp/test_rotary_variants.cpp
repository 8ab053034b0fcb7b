// xPos and p-RoPE (and RoPE itself) against an independent float64 reference of a one-layer
// model's attention probabilities, written from the papers' code:
//  - xPos: microsoft/torchscale xpos_relative_position.py: scale_i = (2i + gamma d) / ((1 + gamma) d),
//    positions centred at -(T // 2) (Python floor), q scaled by scale^(n / scale_base), k by its
//    inverse; the rotation angles themselves use positions 0..T-1 (fixed_pos_embedding).
//  - p-RoPE: Barbero et al. 2024: frequencies base^(-2i/d) for the first round(p d/2) pairs, 0 after.
// The reference recomputes LN1 and the qkv projection from the model's weights in double.
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
using posenc::RopeLayout;

struct Case {
  std::string name;
  Encoding encoding;
  RopeLayout layout;
  int T;
  int scale_base = 512;
  double gamma = 0.4;
  double fraction = 0.75;
  int rotary_dim = 0;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// Reference probabilities [H, T, T] of layer 0 for tokens.
std::vector<double> reference_maps(const Model& m, const Case& c, const std::vector<int32_t>& tok) {
  const ModelConfig& cfg = m.config();
  const int C = cfg.d_model, H = cfg.heads, hd = C / H, T = c.T;
  const int rd = cfg.rotary_dim ? cfg.rotary_dim : hd, half = rd / 2;
  std::vector<double> q, k;
  reference::layer0_qk(m, tok, q, k);
  // Frequencies and per-pair scales.
  std::vector<double> freq(half);
  for (int i = 0; i < half; ++i) freq[i] = std::pow(cfg.rope_base, -2.0 * i / rd);
  if (c.encoding == posenc::parse_encoding("prope"))
    for (int i = static_cast<int>(std::lround(c.fraction * half)); i < half; ++i) freq[i] = 0;
  const int min_pos = static_cast<int>(std::floor(-T / 2.0));
  auto xpos_scale = [&](int t, int i) {
    if (c.encoding != posenc::parse_encoding("xpos")) return 1.0;
    const double s = (2.0 * i + c.gamma * rd) / ((1.0 + c.gamma) * rd);
    return std::pow(s, static_cast<double>(t + min_pos) / c.scale_base);
  };
  auto rotate = [&](std::vector<double>& x, bool is_k) {
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h) {
        double* row = x.data() + static_cast<size_t>(t) * C + h * hd;
        for (int i = 0; i < half; ++i) {
          const int a = c.layout == RopeLayout::Interleaved ? 2 * i : i;
          const int b = c.layout == RopeLayout::Interleaved ? 2 * i + 1 : i + half;
          const double s = is_k ? 1.0 / xpos_scale(t, i) : xpos_scale(t, i);
          const double cs = std::cos(t * freq[i]) * s, sn = std::sin(t * freq[i]) * s;
          const double x0 = row[a], x1 = row[b];
          row[a] = x0 * cs - x1 * sn;
          row[b] = x1 * cs + x0 * sn;
        }
      }
  };
  rotate(q, false);
  rotate(k, true);
  return reference::maps(q, k, T, H, C, nullptr);
}

class RotaryReference : public ::testing::TestWithParam<Case> {};

TEST_P(RotaryReference, AttentionMatchesTheFloat64Reference) {
  const Case& c = GetParam();
  ModelConfig cfg;
  cfg.encoding = c.encoding;
  cfg.layers = 1, cfg.heads = 2, cfg.d_model = 16, cfg.vocab_size = 11, cfg.max_length = 16, cfg.seed = 5;
  cfg.rope_layout = c.layout;
  cfg.rotary_dim = c.rotary_dim;
  cfg.xpos_scale_base = c.scale_base;
  cfg.xpos_gamma = c.gamma;
  cfg.rope_fraction = c.fraction;
  Model m(cfg);
  // Larger weights than the init, so that positions move the scores visibly.
  for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 4.0f;
  const auto tok = random_tokens(c.T, cfg.vocab_size, 3);
  posenc::ForwardOptions o;
  o.want_attention = true;
  m.forward(tok.data(), 1, c.T, o);
  const std::vector<float>& maps = m.attention_maps();
  const std::vector<double> want = reference_maps(m, c, tok);
  ASSERT_EQ(maps.size(), want.size());
  const reference::Compare r = reference::compare(maps, want);
  EXPECT_LT(r.worst, 2e-5) << c.name;
  EXPECT_GT(r.spread, c.T) << c.name << ": attention is flat or one-hot, the test would not see positions";
}

INSTANTIATE_TEST_SUITE_P(
    Variants, RotaryReference,
    ::testing::Values(Case{"rope_half", posenc::parse_encoding("rope"), RopeLayout::Half, 24},
                      Case{"xpos_interleaved", posenc::parse_encoding("xpos"), RopeLayout::Interleaved, 24},
                      Case{"xpos_half_T37", posenc::parse_encoding("xpos"), RopeLayout::Half, 37},
                      Case{"xpos_small_base_odd_T", posenc::parse_encoding("xpos"), RopeLayout::Half, 23, 8, 0.2},
                      Case{"xpos_partial", posenc::parse_encoding("xpos"), RopeLayout::Interleaved, 20, 16, 0.4, 0.75, 4},
                      Case{"prope_half", posenc::parse_encoding("prope"), RopeLayout::Half, 24},
                      Case{"prope_interleaved_half", posenc::parse_encoding("prope"), RopeLayout::Interleaved, 24, 512, 0.4, 0.5},
                      Case{"prope_quarter", posenc::parse_encoding("prope"), RopeLayout::Half, 30, 512, 0.4, 0.25}),
    [](const auto& info) { return info.param.name; });

// Properties from the papers. xPos: with q = k fixed across positions (constant tokens), the
// pre-softmax score to a key falls with distance in every pair's scale (zeta < 1), so the
// attention of the last query is largest on itself. p-RoPE with fraction 1 is RoPE exactly;
// the dropped pairs do not rotate.
TEST(RotaryVariants, PRopeWithFractionOneIsRope) {
  ModelConfig cfg;
  cfg.layers = 1, cfg.heads = 2, cfg.d_model = 16, cfg.vocab_size = 11, cfg.max_length = 16;
  cfg.encoding = posenc::parse_encoding("rope");
  Model rope(cfg);
  cfg.encoding = posenc::parse_encoding("prope");
  cfg.rope_fraction = 1.0;
  Model prope(cfg);
  const auto tok = random_tokens(20, 11, 4);
  const std::vector<float> a(rope.forward(tok.data(), 1, 20), rope.forward(tok.data(), 1, 20) + 20 * 11);
  const float* b = prope.forward(tok.data(), 1, 20);
  for (int i = 0; i < 20 * 11; ++i) ASSERT_EQ(a[i], b[i]);
}

TEST(RotaryVariants, XPosScoresDecayWithDistanceForRepeatedTokens) {
  ModelConfig cfg;
  cfg.layers = 1, cfg.heads = 1, cfg.d_model = 8, cfg.vocab_size = 3, cfg.max_length = 16;
  cfg.encoding = posenc::parse_encoding("xpos");
  cfg.rope_base = 1e9;  // (almost) no rotation: only the decay is left
  cfg.xpos_scale_base = 4;
  Model m(cfg);
  // q = k for every position: make W_q = W_k (copy the q columns over the k columns).
  float* W = m.parameters() + m.find_tensor("h0.attn.qkv.weight")->offset;
  float* b = m.parameters() + m.find_tensor("h0.attn.qkv.bias")->offset;
  // Pair 0 (channels 0 and 4 in the half layout) turns at 1 rad per position for any base: leave it out.
  auto used = [](int o) { return o != 0 && o != 4; };
  for (int i = 0; i < 8; ++i)
    for (int o = 0; o < 8; ++o) W[i * 24 + 8 + o] = W[i * 24 + o] = (i == o && used(o) ? 3.0f : 0.0f);
  for (int o = 0; o < 8; ++o) b[8 + o] = b[o] = used(o) ? 1.0f : 0.0f;
  const std::vector<int32_t> tok(12, 1);
  posenc::ForwardOptions o;
  o.want_attention = true;
  m.forward(tok.data(), 1, 12, o);
  const std::vector<float>& p = m.attention_maps();
  const float* last = p.data() + 11 * 12;  // query 11
  for (int j = 0; j < 11; ++j) EXPECT_LT(last[j], last[j + 1]) << "key " << j;
}

}  // namespace
