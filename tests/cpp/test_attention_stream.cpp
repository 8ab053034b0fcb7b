// Streaming attention (kernels::attention_forward) against a double-precision
// reference and against the materialised path, and the model's streaming
// inference against its materialised path (forward with attention maps) for
// every encoding. Runs for the SIMD and the scalar build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <random>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/kernels.hpp"
#include "posenc/model.hpp"
#include "posenc/rng.hpp"
#include "posenc/tasks.hpp"
#include "test_util.hpp"

namespace {

using posenc::Encoding;
using posenc::kernels::RelativeBias;


// O = softmax(scale Q K^T - slope |ipos - j| + bias(i, j), causal) V in double, bias as documented
// for RelativeBias: table[i * row_stride + clamp(j - ipos + offset, 0, len - 1)].
std::vector<double> reference(const std::vector<float>& Q, const std::vector<float>& K, const std::vector<float>& V,
                              int Tq, int Tk, int d, int dv, double scale, bool causal, double slope,
                              const RelativeBias* bias, int window = 0, std::vector<double>* lse = nullptr,
                              std::vector<double>* first = nullptr) {
  std::vector<double> O(static_cast<size_t>(Tq) * dv, 0.0);
  for (int i = 0; i < Tq; ++i) {
    const int ipos = i + Tk - Tq;
    std::vector<double> s(Tk, -INFINITY);
    double m = -INFINITY;
    for (int j = 0; j < Tk; ++j) {
      if (causal && j > ipos) continue;
      if (window > 0 && j <= ipos - window) continue;  // HF: kv_idx > q_idx - sliding_window
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += double(Q[i * d + c]) * K[j * d + c];
      s[j] = dot * scale - slope * std::abs(ipos - j);
      if (bias) {
        const int x = std::clamp(j - ipos + bias->offset, 0, bias->len - 1);
        s[j] += bias->table[i * bias->row_stride + x];
      }
      m = std::max(m, s[j]);
    }
    double sum = 0;
    for (int j = 0; j < Tk; ++j) sum += std::isinf(s[j]) ? 0.0 : std::exp(s[j] - m);
    if (lse) lse->push_back(m + std::log(sum));
    if (first) first->push_back(std::isinf(s[0]) ? 0.0 : std::exp(s[0] - m) / sum);
    for (int j = 0; j < Tk; ++j) {
      if (std::isinf(s[j])) continue;
      const double p = std::exp(s[j] - m) / sum;
      for (int c = 0; c < dv; ++c) O[i * dv + c] += p * V[j * dv + c];
    }
  }
  return O;
}

struct Case {
  int Tq, Tk, d, dv;
  bool causal;
  float slope;
  int bias;  // 0 none, 1 one table shared by the rows (T5), 2 one short row per query (Shaw)
};

class StreamingAttention : public ::testing::TestWithParam<Case> {};

TEST_P(StreamingAttention, MatchesDoubleReference) {
  const Case c = GetParam();
  const auto Q = random_vec(size_t(c.Tq) * c.d, 1, 2.0f), K = random_vec(size_t(c.Tk) * c.d, 2, 2.0f),
             V = random_vec(size_t(c.Tk) * c.dv, 3);
  std::vector<float> table;
  RelativeBias rb;
  if (c.bias == 1) {
    table = random_vec(c.Tk, 4, 3.0f);
    rb = {table.data(), 0, c.Tk - 1, c.Tk};
  } else if (c.bias == 2) {
    const int k = 5;
    table = random_vec(size_t(c.Tq) * (2 * k + 1), 5, 3.0f);
    rb = {table.data(), 2 * k + 1, k, k + 1};
  }
  const RelativeBias* bias = c.bias ? &rb : nullptr;
  const int ldo = c.dv + 3;  // output rows with a stride, as the model writes heads into atty
  std::vector<float> O(size_t(c.Tq) * ldo, 77.0f);
  const float scale = 1.0f / std::sqrt(float(c.d));
  posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), O.data(), c.Tq, c.Tk, c.d, c.dv, ldo, scale,
                                     c.causal, c.slope, bias);
  const auto ref = reference(Q, K, V, c.Tq, c.Tk, c.d, c.dv, scale, c.causal, c.slope, bias);
  for (int i = 0; i < c.Tq; ++i) {
    for (int j = 0; j < c.dv; ++j) ASSERT_NEAR(O[i * ldo + j], ref[i * c.dv + j], 2e-5) << "row " << i << " col " << j;
    for (int j = c.dv; j < ldo; ++j) ASSERT_EQ(O[i * ldo + j], 77.0f) << "wrote past dv in row " << i;
  }
}

// Shapes around the kernel's 64 x 64 blocks and the SIMD width: ragged blocks, Tq < Tk (the
// queries are the last positions), head dims that are not a multiple of 4 or 8, dv != d.
INSTANTIATE_TEST_SUITE_P(
    Shapes, StreamingAttention,
    ::testing::Values(Case{1, 1, 1, 1, true, 0, 0}, Case{7, 7, 5, 3, true, 0, 0}, Case{64, 64, 16, 16, true, 0, 0},
                      Case{65, 65, 16, 16, true, 0.25f, 0}, Case{130, 130, 8, 8, true, 0, 1},
                      Case{200, 200, 13, 7, true, 0.125f, 2}, Case{40, 150, 16, 16, true, 0.5f, 1},
                      Case{17, 129, 12, 20, true, 0, 2}, Case{70, 70, 9, 9, false, 0.0625f, 0},
                      Case{33, 100, 24, 16, false, 0, 0}, Case{300, 300, 64, 64, true, 0, 0}));

TEST(StreamingAttention, SlidingWindowGivesKeysOutsideItNoWeight) {
  // A window of w keys (the query's own and the w - 1 before it, as HF's sliding window): windows inside one key
  // block, across blocks, larger than the input, with Tq < Tk; output, log-sum-exp and first-key mass against the
  // double reference that skips those keys. Without the window the output moves by far more than the tolerance.
  struct C { int Tq, Tk, d, window; };
  for (const C c : {C{256, 256, 16, 64}, C{200, 200, 13, 37}, C{150, 150, 8, 1}, C{90, 300, 16, 100}, C{70, 70, 9, 500},
                    C{300, 300, 32, 130}}) {
    const auto Q = random_vec(size_t(c.Tq) * c.d, 31, 2.0f), K = random_vec(size_t(c.Tk) * c.d, 32, 2.0f),
               V = random_vec(size_t(c.Tk) * c.d, 33);
    std::vector<float> O(size_t(c.Tq) * c.d), lse(c.Tq), first(c.Tq), ent(c.Tq), full(O.size());
    const float scale = 1.0f / std::sqrt(float(c.d));
    const posenc::kernels::RowStats st{ent.data(), first.data(), lse.data()};
    posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), O.data(), c.Tq, c.Tk, c.d, c.d, c.d, scale, true, 0.0f,
                                       nullptr, &st, c.window);
    posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), full.data(), c.Tq, c.Tk, c.d, c.d, c.d, scale, true,
                                       0.0f, nullptr);
    std::vector<double> ref_lse, ref_first;
    const auto ref = reference(Q, K, V, c.Tq, c.Tk, c.d, c.d, scale, true, 0.0, nullptr, c.window, &ref_lse, &ref_first);
    double moved = 0;
    for (int i = 0; i < c.Tq; ++i) {
      for (int j = 0; j < c.d; ++j) {
        ASSERT_NEAR(O[i * c.d + j], ref[i * c.d + j], 2e-5) << "window " << c.window << " row " << i << " col " << j;
        moved = std::max(moved, std::abs(double(full[i * c.d + j]) - ref[i * c.d + j]));
      }
      ASSERT_NEAR(lse[i], ref_lse[i], 2e-5) << "window " << c.window << " row " << i;
      ASSERT_NEAR(first[i], ref_first[i], 2e-6) << "window " << c.window << " row " << i;
    }
    if (c.window < c.Tk) EXPECT_GT(moved, 0.05) << "window " << c.window;
  }
}

TEST(StreamingAttention, LargeScoresStayFinite) {
  // Scores of +-1e4 (far beyond exp's range) must not overflow: the running max keeps every exp <= 1.
  const int T = 150, d = 4;
  std::vector<float> Q(T * d), K(T * d), V = random_vec(T * d, 9);
  for (int i = 0; i < T * d; ++i) {
    Q[i] = (i % 7 == 0) ? 100.0f : -50.0f;
    K[i] = (i % 5 == 0) ? 100.0f : 30.0f;
  }
  std::vector<float> O(T * d);
  posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), O.data(), T, T, d, d, d, 1.0f, true, 0.0f, nullptr);
  const auto ref = reference(Q, K, V, T, T, d, d, 1.0, true, 0.0, nullptr);
  for (int i = 0; i < T * d; ++i) {
    ASSERT_TRUE(std::isfinite(O[i])) << i;
    ASSERT_NEAR(O[i], ref[i], 1e-5) << i;
  }
}

TEST(StreamingAttention, AgreesWithMaterialisedProbabilities) {
  // The materialised path (attention_scores_softmax, then P V) and the streamed one, same inputs.
  const int Tq = 96, Tk = 160, d = 16;
  const auto Q = random_vec(Tq * d, 11), K = random_vec(Tk * d, 12), V = random_vec(Tk * d, 13);
  std::vector<float> P(Tq * Tk), O1(Tq * d), O2(Tq * d);
  posenc::kernels::attention_scores_softmax(Q.data(), K.data(), P.data(), Tq, Tk, d, 0.25f, true, 0.125f, nullptr);
  posenc::kernels::matmul(P.data(), V.data(), O1.data(), Tq, Tk, d, false);
  posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), O2.data(), Tq, Tk, d, d, d, 0.25f, true, 0.125f,
                                     nullptr);
  for (int i = 0; i < Tq * d; ++i) ASSERT_NEAR(O1[i], O2[i], 2e-6) << i;
}

TEST(StreamingAttention, FusedRowStatisticsEqualTheTwoPassOnes) {
  // Entropy, first-key mass and log-sum-exp per query row from the streamed pass (RowStats) against the same
  // from the materialised probabilities (attention_scores_softmax, then -sum p log p in double, p[0], and
  // exp(s - lse) for every weight), with
  // scores spread wide enough (scale 3) that the lazy shift m moves inside rows, an ALiBi slope, and
  // queries that see part of the keys (Tq < Tk). Tolerance: 2e-5 nats and 2e-6 absolute mass
  // (float sums over up to 1000 keys); the output O is bit-identical with and without statistics.
  struct C { int Tq, Tk, d; float scale, slope; };
  for (const C c : {C{1000, 1000, 8, 3.0f, 0.0f}, C{96, 160, 16, 0.25f, 0.125f}, C{300, 300, 64, 0.5f, 0.0f}}) {
    const auto Q = random_vec(c.Tq * c.d, 21), K = random_vec(c.Tk * c.d, 22), V = random_vec(c.Tk * c.d, 23);
    std::vector<float> P(static_cast<std::size_t>(c.Tq) * c.Tk), O1(c.Tq * c.d), O2(c.Tq * c.d), ent(c.Tq), first(c.Tq),
        lse(c.Tq);
    posenc::kernels::attention_scores_softmax(Q.data(), K.data(), P.data(), c.Tq, c.Tk, c.d, c.scale, true, c.slope, nullptr);
    posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), O1.data(), c.Tq, c.Tk, c.d, c.d, c.d, c.scale, true,
                                       c.slope, nullptr);
    const posenc::kernels::RowStats st{ent.data(), first.data(), lse.data()};
    posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), O2.data(), c.Tq, c.Tk, c.d, c.d, c.d, c.scale, true,
                                       c.slope, nullptr, &st);
    EXPECT_EQ(O1, O2);
    double worst_e = 0, worst_f = 0, worst_p = 0;
    for (int i = 0; i < c.Tq; ++i) {
      const float* p = P.data() + static_cast<std::size_t>(i) * c.Tk;
      const int n = i + (c.Tk - c.Tq) + 1;
      double e = 0;
      for (int j = 0; j < n; ++j) {
        if (p[j] > 0.0f) e -= static_cast<double>(p[j]) * std::log(static_cast<double>(p[j]));
        // lse: each weight from its score alone (the score as the materialised path forms it, in double)
        double qk = 0;
        for (int t = 0; t < c.d; ++t) qk += static_cast<double>(Q[i * c.d + t]) * K[j * c.d + t];
        const double s = c.scale * qk - c.slope * std::fabs(static_cast<double>(i + (c.Tk - c.Tq) - j));
        worst_p = std::max(worst_p, std::fabs(std::exp(s - lse[i]) - p[j]));
      }
      worst_e = std::max(worst_e, std::fabs(ent[i] - e));
      worst_f = std::max(worst_f, std::fabs(static_cast<double>(first[i]) - p[0]));
    }
    std::printf("[fused row statistics, Tq=%d Tk=%d d=%d] max |d entropy| %.3g nats, max |d first| %.3g, max |exp(s - lse) - p| %.3g\n",
                c.Tq, c.Tk, c.d, worst_e, worst_f, worst_p);
    EXPECT_LT(worst_e, 2e-5);
    EXPECT_LT(worst_f, 2e-6);
    EXPECT_LT(worst_p, 2e-6);
  }
}

// A sink (one more logit in every denominator, with no value): the streamed output equals the materialised
// P V; the rows of P sum to 1 - p_sink with p_sink = exp(sink - lse) from the streamed statistics, whose entropy
// counts the sink as one more outcome. Sinks far below, near and far above the scores (the last one takes
// nearly all the weight, and the lazy shift m sits well below it).
TEST(StreamingAttention, ASinkJoinsEveryDenominatorInBothPaths) {
  const int Tq = 40, Tk = 72, d = 8;
  const auto Q = random_vec(Tq * d, 31), K = random_vec(Tk * d, 32), V = random_vec(Tk * d, 33);
  for (const float sink : {-30.0f, 0.5f, 2.0f, 25.0f}) {
    std::vector<float> P(Tq * Tk), O1(Tq * d), O2(Tq * d), ent(Tq), lse(Tq);
    posenc::kernels::attention_scores_softmax(Q.data(), K.data(), P.data(), Tq, Tk, d, 0.5f, true, 0.0f, nullptr, sink);
    posenc::kernels::matmul(P.data(), V.data(), O1.data(), Tq, Tk, d, false);
    const posenc::kernels::RowStats st{ent.data(), nullptr, lse.data()};
    posenc::kernels::attention_forward(Q.data(), K.data(), V.data(), O2.data(), Tq, Tk, d, d, d, 0.5f, true, 0.0f,
                                       nullptr, &st, 0, nullptr, sink);
    for (int i = 0; i < Tq * d; ++i) ASSERT_NEAR(O1[i], O2[i], 2e-6) << "sink " << sink << " at " << i;
    double least = 1;
    for (int i = 0; i < Tq; ++i) {
      double row = 0, e = 0;
      for (int j = 0; j < Tk; ++j) {
        row += P[i * Tk + j];
        if (P[i * Tk + j] > 0.0f) e -= P[i * Tk + j] * std::log(double(P[i * Tk + j]));
      }
      const double p_sink = std::exp(double(sink) - lse[i]);
      if (p_sink > 0) e -= p_sink * std::log(p_sink);
      ASSERT_NEAR(row + p_sink, 1.0, 2e-6) << "sink " << sink << " row " << i;
      ASSERT_NEAR(ent[i], e, 2e-5) << "sink " << sink << " row " << i;
      least = std::min(least, row);
    }
    if (sink == 25.0f) EXPECT_LT(least, 1e-6);  // the sink takes the weight: the output shrinks to 0
    if (sink == -30.0f) EXPECT_GT(least, 1 - 1e-6);
  }
}

// --- the model: streaming inference (no maps) against the materialised path (maps requested)

posenc::ModelConfig config(Encoding e) {
  posenc::ModelConfig c;
  c.encoding = e;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 24;  // head dim 12: not a multiple of the SIMD width
  c.vocab_size = 13;
  c.max_length = 40;
  c.seed = 3;
  c.shaw_k = 5;
  c.t5_num_buckets = 8;
  c.t5_max_distance = 32;
  c.learned_policy = posenc::OutOfRange::Clamp;
  return c;
}

class StreamingModel : public ::testing::TestWithParam<Encoding> {};

TEST_P(StreamingModel, ForwardMatchesTheMaterialisedPath) {
  posenc::Model m(config(GetParam()));
  // T = 150 spans several 64-query blocks, runs past max_length (40) and, for Shaw, past k.
  for (const int T : {1, 9, 64, 150}) {
    const int B = 2, V = m.config().vocab_size;
    const auto tok = random_tokens(B * T, V, 100 + T);
    const float* p = m.forward(tok.data(), B, T);
    const std::vector<float> streamed(p, p + size_t(B) * T * V);
    posenc::ForwardOptions maps;
    maps.want_attention = true;
    p = m.forward(tok.data(), B, T, maps);
    EXPECT_EQ(m.attention_maps().size(), size_t(2 * 2) * T * T);
    for (size_t i = 0; i < streamed.size(); ++i) ASSERT_NEAR(streamed[i], p[i], 2e-5) << "T " << T << " logit " << i;
  }
}

TEST_P(StreamingModel, EvaluateMatchesTheMaterialisedPath) {
  // evaluate() runs the last layer from the first scored position on (Tq < T in the kernel).
  posenc::Model m(config(GetParam()));
  posenc::TaskOptions o;
  o.symbols = 10;
  posenc::TaskGenerator g(o, 5);
  const int B = 3, T = 90;
  std::vector<int32_t> tok(B * T), tgt(B * T);
  g.sample(B, T, tok.data(), tgt.data());
  const posenc::LossResult streamed = m.evaluate(tok.data(), tgt.data(), B, T);
  posenc::ForwardOptions maps;
  maps.want_attention = true;
  const posenc::LossResult full = m.evaluate(tok.data(), tgt.data(), B, T, maps);
  EXPECT_EQ(streamed.scored, full.scored);
  EXPECT_EQ(streamed.correct, full.correct);
  EXPECT_NEAR(streamed.loss, full.loss, 1e-5);
}

TEST_P(StreamingModel, TrainingIsUnaffected) {
  // forward_backward keeps the materialised path: its loss equals a streamed evaluate before the
  // step, and a streamed forward at a long length in between leaves training bit-identical.
  const posenc::ModelConfig c = config(GetParam());
  posenc::Model a(c), b(c);
  posenc::TaskOptions o;
  o.symbols = 10;
  const int B = 4, T = 24;
  std::vector<int32_t> tok(B * T), tgt(B * T);
  posenc::TaskGenerator(o, 8).sample(B, T, tok.data(), tgt.data());
  const float eval_loss = a.evaluate(tok.data(), tgt.data(), B, T).loss;
  const auto long_tok = random_tokens(300, c.vocab_size, 4);
  b.forward(long_tok.data(), 1, 300);  // streamed, grows b's buffers
  for (int step = 0; step < 3; ++step) {
    const posenc::LossResult ra = a.train_step(tok.data(), tgt.data(), B, T, 1e-3f);
    const posenc::LossResult rb = b.train_step(tok.data(), tgt.data(), B, T, 1e-3f);
    if (step == 0) EXPECT_NEAR(ra.loss, eval_loss, 1e-5);
    EXPECT_EQ(ra.loss, rb.loss);
    EXPECT_EQ(ra.grad_norm, rb.grad_norm);
  }
  for (size_t i = 0; i < a.num_parameters(); ++i) ASSERT_EQ(a.parameters()[i], b.parameters()[i]) << i;
}

INSTANTIATE_TEST_SUITE_P(Encodings, StreamingModel,
                         ::testing::ValuesIn(all_encodings()),
                         [](const auto& info) { return std::string(posenc::encoding_name(info.param)); });

TEST(StreamingModel, LongSequenceNeedsNoQuadraticMemory) {
  // T = 16384 (the length limit) in inference: far below the activation limit without maps,
  // refused up front with them (L * H * T^2 floats of maps).
  posenc::ModelConfig c = config(posenc::parse_encoding("t5"));
  c.layers = 1;
  c.heads = 1;
  c.d_model = 8;
  posenc::Model m(c);
  const int T = posenc::kMaxSequenceLength;
  const auto tok = random_tokens(T, c.vocab_size, 6);
  const float* logits = m.forward(tok.data(), 1, T);
  for (int i = 0; i < T * c.vocab_size; i += 997) ASSERT_TRUE(std::isfinite(logits[i])) << i;
  posenc::ForwardOptions maps;
  maps.want_attention = true;
  ExpectError([&] { m.forward(tok.data(), 1, T, maps); }, posenc::ErrorKind::Range, "MB of activations");
}

}  // namespace
