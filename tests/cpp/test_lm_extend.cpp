// The training-free context extensions (lm_extend.hpp) on stories260K (a real model, trained context 512) against
// tests/lm/extend_reference.py, an independent float64 numpy forward written from the authors' code: NLL per
// position, and the attention statistics (entropy, first-key mass) per layer and head, which come from the same
// streamed attention. Also: a stream equals the forward; dynamic NTK's cached form equals no scaling inside the
// context and differs from the one-call form past it; bad parameters and undefined combinations are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <sstream>
#include <unistd.h>

#include "lm_test_util.hpp"
#include "posenc/error.hpp"
#include "posenc/lm.hpp"

namespace posenc::lm {
namespace {

using namespace test;

// float32 forward vs float64 at T = 768 (each case prints its numbers): NLL 1e-5 to 1e-4 nats, statistics < 1e-6.
constexpr double kNllTolerance = 5e-4;
constexpr double kStatTolerance = 2e-4;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Reference {
  std::vector<int32_t> tokens;
  std::vector<double> nll, entropy, sink;
};

bool have_numpy() { return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

Reference run_reference(const std::string& args, int T) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("posenc-lm-extend-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out.txt").string();
  std::ostringstream cmd;
  cmd << "/usr/bin/python3 " << source_dir() << "/tests/lm/extend_reference.py " << stories_dir() << "/stories260K.bin "
      << stories_dir() << "/tok512.bin " << source_dir() << "/web/app/lm/passage.txt " << out << " --length " << T << " " << args;
  EXPECT_EQ(std::system(cmd.str().c_str()), 0) << cmd.str();
  std::istringstream in(read_text(out));
  std::filesystem::remove_all(dir);
  Reference r;
  // lines "<tag> <values...>"
  for (std::string line; std::getline(in, line);) {
    const std::size_t cut = line.find(' ');
    const std::string tag = line.substr(0, cut);
    std::istringstream values(line.substr(cut + 1));
    if (tag == "tokens") r.tokens.assign(std::istream_iterator<int32_t>(values), {});
    else if (tag == "nll") r.nll.assign(std::istream_iterator<double>(values), {});
    else if (tag == "entropy") r.entropy.assign(std::istream_iterator<double>(values), {});
    else if (tag == "sink") r.sink.assign(std::istream_iterator<double>(values), {});
  }
  return r;
}

const Model& stories() {
  static const Model m = [] {
    const std::vector<uint8_t> bin = read_file(stories_dir() + "/stories260K.bin");
    return load_llama2c(bin.data(), bin.size());
  }();
  return m;
}

RopeScaling scaling(RopeType t, double factor = 4) {
  RopeScaling s;
  s.type = t;
  if (t != parse_rope_type("default")) s.factor = factor;
  return s;
}
Extend rerope(double window, double leak = kNaN, double logn = kNaN) { return {ExtendMethod::ReRope, {window, leak, logn}}; }

double max_diff(const std::vector<float>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

struct Case {
  const char* name;
  const char* args;  // extend_reference.py's
  RopeType type;
  double factor;
  DynamicForm dynamic;
  Extend extend;
};
class LmExtendReference : public ::testing::TestWithParam<Case> {};

TEST_P(LmExtendReference, NllAndStatisticsMatchTheFloat64Reference) {
  POSENC_REQUIRE_STORIES();
  if (!have_numpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is missing: skipped";
  const Case& c = GetParam();
  const int T = 768;
  const Reference ref = run_reference(c.args, T);
  ASSERT_EQ(static_cast<int>(ref.tokens.size()), T);
  ForwardOptions o;
  o.scaling = scaling(c.type, c.factor);
  o.dynamic = c.dynamic;
  o.extend = c.extend;
  o.head_stats = true;
  const ForwardResult r = forward(stories(), ref.tokens.data(), T, o);
  const double dn = max_diff(r.nll, ref.nll), de = max_diff(r.entropy, ref.entropy), ds = max_diff(r.sink, ref.sink);
  double tail = 0;
  for (int i = 512; i < T - 1; ++i) tail += ref.nll[i];
  std::printf("[extend %s T=%d] max |posenc - float64|: NLL %.3g nats, entropy %.3g, sink %.3g; float64 ppl 512-767 %.3f\n", c.name, T,
              dn, de, ds, std::exp(tail / (T - 513)));
  EXPECT_LT(dn, kNllTolerance);
  EXPECT_LT(de, kStatTolerance);
  EXPECT_LT(ds, kStatTolerance);
}

INSTANTIATE_TEST_SUITE_P(
    Stories260K, LmExtendReference,
    ::testing::Values(Case{"dynamic_cached", "--scaling dynamic --factor 4 --dynamic cached", parse_rope_type("dynamic"), 4, DynamicForm::Cached, {}},
                      Case{"rerope_256", "--rerope 256", parse_rope_type("default"), 1, DynamicForm::Call, rerope(256)},
                      Case{"rerope_256_nologn", "--rerope 256 --no-logn", parse_rope_type("default"), 1, DynamicForm::Call, rerope(256, kNaN, 0)},
                      Case{"rerope_384_linear2", "--rerope 384 --scaling linear --factor 2", parse_rope_type("linear"), 2, DynamicForm::Call, rerope(384)},
                      Case{"leaky_256_16", "--rerope 256 --leak 16", parse_rope_type("default"), 1, DynamicForm::Call, rerope(256, 16)}),
    [](const auto& info) { return std::string(info.param.name); });

std::vector<int32_t> passage(int T) {
  const std::vector<uint8_t> tok = read_file(stories_dir() + "/tok512.bin");
  const Tokenizer t = load_llama2c_tokenizer(tok.data(), tok.size(), stories().config().vocab_size);
  std::vector<int32_t> ids = t.encode(read_text(source_dir() + "/web/app/lm/passage.txt"));
  ids.resize(T);
  return ids;
}

// Dynamic NTK as generated: inside the trained context every step's frequencies are the default ones (so the NLL is
// no scaling's, bit for bit); past it, it differs from the one call, whose every position uses seq_len = T.
TEST(LmExtend, DynamicCachedIsTheDefaultInsideTheContextAndNotTheOneCallPastIt) {
  POSENC_REQUIRE_STORIES();
  const int T = 1024;
  const std::vector<int32_t> ids = passage(T);
  ForwardOptions o;
  const ForwardResult none = forward(stories(), ids.data(), T, o);
  o.scaling = scaling(parse_rope_type("dynamic"));
  const ForwardResult call = forward(stories(), ids.data(), T, o);
  o.dynamic = DynamicForm::Cached;
  const ForwardResult cached = forward(stories(), ids.data(), T, o);
  for (int i = 0; i < 511; ++i) ASSERT_NEAR(cached.nll[i], none.nll[i], 1e-5) << i;  // (tables row by row: rounding)
  double in = 0, past = 0, past_call = 0;
  for (int i = 0; i < 511; ++i) in += std::fabs(call.nll[i] - none.nll[i]);
  for (int i = 512; i < T - 1; ++i) past += cached.nll[i], past_call += call.nll[i];
  std::printf("[dynamic x4 T=%d] ppl 512-1023: cached %.3f, one call %.3f; mean |call - none| inside the context %.3g\n", T,
              std::exp(past / (T - 513)), std::exp(past_call / (T - 513)), in / 511);
  EXPECT_GT(in / 511, 1e-3);  // the one call rotates even the first positions at seq_len = T
  EXPECT_GT(std::fabs(past - past_call) / (T - 513), 1e-3);
  // the cached form's frequencies do not follow T: a part with a past continues it
  o.keep = 600;
  const ForwardResult first = forward(stories(), ids.data(), 601, o);
  ForwardOptions o2 = o;
  o2.keep = 0;
  o2.past = &first.cache;
  const ForwardResult second = forward(stories(), ids.data() + 600, T - 600, o2);
  for (int i = 0; i < T - 601; ++i) EXPECT_NEAR(second.nll[i], cached.nll[600 + i], 1e-4) << i;  // (3.7e-5 measured)
}

// A stream (a float32 and a float16 cache) gives the forward's NLL, statistics and maps with ReRoPE.
TEST(LmExtend, ReRopeStreamEqualsTheForward) {
  POSENC_REQUIRE_STORIES();
  const int T = 700;
  const std::vector<int32_t> ids = passage(T);
  for (const Extend& e : {Extend{}, rerope(200), rerope(200, 8)}) {
    ForwardOptions o;
    o.extend = e;
    o.head_stats = true;
    o.map_layer = 2;
    o.map_px = 32;
    const ForwardResult f = forward(stories(), ids.data(), T, o);
    for (KvType kv : kKvTypes) {
      StreamOptions so;
      so.extend = e;
      so.head_stats = true;
      so.map_layer = 2;
      so.map_px = 32;
      so.kv = kv;
      so.chunk = 96;
      Stream s(stories(), ids.data(), T, so);
      std::vector<float> nll;
      while (s.done() < T) for (float v : s.step(96)) nll.push_back(v);
      const ForwardResult r = s.result();
      const double tol = kv == KvType::F32 ? 5e-5 : 3e-2;  // plain RoPE's own float16 stream: 0.023 at worst
      ASSERT_EQ(nll.size(), f.nll.size());
      double worst = 0;
      for (std::size_t i = 0; i < nll.size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(nll[i] - f.nll[i])));
      std::printf("[stream %s %s] max |stream - forward| NLL %.3g\n", e.method == ExtendMethod::None ? "none" : "rerope", kv_type_name(kv), worst);
      for (std::size_t i = 0; i < nll.size(); ++i) ASSERT_NEAR(nll[i], f.nll[i], tol) << kv_type_name(kv) << " row " << i;
      for (std::size_t i = 0; i < r.entropy.size(); ++i) ASSERT_NEAR(r.entropy[i], f.entropy[i], tol);
      for (std::size_t i = 0; i < r.maps.size(); ++i) ASSERT_NEAR(r.maps[i], f.maps[i], tol) << i;
    }
  }
}

// The maps see the far scores: ReRoPE's pooled map differs from plain RoPE's only in cells of far keys.
TEST(LmExtend, ReRopeMapsChangeOnlyPastTheWindow) {
  POSENC_REQUIRE_STORIES();
  const int T = 512;
  const std::vector<int32_t> ids = passage(T);
  ForwardOptions o;
  o.map_layer = 1;
  o.map_px = 16;
  o.head_stats = true;
  const ForwardResult plain = forward(stories(), ids.data(), T, o);
  o.extend = rerope(256, kNaN, 0);  // logn 0: inside the context it would be 1 anyway
  const ForwardResult re = forward(stories(), ids.data(), T, o);
  for (int i = 0; i < 255; ++i) ASSERT_EQ(re.nll[i], plain.nll[i]) << i;  // rows before the window see no far key
  int changed = 0;
  for (std::size_t i = 0; i < re.maps.size(); ++i) changed += re.maps[i] != plain.maps[i];
  EXPECT_GT(changed, 0);
}

TEST(LmExtend, BadParametersAndUndefinedCombinationsAreRefusedByName) {
  const auto message = [](const Extend& e, const RopeScaling& s) {
    try {
      resolve_extend(e, s);
    } catch (const Error& err) {
      return std::string(err.what());
    }
    return std::string();
  };
  EXPECT_NE(message({ExtendMethod::ReRope, {}}, {}).find("extend.window"), std::string::npos);
  EXPECT_NE(message(rerope(0), {}).find("extend.window"), std::string::npos);
  EXPECT_NE(message(rerope(2.5), {}).find("an integer in [1, "), std::string::npos);
  EXPECT_NE(message(rerope(64, 1), {}).find("extend.leak"), std::string::npos);
  EXPECT_NE(message(rerope(64, kNaN, 2), {}).find("extend.logn"), std::string::npos);
  EXPECT_NE(message(rerope(64), scaling(parse_rope_type("yarn"))).find("composes with"), std::string::npos);
  EXPECT_NE(message(rerope(64, 16), scaling(parse_rope_type("linear"))).find("Leaky ReRoPE builds its own"), std::string::npos);
  EXPECT_EQ(message(rerope(64), scaling(parse_rope_type("linear"))), "");
  EXPECT_EQ(resolve_extend(rerope(64), {}).values[2], 1);  // logn's default: on, as the authors' code
  POSENC_REQUIRE_STORIES();
  const std::vector<int32_t> ids = passage(16);
  ForwardOptions o;
  o.dynamic = DynamicForm::Cached;
  EXPECT_THROW(forward(stories(), ids.data(), 16, o), Error);  // cached needs dynamic NTK
  o = {};
  o.extend = rerope(4);
  o.keep = 4;
  EXPECT_THROW(forward(stories(), ids.data(), 16, o), Error);
}

}  // namespace
}  // namespace posenc::lm
