// Randomized positions (Ruoss et al. 2023): the positions of a length-T forward are a sorted
// random subset of [0, randomLength), drawn per example for its own length. Checked through the two
// registered variants:
//  - learned_random: the rows of its table that get a gradient are exactly the sampled positions
//    (T distinct values, not 0..T-1), a new sample every training step, the same one in inference;
//    each example of a batch has its own draw, spread over [0, randomLength) however short it is;
//  - rope_random: its attention equals an independent float64 RoPE at those same positions
//    (both variants draw from the same generator for the same seed and T).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "posenc/model.hpp"
#include "posenc/sweep.hpp"
#include "posenc/tasks.hpp"
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

// The rows of a learned_random model's table with a gradient (in order).
std::vector<int> rows_with_gradient(const Model& m) {
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

// The positions a learned_random model used for one sequence of length T: the table rows with a gradient.
std::vector<int> used_rows(Model& m, int T) {
  const auto tok = random_tokens(T, 11, 8);
  std::vector<int32_t> tgt(tok.begin() + 1, tok.end());
  tgt.push_back(0);  // every position scored: each one gets a gradient
  m.forward_backward(tok.data(), tgt.data(), 1, T);
  return rows_with_gradient(m);
}

TEST(Randomized, LearnedTableIsReadAtASortedRandomSubset) {
  const int T = 24;
  Model m(config(posenc::parse_encoding("learned_random")));
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
  Model learned(config(posenc::parse_encoding("learned_random")));
  const std::vector<int> pos = used_rows(learned, T);  // draw 0 of (seed 21, T 24)
  ASSERT_EQ(pos.size(), static_cast<size_t>(T));
  Model m(config(posenc::parse_encoding("rope_random")));
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

// The rows example `scored` of a B = 2 batch reached: only its targets are scored, so only its
// micro-batch runs (its T: the last target + 1).
std::vector<int> example_rows(Model& m, int T, const int32_t* lengths, int scored) {
  const auto tok = random_tokens(2 * T, 11, 5);
  std::vector<int32_t> tgt(2 * T, -1);
  for (int t = 0; t < lengths[scored]; ++t) tgt[scored * T + t] = 3;
  posenc::ForwardOptions o;
  o.lengths = lengths;
  m.forward_backward(tok.data(), tgt.data(), 2, T, o);
  return rows_with_gradient(m);
}

TEST(Randomized, EachExampleDrawsItsOwnPositionsForItsOwnLength) {
  const int T = 24;
  const int32_t lengths[2] = {24, 8};
  Model m(config(posenc::parse_encoding("learned_random")));
  const std::vector<int> first = example_rows(m, T, lengths, 0), second = example_rows(m, T, lengths, 1);
  ASSERT_EQ(first.size(), 24u);  // distinct, sorted (rows come out in order) positions, one per token
  ASSERT_EQ(second.size(), 8u);
  EXPECT_NE(std::vector<int>(first.begin(), first.begin() + 8), second);  // a draw of its own
  // The short example spans [0, randomLength) like the long one: over 20 steps its largest
  // position averages near 200 * 8/9 (~178), not the ~64 of the first 8 of a 24-position draw.
  double mean_last = 0;
  const auto tok = random_tokens(2 * T, 11, 5);
  std::vector<int32_t> tgt(2 * T, 3);
  for (int s = 0; s < 20; ++s) {
    mean_last += example_rows(m, T, lengths, 1).back() / 20.0;
    posenc::ForwardOptions o;
    o.lengths = lengths;
    m.train_step(tok.data(), tgt.data(), 2, T, 1e-3f, o);  // the next step: fresh draws
  }
  EXPECT_GT(mean_last, 140.0);
  // Bad lengths are refused, naming the entry.
  const int32_t bad[2] = {24, 25};
  posenc::ForwardOptions o;
  o.lengths = bad;
  ExpectError([&] { m.forward(tok.data(), 2, T, o); }, posenc::ErrorKind::Range, "lengths[1]");
}

TEST(Randomized, EvaluationDrawsPerExampleAndIsDeterministic) {
  const int T = 20, V = 11;
  Model m(config(posenc::parse_encoding("rope_random")));
  for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 4.0f;
  std::vector<int32_t> tok = random_tokens(T, V, 3);
  tok.insert(tok.end(), tok.begin(), tok.end());  // two identical examples
  auto logits = [&](const posenc::ForwardOptions& o, int B) {
    const float* l = m.forward(tok.data(), B, T, o);
    return std::vector<float>(l, l + static_cast<size_t>(B) * T * V);
  };
  const posenc::ForwardOptions first;
  const std::vector<float> a = logits(first, 2), again = logits(first, 2);
  EXPECT_EQ(a, again);  // a pure function of (seed, example, length, draw)
  const size_t row = static_cast<size_t>(T) * V;
  const std::vector<float> a0(a.begin(), a.begin() + row), a1(a.begin() + row, a.end());
  EXPECT_NE(a0, a1);                  // the same tokens, another example: another draw
  EXPECT_EQ(logits(first, 1), a0);  // example 0 is example 0 whatever the batch
  posenc::ForwardOptions next;
  next.position_draw = 1;
  EXPECT_NE(logits(next, 2), a);      // another draw
  EXPECT_EQ(logits(next, 2), logits(next, 2));
  // first_example numbers the call's examples: example 1 of this call is example 0 of one offset by 1,
  // so a set of sequences gives the same draws however it is split into calls.
  posenc::ForwardOptions offset;
  offset.first_example = 1;
  EXPECT_EQ(logits(offset, 1), a1);
  // Training steps do not move evaluation's draws.
  std::vector<int32_t> tgt(2 * T, 4);
  m.train_step(tok.data(), tgt.data(), 2, T, 0.0f);
  EXPECT_EQ(logits(first, 2), a);
}

// The sweep numbers sequences across its chunks (ForwardOptions::first_example): its accuracy and loss do not
// depend on how it batches them (with attention statistics the first sequences run one at a time).
TEST(Randomized, SweepNumbersDoNotDependOnItsChunks) {
  for (Encoding e : {posenc::parse_encoding("rope_random"), posenc::parse_encoding("learned_random")}) {
    ModelConfig c = config(e);
    Model m(c);
    for (size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] *= 4.0f;
    posenc::TaskOptions t;
    t.kind = posenc::TaskKind::Copy;
    c.vocab_size = posenc::task_vocab_size(t);
    ASSERT_EQ(c.vocab_size, 11);
    posenc::SweepOptions a;
    a.lengths = {16, 40};
    a.sequences = 12;
    a.attention_sequences = 0;
    posenc::SweepOptions b = a;
    b.attention_sequences = 3;
    b.max_batch_tokens = 100;  // other chunks
    const posenc::SweepResult ra = posenc::sweep(m, t, a), rb = posenc::sweep(m, t, b);
    for (size_t i = 0; i < a.lengths.size(); ++i) {
      EXPECT_NEAR(ra.lengths[i].loss, rb.lengths[i].loss, 1e-5) << posenc::encoding_name(e);  // (float sums in another order)
      EXPECT_EQ(ra.lengths[i].correct, rb.lengths[i].correct) << posenc::encoding_name(e);
    }
  }
}

}  // namespace
