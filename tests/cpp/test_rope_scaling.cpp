// RoPE scaling (HF modeling_rope_utils.py): each rope_type against formulas
// written out independently here, plus properties and errors.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/rope_scaling.hpp"

namespace {

using posenc::RopeFrequencies;
using posenc::RopeScaling;
using posenc::RopeType;

constexpr double kPi = 3.14159265358979323846;

double DefaultInv(int i, int dim, double base) { return std::pow(base, -2.0 * i / dim); }

RopeFrequencies Freqs(int dim, double base, const RopeScaling& s, std::optional<int> seq_len = std::nullopt) {
  return posenc::rope_frequencies(dim, base, s, seq_len);
}

void ExpectRelNear(double got, double want, double rel, const std::string& what) {
  EXPECT_NEAR(got, want, rel * std::abs(want)) << what;
}

TEST(RopeScaling, TypeNamesRoundTrip) {
  for (const char* name : {"default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional"})
    EXPECT_STREQ(posenc::rope_type_name(posenc::parse_rope_type(name)), name);
  ExpectError([] { posenc::parse_rope_type("ntk"); }, posenc::ErrorKind::Range,
              "rope_type must be one of 'default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional' (got 'ntk')");
  ExpectError([] { posenc::parse_rope_type("Linear"); }, posenc::ErrorKind::Range, "rope_type");
}

TEST(RopeScaling, DefaultAndLinear) {
  RopeScaling s;
  const RopeFrequencies d = Freqs(64, 10000, s);
  ASSERT_EQ(d.inv_freq.size(), 32u);
  EXPECT_EQ(d.attention_scale, 1.0);
  for (int i = 0; i < 32; ++i) ExpectRelNear(d.inv_freq[i], DefaultInv(i, 64, 10000), 1e-14, "default");
  EXPECT_EQ(d.inv_freq[0], 1.0);
  s.type = posenc::parse_rope_type("linear"), s.factor = 4;
  const RopeFrequencies l = Freqs(64, 10000, s);
  EXPECT_EQ(l.attention_scale, 1.0);
  for (int i = 0; i < 32; ++i) ExpectRelNear(l.inv_freq[i], d.inv_freq[i] / 4, 1e-15, "linear");
}

TEST(RopeScaling, DynamicIsIdentityUpToMaxPositions) {
  RopeScaling s;
  s.type = posenc::parse_rope_type("dynamic"), s.factor = 2, s.max_position_embeddings = 2048;
  const std::vector<double> base = Freqs(64, 10000, RopeScaling{}).inv_freq;
  for (std::optional<int> len : {std::optional<int>{}, std::optional<int>{1}, std::optional<int>{2048}}) {
    const RopeFrequencies f = Freqs(64, 10000, s, len);
    for (int i = 0; i < 32; ++i) ExpectRelNear(f.inv_freq[i], base[i], 1e-14, "dynamic at or below max");
  }
  // Above: base' = base * ((factor * len / max) - (factor - 1))^(dim / (dim - 2)).
  const RopeFrequencies f = Freqs(64, 10000, s, 4096);
  const double ntk_base = 10000 * std::pow(2.0 * 4096 / 2048 - 1, 64.0 / 62);
  for (int i = 0; i < 32; ++i) ExpectRelNear(f.inv_freq[i], DefaultInv(i, 64, ntk_base), 1e-13, "dynamic above");
  EXPECT_EQ(f.inv_freq[0], 1.0);              // the highest frequency never moves
  EXPECT_LT(f.inv_freq[31], base[31] * 0.5);  // the lowest drops by more than 2x here
  EXPECT_EQ(f.attention_scale, 1.0);
  // Longer sequences stretch further.
  EXPECT_LT(Freqs(64, 10000, s, 8192).inv_freq[31], f.inv_freq[31]);
}

// yarn reference for dim 128, base 1e4, original 4096: the correction dims are
// 128 ln(4096 / (32 * 2pi)) / (2 ln 1e4) = 20.94 (floor 20) and
// 128 ln(4096 / (1 * 2pi)) / (2 ln 1e4) = 45.03 (ceil 46).
double CorrectionDim(double rotations, int dim, double base, double max_pos) {
  return dim * std::log(max_pos / (rotations * 2 * kPi)) / (2 * std::log(base));
}

RopeScaling Yarn(double factor) {
  RopeScaling s;
  s.type = posenc::parse_rope_type("yarn"), s.factor = factor, s.original_max_position_embeddings = 4096;
  return s;
}

TEST(RopeScaling, YarnKeepsHighFrequenciesAndDividesLowOnes) {
  const double low = CorrectionDim(32, 128, 1e4, 4096), high = CorrectionDim(1, 128, 1e4, 4096);
  ASSERT_EQ(std::floor(low), 20);
  ASSERT_EQ(std::ceil(high), 46);
  const RopeFrequencies f = Freqs(128, 1e4, Yarn(4));
  for (int i = 0; i < 64; ++i) {
    const double d = DefaultInv(i, 128, 1e4);
    const double wavelength = 2 * kPi / d;
    if (i <= 20) {
      ExpectRelNear(f.inv_freq[i], d, 1e-14, "kept i=" + std::to_string(i));
      EXPECT_LT(wavelength, 4096.0 / 32 * 1.5);  // short wavelengths: many turns in the original context
    } else if (i >= 46) {
      ExpectRelNear(f.inv_freq[i], d / 4, 1e-14, "divided i=" + std::to_string(i));
    } else {
      const double ramp = (i - 20.0) / (46 - 20);  // blend: interpolation * ramp + extrapolation * (1 - ramp)
      ExpectRelNear(f.inv_freq[i], d / 4 * ramp + d * (1 - ramp), 1e-14, "ramp i=" + std::to_string(i));
      EXPECT_LT(f.inv_freq[i], d);
      EXPECT_GT(f.inv_freq[i], d / 4);
    }
  }
  EXPECT_NEAR(f.attention_scale, 0.1 * std::log(4.0) + 1, 1e-15);
}

TEST(RopeScaling, YarnAttentionFactor) {
  EXPECT_EQ(Freqs(64, 1e4, Yarn(0.5)).attention_scale, 1.0);  // get_mscale(scale <= 1) = 1
  EXPECT_NEAR(Freqs(64, 1e4, Yarn(40)).attention_scale, 0.1 * std::log(40.0) + 1, 1e-15);
  RopeScaling s = Yarn(40);
  s.mscale = 1.0, s.mscale_all_dim = 0.707;  // both set: ratio of the two mscales
  EXPECT_NEAR(Freqs(64, 1e4, s).attention_scale, (0.1 * 1.0 * std::log(40.0) + 1) / (0.1 * 0.707 * std::log(40.0) + 1),
              1e-15);
  s.mscale_all_dim = 1.0;  // DeepSeek-V3 style: equal mscales give exactly 1
  EXPECT_EQ(Freqs(64, 1e4, s).attention_scale, 1.0);
  s.mscale = 2.0, s.mscale_all_dim.reset();  // only one set: back to get_mscale(factor), mscale ignored
  EXPECT_NEAR(Freqs(64, 1e4, s).attention_scale, 0.1 * std::log(40.0) + 1, 1e-15);
  s.mscale = 0.0, s.mscale_all_dim = 1.0;  // 0 is falsy in HF's `if mscale and mscale_all_dim`
  EXPECT_NEAR(Freqs(64, 1e4, s).attention_scale, 0.1 * std::log(40.0) + 1, 1e-15);
  s.attention_factor = 0.8;  // explicit value wins
  EXPECT_EQ(Freqs(64, 1e4, s).attention_scale, 0.8);
}

TEST(RopeScaling, YarnWithoutTruncation) {
  RopeScaling s = Yarn(4);
  s.truncate = false;
  const double low = CorrectionDim(32, 128, 1e4, 4096), high = CorrectionDim(1, 128, 1e4, 4096);
  const RopeFrequencies f = Freqs(128, 1e4, s);
  const RopeFrequencies t = Freqs(128, 1e4, Yarn(4));
  for (int i = 0; i < 64; ++i) {
    const double d = DefaultInv(i, 128, 1e4);
    const double ramp = std::min(1.0, std::max(0.0, (i - low) / (high - low)));
    ExpectRelNear(f.inv_freq[i], d / 4 * ramp + d * (1 - ramp), 1e-14, "untruncated i=" + std::to_string(i));
  }
  EXPECT_GT(std::abs(f.inv_freq[21] - t.inv_freq[21]), 1e-6 * t.inv_freq[21]);  // the option matters
}

TEST(RopeScaling, YarnFactorAndOriginalMaxDefaults) {
  // Newest HF: an explicit factor is used as is, even when max/original disagree.
  RopeScaling s = Yarn(4);
  s.max_position_embeddings = 32768;  // ratio 8
  const RopeFrequencies explicit_factor = Freqs(128, 1e4, s);
  EXPECT_NEAR(explicit_factor.attention_scale, 0.1 * std::log(4.0) + 1, 1e-15);
  EXPECT_EQ(explicit_factor.inv_freq, Freqs(128, 1e4, Yarn(4)).inv_freq);
  // Missing factor: max_position_embeddings / original_max_position_embeddings.
  s.factor.reset();
  const RopeFrequencies derived = Freqs(128, 1e4, s);
  EXPECT_EQ(derived.inv_freq, Freqs(128, 1e4, Yarn(8)).inv_freq);
  EXPECT_NEAR(derived.attention_scale, 0.1 * std::log(8.0) + 1, 1e-15);
  // Missing original_max_position_embeddings: defaults to max_position_embeddings.
  RopeScaling t;
  t.type = posenc::parse_rope_type("yarn"), t.factor = 4, t.max_position_embeddings = 4096;
  EXPECT_EQ(Freqs(128, 1e4, t).inv_freq, Freqs(128, 1e4, Yarn(4)).inv_freq);
}

TEST(RopeScaling, YarnBetas) {
  RopeScaling s = Yarn(4);
  s.beta_fast = 0, s.beta_slow = 0;  // `get("beta_fast") or 32`: 0 means the default
  EXPECT_EQ(Freqs(128, 1e4, s).inv_freq, Freqs(128, 1e4, Yarn(4)).inv_freq);
  s.beta_fast = 64, s.beta_slow = 2;
  const double low = std::floor(CorrectionDim(64, 128, 1e4, 4096)), high = std::ceil(CorrectionDim(2, 128, 1e4, 4096));
  const RopeFrequencies f = Freqs(128, 1e4, s);
  for (int i = 0; i < 64; ++i) {
    const double d = DefaultInv(i, 128, 1e4);
    const double ramp = std::min(1.0, std::max(0.0, (i - low) / (high - low)));
    ExpectRelNear(f.inv_freq[i], d / 4 * ramp + d * (1 - ramp), 1e-14, "betas i=" + std::to_string(i));
  }
  // Equal bounds (no truncation, equal betas): HF adds 0.001 and the ramp becomes a step.
  s.truncate = false, s.beta_fast = 8, s.beta_slow = 8;
  const double c = CorrectionDim(8, 128, 1e4, 4096);
  const RopeFrequencies step = Freqs(128, 1e4, s);
  for (int i = 0; i < 64; ++i) {
    const double d = DefaultInv(i, 128, 1e4);
    const double ramp = std::min(1.0, std::max(0.0, (i - c) / 0.001));
    ASSERT_TRUE(std::isfinite(step.inv_freq[i]));
    ExpectRelNear(step.inv_freq[i], d / 4 * ramp + d * (1 - ramp), 1e-12, "step i=" + std::to_string(i));
  }
}

TEST(RopeScaling, YarnEqualBoundsAfterClampingStayFinite) {
  // original 6 < 2pi puts both correction dims in (-2, 0]: low = max(floor(-1.5), 0) = 0 and
  // high = min(ceil(-0.02), dim - 1) = 0. HF's `max += 0.001` avoids 0/0 for dim 0.
  RopeScaling s;
  s.type = posenc::parse_rope_type("yarn"), s.factor = 4, s.original_max_position_embeddings = 6;
  ASSERT_GT(CorrectionDim(1, 8, 1e4, 6), -1);
  ASSERT_LE(CorrectionDim(1, 8, 1e4, 6), 0);
  const RopeFrequencies f = Freqs(8, 1e4, s);
  EXPECT_EQ(f.inv_freq[0], 1.0);  // ramp 0 / 0.001 = 0: kept
  for (int i = 1; i < 4; ++i) ExpectRelNear(f.inv_freq[i], DefaultInv(i, 8, 1e4) / 4, 1e-14, "i=" + std::to_string(i));
}

RopeScaling Llama31() {
  RopeScaling s;
  s.type = posenc::parse_rope_type("llama3"), s.factor = 8, s.low_freq_factor = 1, s.high_freq_factor = 4;
  s.original_max_position_embeddings = 8192;
  return s;
}

TEST(RopeScaling, Llama3MatchesLlama31Config) {
  // Llama-3.1: theta 500000, head dim 128, factor 8, low 1, high 4, original 8192.
  // Wavelengths below 8192/4 = 2048 are kept, above 8192/1 are divided by 8,
  // in between smoothly interpolated (dims 29..34 here).
  const RopeFrequencies f = Freqs(128, 500000, Llama31());
  EXPECT_EQ(f.attention_scale, 1.0);
  int kept = 0, divided = 0, medium = 0;
  for (int i = 0; i < 64; ++i) {
    const double inv = DefaultInv(i, 128, 500000);
    const double wavelength = 2 * kPi / inv;
    double want;
    if (wavelength < 2048) {
      want = inv, ++kept;
    } else if (wavelength > 8192) {
      want = inv / 8, ++divided;
    } else {
      const double smooth = (8192 / wavelength - 1) / (4 - 1);
      want = (1 - smooth) * inv / 8 + smooth * inv, ++medium;
    }
    ExpectRelNear(f.inv_freq[i], want, 1e-13, "llama3 i=" + std::to_string(i));
  }
  EXPECT_EQ(kept, 29);
  EXPECT_EQ(medium, 6);
  EXPECT_EQ(divided, 29);
  ExpectRelNear(f.inv_freq[0], 1.0, 0, "i=0");
  ExpectRelNear(f.inv_freq[63], std::pow(500000.0, -126.0 / 128) / 8, 1e-13, "i=63");
}

// With dim 4 the second frequency is base^(-1/2): choosing base = (W / 2pi)^2 puts
// its wavelength exactly at W, so the scaled/unscaled ratio g(W) can be swept.
double Llama3Ratio(double wavelength) {
  const double base = std::pow(wavelength / (2 * kPi), 2);
  const RopeFrequencies f = Freqs(4, base, Llama31());
  return f.inv_freq[1] / std::pow(base, -0.5);
}

TEST(RopeScaling, Llama3BandsAreContinuous) {
  for (double edge : {2048.0, 8192.0}) {
    const double below = Llama3Ratio(edge * (1 - 1e-9)), above = Llama3Ratio(edge * (1 + 1e-9));
    EXPECT_NEAR(below, above, 1e-8) << "jump at wavelength " << edge;
    EXPECT_NEAR(below, edge == 2048.0 ? 1.0 : 0.125, 1e-8);
  }
  // Sweep: g is non-increasing in the wavelength and never jumps.
  double prev = Llama3Ratio(1000);
  for (double w = 1000 + 25; w <= 12000; w += 25) {
    const double g = Llama3Ratio(w);
    EXPECT_LE(g, prev + 1e-12) << "w=" << w;
    EXPECT_LT(prev - g, 0.02) << "jump near w=" << w;
    prev = g;
  }
  EXPECT_NEAR(Llama3Ratio(5000), (1 - (8192 / 5000.0 - 1) / 3) / 8 + (8192 / 5000.0 - 1) / 3, 1e-12);
}

RopeScaling Phi3Like() {
  RopeScaling s;
  s.type = posenc::parse_rope_type("longrope"), s.max_position_embeddings = 131072, s.original_max_position_embeddings = 4096;
  s.long_factor = {1.0, 2.0, 3.0, 4.0};
  s.short_factor = {1.0, 1.5, 2.0, 2.5};
  return s;
}

TEST(RopeScaling, LongRopeChoosesFactorsBySequenceLength) {
  const RopeScaling s = Phi3Like();
  auto check = [&](std::optional<int> len, const std::vector<double>& ext) {
    const RopeFrequencies f = Freqs(8, 10000, s, len);
    for (int i = 0; i < 4; ++i)
      ExpectRelNear(f.inv_freq[i], 1.0 / (ext[i] * std::pow(10000.0, 2.0 * i / 8)), 1e-15, "longrope");
  };
  check(std::nullopt, s.short_factor);
  check(0, s.short_factor);
  check(4096, s.short_factor);
  check(4097, s.long_factor);
  check(131072, s.long_factor);
}

TEST(RopeScaling, LongRopeAttentionFactor) {
  RopeScaling s = Phi3Like();
  // No factor (Phi-3): 131072 / 4096 = 32, sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12).
  EXPECT_NEAR(Freqs(8, 10000, s).attention_scale, std::sqrt(17.0 / 12), 1e-15);
  s.factor = 2;  // an explicit factor is not overridden: sqrt(1 + ln 2 / ln 4096) = sqrt(13/12)
  EXPECT_NEAR(Freqs(8, 10000, s).attention_scale, std::sqrt(13.0 / 12), 1e-15);
  s.factor = 1;
  EXPECT_EQ(Freqs(8, 10000, s).attention_scale, 1.0);
  s.attention_factor = 1.25;
  EXPECT_EQ(Freqs(8, 10000, s).attention_scale, 1.25);
}

TEST(RopeScaling, ErrorsNameTheKey) {
  using posenc::ErrorKind;
  const RopeScaling none;
  ExpectError([&] { Freqs(7, 1e4, none); }, ErrorKind::Range, "dim must be an even integer in [2, 65536] (got 7)");
  ExpectError([&] { Freqs(0, 1e4, none); }, ErrorKind::Range, "dim");
  ExpectError([&] { Freqs(8, 1.0, none); }, ErrorKind::Range, "base must be a finite number > 1 (got 1)");
  ExpectError([&] { Freqs(8, NAN, none); }, ErrorKind::Range, "base");
  ExpectError([&] { Freqs(8, 1e4, none, -1); }, ErrorKind::Range, "seq_len");

  RopeScaling lin;
  lin.type = posenc::parse_rope_type("linear");
  ExpectError([&] { Freqs(8, 1e4, lin); }, ErrorKind::Range,
              "rope_scaling.factor must be a finite number > 0 (got missing)");
  lin.factor = -2;
  ExpectError([&] { Freqs(8, 1e4, lin); }, ErrorKind::Range,
              "rope_scaling.factor must be a finite number > 0 (got -2)");
  lin.factor = NAN;
  ExpectError([&] { Freqs(8, 1e4, lin); }, ErrorKind::Range, "rope_scaling.factor");

  RopeScaling dyn;
  dyn.type = posenc::parse_rope_type("dynamic"), dyn.factor = 2;
  ExpectError([&] { Freqs(8, 1e4, dyn); }, ErrorKind::Range,
              "max_position_embeddings must be an integer >= 1 (got missing)");
  dyn.max_position_embeddings = 0;
  ExpectError([&] { Freqs(8, 1e4, dyn); }, ErrorKind::Range, "max_position_embeddings");
  dyn.max_position_embeddings = 2048;
  ExpectError([&] { Freqs(2, 1e4, dyn); }, ErrorKind::Range, "dim must be an even integer >= 4");
  dyn.factor = 1e308;
  ExpectError([&] { Freqs(8, 1e4, dyn, 1 << 30); }, ErrorKind::Range, "rope_scaling.factor must be small enough");

  RopeScaling y;
  y.type = posenc::parse_rope_type("yarn"), y.factor = 4;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.original_max_position_embeddings");
  y.factor.reset(), y.original_max_position_embeddings = 4096;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.factor");
  y.factor = 4, y.beta_fast = -1;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.beta_fast");
  y.beta_fast.reset(), y.beta_slow = NAN;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.beta_slow");
  y.beta_slow.reset(), y.mscale = -1;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.mscale");
  y.mscale = 1, y.mscale_all_dim = INFINITY;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.mscale_all_dim");
  y.mscale_all_dim.reset(), y.attention_factor = 0;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.attention_factor");
  y.attention_factor.reset(), y.original_max_position_embeddings = 0;
  ExpectError([&] { Freqs(8, 1e4, y); }, ErrorKind::Range, "rope_scaling.original_max_position_embeddings");

  RopeScaling l3 = Llama31();
  l3.low_freq_factor.reset();
  ExpectError([&] { Freqs(8, 1e4, l3); }, ErrorKind::Range,
              "rope_scaling.low_freq_factor must be a finite number > 0 (got missing)");
  l3 = Llama31(), l3.high_freq_factor.reset();
  ExpectError([&] { Freqs(8, 1e4, l3); }, ErrorKind::Range, "rope_scaling.high_freq_factor");
  // Equal factors are accepted (Llama 4 Scout); only a pair whose wavelength is
  // exactly the original context would hit HF's 0/0, and that is refused.
  l3.high_freq_factor = 1;
  l3.original_max_position_embeddings = static_cast<int>(std::lround(2 * kPi));  // dim 2 pair 0: wavelength 2*pi
  EXPECT_NO_THROW(Freqs(2, 1e4, l3));
  l3 = Llama31(), l3.factor.reset();
  ExpectError([&] { Freqs(8, 1e4, l3); }, ErrorKind::Range, "rope_scaling.factor");
  l3 = Llama31(), l3.original_max_position_embeddings.reset();
  ExpectError([&] { Freqs(8, 1e4, l3); }, ErrorKind::Range, "rope_scaling.original_max_position_embeddings");

  RopeScaling lr = Phi3Like();
  ExpectError([&] { Freqs(16, 1e4, lr); }, ErrorKind::Range,
              "rope_scaling.long_factor must be a list of dim/2 = 8 finite numbers > 0 (got 4 values)");
  lr.long_factor.clear();
  ExpectError([&] { Freqs(8, 1e4, lr); }, ErrorKind::Range,
              "rope_scaling.long_factor must be a list of dim/2 = 4 finite numbers > 0 (got missing)");
  lr = Phi3Like(), lr.short_factor[2] = NAN;
  ExpectError([&] { Freqs(8, 1e4, lr); }, ErrorKind::Range,
              "rope_scaling.short_factor[2] must be a finite number > 0 (got NaN)");
  lr = Phi3Like(), lr.long_factor[0] = 0;
  ExpectError([&] { Freqs(8, 1e4, lr); }, ErrorKind::Range, "rope_scaling.long_factor[0]");
  lr = Phi3Like(), lr.max_position_embeddings.reset();
  ExpectError([&] { Freqs(8, 1e4, lr); }, ErrorKind::Range, "rope_scaling.factor");
  lr = Phi3Like(), lr.original_max_position_embeddings = 1;  // ln(1) would divide by zero
  ExpectError([&] { Freqs(8, 1e4, lr); }, ErrorKind::Range, "rope_scaling.original_max_position_embeddings");

  RopeScaling bad;
  bad.type = static_cast<RopeType>(42);
  ExpectError([&] { Freqs(8, 1e4, bad); }, ErrorKind::Range, "rope_type");
}

}  // namespace

namespace {

// Llama 4 Scout: llama3 with low_freq_factor == high_freq_factor == 1, factor 16,
// original 8192, theta 500000, head_dim 128. HF's torch.where keeps every pair
// whose wavelength is <= 8192 and divides the others by 16: no medium band.
TEST(RopeScaling, Llama3EqualBandFactorsAsLlama4Scout) {
  RopeScaling s;
  s.type = posenc::parse_rope_type("llama3"), s.factor = 16, s.low_freq_factor = 1, s.high_freq_factor = 1;
  s.original_max_position_embeddings = 8192;
  const RopeFrequencies f = Freqs(128, 500000, s);
  int kept = 0, divided = 0;
  for (int i = 0; i < 64; ++i) {
    const double inv = DefaultInv(i, 128, 500000);
    const bool slow = 2 * kPi / inv > 8192;
    ExpectRelNear(f.inv_freq[i], slow ? inv / 16 : inv, 1e-13, "scout i=" + std::to_string(i));
    (slow ? divided : kept)++;
  }
  EXPECT_EQ(kept + divided, 64);
  EXPECT_GT(kept, 0);
  EXPECT_GT(divided, 0);
  // high < low is accepted too (HF warns): no pair is in the (empty) medium band.
  s.low_freq_factor = 4, s.high_freq_factor = 1;
  const RopeFrequencies g = Freqs(128, 500000, s);
  for (int i = 0; i < 64; ++i) {
    const double inv = DefaultInv(i, 128, 500000);
    ExpectRelNear(g.inv_freq[i], 2 * kPi / inv > 8192.0 / 4 ? inv / 16 : inv, 1e-13, "high<low i=" + std::to_string(i));
  }
}

// Gemma 4 full-attention layers: head_dim 512, partial_rotary_factor 0.25, theta 1e6.
TEST(RopeScaling, ProportionalAsGemma4) {
  RopeScaling s;
  s.type = posenc::parse_rope_type("proportional"), s.partial_rotary_factor = 0.25;
  const RopeFrequencies f = Freqs(512, 1e6, s);
  ASSERT_EQ(f.inv_freq.size(), 256u);
  EXPECT_EQ(f.attention_scale, 1.0);
  for (int i = 0; i < 256; ++i)
    if (i < 64) ExpectRelNear(f.inv_freq[i], std::pow(1e6, -2.0 * i / 512), 1e-13, "rotating i=" + std::to_string(i));
    else EXPECT_EQ(f.inv_freq[i], 0.0) << "nope pair " << i;
  // factor divides; missing partial_rotary_factor = 1 (every pair rotates, exponent 2i/head_dim = default)
  s.factor = 2, s.partial_rotary_factor.reset();
  const RopeFrequencies g = Freqs(64, 1e4, s);
  for (int i = 0; i < 32; ++i) ExpectRelNear(g.inv_freq[i], DefaultInv(i, 64, 1e4) / 2, 1e-14, "factor");
  // floor(0.3 * 10 / 2) = 1 rotating pair of 5
  s.factor.reset(), s.partial_rotary_factor = 0.3;
  const RopeFrequencies h = Freqs(10, 1e4, s);
  EXPECT_EQ(h.inv_freq[0], 1.0);
  for (int i = 1; i < 5; ++i) EXPECT_EQ(h.inv_freq[i], 0.0);
  s.partial_rotary_factor = 1.5;
  ExpectError([&] { Freqs(10, 1e4, s); }, posenc::ErrorKind::Range, "rope_scaling.partial_rotary_factor must be a number in [0, 1]");
}

// llama.cpp's YaRN ext_factor: 1 = HF's YaRN, 0 = every pair divided by factor (linear).
TEST(RopeScaling, YarnExtFactor) {
  RopeScaling s;
  s.type = posenc::parse_rope_type("yarn"), s.factor = 8, s.original_max_position_embeddings = 4096;
  const RopeFrequencies hf = Freqs(64, 1e4, s);
  s.ext_factor = 1;
  const RopeFrequencies one = Freqs(64, 1e4, s);
  s.ext_factor = 0;
  const RopeFrequencies zero = Freqs(64, 1e4, s);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(one.inv_freq[i], hf.inv_freq[i]);
    ExpectRelNear(zero.inv_freq[i], DefaultInv(i, 64, 1e4) / 8, 1e-14, "ext 0");
  }
  s.ext_factor = -1;
  ExpectError([&] { Freqs(64, 1e4, s); }, posenc::ErrorKind::Range, "rope_scaling.ext_factor must be a number in [0, 1] (got -1)");
  s.ext_factor = 2, s.factor = 0.5;  // would give negative frequencies (found by fuzz_encodings)
  ExpectError([&] { Freqs(64, 1e4, s); }, posenc::ErrorKind::Range, "rope_scaling.ext_factor");
  s.ext_factor = NAN;
  ExpectError([&] { Freqs(64, 1e4, s); }, posenc::ErrorKind::Range, "rope_scaling.ext_factor");
}

TEST(RopeScaling, QueryScales) {
  const std::vector<double> pos = {0, 8190, 8191, 16383, 1e6};
  std::vector<double> out(pos.size());
  // Llama 4: 1 + 0.1 * log1p(floor((p + 1) / 8192))
  posenc::query_scale(posenc::QueryScaleKind::Llama4Temperature, 0.1, 8192, pos.data(), 5, out.data());
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], 1.0);
  ExpectRelNear(out[2], 1 + 0.1 * std::log(2.0), 1e-15, "p=8191");
  ExpectRelNear(out[3], 1 + 0.1 * std::log(3.0), 1e-15, "p=16383");
  ExpectRelNear(out[4], 1 + 0.1 * std::log(1.0 + std::floor(1000001.0 / 8192)), 1e-15, "p=1e6");
  // Ministral 3: 1 + 0.1 * log(1 + floor(p / 16384))
  posenc::query_scale(posenc::QueryScaleKind::Llama4ScalingBeta, 0.1, 16384, pos.data(), 5, out.data());
  EXPECT_EQ(out[3], 1.0);
  ExpectRelNear(out[4], 1 + 0.1 * std::log(1.0 + std::floor(1e6 / 16384)), 1e-15, "beta p=1e6");
  posenc::query_scale(posenc::QueryScaleKind::None, 0, 0, pos.data(), 5, out.data());
  for (double v : out) EXPECT_EQ(v, 1.0);
  const std::vector<double> bad = {-1};
  ExpectError([&] { posenc::query_scale(posenc::QueryScaleKind::Llama4Temperature, 0.1, 8192, bad.data(), 1, out.data()); },
              posenc::ErrorKind::Range, "position must be a finite number >= 0 (got -1)");
  ExpectError([&] { posenc::query_scale(posenc::QueryScaleKind::Llama4ScalingBeta, 0.1, 0, pos.data(), 1, out.data()); },
              posenc::ErrorKind::Range, "original_max_position_embeddings");
  // a factor so large that the scale overflows is refused (found by fuzz_encodings)
  ExpectError([&] { posenc::query_scale(posenc::QueryScaleKind::Llama4Temperature, 1e308, 1, pos.data(), 5, out.data()); },
              posenc::ErrorKind::Range, "attn_scale must be small enough that the query scale stays finite");
}

TEST(RopeScaling, DeepSeekSoftmaxScale) {
  // DeepSeek-V3: factor 40, mscale_all_dim 1 -> (0.1 ln 40 + 1)^2
  const double m = 0.1 * std::log(40.0) + 1;
  ExpectRelNear(posenc::deepseek_softmax_scale(40, 1), m * m, 1e-15, "v3");
  EXPECT_EQ(posenc::deepseek_softmax_scale(40, 0), 1.0);
  EXPECT_EQ(posenc::deepseek_softmax_scale(1, 1), 1.0);
  ExpectError([] { posenc::deepseek_softmax_scale(40, -1); }, posenc::ErrorKind::Range, "rope_scaling.mscale_all_dim");
  ExpectError([] { posenc::deepseek_softmax_scale(40, 1e300); }, posenc::ErrorKind::Range,
              "rope_scaling.mscale_all_dim must be small enough");  // found by fuzz_encodings
}

}  // namespace
