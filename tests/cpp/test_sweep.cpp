// Length-generalisation sweep: attention statistics on hand-made maps, the
// per-length numbers against Model::evaluate on the same sequences, accuracy
// by position, the retrieval grid, RoPE eval-time scalings (equal to the plain
// model up to the training length) and the checks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/sweep.hpp"
#include "posenc/tasks.hpp"
#include "test_util.hpp"

namespace {

using posenc::Encoding;
using posenc::Model;
using posenc::SweepOptions;
using posenc::SweepResult;
using posenc::SweepScaling;
using posenc::TaskGenerator;
using posenc::TaskKind;
using posenc::TaskOptions;

constexpr int kTrainLength = 16;

TaskOptions task(TaskKind k) {
  TaskOptions o;
  o.kind = k;
  o.symbols = k == TaskKind::Retrieval || k == TaskKind::KthRetrieval ? 6 : 5;
  o.variable_length = k != TaskKind::Markov;
  return o;
}

// A small model trained for a few steps at kTrainLength (so its numbers are not trivial).
Model trained(Encoding e, const TaskOptions& t, posenc::OutOfRange policy = posenc::OutOfRange::Clamp) {
  posenc::ModelConfig c;
  c.encoding = e;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 16;
  c.vocab_size = posenc::task_vocab_size(t);
  c.max_length = kTrainLength;
  c.seed = 5;
  c.shaw_k = 4;
  c.t5_num_buckets = 8;
  c.t5_max_distance = 16;
  c.learned_policy = policy;
  Model m(c);
  TaskGenerator g(t, 3);
  std::vector<int32_t> tok(8 * kTrainLength), tgt(tok.size());
  for (int s = 0; s < 25; ++s) {
    g.sample(8, kTrainLength, tok.data(), tgt.data());
    m.train_step(tok.data(), tgt.data(), 8, kTrainLength, 1e-2f);
  }
  return m;
}

SweepOptions options(std::vector<int> lengths) {
  SweepOptions o;
  o.lengths = std::move(lengths);
  o.train_length = kTrainLength;
  o.sequences = 6;
  o.grid_sequences = 5;
  o.attention_sequences = 2;
  o.seed = 9;
  return o;
}

// The sequences the sweep evaluates at length L (full length, its generator seed).
struct EvalBatch {
  std::vector<int32_t> tokens, targets;
};
EvalBatch sweep_batch(TaskOptions t, const SweepOptions& o, int L) {
  t.variable_length = false;
  TaskGenerator g(t, posenc::sweep_seed(o.seed, L, -1));
  EvalBatch b{std::vector<int32_t>(static_cast<std::size_t>(o.sequences) * L), {}};
  b.targets.resize(b.tokens.size());
  g.sample(o.sequences, L, b.tokens.data(), b.targets.data());
  return b;
}

// ---------------------------------------------------------------------------

TEST(sweep, AttentionHeadStatsOnHandMadeMaps) {
  // rows: [1], [.5 .5], [.25 .25 .5]  (entries above the diagonal are ignored)
  const float map[9] = {1.0f, 9.0f, 9.0f, 0.5f, 0.5f, 9.0f, 0.25f, 0.25f, 0.5f};
  const posenc::HeadStats s = posenc::attention_head_stats(map, 3);
  const double ln2 = std::log(2.0);
  EXPECT_NEAR(s.entropy, (0.0 + ln2 + 1.5 * ln2) / 3.0, 1e-7);
  EXPECT_NEAR(s.distance, (0.0 + 0.5 + (0.25 * 2 + 0.25 * 1)) / 3.0, 1e-7);
  // uniform causal attention: row i has entropy ln(i+1) and distance i/2
  const int T = 40;
  std::vector<float> u(T * T, 0.0f);
  double e = 0, d = 0;
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j <= i; ++j) u[i * T + j] = 1.0f / (i + 1);
    e += std::log(i + 1.0);
    d += i / 2.0;
  }
  const posenc::HeadStats su = posenc::attention_head_stats(u.data(), T);
  EXPECT_NEAR(su.entropy, e / T, 1e-5);
  EXPECT_NEAR(su.distance, d / T, 1e-4);
  // attention on the previous token only: entropy 0, distance (T-1)/T
  std::vector<float> prev(T * T, 0.0f);
  prev[0] = 1.0f;
  for (int i = 1; i < T; ++i) prev[i * T + i - 1] = 1.0f;
  const posenc::HeadStats sp = posenc::attention_head_stats(prev.data(), T);
  EXPECT_EQ(sp.entropy, 0.0);
  EXPECT_NEAR(sp.distance, (T - 1.0) / T, 1e-12);
  // sink: the mass on token 0 averaged over rows 1 .. T-1 (row 0 left out): hand-made rows .5 and .25
  EXPECT_NEAR(s.sink, (0.5 + 0.25) / 2.0, 1e-7);
  double us = 0;
  for (int i = 1; i < T; ++i) us += 1.0 / (i + 1);
  EXPECT_NEAR(su.sink, us / (T - 1), 1e-6);
  EXPECT_NEAR(sp.sink, 1.0 / (T - 1), 1e-12);  // only row 1 looks at token 0
  const float one = 1.0f;
  EXPECT_EQ(posenc::attention_head_stats(&one, 1).sink, 0.0);
}

TEST(sweep, ScorePosition) {
  const float logits[4] = {0.5f, 2.0f, 2.0f, -1.0f};
  EXPECT_FALSE(posenc::score_position(logits, 4, -1).scored);
  const posenc::ScoredPosition a = posenc::score_position(logits, 4, 1), b = posenc::score_position(logits, 4, 2);
  EXPECT_TRUE(a.correct);  // the first maximum wins, as in Model::evaluate
  EXPECT_FALSE(b.correct);
  const double z = std::exp(0.5) + 2 * std::exp(2.0) + std::exp(-1.0);
  EXPECT_NEAR(a.loss, std::log(z) - 2.0, 1e-12);
  EXPECT_NEAR(posenc::score_position(logits, 4, 3).loss, std::log(z) + 1.0, 1e-12);
}

// The per-length loss/accuracy equal Model::evaluate on the same sequences.
TEST(sweep, MatchesEvaluateOnTheSameSequences) {
  for (TaskKind k : {TaskKind::Copy, TaskKind::Reverse, TaskKind::Retrieval, TaskKind::Markov, TaskKind::KthRetrieval})
    for (Encoding e : {posenc::parse_encoding("rope"), posenc::parse_encoding("learned"), posenc::parse_encoding("alibi")}) {
      const TaskOptions t = task(k);
      Model m = trained(e, t);
      SweepOptions o = options({8, 16, 24, 40});
      o.attention_sequences = 0;
      o.max_batch_tokens = 1 << 20;  // one forward per length, as evaluate does
      const SweepResult r = posenc::sweep(m, t, o);
      ASSERT_EQ(r.lengths.size(), 4u);
      EXPECT_EQ(r.scaling, "none");
      for (const posenc::LengthResult& l : r.lengths) {
        TaskOptions et = t;
        et.variable_length = false;
        TaskGenerator g(et, posenc::sweep_seed(o.seed, l.length, -1));
        std::vector<int32_t> tok(static_cast<std::size_t>(o.sequences) * l.length), tgt(tok.size());
        g.sample(o.sequences, l.length, tok.data(), tgt.data());
        const posenc::LossResult ev = m.evaluate(tok.data(), tgt.data(), o.sequences, l.length);
        const std::string what = std::string(posenc::task_name(k)) + "/" + posenc::encoding_name(e) + " L " +
                                 std::to_string(l.length);
        EXPECT_EQ(l.scored, ev.scored) << what;
        EXPECT_EQ(l.correct, ev.correct) << what;
        EXPECT_NEAR(l.accuracy, ev.accuracy, 1e-6) << what;
        EXPECT_NEAR(l.loss, ev.loss, 1e-4 * std::max(1.0, static_cast<double>(ev.loss))) << what;
        const posenc::TaskOracle oracle = g.oracle(tok.data(), tgt.data(), o.sequences, l.length);
        EXPECT_EQ(l.oracle_loss, oracle.loss);
        EXPECT_EQ(l.oracle_accuracy, oracle.accuracy);
        // positions from the last one training scored on are untrained (position kTrainLength - 1
        // never is: its next token lies outside the window; Learned: past its table, with Clamp)
        EXPECT_LE(m.scored_length(), kTrainLength - 1) << what;
        EXPECT_EQ(l.untrained_positions, std::max(0, l.length - m.scored_length())) << what;
      }
    }
}

TEST(sweep, ChunksAndAttentionDoNotChangeTheNumbers) {
  const TaskOptions t = task(TaskKind::Markov);
  Model m = trained(posenc::parse_encoding("t5"), t);
  SweepOptions whole = options({12, 48});
  whole.attention_sequences = 0;
  whole.max_batch_tokens = 1 << 20;
  SweepOptions chunked = whole;
  chunked.max_batch_tokens = 50;  // 1 to 4 sequences per forward
  chunked.attention_sequences = 3;
  const SweepResult a = posenc::sweep(m, t, whole), b = posenc::sweep(m, t, chunked);
  for (std::size_t i = 0; i < a.lengths.size(); ++i) {
    EXPECT_EQ(a.lengths[i].scored, b.lengths[i].scored);
    EXPECT_NEAR(a.lengths[i].accuracy, b.lengths[i].accuracy, 0.02);
    EXPECT_NEAR(a.lengths[i].loss, b.lengths[i].loss, 1e-4);
    EXPECT_TRUE(a.lengths[i].heads.empty());
    EXPECT_EQ(b.lengths[i].heads.size(), 4u);
  }
  // and the same options give the same numbers
  const SweepResult c = posenc::sweep(m, t, chunked);
  for (std::size_t i = 0; i < b.lengths.size(); ++i) {
    EXPECT_EQ(b.lengths[i].loss, c.lengths[i].loss);
    EXPECT_EQ(b.lengths[i].scored_by_position, c.lengths[i].scored_by_position);
    for (int k = 0; k < 16; ++k)
      if (b.lengths[i].scored_by_position[k] > 0)
        EXPECT_EQ(b.lengths[i].accuracy_by_position[k], c.lengths[i].accuracy_by_position[k]);
    for (std::size_t h = 0; h < b.lengths[i].heads.size(); ++h)
      EXPECT_EQ(b.lengths[i].heads[h].entropy, c.lengths[i].heads[h].entropy);
  }
}

TEST(sweep, AccuracyByPositionAndHeads) {
  const TaskOptions t = task(TaskKind::Copy);
  Model m = trained(posenc::parse_encoding("rope"), t);
  SweepOptions o = options({16, 64});
  const SweepResult r = posenc::sweep(m, t, o);
  for (const posenc::LengthResult& l : r.lengths) {
    ASSERT_EQ(l.accuracy_by_position.size(), 16u);
    int scored = 0;
    double correct = 0;
    for (int b = 0; b < 16; ++b) {
      scored += l.scored_by_position[b];
      if (l.scored_by_position[b] == 0)
        EXPECT_TRUE(std::isnan(l.accuracy_by_position[b]));
      else
        correct += l.accuracy_by_position[b] * l.scored_by_position[b];
    }
    EXPECT_EQ(scored, l.scored);
    EXPECT_NEAR(correct, l.correct, 1e-9);
    // Copy scores positions h+1 .. 2h, i.e. the second half: the first 8 bins are empty
    for (int b = 0; b < 8; ++b) EXPECT_EQ(l.scored_by_position[b], 0) << b;
    for (int b = 8; b < 15; ++b) EXPECT_GT(l.scored_by_position[b], 0) << b;
    // heads: layers x heads, entropy in [0, ln L], distance in [0, L-1]
    ASSERT_EQ(l.heads.size(), 4u);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(l.heads[i].layer, i / 2);
      EXPECT_EQ(l.heads[i].head, i % 2);
      EXPECT_GE(l.heads[i].entropy, 0.0);
      EXPECT_LE(l.heads[i].entropy, std::log(static_cast<double>(l.length)));
      EXPECT_GE(l.heads[i].distance, 0.0);
      EXPECT_LE(l.heads[i].distance, l.length - 1.0);
    }
  }
  // attention statistics of the first sequence equal the helper on the model's own maps
  SweepOptions one = options({16});
  one.attention_sequences = 1;
  const SweepResult r1 = posenc::sweep(m, t, one);
  TaskOptions et = t;
  et.variable_length = false;
  TaskGenerator g(et, posenc::sweep_seed(one.seed, 16, -1));
  std::vector<int32_t> tok(6 * 16), tgt(tok.size());
  g.sample(6, 16, tok.data(), tgt.data());
  posenc::ForwardOptions fo;
  fo.want_attention = true;
  m.forward(tok.data(), 1, 16, fo);
  for (int i = 0; i < 4; ++i) {
    const posenc::HeadStats s = posenc::attention_head_stats(m.attention_maps().data() + i * 256, 16);
    EXPECT_EQ(r1.lengths[0].heads[i].entropy, s.entropy);
    EXPECT_EQ(r1.lengths[0].heads[i].distance, s.distance);
  }
}

TEST(sweep, RetrievalGrid) {
  for (TaskKind kind : {TaskKind::Retrieval, TaskKind::KthRetrieval}) {
  const TaskOptions t = task(kind);
  Model m = trained(posenc::parse_encoding("alibi"), t);
  SweepOptions o = options({8, 20, 33});
  o.max_batch_tokens = 1 << 20;
  const SweepResult r = posenc::sweep(m, t, o);
  ASSERT_EQ(r.grid_depths.size(), 5u);
  EXPECT_EQ(r.grid_lengths, o.lengths);
  ASSERT_EQ(r.grid_accuracy.size(), 5u);
  for (std::size_t d = 0; d < 5; ++d) {
    ASSERT_EQ(r.grid_accuracy[d].size(), 3u);
    for (std::size_t l = 0; l < 3; ++l) {
      TaskOptions dt = t;
      dt.variable_length = false;
      dt.depth = r.grid_depths[d];
      const int L = o.lengths[l];
      TaskGenerator g(dt, posenc::sweep_seed(o.seed, L, static_cast<int>(d)));
      std::vector<int32_t> tok(static_cast<std::size_t>(o.grid_sequences) * L), tgt(tok.size());
      g.sample(o.grid_sequences, L, tok.data(), tgt.data());
      const posenc::LossResult ev = m.evaluate(tok.data(), tgt.data(), o.grid_sequences, L);
      EXPECT_EQ(ev.scored, o.grid_sequences);
      EXPECT_NEAR(r.grid_accuracy[d][l], ev.accuracy, 1e-6) << "depth " << d << " L " << L;
    }
  }
  }
  // other tasks have no grid
  const TaskOptions c = task(TaskKind::Copy);
  Model mc = trained(posenc::parse_encoding("alibi"), c);
  EXPECT_TRUE(posenc::sweep(mc, c, options({8})).grid_accuracy.empty());
}

TEST(sweep, RopeScalingsEqualThePlainModelUpToTheTrainingLength) {
  const TaskOptions t = task(TaskKind::Copy);
  Model m = trained(posenc::parse_encoding("rope"), t);
  SweepOptions o = options({6, 12, 16, 24, 48});
  const SweepResult plain = posenc::sweep(m, t, o);
  for (SweepScaling s : {SweepScaling::Linear, SweepScaling::Ntk, SweepScaling::Dynamic, SweepScaling::Yarn}) {
    o.scaling = s;
    const SweepResult r = posenc::sweep(m, t, o);
    EXPECT_EQ(r.scaling, posenc::sweep_scaling_name(s));
    for (std::size_t i = 0; i < 3; ++i) {  // L <= 16: identical, to the bit
      EXPECT_EQ(r.lengths[i].loss, plain.lengths[i].loss) << r.scaling;
      EXPECT_EQ(r.lengths[i].correct, plain.lengths[i].correct) << r.scaling;
      for (std::size_t h = 0; h < r.lengths[i].heads.size(); ++h)
        EXPECT_EQ(r.lengths[i].heads[h].entropy, plain.lengths[i].heads[h].entropy) << r.scaling;
    }
    for (std::size_t i = 3; i < 5; ++i)  // L > 16: another model
      EXPECT_NE(r.lengths[i].loss, plain.lengths[i].loss) << r.scaling << " L " << r.lengths[i].length;
  }
}

// Dynamic NTK as in generation without a cache: the prediction at t comes from a forward of
// tokens[0..t] alone with HF's dynamic frequencies at seq_len t + 1 (computed here by hand,
// one prefix at a time), not from one forward at seq_len L.
TEST(sweep, DynamicNtkRecomputesTheBaseAtEveryPosition) {
  for (TaskKind kind : {TaskKind::Copy, TaskKind::KthRetrieval}) {
    const TaskOptions t = task(kind);
    Model m = trained(posenc::parse_encoding("rope"), t);
    const int L = 40, S = 6;
    SweepOptions o = options({L});
    o.scaling = SweepScaling::Dynamic;
    o.dynamic_factor = 2.0;
    o.attention_sequences = 1;
    const SweepResult r = posenc::sweep(m, t, o);
    TaskOptions et = t;
    et.variable_length = false;
    TaskGenerator g(et, posenc::sweep_seed(o.seed, L, -1));
    std::vector<int32_t> tok(static_cast<std::size_t>(S) * L), tgt(tok.size());
    g.sample(S, L, tok.data(), tgt.data());
    const int V = m.config().vocab_size;
    double loss = 0;
    int scored = 0, correct = 0;
    for (int b = 0; b < S; ++b)
      for (int p = 0; p < L; ++p) {
        const int32_t y = tgt[static_cast<std::size_t>(b) * L + p];
        if (y < 0) continue;
        posenc::ForwardOptions fo;
        if (p + 1 > kTrainLength) {
          posenc::RopeScaling rs;
          rs.type = posenc::parse_rope_type("dynamic");
          rs.factor = 2.0;
          rs.max_position_embeddings = kTrainLength;
          fo.rope_scaling = rs;
        }
        const float* l = m.forward(tok.data() + static_cast<std::size_t>(b) * L, 1, p + 1, fo);
        const posenc::ScoredPosition sp = posenc::score_position(l + static_cast<std::size_t>(p) * V, V, y);
        loss += sp.loss;
        scored += 1;
        correct += sp.correct ? 1 : 0;
      }
    EXPECT_EQ(r.lengths[0].scored, scored);
    EXPECT_EQ(r.lengths[0].correct, correct);
    EXPECT_NEAR(r.lengths[0].loss, loss / scored, 1e-9 * (1 + loss / scored));
    // ... which is not one forward at seq_len L (the static block sweep_rope_scaling gives); checked
    // on copy, whose scored positions span half the sequence (kth_retrieval scores only t = L - 2,
    // whose base at seq_len L - 1 is within float rounding of the one at L).
    if (kind != TaskKind::Copy) continue;
    posenc::ForwardOptions whole;
    whole.rope_scaling = posenc::sweep_rope_scaling(SweepScaling::Dynamic, L, kTrainLength, 2.0);
    const posenc::LossResult w = m.evaluate(tok.data(), tgt.data(), S, L, whole);
    EXPECT_NE(static_cast<float>(r.lengths[0].loss), w.loss) << posenc::task_name(kind);
  }
}

// A fine-tuned row's override applies at every length, also below the training length.
TEST(sweep, FixedRopeScalingAppliesAtEveryLength) {
  const TaskOptions t = task(TaskKind::Copy);
  Model m = trained(posenc::parse_encoding("rope"), t);
  SweepOptions o = options({12, 32});
  posenc::RopeScaling rs;
  rs.type = posenc::parse_rope_type("linear");
  rs.factor = 4.0;
  o.scaling = SweepScaling::Linear;
  o.fixed_rope_scaling = rs;
  const SweepResult r = posenc::sweep(m, t, o);
  for (std::size_t i = 0; i < 2; ++i) {
    const int L = o.lengths[i];
    const EvalBatch b = sweep_batch(t, o, L);
    const std::vector<int32_t>&tok = b.tokens, &tgt = b.targets;
    posenc::ForwardOptions fo;
    fo.rope_scaling = rs;
    const posenc::LossResult e = m.evaluate(tok.data(), tgt.data(), o.sequences, L, fo);
    EXPECT_NEAR(r.lengths[i].loss, e.loss, 1e-5 * (1 + e.loss)) << L;
    EXPECT_NE(static_cast<float>(r.lengths[i].loss), m.evaluate(tok.data(), tgt.data(), o.sequences, L).loss) << L;
  }
}

// Log-length logit scaling: the plain model up to the training length; past it, Model::evaluate with
// attention_logit_scale = ln L / ln T_train on the same sequences, for an encoding with and one without a bias.
TEST(sweep, LogLengthScalingIsTheLogitScaleOfEvaluate) {
  const TaskOptions t = task(TaskKind::Copy);
  for (Encoding e : {posenc::parse_encoding("rope"), posenc::parse_encoding("alibi")}) {
    Model m = trained(e, t);
    SweepOptions o = options({12, kTrainLength, 48});
    const SweepResult plain = posenc::sweep(m, t, o);
    o.log_length_scaling = true;
    const SweepResult scaled = posenc::sweep(m, t, o);
    for (std::size_t i = 0; i < o.lengths.size(); ++i) {
      const int L = o.lengths[i];
      if (L <= kTrainLength) {
        EXPECT_EQ(scaled.lengths[i].loss, plain.lengths[i].loss) << L;
        EXPECT_EQ(scaled.lengths[i].heads[0].entropy, plain.lengths[i].heads[0].entropy) << L;
        continue;
      }
      const EvalBatch b = sweep_batch(t, o, L);
      const std::vector<int32_t>&tok = b.tokens, &tgt = b.targets;
      posenc::ForwardOptions fo;
      fo.attention_logit_scale = static_cast<float>(std::log(double(L)) / std::log(double(kTrainLength)));
      const posenc::LossResult ev = m.evaluate(tok.data(), tgt.data(), o.sequences, L, fo);
      EXPECT_NEAR(scaled.lengths[i].loss, ev.loss, 1e-5 * (1 + ev.loss)) << L;
      EXPECT_NE(scaled.lengths[i].loss, plain.lengths[i].loss) << L;
      // sharper attention: lower mean entropy over the heads
      double ep = 0, es = 0;
      for (std::size_t h = 0; h < plain.lengths[i].heads.size(); ++h)
        ep += plain.lengths[i].heads[h].entropy, es += scaled.lengths[i].heads[h].entropy;
      EXPECT_LT(es, ep) << L;
    }
  }
  Model m = trained(posenc::parse_encoding("rope"), t);
  SweepOptions o = options({16});
  o.log_length_scaling = true;
  o.scaling = SweepScaling::Dynamic;
  ExpectError([&] { posenc::sweep(m, t, o); }, posenc::ErrorKind::Range, "logLengthScaling");
  o = options({16});
  o.log_length_scaling = true;
  o.train_length = 1;
  ExpectError([&] { posenc::sweep(m, t, o); }, posenc::ErrorKind::Range, "logLengthScaling");
}

TEST(sweep, RopeScalingDefinitions) {
  using posenc::RopeType;
  for (SweepScaling s : {SweepScaling::None, SweepScaling::Linear, SweepScaling::Ntk, SweepScaling::Dynamic,
                         SweepScaling::Yarn}) {
    EXPECT_FALSE(posenc::sweep_rope_scaling(s, 32, 32).has_value());
    EXPECT_FALSE(posenc::sweep_rope_scaling(s, 16, 32).has_value());
    EXPECT_EQ(posenc::parse_sweep_scaling(posenc::sweep_scaling_name(s)), s);
  }
  EXPECT_FALSE(posenc::sweep_rope_scaling(SweepScaling::None, 256, 32).has_value());
  const int d = 8;
  const double base = 10000.0, s = 256.0 / 32.0;
  auto freqs = [&](SweepScaling m) {
    return posenc::rope_frequencies(d, base, *posenc::sweep_rope_scaling(m, 256, 32, 2.0), 256);
  };
  // linear: every frequency / s
  const auto lin = freqs(SweepScaling::Linear);
  for (int i = 0; i < d / 2; ++i) EXPECT_NEAR(lin.inv_freq[i], std::pow(base, -2.0 * i / d) / s, 1e-15);
  // static NTK: base' = base * s^(d/(d-2))
  const auto ntk = freqs(SweepScaling::Ntk);
  const double ntk_base = base * std::pow(s, static_cast<double>(d) / (d - 2));
  for (int i = 0; i < d / 2; ++i)
    EXPECT_NEAR(ntk.inv_freq[i], std::pow(ntk_base, -2.0 * i / d), 1e-12 * std::pow(ntk_base, -2.0 * i / d));
  EXPECT_EQ(ntk.attention_scale, 1.0);
  // dynamic (HF): base' = base * (f L / Ttr - (f - 1))^(d/(d-2)), f = 2
  const auto dyn = freqs(SweepScaling::Dynamic);
  const double dyn_base = base * std::pow(2.0 * s - 1.0, static_cast<double>(d) / (d - 2));
  for (int i = 0; i < d / 2; ++i)
    EXPECT_NEAR(dyn.inv_freq[i], std::pow(dyn_base, -2.0 * i / d), 1e-12 * std::pow(dyn_base, -2.0 * i / d));
  // yarn: factor s over original_max_position_embeddings = Ttr, HF's attention factor
  const auto y = *posenc::sweep_rope_scaling(SweepScaling::Yarn, 256, 32);
  EXPECT_EQ(y.type, posenc::parse_rope_type("yarn"));
  EXPECT_EQ(*y.factor, s);
  EXPECT_EQ(*y.original_max_position_embeddings, 32);
  EXPECT_NEAR(freqs(SweepScaling::Yarn).attention_scale, 0.1 * std::log(s) + 1.0, 1e-12);
  ExpectError([] { posenc::parse_sweep_scaling("ntk-by-parts"); }, posenc::ErrorKind::Range, "scaling must be one of");
}

TEST(sweep, Checks) {
  using posenc::ErrorKind;
  const TaskOptions t = task(TaskKind::Copy);
  Model alibi = trained(posenc::parse_encoding("alibi"), t);
  SweepOptions o = options({16});
  o.scaling = SweepScaling::Yarn;
  ExpectError([&] { posenc::sweep(alibi, t, o); }, ErrorKind::Range, "scaling must be 'none' for encoding 'alibi'");
  o = options({3});
  ExpectError([&] { posenc::sweep(alibi, t, o); }, ErrorKind::Range, "at least the task's minimum length 4");
  o = options({});
  ExpectError([&] { posenc::sweep(alibi, t, o); }, ErrorKind::Range, "lengths must be a non-empty list");
  TaskOptions other = t;
  other.symbols = 9;
  ExpectError([&] { posenc::sweep(alibi, other, options({16})); }, ErrorKind::Range, "vocabSize");
  // a learned table with policy 'error' cannot be evaluated past its end
  Model learned = trained(posenc::parse_encoding("learned"), t, posenc::OutOfRange::Error);
  EXPECT_NO_THROW(posenc::sweep(learned, t, options({8, 16})));
  ExpectError([&] { posenc::sweep(learned, t, options({32})); }, ErrorKind::Range, "learnedPolicy");
}

}  // namespace
