// The tiny transformer: config checks, tensor table, init, forward semantics
// (causality, length generalisation, learned-table policies, RoPE eval-time
// scaling, attention maps), the optimizer, training on the copy task and
// determinism. Runs for the SIMD and the scalar build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "posenc/checkpoint.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "posenc/rng.hpp"
#include "posenc/tasks.hpp"
#include "test_util.hpp"

namespace {

using posenc::Encoding;
using posenc::Error;
using posenc::ErrorKind;
using posenc::Model;
using posenc::ModelConfig;

const std::vector<Encoding> kAllEncodings = all_encodings();

ModelConfig small_config(Encoding e, int vocab = 11) {
  ModelConfig c;
  c.encoding = e;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 16;
  c.vocab_size = vocab;
  c.max_length = 12;
  c.seed = 7;
  c.shaw_k = 3;
  c.t5_num_buckets = 8;
  c.t5_max_distance = 16;
  c.learned_policy = posenc::OutOfRange::Clamp;
  return c;
}


// Runs f and returns the posenc::Error message; fails if nothing (or something else) is thrown.
template <class F>
std::string error_of(F&& f, ErrorKind kind = ErrorKind::Range) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a posenc::Error: " << e.what();
    return "";
  }
  ADD_FAILURE() << "nothing thrown";
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------
// Config validation

TEST(model_config, DefaultsAreTheSpec) {
  ModelConfig c;
  EXPECT_EQ(c.layers, 2);
  EXPECT_EQ(c.heads, 4);
  EXPECT_EQ(c.d_model, 64);
  EXPECT_EQ(c.mlp_ratio, 4);
  EXPECT_EQ(c.rope_base, 10000.0);
  EXPECT_EQ(c.t5_num_buckets, 32);
  EXPECT_EQ(c.t5_max_distance, 128);
  EXPECT_EQ(c.shaw_k, 16);
  EXPECT_EQ(c.learned_policy, posenc::OutOfRange::Error);
  EXPECT_EQ(c.effective_rotary_dim(), 16);
}

TEST(model_config, ErrorsNameTheField) {
  auto bad = [](auto mutate) {
    ModelConfig c = small_config(posenc::parse_encoding("rope"));
    mutate(c);
    return error_of([&] { c.validate(); });
  };
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.heads = 3; }), "dModel must be divisible by heads"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.vocab_size = 0; }), "vocabSize"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.layers = 0; }), "layers"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.mlp_ratio = 0; }), "mlpRatio"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.max_length = 0; }), "maxLength"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.rotary_dim = 3; }), "rotaryDim"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.rotary_dim = 10; }), "rotaryDim"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.rope_base = 1.0; }), "ropeBase"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.d_model = 14, c.heads = 2; }), "head dim"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.encoding = posenc::parse_encoding("t5"), c.t5_num_buckets = 1; }), "t5NumBuckets"));
  EXPECT_TRUE(
      contains(bad([](ModelConfig& c) { c.encoding = posenc::parse_encoding("t5"), c.t5_max_distance = 4; }), "t5MaxDistance"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.encoding = posenc::parse_encoding("shaw"), c.shaw_k = -1; }), "shawK"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.encoding = static_cast<Encoding>(42); }), "encoding"));
  EXPECT_TRUE(
      contains(bad([](ModelConfig& c) { c.learned_policy = static_cast<posenc::OutOfRange>(9); }), "learnedPolicy"));
  EXPECT_TRUE(contains(bad([](ModelConfig& c) { c.d_model = 4096, c.vocab_size = 65536; }), "too large"));
  // Model construction validates too.
  ModelConfig c = small_config(posenc::parse_encoding("none"));
  c.heads = 5;
  EXPECT_TRUE(contains(error_of([&] { Model m(c); }), "dModel must be divisible by heads"));
}

TEST(model_config, NamesRoundTrip) {
  for (Encoding e : kAllEncodings) EXPECT_EQ(posenc::parse_encoding(posenc::encoding_name(e)), e);
  EXPECT_TRUE(contains(error_of([] { posenc::parse_encoding("kerple"); }), "encoding"));
  for (auto p : {posenc::OutOfRange::Error, posenc::OutOfRange::Clamp, posenc::OutOfRange::Zero})
    EXPECT_EQ(posenc::parse_out_of_range(posenc::out_of_range_name(p)), p);
}

// ---------------------------------------------------------------------------
// Tensor table and init

TEST(model_tensors, TableIsContiguousAndDocumented) {
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));
    std::size_t off = 0;
    for (const auto& t : m.tensors()) {
      EXPECT_EQ(t.offset, off) << t.name;
      std::size_t n = 1;
      for (int s : t.shape) n *= s;
      EXPECT_EQ(t.size, n) << t.name;
      off += t.size;
      // decay exactly on matmul weights
      const bool matmul = t.name == "lm_head.weight" || contains(t.name, "attn.qkv.weight") ||
                          contains(t.name, "attn.proj.weight") || contains(t.name, "mlp.fc.weight") ||
                          contains(t.name, "mlp.proj.weight");
      EXPECT_EQ(t.decay, matmul) << t.name;
    }
    EXPECT_EQ(off, m.num_parameters());
    EXPECT_EQ(posenc::count_parameters(m.config()), m.num_parameters());
    // a "wpe" table exactly for the learned tables (the registry's position tables with parameters)
    EXPECT_EQ(m.find_tensor("wpe") != nullptr, e == posenc::parse_encoding("learned") || e == posenc::parse_encoding("learned_random"));
    EXPECT_EQ(m.find_tensor("t5.bias") != nullptr, e == posenc::parse_encoding("t5"));
    EXPECT_EQ(m.find_tensor("h1.attn.shaw") != nullptr, e == posenc::parse_encoding("shaw"));
    ASSERT_NE(m.find_tensor("h0.attn.qkv.weight"), nullptr);
    EXPECT_EQ(m.find_tensor("h0.attn.qkv.weight")->shape, (std::vector<int>{16, 48}));
    EXPECT_EQ(m.find_tensor("lm_head.weight")->shape, (std::vector<int>{16, 11}));
    if (e == posenc::parse_encoding("t5")) EXPECT_EQ(m.find_tensor("t5.bias")->shape, (std::vector<int>{2, 8}));
    if (e == posenc::parse_encoding("shaw")) EXPECT_EQ(m.find_tensor("h0.attn.shaw")->shape, (std::vector<int>{7, 8}));
    if (e == posenc::parse_encoding("learned")) EXPECT_EQ(m.find_tensor("wpe")->shape, (std::vector<int>{12, 16}));
  }
}

// tensor_table(config) is the table a Model of that config has, without building one; it
// validates the config as Model does.
TEST(model_tensors, TensorTableOfAConfigIsTheModels) {
  for (Encoding e : kAllEncodings) {
    ModelConfig c = small_config(e);
    c.layers = 3;
    const Model m(c);
    const std::vector<posenc::TensorInfo> table = posenc::tensor_table(c);
    ASSERT_EQ(table.size(), m.tensors().size()) << posenc::encoding_name(e);
    for (std::size_t i = 0; i < table.size(); ++i) {
      const posenc::TensorInfo &a = table[i], &b = m.tensors()[i];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.offset, b.offset) << a.name;
      EXPECT_EQ(a.shape, b.shape) << a.name;
      EXPECT_EQ(a.size, b.size) << a.name;
      EXPECT_EQ(a.decay, b.decay) << a.name;
    }
  }
  ModelConfig bad = small_config(posenc::parse_encoding("rope"));
  bad.heads = 3;
  EXPECT_TRUE(contains(error_of([&] { posenc::tensor_table(bad); }), "divisible by heads"));
}

double stddev(const float* p, std::size_t n) {
  double s = 0, s2 = 0;
  for (std::size_t i = 0; i < n; ++i) s += p[i], s2 += double(p[i]) * p[i];
  s /= n;
  return std::sqrt(s2 / n - s * s);
}

TEST(model_init, Gpt2Style) {
  ModelConfig c;
  c.vocab_size = 200;
  c.encoding = posenc::parse_encoding("learned");
  Model m(c);
  const float* p = m.parameters();
  auto t = [&](const char* n) { return *m.find_tensor(n); };
  EXPECT_NEAR(stddev(p + t("wte").offset, t("wte").size), 0.02, 0.002);
  EXPECT_NEAR(stddev(p + t("h0.mlp.fc.weight").offset, t("h0.mlp.fc.weight").size), 0.02, 0.001);
  EXPECT_NEAR(stddev(p + t("h1.mlp.proj.weight").offset, t("h1.mlp.proj.weight").size), 0.01, 0.0005);
  EXPECT_NEAR(stddev(p + t("h1.attn.proj.weight").offset, t("h1.attn.proj.weight").size), 0.01, 0.001);
  for (const char* n : {"h0.ln1.weight", "lnf.weight"})
    for (std::size_t i = 0; i < t(n).size; ++i) EXPECT_EQ(p[t(n).offset + i], 1.0f);
  for (const char* n : {"h0.ln1.bias", "h0.attn.qkv.bias", "h1.mlp.fc.bias"})
    for (std::size_t i = 0; i < t(n).size; ++i) EXPECT_EQ(p[t(n).offset + i], 0.0f);
}

TEST(model_init, SameSeedSameBytesOtherSeedDifferent) {
  for (Encoding e : kAllEncodings) {
    ModelConfig c = small_config(e);
    Model a(c), b(c);
    ASSERT_EQ(a.num_parameters(), b.num_parameters());
    EXPECT_EQ(std::memcmp(a.parameters(), b.parameters(), sizeof(float) * a.num_parameters()), 0);
    c.seed = 8;
    Model d(c);
    EXPECT_NE(std::memcmp(a.parameters(), d.parameters(), sizeof(float) * a.num_parameters()), 0);
  }
}

// ---------------------------------------------------------------------------
// Forward semantics

TEST(model_forward, CausalForEveryEncoding) {
  const int T = 10, V = 11;
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));
    auto tok = random_tokens(T, V, 1);
    const std::vector<float> a(m.forward(tok.data(), 1, T), m.forward(tok.data(), 1, T) + T * V);
    tok[6] = (tok[6] + 1) % V;  // change a token: positions 0..5 must not move
    const float* b = m.forward(tok.data(), 1, T);
    for (int i = 0; i < 6 * V; ++i) ASSERT_EQ(a[i], b[i]) << posenc::encoding_name(e) << " at " << i;
    double diff = 0;
    for (int i = 6 * V; i < T * V; ++i) diff += std::fabs(a[i] - b[i]);
    EXPECT_GT(diff, 0.0) << posenc::encoding_name(e);
  }
}

// A sequence's logits do not depend on the other sequences of its batch. (Randomized positions draw
// per example index, so a sequence alone at index 0 is compared only for example 0; for the others
// the rest of the batch is changed instead.)
// Bidirectional attention (ModelConfig::causal false): a later token changes the outputs at every
// earlier position, which a causal model never does (the test above), for every encoding that
// accepts it; the others refuse it, naming the encoding.
TEST(model_forward, BidirectionalSeesLaterTokens) {
  const int T = 10, V = 11;
  for (Encoding e : kAllEncodings) {
    ModelConfig c = small_config(e);
    c.causal = false;
    if (e == posenc::parse_encoding("t5") || e == posenc::parse_encoding("shaw") || e == posenc::parse_encoding("fire") || e == posenc::parse_encoding("xpos")) {
      ExpectError([&] { Model refused(c); }, ErrorKind::Range, posenc::encoding_name(e));
      continue;
    }
    Model m(c), causal(small_config(e));
    auto tok = random_tokens(T, V, 1);
    const std::vector<float> a(m.forward(tok.data(), 1, T), m.forward(tok.data(), 1, T) + T * V);
    const std::vector<float> ca(causal.forward(tok.data(), 1, T), causal.forward(tok.data(), 1, T) + T * V);
    tok[8] = (tok[8] + 1) % V;
    const float* b = m.forward(tok.data(), 1, T);
    for (int t = 0; t < 8; ++t) {
      double diff = 0;
      for (int v = 0; v < V; ++v) diff += std::fabs(a[t * V + v] - b[t * V + v]);
      EXPECT_GT(diff, 0.0) << posenc::encoding_name(e) << " position " << t;
    }
    const float* cb = causal.forward(tok.data(), 1, T);
    for (int i = 0; i < 8 * V; ++i) ASSERT_EQ(ca[i], cb[i]) << posenc::encoding_name(e);
    // A bidirectional model is native only: checkpoints refuse it.
    ExpectError([&] { posenc::save_checkpoint(m); }, ErrorKind::Range, "causal = false");
  }
}

TEST(model_forward, SequencesInABatchAreIndependent) {
  const int T = 9, V = 11, B = 3;
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));
    const auto tok = random_tokens(B * T, V, 2);
    const std::vector<float> all(m.forward(tok.data(), B, T), m.forward(tok.data(), B, T) + B * T * V);
    const bool random = e == posenc::parse_encoding("rope_random") || e == posenc::parse_encoding("learned_random");
    for (int b = 0; b < B; ++b) {
      if (b == 0 || !random) {
        const float* one = m.forward(tok.data() + b * T, 1, T);
        for (int i = 0; i < T * V; ++i) ASSERT_NEAR(all[b * T * V + i], one[i], 1e-5) << posenc::encoding_name(e);
      }
      auto other = tok;  // every other sequence changed
      for (int i = 0; i < B * T; ++i)
        if (i / T != b) other[i] = (other[i] + 1) % V;
      const float* changed = m.forward(other.data(), B, T);
      for (int i = 0; i < T * V; ++i)
        ASSERT_NEAR(all[b * T * V + i], changed[b * T * V + i], 1e-5) << posenc::encoding_name(e);
    }
  }
}

TEST(model_forward, PositionMatters) {
  // Permute the tokens before the last one. In a one-layer model without position
  // information (NoPE) the last position sees the same set of keys and values, so
  // its logits do not change (up to float summation order); with any encoding they do.
  const int T = 8, V = 11;
  for (Encoding e : kAllEncodings) {
    ModelConfig c = small_config(e);
    c.layers = 1;
    Model m(c);
    posenc::Rng rng(21);  // larger weights than the init, so every path is clearly active
    for (std::size_t i = 0; i < m.num_parameters(); ++i) m.parameters()[i] = static_cast<float>(0.3 * rng.normal());
    auto tok = random_tokens(T, V, 22);
    const std::vector<float> a(m.forward(tok.data(), 1, T) + (T - 1) * V, m.forward(tok.data(), 1, T) + T * V);
    std::reverse(tok.begin(), tok.end() - 1);
    const float* b = m.forward(tok.data(), 1, T) + (T - 1) * V;
    double diff = 0;
    for (int v = 0; v < V; ++v) diff = std::max(diff, double(std::fabs(a[v] - b[v])));
    if (e == posenc::parse_encoding("none"))
      EXPECT_LT(diff, 1e-5);
    else
      EXPECT_GT(diff, 1e-4) << posenc::encoding_name(e);
  }
}

TEST(model_forward, EvaluateMatchesTrainingForward) {
  const int B = 2, T = 8, V = 11;
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));
    const auto tok = random_tokens(B * T, V, 3);
    auto tgt = random_tokens(B * T, V, 4);
    tgt[0] = tgt[5] = -1;
    auto ev = m.evaluate(tok.data(), tgt.data(), B, T);
    auto tr = m.forward_backward(tok.data(), tgt.data(), B, T);
    EXPECT_EQ(ev.loss, tr.loss) << posenc::encoding_name(e);
    EXPECT_EQ(ev.scored, B * T - 2);
    EXPECT_EQ(ev.correct, tr.correct);
    EXPECT_NEAR(ev.loss, std::log(double(V)), 0.2);  // near-uniform predictions at init
    // An unscored prefix (training then skips the last layer's queries before it): same loss.
    for (int t = 0; t < 3; ++t) tgt[t] = tgt[T + t] = -1;
    tgt[T + 3] = -1;
    ev = m.evaluate(tok.data(), tgt.data(), B, T);
    tr = m.forward_backward(tok.data(), tgt.data(), B, T);
    EXPECT_NEAR(ev.loss, tr.loss, 1e-6) << posenc::encoding_name(e);
    EXPECT_EQ(ev.scored, tr.scored);
    EXPECT_EQ(ev.correct, tr.correct);
  }
}

TEST(model_forward, NoScoredPositions) {
  Model m(small_config(posenc::parse_encoding("rope")));
  const auto tok = random_tokens(8, 11, 5);
  const std::vector<int32_t> tgt(8, -1);
  const auto r = m.forward_backward(tok.data(), tgt.data(), 1, 8);
  EXPECT_EQ(r.scored, 0);
  EXPECT_EQ(r.loss, 0.0f);
  EXPECT_EQ(m.gradient_norm(), 0.0f);
}

TEST(model_forward, LengthGeneralisationRunsPastMaxLength) {
  const int V = 11;
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));  // max_length 12, learned policy Clamp
    for (int T : {12, 40, 100, 7, 300, 1, 2}) {
      const auto tok = random_tokens(2 * T, V, T);
      const float* l = m.forward(tok.data(), 2, T);
      for (int i = 0; i < 2 * T * V; ++i) ASSERT_TRUE(std::isfinite(l[i])) << posenc::encoding_name(e) << " T=" << T;
    }
  }
}

TEST(model_forward, VeryShortSequencesTrain) {
  for (Encoding e : kAllEncodings)
    for (int T : {1, 2, 3}) {
      Model m(small_config(e));
      const auto tok = random_tokens(2 * T, 11, T);
      const auto r = m.train_step(tok.data(), tok.data(), 2, T, 1e-3f);
      EXPECT_EQ(r.scored, 2 * T);
      EXPECT_TRUE(std::isfinite(r.loss) && std::isfinite(r.grad_norm) && r.grad_norm > 0) << posenc::encoding_name(e);
    }
}

TEST(model_forward, InputsAreChecked) {
  Model m(small_config(posenc::parse_encoding("rope")));
  auto tok = random_tokens(8, 11, 6);
  tok[3] = 11;
  EXPECT_TRUE(contains(error_of([&] { m.forward(tok.data(), 1, 8); }), "tokens[3]"));
  tok[3] = -1;
  EXPECT_TRUE(contains(error_of([&] { m.forward(tok.data(), 1, 8); }), "tokens[3]"));
  tok[3] = 0;
  EXPECT_TRUE(contains(error_of([&] { m.forward(tok.data(), 1, 0); }), "T must be"));
  EXPECT_TRUE(contains(error_of([&] { m.forward(tok.data(), 0, 8); }), "B must be"));
  EXPECT_TRUE(contains(error_of([&] { m.forward(tok.data(), 1, posenc::kMaxSequenceLength + 1); }), "T must be"));
  EXPECT_TRUE(contains(error_of([&] { m.forward(nullptr, 1, 8); }, ErrorKind::Type), "tokens"));
  std::vector<int32_t> tgt(8, 0);
  tgt[2] = -2;
  EXPECT_TRUE(contains(error_of([&] { m.evaluate(tok.data(), tgt.data(), 1, 8); }), "targets[2]"));
  // Sizes whose activations would exceed the cap are refused up front, before allocating.
  ModelConfig big = small_config(posenc::parse_encoding("rope"));
  big.d_model = 256;
  big.heads = 4;
  Model mb(big);
  const int T = 8192;
  std::vector<int32_t> many(T, 1);
  EXPECT_TRUE(contains(error_of([&] { mb.forward_backward(many.data(), many.data(), 1, T); }), "MB of activations"));
  // an absurd batch is refused from its size alone (the 8 tokens passed are never read past)
  EXPECT_TRUE(contains(error_of([&] { m.forward(tok.data(), 1 << 20, 4096); }), "MB of activations"));
}

// ---------------------------------------------------------------------------
// Learned table: policies and the untrained-position report

TEST(model_learned, ErrorPolicyRefusesPastMaxLength) {
  ModelConfig c = small_config(posenc::parse_encoding("learned"));
  c.learned_policy = posenc::OutOfRange::Error;
  Model m(c);
  const auto tok = random_tokens(13, 11, 7);
  EXPECT_NO_THROW(m.forward(tok.data(), 1, 12));
  const std::string msg = error_of([&] { m.forward(tok.data(), 1, 13); });
  EXPECT_TRUE(contains(msg, "maxLength = 12")) << msg;
  EXPECT_TRUE(contains(msg, "learnedPolicy")) << msg;
  EXPECT_TRUE(contains(error_of([&] { m.forward_backward(tok.data(), tok.data(), 1, 13); }), "maxLength"));
}

TEST(model_learned, ClampReusesTheLastRowZeroUsesNothing) {
  const int T = 16, V = 11;
  ModelConfig c = small_config(posenc::parse_encoding("learned"));
  c.learned_policy = posenc::OutOfRange::Clamp;
  Model clamp(c);
  c.learned_policy = posenc::OutOfRange::Zero;
  Model zero(c);
  ASSERT_EQ(std::memcmp(clamp.parameters(), zero.parameters(), 4 * clamp.num_parameters()), 0);
  const auto tok = random_tokens(T, V, 8);
  const std::vector<float> a(clamp.forward(tok.data(), 1, T), clamp.forward(tok.data(), 1, T) + T * V);
  const float* b = zero.forward(tok.data(), 1, T);
  for (int i = 0; i < 12 * V; ++i) ASSERT_EQ(a[i], b[i]);  // inside the table: identical
  double diff = 0;
  for (int i = 12 * V; i < T * V; ++i) diff += std::fabs(a[i] - b[i]);
  EXPECT_GT(diff, 0.0);  // past it: clamp adds row 10 (maxLength - 2), zero adds nothing
  // With row 10 set to zero the two policies agree everywhere (row 11 is not the one reused).
  for (Model* m : {&clamp, &zero}) {
    const auto* wpe = m->find_tensor("wpe");
    std::fill(m->parameters() + wpe->offset + 10 * 16, m->parameters() + wpe->offset + 11 * 16, 0.0f);
  }
  const std::vector<float> a2(clamp.forward(tok.data(), 1, T), clamp.forward(tok.data(), 1, T) + T * V);
  const float* b2 = zero.forward(tok.data(), 1, T);
  for (int i = 0; i < T * V; ++i) ASSERT_EQ(a2[i], b2[i]);
}

TEST(model_learned, ReportsUntrainedPositions) {
  ModelConfig c = small_config(posenc::parse_encoding("learned"));
  Model m(c);
  EXPECT_EQ(m.trained_length(), 0);
  EXPECT_EQ(m.untrained_positions(4), (std::vector<int32_t>{0, 1, 2, 3}));
  const auto tok = random_tokens(2 * 8, 11, 9);
  m.train_step(tok.data(), tok.data(), 2, 8, 1e-3f);
  EXPECT_EQ(m.trained_length(), 8);
  const auto s = m.position_status(14);
  for (int p = 0; p < 8; ++p) EXPECT_EQ(s[p], posenc::PositionStatus::Trained);
  for (int p = 8; p < 12; ++p) EXPECT_EQ(s[p], posenc::PositionStatus::Untrained);
  for (int p = 12; p < 14; ++p) EXPECT_EQ(s[p], posenc::PositionStatus::OutOfTable);
  EXPECT_EQ(m.untrained_positions(14), (std::vector<int32_t>{8, 9, 10, 11, 12, 13}));
  // The rows that were never trained really have zero gradient.
  m.forward_backward(tok.data(), tok.data(), 2, 8);
  const auto* wpe = m.find_tensor("wpe");
  for (int i = 8 * 16; i < 12 * 16; ++i) EXPECT_EQ(m.gradients()[wpe->offset + i], 0.0f);
  // Evaluation does not count as training.
  std::vector<int32_t> longer(12, 1);
  m.evaluate(longer.data(), longer.data(), 1, 12);
  EXPECT_EQ(m.trained_length(), 8);
  // Parameter-free encodings report positions never seen in training, no OutOfTable.
  Model r(small_config(posenc::parse_encoding("rope")));
  r.train_step(tok.data(), tok.data(), 2, 8, 1e-3f);
  EXPECT_EQ(r.untrained_positions(20).front(), 8);
  EXPECT_EQ(r.position_status(20)[19], posenc::PositionStatus::Untrained);
}

// Next-token training at T never scores position T-1 (its next token is outside the window):
// by causality nothing at T-1 reaches the loss, so the learned row T-1 keeps its initial
// value, position_status says Untrained, and clamp reuses row T-2, the last one trained.
TEST(model_learned, NextTokenTrainingLeavesTheLastPositionUntrained) {
  const int T = 12, B = 3, V = 11;
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));  // max_length 12
    const auto tok = random_tokens(B * T, V, 4);
    std::vector<int32_t> tgt(tok.size(), -1);
    for (int b = 0; b < B; ++b)
      for (int t = 0; t + 1 < T; ++t) tgt[b * T + t] = tok[b * T + t + 1];
    const std::vector<float> init(m.parameters(), m.parameters() + m.num_parameters());
    for (int s = 0; s < 3; ++s) m.train_step(tok.data(), tgt.data(), B, T, 1e-2f);
    EXPECT_EQ(m.trained_length(), T) << posenc::encoding_name(e);
    EXPECT_EQ(m.scored_length(), T - 1) << posenc::encoding_name(e);
    const auto st = m.position_status(T);
    for (int p = 0; p < T - 1; ++p) EXPECT_EQ(st[p], posenc::PositionStatus::Trained) << posenc::encoding_name(e);
    EXPECT_EQ(st[T - 1], posenc::PositionStatus::Untrained) << posenc::encoding_name(e);
    if (e == posenc::parse_encoding("learned")) {
      const auto* wpe = m.find_tensor("wpe");
      for (int i = 0; i < 16; ++i) {
        EXPECT_EQ(m.parameters()[wpe->offset + (T - 1) * 16 + i], init[wpe->offset + (T - 1) * 16 + i]);
      }
      double moved = 0;
      for (int i = 0; i < 16; ++i)
        moved += std::fabs(m.parameters()[wpe->offset + (T - 2) * 16 + i] - init[wpe->offset + (T - 2) * 16 + i]);
      EXPECT_GT(moved, 0.0);
    }
  }
  // A checkpoint keeps the length only: set_trained_length(t) gives scored_length t - 1.
  Model m(small_config(posenc::parse_encoding("learned")));
  m.set_trained_length(12);
  EXPECT_EQ(m.scored_length(), 11);
  EXPECT_EQ(m.untrained_positions(12), (std::vector<int32_t>{11}));
  m.set_trained_length(0);
  EXPECT_EQ(m.scored_length(), 0);
}

// Training with a RoPE override (fine-tuning PI / YaRN): the loss is the evaluation's with the
// same override, the gradients differ from plain training's; other encodings refuse it.
TEST(model_rope, TrainsWithARopeScaling) {
  const int T = 12, B = 2, V = 11;
  const auto tok = random_tokens(B * T, V, 6);
  posenc::ForwardOptions fo;
  posenc::RopeScaling rs;
  rs.type = posenc::parse_rope_type("linear");
  rs.factor = 4.0;
  fo.rope_scaling = rs;
  Model a(small_config(posenc::parse_encoding("rope"))), b(small_config(posenc::parse_encoding("rope")));
  const float scaled = a.evaluate(tok.data(), tok.data(), B, T, fo).loss;
  const float plain = a.evaluate(tok.data(), tok.data(), B, T).loss;
  EXPECT_NE(scaled, plain);
  EXPECT_FLOAT_EQ(a.forward_backward(tok.data(), tok.data(), B, T, fo).loss, scaled);
  const std::vector<float> ga(a.gradients(), a.gradients() + a.num_parameters());
  b.forward_backward(tok.data(), tok.data(), B, T);
  double diff = 0;
  for (std::size_t i = 0; i < ga.size(); ++i) diff += std::fabs(ga[i] - b.gradients()[i]);
  EXPECT_GT(diff, 0.0);
  a.train_step(tok.data(), tok.data(), B, T, 1e-2f, fo);
  EXPECT_LT(a.evaluate(tok.data(), tok.data(), B, T, fo).loss, scaled);
  Model alibi(small_config(posenc::parse_encoding("alibi")));
  EXPECT_FALSE(error_of([&] { alibi.train_step(tok.data(), tok.data(), B, T, 1e-2f, fo); }).empty());
}

// ---------------------------------------------------------------------------
// RoPE eval-time scaling and attention maps

std::vector<float> attention_of(Model& m, const std::vector<int32_t>& tok, int T, const posenc::ForwardOptions& o) {
  m.forward(tok.data(), 1, T, o);
  return m.attention_maps();
}

// attention_logit_scale a: in the first layer (whose input does not depend on it) every attention logit of an
// encoding without a bias is a times the plain one, so log(p_ij / p_i0) is a times the plain log-ratio; a = 1 is
// the plain forward bit for bit; a bad scale is a RangeError naming it, and the model still works after it.
TEST(model_attention, LogitScaleMultipliesTheFirstLayersLogits) {
  for (Encoding e : {posenc::parse_encoding("none"), posenc::parse_encoding("rope")}) {
    Model m(small_config(e));
    const int T = 20;
    const auto tok = random_tokens(T, 11, 4);
    posenc::ForwardOptions plain;
    plain.want_attention = true;
    const auto base = attention_of(m, tok, T, plain);
    posenc::ForwardOptions one = plain;
    one.attention_logit_scale = 1.0f;
    EXPECT_EQ(attention_of(m, tok, T, one), base);
    posenc::ForwardOptions scaled = plain;
    scaled.attention_logit_scale = 2.5f;
    const auto s = attention_of(m, tok, T, scaled);
    const int H = small_config(e).heads;
    double worst = 0, moved = 0;
    for (int h = 0; h < H; ++h)  // layer 0: maps [0, h]
      for (int i = 1; i < T; ++i)
        for (int j = 1; j <= i; ++j) {
          const std::size_t row = (static_cast<std::size_t>(h) * T + i) * T;
          const double want = 2.5 * std::log(double(base[row + j]) / base[row]);
          const double got = std::log(double(s[row + j]) / s[row]);
          worst = std::max(worst, std::fabs(got - want));
          moved = std::max(moved, std::fabs(got - std::log(double(base[row + j]) / base[row])));
        }
    EXPECT_LT(worst, 2e-4) << posenc::encoding_name(e);
    EXPECT_GT(moved, 1e-2) << posenc::encoding_name(e);
    for (float bad : {0.0f, -1.0f, std::nanf(""), INFINITY}) {
      posenc::ForwardOptions o;
      o.attention_logit_scale = bad;
      ExpectError([&] { m.forward(tok.data(), 1, T, o); }, posenc::ErrorKind::Range, "attentionLogitScale");
    }
    EXPECT_EQ(attention_of(m, tok, T, plain), base);  // still works, and the scale did not stick
  }
}

TEST(model_rope, LinearFactorOneIsPlainAndFactorTwoChangesAttention) {
  for (auto layout : {posenc::RopeLayout::Half, posenc::RopeLayout::Interleaved}) {
    ModelConfig c = small_config(posenc::parse_encoding("rope"));
    c.rope_layout = layout;
    Model m(c);
    const int T = 24;
    const auto tok = random_tokens(T, 11, 10);
    posenc::ForwardOptions plain;
    plain.want_attention = true;
    const std::vector<float> base_logits(m.forward(tok.data(), 1, T, plain), m.forward(tok.data(), 1, T, plain) + T * 11);
    const auto base = m.attention_maps();
    ASSERT_EQ(base.size(), std::size_t(2 * 2 * T * T));

    posenc::ForwardOptions lin1 = plain;
    lin1.rope_scaling = posenc::RopeScaling{};
    lin1.rope_scaling->type = posenc::parse_rope_type("linear");
    lin1.rope_scaling->factor = 1.0;
    const float* l1 = m.forward(tok.data(), 1, T, lin1);
    for (int i = 0; i < T * 11; ++i) ASSERT_EQ(l1[i], base_logits[i]);
    EXPECT_EQ(m.attention_maps(), base);

    posenc::ForwardOptions lin2 = lin1;
    lin2.rope_scaling->factor = 2.0;
    const auto scaled = attention_of(m, tok, T, lin2);
    double diff = 0;
    for (std::size_t i = 0; i < base.size(); ++i) diff = std::max(diff, double(std::fabs(scaled[i] - base[i])));
    EXPECT_GT(diff, 1e-3);

    // The override does not stick: the next plain forward is the original.
    EXPECT_EQ(attention_of(m, tok, T, plain), base);

    // Other types run (dynamic needs max_position_embeddings; yarn an original length).
    posenc::ForwardOptions dyn = plain;
    dyn.rope_scaling = posenc::RopeScaling{};
    dyn.rope_scaling->type = posenc::parse_rope_type("dynamic");
    dyn.rope_scaling->factor = 2.0;
    dyn.rope_scaling->max_position_embeddings = 12;
    EXPECT_NO_THROW(m.forward(tok.data(), 1, T, dyn));
    posenc::ForwardOptions yarn = plain;
    yarn.rope_scaling = posenc::RopeScaling{};
    yarn.rope_scaling->type = posenc::parse_rope_type("yarn");
    yarn.rope_scaling->factor = 4.0;
    yarn.rope_scaling->original_max_position_embeddings = 12;
    const float* ly = m.forward(tok.data(), 1, T, yarn);
    for (int i = 0; i < T * 11; ++i) ASSERT_TRUE(std::isfinite(ly[i]));
  }
}

TEST(model_rope, ScalingOnlyForRope) {
  Model m(small_config(posenc::parse_encoding("alibi")));
  const auto tok = random_tokens(8, 11, 11);
  posenc::ForwardOptions o;
  o.rope_scaling = posenc::RopeScaling{};
  EXPECT_TRUE(contains(error_of([&] { m.forward(tok.data(), 1, 8, o); }), "ropeScaling"));
}

TEST(model_attention, MapsAreCausalDistributions) {
  const int T = 11;
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));
    const auto tok = random_tokens(3 * T, 11, 12);
    posenc::ForwardOptions o;
    o.want_attention = true;
    m.forward(tok.data(), 3, T, o);
    const auto maps = m.attention_maps();
    ASSERT_EQ(maps.size(), std::size_t(2 * 2 * T * T));
    for (int lh = 0; lh < 4; ++lh)
      for (int i = 0; i < T; ++i) {
        double s = 0;
        for (int j = 0; j < T; ++j) {
          const float p = maps[(lh * T + i) * T + j];
          if (j > i) ASSERT_EQ(p, 0.0f);
          ASSERT_GE(p, 0.0f);
          s += p;
        }
        if (posenc::find_encoding(e)->sink)  // the sink takes the rest
          ASSERT_TRUE(s > 0.0 && s < 1.0) << encoding_name(e) << " row " << i << " sums to " << s;
        else
          ASSERT_NEAR(s, 1.0, 1e-5);
      }
    // Maps are of sequence 0: the same as a forward of sequence 0 alone.
    m.forward(tok.data(), 1, T, o);
    for (std::size_t i = 0; i < maps.size(); ++i) ASSERT_NEAR(m.attention_maps()[i], maps[i], 1e-6);
    m.forward(tok.data(), 1, T);
    EXPECT_TRUE(m.attention_maps().empty());
  }
}

// attention_layer k: only layer k's maps, bit for bit the slice k of the all-layer maps (forward
// and evaluate, B > 1 so that the other sequences stream); the loss is the one without maps.
TEST(model_attention, OneLayerMapsAreTheAllLayerSlice) {
  const int T = 13, B = 3;
  for (Encoding e : kAllEncodings) {
    ModelConfig c = small_config(e);
    c.layers = 3;
    Model m(c);
    const int L = c.layers, H = c.heads;
    const std::size_t TT = std::size_t(T) * T, per = std::size_t(H) * TT;
    const auto tok = random_tokens(B * T, 11, 21);
    std::vector<int32_t> tgt = random_tokens(B * T, 11, 22);
    for (int t = 0; t < B * T; ++t)
      if (t % T < T / 2) tgt[t] = -1;  // only the second half scored, as in copy
    posenc::ForwardOptions all;
    all.want_attention = true;
    const float plain_loss = m.evaluate(tok.data(), tgt.data(), B, T).loss;
    m.forward(tok.data(), B, T, all);
    const std::vector<float> fwd_all = m.attention_maps();
    m.evaluate(tok.data(), tgt.data(), B, T, all);
    const std::vector<float> eval_all = m.attention_maps();
    ASSERT_EQ(eval_all.size(), std::size_t(L) * per);
    for (int k = 0; k < L; ++k) {
      posenc::ForwardOptions one = all;
      one.attention_layer = k;
      m.forward(tok.data(), B, T, one);
      ASSERT_EQ(m.attention_maps().size(), per) << encoding_name(e) << " layer " << k;
      EXPECT_TRUE(std::equal(m.attention_maps().begin(), m.attention_maps().end(), fwd_all.begin() + k * per))
          << encoding_name(e) << " forward, layer " << k;
      const float loss = m.evaluate(tok.data(), tgt.data(), B, T, one).loss;
      EXPECT_TRUE(std::equal(m.attention_maps().begin(), m.attention_maps().end(), eval_all.begin() + k * per))
          << encoding_name(e) << " evaluate, layer " << k;
      EXPECT_NEAR(loss, plain_loss, 1e-5f * (1 + std::fabs(plain_loss))) << encoding_name(e) << " layer " << k;
    }
    // Without want_attention the layer asks for nothing; out of range: RangeError naming it.
    posenc::ForwardOptions quiet;
    quiet.attention_layer = 1;
    m.forward(tok.data(), B, T, quiet);
    EXPECT_TRUE(m.attention_maps().empty());
    for (int bad : {-2, L, 1 << 30}) {
      posenc::ForwardOptions o = all;
      o.attention_layer = bad;
      const std::string msg = error_of([&] { m.evaluate(tok.data(), tgt.data(), B, T, o); });
      EXPECT_TRUE(contains(msg, "attentionLayer") && contains(msg, "[0, 2]")) << msg;
    }
    // the model still works after the error
    m.forward(tok.data(), B, T, all);
    EXPECT_EQ(m.attention_maps(), fwd_all);
  }
}

TEST(model_attention, AlibiPrefersRecentKeys) {
  // With q = k = 0 (zero qkv weights and biases) scores are pure position bias.
  for (Encoding e : {posenc::parse_encoding("alibi"), posenc::parse_encoding("none")}) {
    Model m(small_config(e));
    for (int l = 0; l < 2; ++l) {
      const auto* w = m.find_tensor("h" + std::to_string(l) + ".attn.qkv.weight");
      std::fill(m.parameters() + w->offset, m.parameters() + w->offset + w->size, 0.0f);
    }
    const int T = 6;
    std::vector<int32_t> tok(T, 3);
    posenc::ForwardOptions o;
    o.want_attention = true;
    m.forward(tok.data(), 1, T, o);
    const auto& a = m.attention_maps();
    const float last_row_first = a[(T - 1) * T + 0], last_row_last = a[(T - 1) * T + T - 1];
    if (e == posenc::parse_encoding("none"))
      EXPECT_NEAR(last_row_first, 1.0f / T, 1e-6);
    else
      EXPECT_GT(last_row_last, last_row_first);  // ALiBi prefers the nearest key
  }
}

// ---------------------------------------------------------------------------
// Optimizer

TEST(model_optimizer, LrSchedule) {
  EXPECT_FLOAT_EQ(posenc::lr_at(0, 100, 10, 1.0f, 0.1f), 0.1f);
  EXPECT_FLOAT_EQ(posenc::lr_at(9, 100, 10, 1.0f, 0.1f), 1.0f);
  EXPECT_FLOAT_EQ(posenc::lr_at(10, 100, 10, 1.0f, 0.1f), 1.0f);
  EXPECT_NEAR(posenc::lr_at(55, 100, 10, 1.0f, 0.1f), 0.55f, 1e-6);  // halfway down the cosine
  EXPECT_FLOAT_EQ(posenc::lr_at(100, 100, 10, 1.0f, 0.1f), 0.1f);
  EXPECT_FLOAT_EQ(posenc::lr_at(500, 100, 10, 1.0f, 0.1f), 0.1f);
  EXPECT_FLOAT_EQ(posenc::lr_at(0, 100, 0, 1.0f, 0.1f), 1.0f);
  float prev = 2.0f;
  for (int s = 10; s <= 100; ++s) {
    const float lr = posenc::lr_at(s, 100, 10, 1.0f, 0.1f);
    EXPECT_LE(lr, prev);
    prev = lr;
  }
  EXPECT_TRUE(contains(error_of([] { posenc::lr_at(-1, 100, 10, 1.0f, 0.1f); }), "step"));
  EXPECT_TRUE(contains(error_of([] { posenc::lr_at(0, 0, 10, 1.0f, 0.1f); }), "totalSteps"));
  EXPECT_TRUE(contains(error_of([] { posenc::lr_at(0, 10, 1, 1.0f, 2.0f); }), "minLr"));
  EXPECT_TRUE(contains(error_of([] { posenc::lr_at(0, 10, 1, NAN, 0.0f); }), "maxLr"));
}

TEST(model_optimizer, WeightDecayOnlyOnMatmulWeights) {
  Model m(small_config(posenc::parse_encoding("t5")));
  const std::vector<float> before(m.parameters(), m.parameters() + m.num_parameters());
  const auto tok = random_tokens(8, 11, 13);
  const std::vector<int32_t> none(8, -1);  // nothing scored: zero gradients, only decay acts
  m.optimizer_options().weight_decay = 0.5f;
  m.train_step(tok.data(), none.data(), 1, 8, 0.1f);
  EXPECT_EQ(m.step(), 1);
  for (const auto& t : m.tensors())
    for (std::size_t i = 0; i < t.size; ++i) {
      const float b = before[t.offset + i], a = m.parameters()[t.offset + i];
      if (t.decay)
        ASSERT_FLOAT_EQ(a, b - 0.1f * 0.5f * b) << t.name;
      else
        ASSERT_EQ(a, b) << t.name;
    }
}

TEST(model_optimizer, OptionsAreChecked) {
  Model m(small_config(posenc::parse_encoding("rope")));
  const auto tok = random_tokens(8, 11, 15);
  const std::vector<float> before(m.parameters(), m.parameters() + m.num_parameters());
  auto bad = [&](auto mutate) {
    posenc::AdamWOptions saved = m.optimizer_options();
    mutate(m.optimizer_options());
    const std::string msg = error_of([&] { m.train_step(tok.data(), tok.data(), 1, 8, 1e-3f); });
    m.optimizer_options() = saved;
    return msg;
  };
  EXPECT_TRUE(contains(bad([](posenc::AdamWOptions& o) { o.beta1 = 1.0f; }), "beta1"));
  EXPECT_TRUE(contains(bad([](posenc::AdamWOptions& o) { o.beta2 = -0.1f; }), "beta2"));
  EXPECT_TRUE(contains(bad([](posenc::AdamWOptions& o) { o.eps = 0.0f; }), "eps"));
  EXPECT_TRUE(contains(bad([](posenc::AdamWOptions& o) { o.weight_decay = -1.0f; }), "weightDecay"));
  EXPECT_TRUE(contains(bad([](posenc::AdamWOptions& o) { o.grad_clip = NAN; }), "gradClip"));
  EXPECT_TRUE(contains(error_of([&] { m.train_step(tok.data(), tok.data(), 1, 8, -1.0f); }), "lr"));
  // refused before touching anything
  EXPECT_EQ(std::memcmp(before.data(), m.parameters(), 4 * before.size()), 0);
  EXPECT_EQ(m.step(), 0);
}

TEST(model_optimizer, ClipScalesToTheGlobalNorm) {
  Model m(small_config(posenc::parse_encoding("rope")));
  const auto tok = random_tokens(16, 11, 14);
  m.forward_backward(tok.data(), tok.data(), 2, 8);
  const float norm = m.gradient_norm();
  ASSERT_GT(norm, 0.01f);
  EXPECT_EQ(m.clip_gradients(10 * norm), norm);  // below the limit: untouched
  EXPECT_NEAR(m.gradient_norm(), norm, 1e-6 * norm);
  EXPECT_NEAR(m.clip_gradients(norm / 4), norm, 1e-6 * norm);
  EXPECT_NEAR(m.gradient_norm(), norm / 4, 1e-4 * norm);
  // train_step reports the norm before clipping
  m.optimizer_options().grad_clip = 1e-3f;
  const auto r = m.train_step(tok.data(), tok.data(), 2, 8, 1e-3f);
  EXPECT_GT(r.grad_norm, 1e-3f);
}

// ---------------------------------------------------------------------------
// Tasks

TEST(model_tasks, CopyLayoutAndTargets) {
  posenc::TaskOptions o;
  o.symbols = 5;
  EXPECT_EQ(posenc::task_vocab_size(o), 8);
  posenc::TaskGenerator g(o, 1);
  for (int T : {4, 9, 10, 64}) {
    std::vector<int32_t> tok(3 * T), tgt(3 * T);
    g.sample(3, T, tok.data(), tgt.data());
    const int h = (T - 2) / 2;
    for (int b = 0; b < 3; ++b) {
      const int32_t* x = tok.data() + b * T;
      const int32_t* y = tgt.data() + b * T;
      EXPECT_EQ(x[0], posenc::kTokenBos);
      EXPECT_EQ(x[h + 1], posenc::kTokenSep);
      int scored = 0;
      for (int i = 1; i <= h; ++i) {
        EXPECT_GE(x[i], posenc::kFirstSymbol);
        EXPECT_LT(x[i], posenc::kFirstSymbol + 5);
        EXPECT_EQ(x[h + 1 + i], x[i]);
      }
      for (int t = 2 * h + 2; t < T; ++t) EXPECT_EQ(x[t], posenc::kTokenPad);
      for (int t = 0; t < T; ++t)
        if (y[t] >= 0) {
          ++scored;
          EXPECT_EQ(y[t], x[t + 1]);
          EXPECT_GE(t, h + 1);
        }
      EXPECT_EQ(scored, h);
    }
  }
  std::vector<int32_t> tok(3), tgt(3);
  EXPECT_TRUE(contains(error_of([&] { g.sample(1, 3, tok.data(), tgt.data()); }), "T must be"));
  o.symbols = 0;
  EXPECT_TRUE(contains(error_of([&] { posenc::TaskGenerator bad(o, 1); }), "symbols"));
}

TEST(model_tasks, SeededAndDeterministic) {
  posenc::TaskOptions o;
  o.variable_length = true;
  posenc::TaskGenerator a(o, 5), b(o, 5), c(o, 6);
  std::vector<int32_t> ta(8 * 20), ya(ta.size()), tb(ta.size()), yb(ta.size()), tc(ta.size()), yc(ta.size());
  a.sample(8, 20, ta.data(), ya.data());
  b.sample(8, 20, tb.data(), yb.data());
  c.sample(8, 20, tc.data(), yc.data());
  EXPECT_EQ(ta, tb);
  EXPECT_EQ(ya, yb);
  EXPECT_NE(ta, tc);
  // variable length: prefixes of several lengths
  std::vector<int> seps;
  for (int s = 0; s < 8; ++s)
    for (int t = 0; t < 20; ++t)
      if (ta[s * 20 + t] == posenc::kTokenSep) seps.push_back(t);
  std::sort(seps.begin(), seps.end());
  EXPECT_GT(std::unique(seps.begin(), seps.end()) - seps.begin(), 2);
}

// ---------------------------------------------------------------------------
// Training

struct TrainResult {
  float first_loss, last_loss, last_acc;
  std::vector<float> weights;
};

TrainResult train_copy(Encoding e, uint64_t model_seed, uint64_t data_seed, int steps) {
  posenc::TaskOptions to;
  to.symbols = 8;
  ModelConfig c;
  c.encoding = e;
  c.vocab_size = posenc::task_vocab_size(to);
  c.d_model = 32;
  c.max_length = 24;
  c.seed = model_seed;
  Model m(c);
  posenc::TaskGenerator g(to, data_seed);
  const int B = 8, T = 24;
  std::vector<int32_t> tok(B * T), tgt(B * T);
  TrainResult r{};
  for (int s = 0; s < steps; ++s) {
    g.sample(B, T, tok.data(), tgt.data());
    const auto res = m.train_step(tok.data(), tgt.data(), B, T, posenc::lr_at(s, steps, 20, 3e-3f, 3e-4f));
    if (s == 0) r.first_loss = res.loss;
  }
  std::vector<int32_t> etok(64 * T), etgt(64 * T);
  posenc::TaskGenerator held(to, data_seed + 1000);
  held.sample(64, T, etok.data(), etgt.data());
  const auto ev = m.evaluate(etok.data(), etgt.data(), 64, T);
  r.last_loss = ev.loss;
  r.last_acc = ev.accuracy;
  r.weights.assign(m.parameters(), m.parameters() + m.num_parameters());
  return r;
}

// forward_backward runs a batch as micro-batches of sequences sorted by how far their targets reach
// (model.cpp): its loss and gradients are the scored-weighted mean of each sequence's own, computed
// alone at the batch's T (the batch with every other sequence's targets -1, so that sequence keeps
// its index: random positions are drawn per example index), for every encoding.
TEST(model_training, MicroBatchedGradientsAreTheWholeBatchs) {
  const int B = 21, T = 12;  // micro-batches of 8, 8 and 5 (one sequence has no target)
  posenc::TaskOptions to;
  to.kind = posenc::TaskKind::Copy;
  to.variable_length = true;
  posenc::TaskGenerator g(to, 4);
  std::vector<int32_t> tok(B * T), tgt(B * T);
  g.sample(B, T, tok.data(), tgt.data());
  std::fill(tgt.begin() + 5 * T, tgt.begin() + 6 * T, -1);
  for (Encoding e : kAllEncodings) {
    Model m(small_config(e));
    const auto whole = m.forward_backward(tok.data(), tgt.data(), B, T);
    const std::vector<float> gw(m.gradients(), m.gradients() + m.num_parameters());
    std::vector<double> ref(gw.size(), 0.0);
    double loss = 0;
    int scored = 0;
    for (int b = 0; b < B; ++b) {
      std::vector<int32_t> only(B * T, -1);
      std::copy(tgt.begin() + b * T, tgt.begin() + (b + 1) * T, only.begin() + b * T);
      const auto one = m.forward_backward(tok.data(), only.data(), B, T);
      for (std::size_t i = 0; i < ref.size(); ++i) ref[i] += static_cast<double>(m.gradients()[i]) * one.scored;
      loss += static_cast<double>(one.loss) * one.scored;
      scored += one.scored;
    }
    ASSERT_EQ(scored, whole.scored) << posenc::encoding_name(e);
    EXPECT_NEAR(whole.loss, loss / scored, 1e-5) << posenc::encoding_name(e);
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      worst = std::max(worst, std::abs(gw[i] - ref[i] / scored));
      largest = std::max(largest, std::abs(ref[i] / scored));
    }
    EXPECT_GT(largest, 1e-3) << posenc::encoding_name(e);
    EXPECT_LT(worst, 1e-5 * largest + 1e-8) << posenc::encoding_name(e) << ": largest gradient " << largest;
    EXPECT_EQ(m.trained_length(), T);
  }
}

TEST(model_training, LossFallsOnCopy) {
  const TrainResult r = train_copy(posenc::parse_encoding("rope"), 1, 2, 200);
  EXPECT_NEAR(r.first_loss, std::log(11.0), 0.3);
  EXPECT_LT(r.last_loss, 0.5f * r.first_loss) << "first " << r.first_loss << " last " << r.last_loss;
  EXPECT_GT(r.last_acc, 0.5f);
}

TEST(model_training, DeterministicAndSeedSensitive) {
  for (Encoding e : {posenc::parse_encoding("rope"), posenc::parse_encoding("t5"), posenc::parse_encoding("shaw"), posenc::parse_encoding("learned")}) {
    const TrainResult a = train_copy(e, 3, 4, 15), b = train_copy(e, 3, 4, 15);
    ASSERT_EQ(a.weights.size(), b.weights.size());
    EXPECT_EQ(std::memcmp(a.weights.data(), b.weights.data(), 4 * a.weights.size()), 0) << posenc::encoding_name(e);
    const TrainResult c = train_copy(e, 5, 4, 15);  // other init seed
    EXPECT_NE(std::memcmp(a.weights.data(), c.weights.data(), 4 * a.weights.size()), 0);
    const TrainResult d = train_copy(e, 3, 6, 15);  // other data seed
    EXPECT_NE(std::memcmp(a.weights.data(), d.weights.data(), 4 * a.weights.size()), 0);
  }
}

}  // namespace
