// Gradient check: every parameter tensor of the model, for every encoding,
// against central finite differences of the loss. Runs for the SIMD and the
// scalar build.
//
// The model is tiny (L=2, H=2, d=8, V=7, T=6, B=2; and T=37 for a few cases) and its parameters are
// re-drawn at a larger scale than the GPT-2 init (N(0, 0.3); LayerNorm gains
// 1 + N(0, 0.2)), so attention is far from uniform and every path carries a
// gradient well above the finite-difference noise. The loss of the perturbed
// models is recomputed in double from the float logits.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <cmath>
#include <string>
#include <vector>

#include "posenc/model.hpp"
#include "test_util.hpp"
#include "posenc/rng.hpp"

namespace {

using posenc::Encoding;
using posenc::Model;
using posenc::ModelConfig;

struct GradCase {
  std::string name;
  Encoding encoding;
  posenc::RopeLayout layout = posenc::RopeLayout::Half;
  int rotary_dim = 0;
  posenc::OutOfRange policy = posenc::OutOfRange::Error;
  int max_length = 6;
  int T = 6;  // > 16 crosses the model's causal blocks (several row blocks of 16)
  int B = 2;
  int unscored_prefix = 0;  // targets -1 before it (sequence 1: 3 more), as in the copy task: the
                            // last layer then runs only the queries from the first scored position
  // Every tensor must get a gradient well above the checker's floor. The registry's long and
  // prefix cases waive it (their short case checks it): a bias MLP's gradient can sit below it.
  bool require_gradient = true;
};

void PrintTo(const GradCase& c, std::ostream* os) { *os << c.name; }

constexpr int kV = 7;

ModelConfig tiny_config(const GradCase& c) {
  ModelConfig cfg;
  cfg.encoding = c.encoding;
  cfg.layers = 2;
  cfg.heads = 2;
  cfg.d_model = 8;
  cfg.mlp_ratio = 4;
  cfg.vocab_size = kV;
  cfg.max_length = c.max_length;
  cfg.seed = 11;
  cfg.rope_layout = c.layout;
  cfg.rotary_dim = c.rotary_dim;
  cfg.t5_num_buckets = 4;  // 2 exact buckets (distances 0, 1), then log buckets: all kinds used at T = 6
  cfg.t5_max_distance = 5;
  cfg.shaw_k = 2;          // distances 3..5 clip to the last embedding
  cfg.learned_policy = c.policy;
  return cfg;
}

void randomize(Model& m, uint64_t seed) {
  posenc::Rng rng(seed);
  float* p = m.parameters();
  for (const auto& t : m.tensors()) {
    const bool gain = t.name.find("ln") != std::string::npos && t.name.find(".weight") != std::string::npos;
    // SSMax's scale s of the scores: around its start 1 / log(max_length), not 0 (at s = 0 attention is flat)
    const bool ssmax = t.name.find("ssmax") != std::string::npos;
    for (std::size_t i = 0; i < t.size; ++i)
      p[t.offset + i] = static_cast<float>(gain ? 1.0 + 0.2 * rng.normal() : ssmax ? 1.0 / std::log(m.config().max_length) + 0.3 * rng.normal() : 0.3 * rng.normal());
  }
}

struct Batch {
  int B, T;
  std::vector<int32_t> tokens, targets;
};
Batch make_batch(uint64_t seed, int B, int T, int unscored_prefix) {
  posenc::Rng rng(seed);
  Batch b{B, T, {}, {}};
  for (int i = 0; i < B * T; ++i) {
    b.tokens.push_back(static_cast<int32_t>(rng.below(kV)));
    // about a quarter of the positions are not scored
    b.targets.push_back(rng.below(4) == 0 ? -1 : static_cast<int32_t>(rng.below(kV)));
  }
  if (unscored_prefix > 0)
    for (int s = 0; s < B; ++s)
      for (int t = 0; t < T; ++t) {
        if (t < std::min(T - 1, unscored_prefix + 3 * s)) b.targets[s * T + t] = -1;
        else if (b.targets[s * T + t] < 0) b.targets[s * T + t] = t % kV;  // everything after it is scored
      }
  return b;
}

// Mean cross-entropy over scored positions, in double, from forward()'s logits.
double loss_double(Model& m, const Batch& b, const posenc::ForwardOptions& o = {}) {
  const float* logits = m.forward(b.tokens.data(), b.B, b.T, o);
  double sum = 0;
  int n = 0;
  for (int i = 0; i < b.B * b.T; ++i) {
    if (b.targets[i] < 0) continue;
    const float* l = logits + static_cast<std::size_t>(i) * kV;
    double mx = l[0];
    for (int v = 1; v < kV; ++v) mx = std::max(mx, double(l[v]));
    double z = 0;
    for (int v = 0; v < kV; ++v) z += std::exp(double(l[v]) - mx);
    sum += std::log(z) + mx - double(l[b.targets[i]]);
    ++n;
  }
  return sum / n;
}

struct Mismatch {
  std::string tensor;
  std::size_t index;
  double analytic, numeric;
};

constexpr double kEps = 3e-3;  // finite-difference step (error ~0.2% on gradients > 1e-2; 1e-3: ~0.8%)
constexpr double kRel = 1e-2;  // relative tolerance
constexpr double kAbs = 1e-4;  // absolute floor: float forward noise / eps

// Checks `analytic` (a copy of the gradient buffer) against central differences on
// up to `per_tensor` entries of every tensor (always including its largest-gradient
// entry). Returns the mismatches; `largest` gets each tensor's largest |gradient|.
std::vector<Mismatch> check_gradients(Model& m, const Batch& b, const std::vector<float>& analytic, int per_tensor,
                                      std::vector<double>* largest = nullptr, const posenc::ForwardOptions& o = {}) {
  std::vector<Mismatch> bad;
  posenc::Rng pick(5);
  float* p = m.parameters();
  for (const auto& t : m.tensors()) {
    std::vector<std::size_t> entries;
    std::size_t arg = 0;
    for (std::size_t i = 1; i < t.size; ++i)
      if (std::fabs(analytic[t.offset + i]) > std::fabs(analytic[t.offset + arg])) arg = i;
    entries.push_back(arg);
    if (largest) largest->push_back(std::fabs(analytic[t.offset + arg]));
    for (int s = 1; s < per_tensor && static_cast<std::size_t>(s) < t.size; ++s)
      entries.push_back(pick.below(static_cast<uint32_t>(t.size)));
    for (std::size_t i : entries) {
      float& w = p[t.offset + i];
      const float saved = w;
      w = static_cast<float>(saved + kEps);
      const double up = loss_double(m, b, o);
      w = static_cast<float>(saved - kEps);
      const double down = loss_double(m, b, o);
      w = saved;
      // the step actually taken in float
      const double h = (double(static_cast<float>(saved + kEps)) - double(static_cast<float>(saved - kEps)));
      const double numeric = (up - down) / h;
      const double a = analytic[t.offset + i];
      if (std::fabs(a - numeric) > kRel * std::max(std::fabs(a), std::fabs(numeric)) + kAbs)
        bad.push_back({t.name, i, a, numeric});
    }
  }
  return bad;
}

// The attention logit scale (ForwardOptions::attention_logit_scale) is part of the function the backward
// differentiates: with a scale of 1.7 every tensor still matches finite differences of the scaled loss, for an
// encoding with no bias (RoPE) and one with a per-distance bias that the scale leaves alone (ALiBi).
// The tiny model of encoding e against finite differences with options o, which must change the function
// (its loss moves by more than `moves` from the loss without them).
void expect_gradients_with(Encoding e, const posenc::ForwardOptions& o, double moves) {
  GradCase c{"options", e};
  Model m(tiny_config(c));
  randomize(m, 3);
  const Batch b = make_batch(4, c.B, c.T, 0);
  const posenc::LossResult r = m.forward_backward(b.tokens.data(), b.targets.data(), b.B, b.T, o);
  EXPECT_NEAR(r.loss, loss_double(m, b, o), 1e-5);
  EXPECT_GT(std::fabs(loss_double(m, b, o) - loss_double(m, b)), moves) << posenc::encoding_name(e);
  const std::vector<float> analytic(m.gradients(), m.gradients() + m.num_parameters());
  for (const auto& x : check_gradients(m, b, analytic, 8, nullptr, o))
    ADD_FAILURE() << posenc::encoding_name(e) << ": " << x.tensor << "[" << x.index << "] analytic " << x.analytic
                  << " numeric " << x.numeric;
}

TEST(ModelGradientLogitScale, EveryTensorMatchesFiniteDifferencesWithAScale) {
  posenc::ForwardOptions o;
  o.attention_logit_scale = 1.7f;
  for (Encoding e : {posenc::parse_encoding("rope"), posenc::parse_encoding("alibi")}) expect_gradients_with(e, o, 1e-3);
}

// Per-example lengths (ForwardOptions::lengths) choose each example's randomized positions: with
// lengths {6, 3} every tensor still matches finite differences, and the lengths change the function.
TEST(ModelGradientLengths, RandomizedPositionsMatchFiniteDifferencesWithLengths) {
  const int32_t lengths[2] = {6, 3};
  posenc::ForwardOptions o;
  o.lengths = lengths;
  for (Encoding e : {posenc::parse_encoding("rope_random"), posenc::parse_encoding("learned_random")}) expect_gradients_with(e, o, 1e-4);
}

// Bidirectional attention (ModelConfig::causal false): every tensor matches finite differences, for
// every encoding that accepts it, short, over several row blocks (T 37) and with an unscored prefix
// (the last layer runs only its later queries, which still read every key).
TEST(ModelGradientBidirectional, EveryTensorMatchesFiniteDifferencesWithoutTheMask) {
  int checked = 0;
  for (Encoding e : all_encodings())
    for (const auto& [T, prefix] : {std::pair{6, 0}, std::pair{37, 0}, std::pair{6, 2}}) {
      GradCase c{"bidirectional", e, posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, T, T, 2, prefix};
      ModelConfig cfg = tiny_config(c);
      cfg.causal = false;
      if (e == posenc::parse_encoding("t5") || e == posenc::parse_encoding("shaw") || e == posenc::parse_encoding("fire") || e == posenc::parse_encoding("xpos")) {
        ExpectError([&] { Model refused(cfg); }, posenc::ErrorKind::Range, "causal = false");
        continue;
      }
      Model m(cfg);
      randomize(m, 3);
      const Batch b = make_batch(4, c.B, c.T, c.unscored_prefix);
      const posenc::LossResult r = m.forward_backward(b.tokens.data(), b.targets.data(), b.B, b.T);
      EXPECT_NEAR(r.loss, loss_double(m, b), 1e-5) << posenc::encoding_name(e) << " T " << T;
      const std::vector<float> analytic(m.gradients(), m.gradients() + m.num_parameters());
      for (const auto& x : check_gradients(m, b, analytic, T > 6 ? 3 : 8))
        ADD_FAILURE() << posenc::encoding_name(e) << " T " << T << " prefix " << prefix << ": " << x.tensor << "["
                      << x.index << "] analytic " << x.analytic << " numeric " << x.numeric;
      ++checked;
    }
  EXPECT_GE(checked, 3 * 7);
}

class ModelGradient : public ::testing::TestWithParam<GradCase> {};

TEST_P(ModelGradient, EveryTensorMatchesFiniteDifferences) {
  const GradCase& c = GetParam();
  Model m(tiny_config(c));
  randomize(m, 3);
  const Batch b = make_batch(4, c.B, c.T, c.unscored_prefix);
  const posenc::LossResult r = m.forward_backward(b.tokens.data(), b.targets.data(), b.B, b.T);
  ASSERT_GT(r.scored, 0);
  // forward_backward's loss is the same function the finite differences probe
  EXPECT_NEAR(r.loss, loss_double(m, b), 1e-5);
  const std::vector<float> analytic(m.gradients(), m.gradients() + m.num_parameters());

  std::vector<double> largest;
  const auto bad = check_gradients(m, b, analytic, 8, &largest);
  for (const auto& x : bad)
    ADD_FAILURE() << c.name << ": " << x.tensor << "[" << x.index << "] analytic " << x.analytic << " numeric "
                  << x.numeric;
  // Every tensor gets a real gradient (so the check above is not vacuous).
  for (std::size_t i = 0; i < m.tensors().size(); ++i)
    if (c.require_gradient || largest[i] == 0.0)
      EXPECT_GT(largest[i], 20 * kAbs) << c.name << ": tensor " << m.tensors()[i].name << " has no gradient";
}

// The checker must notice a wrong backward: a 5% error in one entry of any tensor
// is flagged (here: each tensor's largest-gradient entry, one at a time).
TEST_P(ModelGradient, CheckerDetectsAWrongGradient) {
  const GradCase& c = GetParam();
  Model m(tiny_config(c));
  randomize(m, 3);
  const Batch b = make_batch(4, c.B, c.T, c.unscored_prefix);
  m.forward_backward(b.tokens.data(), b.targets.data(), b.B, b.T);
  const std::vector<float> analytic(m.gradients(), m.gradients() + m.num_parameters());
  for (const auto& t : m.tensors()) {
    std::vector<float> wrong = analytic;
    std::size_t arg = 0;
    for (std::size_t i = 1; i < t.size; ++i)
      if (std::fabs(analytic[t.offset + i]) > std::fabs(analytic[t.offset + arg])) arg = i;
    // (a 5% error must stand out of the checker's absolute floor kAbs)
    if (!c.require_gradient && std::fabs(analytic[t.offset + arg]) < 100 * kAbs) continue;
    wrong[t.offset + arg] *= 1.05f;
    const auto bad = check_gradients(m, b, wrong, 1);
    ASSERT_EQ(bad.size(), 1u) << c.name << ": corrupting " << t.name << " was not detected";
    EXPECT_EQ(bad[0].tensor, t.name);
  }
}

const GradCase kCases[] = {
    {"none", posenc::parse_encoding("none")},
    {"sinusoidal", posenc::parse_encoding("sinusoidal")},
    {"learned", posenc::parse_encoding("learned")},
    {"learned_clamp", posenc::parse_encoding("learned"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Clamp, 4},
    {"learned_zero", posenc::parse_encoding("learned"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Zero, 4},
    {"t5", posenc::parse_encoding("t5")},
    {"alibi", posenc::parse_encoding("alibi")},
    {"rope_interleaved", posenc::parse_encoding("rope"), posenc::RopeLayout::Interleaved},
    {"rope_half", posenc::parse_encoding("rope"), posenc::RopeLayout::Half},
    {"rope_half_partial", posenc::parse_encoding("rope"), posenc::RopeLayout::Half, 2},
    {"rope_interleaved_partial", posenc::parse_encoding("rope"), posenc::RopeLayout::Interleaved, 2},
    {"shaw", posenc::parse_encoding("shaw")},
    // longer sequences: attention runs over several causal blocks
    {"rope_half_T37", posenc::parse_encoding("rope"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 1},
    {"t5_T37", posenc::parse_encoding("t5"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 1},
    {"shaw_T37", posenc::parse_encoding("shaw"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 1},
    {"alibi_T37", posenc::parse_encoding("alibi"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 1},
    // unscored prefixes (copy-like targets): the last layer skips the queries before them
    {"none_prefix", posenc::parse_encoding("none"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 6, 6, 2, 3},
    {"learned_prefix", posenc::parse_encoding("learned"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 6, 6, 2, 2},
    {"sinusoidal_prefix", posenc::parse_encoding("sinusoidal"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 6, 6, 2, 1},
    {"rope_interleaved_T37_prefix", posenc::parse_encoding("rope"), posenc::RopeLayout::Interleaved, 0, posenc::OutOfRange::Error,
     37, 37, 2, 19},
    {"t5_T37_prefix", posenc::parse_encoding("t5"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 2, 19},
    {"shaw_T37_prefix", posenc::parse_encoding("shaw"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 2, 19},
    {"alibi_T37_prefix", posenc::parse_encoding("alibi"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 2, 33},
    {"ssmax_T16", posenc::parse_encoding("ssmax"), posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 16, 16, 2},
};

// Every registered encoding with its defaults: short, over several causal blocks, and with an
// unscored prefix: a new encoding is gradient-checked without an edit here.
std::vector<GradCase> registry_cases() {
  std::vector<GradCase> out;
  for (Encoding e : all_encodings()) {
    const std::string n = posenc::encoding_name(e);
    // (SSMax's last-layer scale gets a gradient of only ~1e-3 at T = 6, below the floor though it matches the finite
    // differences; its floor is checked at T = 16, ssmax_T16 below.)
    out.push_back({"registry_" + n, e, posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 6, 6, 2, 0,
                   e != posenc::parse_encoding("ssmax")});
    out.push_back({"registry_" + n + "_T37", e, posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 37, 37, 2, 0,
                   false});
    out.push_back(
        {"registry_" + n + "_prefix", e, posenc::RopeLayout::Half, 0, posenc::OutOfRange::Error, 6, 6, 2, 2, false});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(registry, ModelGradient, ::testing::ValuesIn(registry_cases()),
                         [](const ::testing::TestParamInfo<GradCase>& i) { return i.param.name; });
INSTANTIATE_TEST_SUITE_P(model, ModelGradient, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GradCase>& i) { return i.param.name; });

}  // namespace
