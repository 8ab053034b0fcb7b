// Randomized positions (Ruoss et al. 2023): the positions of a length-T forward are a sorted
// random subset of [0, randomLength). Checked through the two registered variants:
//  - learned_random: the rows of its table that get a gradient are exactly the sampled positions
//    (T distinct values, not 0..T-1), a new sample every training step, the same one in inference;
//  - rope_random: its attention equals an independent float64 RoPE at those same positions
//    (both variants draw from the same generator for the same seed and T).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "posenc/model.hpp"
#include "reference_attention.hpp"
#include "test_util.hpp"

namespace {

using posenc::Encoding;
using posenc::Model;
using posenc::ModelConfig;

ModelConfig config(Encoding e) {
  ModelConfig c;
  c.encoding = e;
  c.layers = 1, c.heads = 2, c.d_model = 16, c.vocab_size = 11, c.max_length = 16, c.seed = 21;
  c.random_length = 200;
  return c;
}

// The positions a learned_random model used: the table rows with a gradient.
std::vector<int> used_rows(Model& m, int T) {
  const auto tok = random_tokens(T, 11, 8);
  std::vector<int32_t> tgt(tok.begin() + 1, tok.end());
  tgt.push_back(0);  // every position scored: each one gets a gradient
  m.forward_backward(tok.data(), tgt.data(), 1, T);
  const auto* t = m.find_tensor("wpe");
  std::vector<int> rows;
  for (int r = 0; r < t->shape[0]; ++r)
    for (int i = 0; i < t->shape[1]; ++i)
      if (m.gradients()[t->offset + static_cast<size_t>(r) * t->shape[1] + i] != 0.0f) {
        rows.push_back(r);
        break;
      }
  return rows;
}

TEST(Randomized, LearnedTableIsReadAtASortedRandomSubset) {
  const int T = 24;
  Model m(config(Encoding::RandomLearned));
  const std::vector<int> first = used_rows(m, T);
  ASSERT_EQ(first.size(), static_cast<size_t>(T));  // T distinct positions
  EXPECT_GT(first.back(), T);                       // from the long range, not 0..T-1
  EXPECT_LT(first.back(), 200);
  // A training step draws a new sample; inference keeps draw 0 (the first step's).
  const auto tok = random_tokens(T, 11, 8);
  std::vector<int32_t> tgt(tok.begin() + 1, tok.end());
  tgt.push_back(0);  // every position scored: each one gets a gradient
  m.train_step(tok.data(), tgt.data(), 1, T, 1e-3f);
  const std::vector<int> second = used_rows(m, T);
  ASSERT_EQ(second.size(), static_cast<size_t>(T));
  EXPECT_NE(first, second);
  // Over many steps the whole table is reached (the point of the method).
  std::set<int> seen(first.begin(), first.end());
  for (int s = 0; s < 30; ++s) {
    m.train_step(tok.data(), tgt.data(), 1, T, 1e-3f);
    for (int r : used_rows(m, T)) seen.insert(r);
  }
  EXPECT_GT(seen.size(), 150u);
  // Longer than the range: refused, naming the field.
  ExpectError([&] { m.forward(random_tokens(201, 11, 1).data(), 1, 201); }, posenc::ErrorKind::Range, "randomLength");
}

TEST(Randomized, RopeAttentionMatchesTheFloat64ReferenceAtTheSampledPositions) {
  const int T = 24, C = 16, H = 2, hd = 8, half = 4;
  Model learned(config(Encoding::RandomLearned));
  const std::vector<int> pos = used_rows(learned, T);  // draw 0 of (seed 21, T 24)
  ASSERT_EQ(pos.size(), static_cast<size_t>(T));
  Model m(config(Encoding::RandomRope));
  for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 4.0f;
  const auto tok = random_tokens(T, 11, 3);
  posenc::ForwardOptions o;
  o.want_attention = true;
  m.forward(tok.data(), 1, T, o);
  std::vector<double> q, k;
  reference::layer0_qk(m, tok, q, k);
  for (std::vector<double>* x : {&q, &k})
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < half; ++i) {  // half layout: pairs (i, i + hd/2), angle pos[t] * base^(-2i/hd)
          double* row = x->data() + static_cast<size_t>(t) * C + h * hd;
          const double a = pos[t] * std::pow(10000.0, -2.0 * i / hd), x0 = row[i], x1 = row[i + half];
          row[i] = x0 * std::cos(a) - x1 * std::sin(a);
          row[i + half] = x1 * std::cos(a) + x0 * std::sin(a);
        }
  const reference::Compare r = reference::compare(m.attention_maps(), reference::maps(q, k, T, H, C, nullptr));
  EXPECT_LT(r.worst, 2e-5);
  EXPECT_GT(r.spread, T);
}

}  // namespace
