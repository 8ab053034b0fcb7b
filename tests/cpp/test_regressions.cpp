// Regressions found by the libFuzzer targets (tests/fuzz). Each test names the
// input that crashed, kept in tests/fuzz/regressions/<target>/ and replayed by
// the fuzz.<target>.regressions CTest test of the sanitizer build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "posenc/checkpoint.hpp"
#include "posenc/model.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "lm_test_util.hpp"
#include "test_util.hpp"

namespace {

using posenc::ErrorKind;
using posenc::RopeApplyOptions;

// fuzz_encodings/rope-frequencies-huge-dim: rope_frequencies(dim = 2^31 - 2) tried to
// allocate 8 GB (dim alone sizes its result; every other entry point writes into a
// caller's buffer). Now bounded like the JS API.
TEST(fuzz_regressions, RopeFrequenciesRefusesHugeDim) {
  const posenc::RopeScaling none;
  ExpectError([&] { posenc::rope_frequencies(INT_MAX - 1, 1e4, none, std::nullopt); }, ErrorKind::Range,
              "dim must be an even integer in [2, 65536] (got 2147483646)");
  ExpectError([&] { posenc::rope_frequencies(65538, 1e4, none, std::nullopt); }, ErrorKind::Range, "dim");
  EXPECT_EQ(posenc::rope_frequencies(65536, 1e4, none, std::nullopt).inv_freq.size(), 32768u);
}

// fuzz_encodings/rope-attention-scale-past-float: attention_scale = DBL_MAX passed the
// "finite > 0" check, became +inf as the float that scales the tables, and sin(0) * inf
// gave NaN. Both rope_frequencies and apply_rope now keep the scale within float range.
TEST(fuzz_regressions, RopeAttentionScaleMustFitInFloat) {
  const std::vector<double> inv = {1.0, 0.1};
  std::vector<float> x(4, 1.0f), out(4);
  RopeApplyOptions o;
  o.length = 1, o.dim = 4, o.rotary_dim = 4, o.inv_freq = inv.data();
  o.attention_scale = DBL_MAX;
  ExpectError([&] { posenc::apply_rope(o, x.data(), out.data()); }, ErrorKind::Range, "attention_scale");
  o.attention_scale = 1e39;
  ExpectError([&] { posenc::apply_rope(o, x.data(), out.data()); }, ErrorKind::Range, "attention_scale");
  o.attention_scale = FLT_MAX;  // the largest allowed: tables hold FLT_MAX * cos/sin, all finite
  std::vector<float> c(2), s(2);
  posenc::rope_tables(o, c.data(), s.data());
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(std::isfinite(c[i]) && std::isfinite(s[i]));

  posenc::RopeScaling yarn;  // the same scale reached through HF's yarn attention_factor
  yarn.type = posenc::parse_rope_type("yarn");
  yarn.factor = 4.0;
  yarn.original_max_position_embeddings = 2048;
  yarn.attention_factor = 1e300;
  ExpectError([&] { posenc::rope_frequencies(8, 1e4, yarn, std::nullopt); }, ErrorKind::Range, "rope_scaling");
}

// Largest |cos^2 + sin^2 - scale^2| over a table.
double pythagoras_error(const std::vector<float>& c, const std::vector<float>& s, double scale) {
  double worst = 0;
  for (std::size_t k = 0; k < c.size(); ++k)
    worst = std::max(worst, std::fabs(double(c[k]) * c[k] + double(s[k]) * s[k] - scale * scale));
  return worst;
}

// fuzz_encodings/rope-huge-angle-outside-pi: an angle p*w = 2.5e305 (w = 1e300, a finite
// frequency a tiny linear factor produces) left the quick reduction far outside [-pi, pi]
// (tables beyond the scale), and a + pi/2 == a made "cos" equal sin, so the rotation was
// no rotation. Angles past 2^32 are now reduced exactly and cos derived from the same angle.
TEST(fuzz_regressions, RopeAnglesPastTwoToThe32StayARotation) {
  // (The crash had w = 1e300 at position 251380; 1e298 keeps w times position 2e9 finite.)
  const std::vector<double> inv = {1.0, 1e298, 0.00215443, 1e7};
  const std::vector<int32_t> pos = {251380, 0, 2000000000, 1000000};
  RopeApplyOptions o;
  o.length = 4, o.dim = 8, o.rotary_dim = 8, o.inv_freq = inv.data(), o.positions = pos.data();
  o.attention_scale = 915.514;
  std::vector<float> c(16), s(16);
  posenc::rope_tables(o, c.data(), s.data());
  for (std::size_t k = 0; k < c.size(); ++k) {
    EXPECT_LE(std::fabs(c[k]), o.attention_scale * (1 + 1e-6)) << k;
    EXPECT_LE(std::fabs(s[k]), o.attention_scale * (1 + 1e-6)) << k;
  }
  EXPECT_LT(pythagoras_error(c, s, o.attention_scale), 1e-5 * o.attention_scale * o.attention_scale);
  // Below 2^32 nothing changed: position 2e9 at w = 2.15e-3 is still sin/cos of that angle.
  const double a = 2e9 * 0.00215443;
  EXPECT_NEAR(s[2 * 4 + 2] / o.attention_scale, std::sin(a), 2e-6);
  EXPECT_NEAR(c[2 * 4 + 2] / o.attention_scale, std::cos(a), 2e-6);
}

// The same input family one step further: p * w overflowing a double (w = 1e300 at
// position 2e9) has no angle at all; apply_rope now refuses it instead of writing NaN.
TEST(fuzz_regressions, RopeAngleOverflowIsRefused) {
  const std::vector<double> inv = {1.0, 1e300};
  const std::vector<int32_t> pos = {2000000000};
  std::vector<float> x(4, 1.0f), out(4);
  RopeApplyOptions o;
  o.length = 1, o.dim = 4, o.rotary_dim = 4, o.inv_freq = inv.data(), o.positions = pos.data();
  ExpectError([&] { posenc::apply_rope(o, x.data(), out.data()); }, ErrorKind::Range,
              "inv_freq[1] must be a finite number >= 0 whose angle at position 2000000000 is finite");
  o.positions = nullptr;  // positions 0..0: the same frequency is fine
  posenc::apply_rope(o, x.data(), out.data());
  for (float v : out) EXPECT_TRUE(std::isfinite(v));
}

// fuzz_model/shaw-k-overflow-without-shaw, fuzz_checkpoint/shaw-k-overflow-without-shaw:
// shaw_k is only validated for encoding 'shaw', but the model computed 2 * shaw_k + 1 for
// every encoding: shaw_k = INT_MAX overflowed (undefined behaviour; fatal under UBSan,
// which is how the sanitizer build of this test fails without the fix). Also reachable
// from a checkpoint file.
TEST(fuzz_regressions, ShawKIgnoredWithoutShaw) {
  posenc::ModelConfig c;
  c.encoding = posenc::parse_encoding("rope");
  c.layers = 1, c.heads = 2, c.d_model = 8, c.vocab_size = 5, c.max_length = 8;
  c.shaw_k = INT_MAX;
  posenc::Model m(c);
  const std::vector<int32_t> tokens = {1, 2, 3, 4};
  const float* logits = m.forward(tokens.data(), 1, 4);
  for (int i = 0; i < 4 * 5; ++i) EXPECT_TRUE(std::isfinite(logits[i]));
  const std::vector<uint8_t> bytes = posenc::save_checkpoint(m);
  posenc::Model again = posenc::load_checkpoint(bytes.data(), bytes.size());
  EXPECT_EQ(again.config().shaw_k, INT_MAX);
  EXPECT_EQ(posenc::save_checkpoint(again), bytes);
}

// fuzz_model/train-step-diverged-nan-gradient: after one step at lr 50, a 13-layer model's
// gradients overflowed float (1e38 by layer 1, then inf - inf) while its loss was still
// finite, and AdamW turned every weight into NaN without a word. train_step now refuses a
// step whose gradient norm is not finite and leaves the weights as they were.
TEST(fuzz_regressions, DivergedTrainStepIsRefused) {
  posenc::ModelConfig c;
  c.encoding = posenc::parse_encoding("shaw");
  c.layers = 3, c.heads = 1, c.d_model = 4, c.vocab_size = 5, c.max_length = 8, c.shaw_k = 2;
  posenc::Model m(c);
  std::fill(m.parameters(), m.parameters() + m.num_parameters(), 1e19f);  // products overflow float
  const std::vector<float> before(m.parameters(), m.parameters() + m.num_parameters());
  const std::vector<int32_t> tokens = {1, 2, 3, 4}, targets = {2, 3, 4, 0};
  ExpectError([&] { m.train_step(tokens.data(), targets.data(), 1, 4, 1e-3f); }, ErrorKind::Range,
              "training diverged: the gradient norm is");
  EXPECT_EQ(std::vector<float>(m.parameters(), m.parameters() + m.num_parameters()), before);
  EXPECT_EQ(m.step(), 0);
  // A sane model still trains.
  posenc::Model fresh(c);
  EXPECT_TRUE(std::isfinite(fresh.train_step(tokens.data(), targets.data(), 1, 4, 1e-3f).grad_norm));
  EXPECT_EQ(fresh.step(), 1);
}

// fuzz_model/nan-weights-after-huge-lr: train_step accepted any finite lr; at lr ~1e38 one
// AdamW step moved every weight by ~1e38, the next forward overflowed, and the sweep that
// followed reported NaN attention statistics. The core now takes the JS API's bound.
TEST(fuzz_regressions, HugeLearningRateIsRefused) {
  posenc::ModelConfig c;
  c.encoding = posenc::parse_encoding("rope");
  c.layers = 1, c.heads = 2, c.d_model = 8, c.vocab_size = 5, c.max_length = 8;
  posenc::Model m(c);
  const std::vector<float> before(m.parameters(), m.parameters() + m.num_parameters());
  const std::vector<int32_t> tokens = {1, 2, 3, 4}, targets = {2, 3, 4, 0};
  ExpectError([&] { m.train_step(tokens.data(), targets.data(), 1, 4, 1e38f); }, ErrorKind::Range,
              "lr must be a finite number in [0, 10] (got 9.9999996802856925e+37)");
  ExpectError([&] { m.adamw_update(10.5f); }, ErrorKind::Range, "lr must be a finite number in [0, 10]");
  EXPECT_EQ(std::vector<float>(m.parameters(), m.parameters() + m.num_parameters()), before);
  m.train_step(tokens.data(), targets.data(), 1, 4, posenc::kMaxLearningRate);  // the bound itself is allowed
  EXPECT_EQ(m.step(), 1);
}

// fuzz_checkpoint/rope-random-maxlength-past-randomlength (and its learned_random twin): a
// rope_random checkpoint with maxLength 8 and randomLength 4 loaded, then refused a forward at
// T = 5, within its maxLength. A randomized encoding now refuses, at creation and at load, a
// maxLength past the range its positions are sampled from; within randomLength it runs.
TEST(fuzz_regressions, RandomizedEncodingRefusesMaxLengthPastRandomLength) {
  for (posenc::Encoding e : {posenc::parse_encoding("rope_random"), posenc::parse_encoding("learned_random")}) {
    posenc::ModelConfig c;
    c.encoding = e;
    c.layers = 1, c.heads = 1, c.d_model = 2, c.mlp_ratio = 1, c.vocab_size = 2;
    c.max_length = 8, c.random_length = 4;
    ExpectError([&] { posenc::Model m(c); }, ErrorKind::Range,
                "maxLength = 8 exceeds randomLength = 4: positions are sampled from [0, randomLength)");
    c.max_length = 4;  // equal is allowed, and every length up to randomLength runs
    posenc::Model m(c);
    const std::vector<int32_t> tokens = {1, 0, 1, 0, 1};
    m.forward(tokens.data(), 1, 4);
    ExpectError([&] { m.forward(tokens.data(), 1, 5); }, ErrorKind::Range, "exceeds randomLength = 4");
  }
  const std::filesystem::path dir = std::filesystem::path(posenc::lm::test::source_dir()) / "tests/fuzz/regressions/fuzz_checkpoint";
  for (const char* name : {"rope-random-maxlength-past-randomlength", "learned-random-maxlength-past-randomlength"}) {
    std::ifstream in(dir / name, std::ios::binary);
    const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(file.size(), 1u) << name;
    // byte 0 is the fuzz target's mode byte (0: the bytes as they are)
    ExpectError([&] { posenc::load_checkpoint(file.data() + 1, file.size() - 1); }, ErrorKind::Range,
                "maxLength = 8 exceeds randomLength = 4");
  }
}

// Issue 26: a checkpoint could carry a seed past 2^53 - 1, which the JS API (a Number) printed as
// 9079256848795697000 and could not save back. The core takes seeds in [0, 2^53 - 1], at creation and
// at load; the bound itself round-trips.
TEST(fuzz_regressions, SeedsAreBoundedTo53Bits) {
  posenc::ModelConfig c;
  c.encoding = posenc::parse_encoding("rope");
  c.layers = 1, c.heads = 1, c.d_model = 2, c.mlp_ratio = 1, c.vocab_size = 2, c.max_length = 4;
  c.seed = (uint64_t{1} << 53);
  ExpectError([&] { posenc::Model m(c); }, ErrorKind::Range, "seed must be an integer in [0, 2^53 - 1] (got 9007199254740992)");
  c.seed = (uint64_t{1} << 53) - 1;
  const posenc::Model m(c);
  std::vector<uint8_t> bytes = posenc::save_checkpoint(m, {posenc::WeightFormat::Float32});
  EXPECT_EQ(posenc::load_checkpoint(bytes.data(), bytes.size()).config().seed, c.seed);
  constexpr std::size_t kSeedAt = 40;  // checkpoint.hpp: the config block's u64 seed
  const uint64_t big = 9079256848795697000ull;
  for (int i = 0; i < 8; ++i) bytes[kSeedAt + i] = static_cast<uint8_t>(big >> (8 * i));
  const uint64_t sum = posenc::fnv1a64(bytes.data(), bytes.size() - 8);
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<uint8_t>(sum >> (8 * i));
  ExpectError([&] { posenc::load_checkpoint(bytes.data(), bytes.size()); }, ErrorKind::Range,
              "seed must be an integer in [0, 2^53 - 1] (got 9079256848795697000)");
}

}  // namespace
