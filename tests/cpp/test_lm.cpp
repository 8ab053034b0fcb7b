// posenc::lm: loaders, tokenizer, forward on random tiny models against a naive float64 forward
// written here, stories260K across formats (.bin, GGUF, the same weights as HF tensors), and
// hostile files. (The float64 reference for stories260K is tests/lm/reference.py: test_lm_reference.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "lm_gguf_writer.hpp"
#include "lm_test_util.hpp"
#include "posenc/error.hpp"
#include "posenc/lm.hpp"

namespace posenc::lm {
namespace {

using namespace test;

// --- A random tiny model: weights k/64 with |k| <= 127 (exact in F16, BF16 and Q8_0 with the
// first value of each 32-block at 127/64), named as HF names them.
struct Tiny {
  Config c;
  std::map<std::string, std::vector<float>> w;  // GGUF names
  std::map<std::string, std::vector<int64_t>> shape;
};

Tiny make_tiny(Config c, uint32_t seed) {
  Tiny m{c, {}, {}};
  std::mt19937 rng(seed);
  auto add = [&](const std::string& name, std::vector<int64_t> s, bool norm) {
    std::size_t n = 1;
    for (int64_t d : s) n *= d;
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = norm ? 1.0f + static_cast<int>(rng() % 17 - 8) / 64.0f : static_cast<int>(rng() % 255) / 64.0f - 127 / 64.0f;
    if (!norm) for (std::size_t i = 0; i < n; i += 32) v[i] = 127 / 64.0f;
    for (float& x : v) x *= norm ? 1.0f : 0.25f;  // still exact (power-of-two scale)
    m.w[name] = v;
    m.shape[name] = s;
  };
  const int64_t D = c.dim, F = c.hidden_dim, V = c.vocab_size, Q = int64_t{c.n_heads} * c.hd(), KV = int64_t{c.n_kv_heads} * c.hd();
  add("token_embd.weight", {V, D}, false);
  if (!c.tied_embeddings) add("output.weight", {V, D}, false);
  add("output_norm.weight", {D}, true);
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    add(p + "attn_norm.weight", {D}, true);
    add(p + "ffn_norm.weight", {D}, true);
    add(p + "attn_q.weight", {Q, D}, false);
    add(p + "attn_k.weight", {KV, D}, false);
    add(p + "attn_v.weight", {KV, D}, false);
    add(p + "attn_output.weight", {D, Q}, false);
    add(p + "ffn_gate.weight", {F, D}, false);
    add(p + "ffn_up.weight", {F, D}, false);
    add(p + "ffn_down.weight", {D, F}, false);
    if (c.qkv_bias) {
      add(p + "attn_q.bias", {Q}, true);
      add(p + "attn_k.bias", {KV}, true);
      add(p + "attn_v.bias", {KV}, true);
    }
  }
  return m;
}

std::vector<TensorBytes> as_tensors(const Tiny& m) {
  std::vector<TensorBytes> t;
  for (const auto& [name, v] : m.w)
    t.push_back({name, DType::F32, m.shape.at(name), reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4});
  return t;
}

// The naive float64 forward: every formula written out, [T, T] scores, all logits.
std::vector<double> naive_nll(const Tiny& m, const std::vector<int32_t>& tok, RopeLayout layout) {
  const Config& c = m.c;
  const int T = static_cast<int>(tok.size()), D = c.dim, F = c.hidden_dim, H = c.n_heads, G = c.n_kv_heads, hd = c.hd(),
            rd = c.rd(), V = c.vocab_size;
  auto W = [&](const std::string& n) -> const std::vector<float>& { return m.w.at(n); };
  // y[T, O] = x[T, I] @ w[O, I]^T (+ b)
  auto lin = [&](const std::vector<double>& x, const std::string& n, int O, int I, const std::string& bias) {
    std::vector<double> y(static_cast<std::size_t>(T) * O);
    for (int t = 0; t < T; ++t)
      for (int o = 0; o < O; ++o) {
        double s = bias.empty() ? 0 : W(bias)[o];
        for (int i = 0; i < I; ++i) s += x[t * I + i] * W(n)[static_cast<std::size_t>(o) * I + i];
        y[t * O + o] = s;
      }
    return y;
  };
  auto norm = [&](const std::vector<double>& x, const std::string& n) {
    std::vector<double> y(x.size());
    for (int t = 0; t < T; ++t) {
      double ss = 0;
      for (int i = 0; i < D; ++i) ss += x[t * D + i] * x[t * D + i];
      const double r = 1 / std::sqrt(ss / D + c.norm_eps);
      for (int i = 0; i < D; ++i) y[t * D + i] = x[t * D + i] * r * W(n)[i];
    }
    return y;
  };
  auto rope = [&](std::vector<double>& x, int heads) {
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < rd / 2; ++i) {
          const double a = t / std::pow(c.rope_theta, 2.0 * i / rd);
          const int i0 = layout == RopeLayout::Half ? i : 2 * i, i1 = layout == RopeLayout::Half ? i + rd / 2 : 2 * i + 1;
          double& x0 = x[(t * heads + h) * hd + i0];
          double& x1 = x[(t * heads + h) * hd + i1];
          const double u = x0, v = x1;
          x0 = u * std::cos(a) - v * std::sin(a);
          x1 = u * std::sin(a) + v * std::cos(a);
        }
  };
  const bool tied = c.tied_embeddings;
  std::vector<double> x(static_cast<std::size_t>(T) * D);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < D; ++i) x[t * D + i] = W("token_embd.weight")[static_cast<std::size_t>(tok[t]) * D + i];
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const std::vector<double> xn = norm(x, p + "attn_norm.weight");
    std::vector<double> q = lin(xn, p + "attn_q.weight", H * hd, D, c.qkv_bias ? p + "attn_q.bias" : "");
    std::vector<double> k = lin(xn, p + "attn_k.weight", G * hd, D, c.qkv_bias ? p + "attn_k.bias" : "");
    const std::vector<double> v = lin(xn, p + "attn_v.weight", G * hd, D, c.qkv_bias ? p + "attn_v.bias" : "");
    rope(q, H);
    rope(k, G);
    std::vector<double> att(static_cast<std::size_t>(T) * H * hd, 0.0);
    for (int h = 0; h < H; ++h) {
      const int g = h / (H / G);
      for (int i = 0; i < T; ++i) {
        std::vector<double> s(i + 1);
        double mx = -1e300, sum = 0;
        for (int j = 0; j <= i; ++j) {
          double d = 0;
          for (int e = 0; e < hd; ++e) d += q[(i * H + h) * hd + e] * k[(j * G + g) * hd + e];
          s[j] = d / std::sqrt(static_cast<double>(hd));
          mx = std::max(mx, s[j]);
        }
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (int j = 0; j <= i; ++j)
          for (int e = 0; e < hd; ++e) att[(i * H + h) * hd + e] += s[j] / sum * v[(j * G + g) * hd + e];
      }
    }
    const std::vector<double> o = lin(att, p + "attn_output.weight", D, H * hd, "");
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += o[i];
    const std::vector<double> xf = norm(x, p + "ffn_norm.weight");
    std::vector<double> a = lin(xf, p + "ffn_gate.weight", F, D, ""), u = lin(xf, p + "ffn_up.weight", F, D, "");
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = a[i] / (1 + std::exp(-a[i])) * u[i];
    const std::vector<double> dn = lin(a, p + "ffn_down.weight", D, F, "");
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += dn[i];
  }
  const std::vector<double> logits = lin(norm(x, "output_norm.weight"), tied ? "token_embd.weight" : "output.weight", V, D, "");
  std::vector<double> nll(T - 1);
  for (int t = 0; t + 1 < T; ++t) {
    double mx = -1e300, s = 0;
    for (int j = 0; j < V; ++j) mx = std::max(mx, logits[t * V + j]);
    for (int j = 0; j < V; ++j) s += std::exp(logits[t * V + j] - mx);
    nll[t] = mx + std::log(s) - logits[t * V + tok[t + 1]];
  }
  return nll;
}

std::vector<int32_t> random_tokens(int T, int V, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> t(T);
  for (int32_t& x : t) x = static_cast<int32_t>(rng() % V);
  return t;
}

double max_diff(const std::vector<float>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

Config tiny_config(bool qwen, int head_dim, int rotary_dim, bool tied) {
  Config c;
  c.arch = qwen ? Arch::Qwen2 : Arch::Llama;
  c.source = "safetensors";
  c.dim = 64;
  c.hidden_dim = 96;
  c.n_layers = 2;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.head_dim = head_dim;
  c.rotary_dim = rotary_dim;
  c.vocab_size = 64;
  c.context = 32;
  c.tied_embeddings = tied;
  c.qkv_bias = qwen;
  c.rope_theta = 100.0;
  return c;
}

struct TinyCase {
  const char* name;
  bool qwen;
  int head_dim, rotary_dim;
  bool tied;
};
class LmTiny : public ::testing::TestWithParam<TinyCase> {};

TEST_P(LmTiny, FromTensorsMatchesTheNaiveFloat64Forward) {
  const TinyCase& k = GetParam();
  const Tiny m = make_tiny(tiny_config(k.qwen, k.head_dim, k.rotary_dim, k.tied), 7);
  const Model model = from_tensors(m.c, as_tensors(m));
  EXPECT_EQ(rope_layout(model.config()), RopeLayout::Half);
  const std::vector<int32_t> tok = random_tokens(70, m.c.vocab_size, 3);
  const ForwardResult r = forward(model, tok.data(), 70);
  EXPECT_LT(max_diff(r.nll, naive_nll(m, tok, RopeLayout::Half)), 2e-4);
}

INSTANTIATE_TEST_SUITE_P(Shapes, LmTiny,
                         ::testing::Values(TinyCase{"llama_tied", false, 0, 0, true},
                                           TinyCase{"llama_untied", false, 0, 0, false},
                                           TinyCase{"qwen2_bias_untied", true, 0, 0, false},
                                           TinyCase{"head_dim_64", true, 64, 0, false},
                                           TinyCase{"partial_rotary", false, 32, 16, true}),
                         [](const auto& info) { return std::string(info.param.name); });

void write_hparams(GgufWriter& g, const std::string& a, const Config& c) {
  g.kv_str("general.architecture", a);
  g.kv_u32(a + ".context_length", c.context);
  g.kv_u32(a + ".embedding_length", c.dim);
  g.kv_u32(a + ".block_count", c.n_layers);
  g.kv_u32(a + ".feed_forward_length", c.hidden_dim);
  g.kv_u32(a + ".attention.head_count", c.n_heads);
  g.kv_u32(a + ".attention.head_count_kv", c.n_kv_heads);
  g.kv_u32(a + ".attention.key_length", c.hd());
  g.kv_f32(a + ".rope.freq_base", static_cast<float>(c.rope_theta));
  g.kv_f32(a + ".attention.layer_norm_rms_epsilon", 1e-5f);
}

// The same tiny Qwen2 model written as GGUF in each dtype loads to the same weights (the values are
// exact in every dtype) and so gives the same NLL as from_tensors; GGUF qwen2 is half-split.
TEST(LmGguf, WrittenFilesInEachDtypeGiveTheSameNll) {
  Config c = tiny_config(true, 64, 0, false);
  const Tiny m = make_tiny(c, 11);
  const std::vector<int32_t> tok = random_tokens(40, c.vocab_size, 5);
  const std::vector<float> want = forward(from_tensors(c, as_tensors(m)), tok.data(), 40).nll;
  for (uint32_t type : {0u, 1u, 8u, 30u}) {
    GgufWriter g;
    write_hparams(g, "qwen2", c);
    for (const auto& [name, v] : m.w) g.tensor(name, m.shape.at(name), v, m.shape.at(name).size() == 1 ? 0 : type);
    const std::vector<uint8_t> file = g.bytes();
    const Loaded l = load_gguf(file.data(), file.size());
    EXPECT_EQ(rope_layout(l.model.config()), RopeLayout::Half);
    EXPECT_EQ(l.model.config().hd(), 64);
    EXPECT_FALSE(l.tokenizer.has_value());
    EXPECT_EQ(forward(l.model, tok.data(), 40).nll, want) << "ggml type " << type;
  }
}

// A Qwen3 GGUF (llama.cpp's qwen3: NEOX rope, attn_q_norm / attn_k_norm per head, head_dim 24 != 64 / 4) loads to the
// same model as the same tensors under HF's names (whose forward tests/js/lm-families.test.js checks against
// HF's Qwen3 code in float64); without its q/k norms it is refused by name.
TEST(LmGguf, Qwen3FileEqualsTheSameWeightsFromHf) {
  Config c = tiny_config(false, 24, 0, false);
  c.arch = Arch::Qwen3;
  Tiny m = make_tiny(c, 13);
  for (const char* n : {"attn_q_norm.weight", "attn_k_norm.weight"})
    for (int l = 0; l < c.n_layers; ++l) {
      const std::string name = "blk." + std::to_string(l) + "." + n;
      m.w[name] = std::vector<float>(24);
      for (int i = 0; i < 24; ++i) m.w[name][i] = 1.0f + static_cast<float>((i * 7 + l * 3) % 11 - 5) / 8.0f;
      m.shape[name] = {24};
    }
  const std::vector<int32_t> tok = random_tokens(50, c.vocab_size, 9);
  const Model hf = from_tensors(c, as_tensors(m));
  const std::vector<float> want = forward(hf, tok.data(), 50).nll;
  GgufWriter g;
  write_hparams(g, "qwen3", c);
  for (const auto& [name, v] : m.w) g.tensor(name, m.shape.at(name), v, 0);
  const std::vector<uint8_t> file = g.bytes();
  const Loaded l = load_gguf(file.data(), file.size());
  EXPECT_EQ(l.model.config().arch, Arch::Qwen3);
  EXPECT_EQ(rope_layout(l.model.config()), RopeLayout::Half);
  EXPECT_EQ(l.model.config().hd(), 24);
  EXPECT_EQ(forward(l.model, tok.data(), 50).nll, want);
  // the q/k norms are read: without them the same weights give another NLL (as a Llama-style model) ...
  Tiny plain = m;
  Config llama = c;
  llama.arch = Arch::Llama;
  for (int l2 = 0; l2 < c.n_layers; ++l2)
    for (const char* n : {"attn_q_norm.weight", "attn_k_norm.weight"}) plain.w.erase("blk." + std::to_string(l2) + "." + n);
  EXPECT_GT(max_diff(forward(from_tensors(llama, as_tensors(plain)), tok.data(), 50).nll,
                     std::vector<double>(want.begin(), want.end())), 0.05);
  // ... and a qwen3 file without them is refused by name
  GgufWriter missing;
  write_hparams(missing, "qwen3", c);
  for (const auto& [name, v] : plain.w) missing.tensor(name, plain.shape.at(name), v, 0);
  const std::vector<uint8_t> bad = missing.bytes();
  EXPECT_THROW(
      {
        try {
          load_gguf(bad.data(), bad.size());
        } catch (const posenc::Error& e) {
          EXPECT_STREQ(e.what(), "tensor blk.0.attn_q_norm.weight is missing");
          throw;
        }
      },
      posenc::Error);
}

// Llama 3.x GGUFs carry llama3 scaling as rope_freqs.weight alone (llama.cpp's converter writes no scaling keys). The
// factors the converter computes for Llama 3.2's block (theta 500000, head_dim 64, factor 32, low 1, high 4, original
// context 8192) are read back as that block, the file's own scaling, and the forward with it equals the same file's
// without the tensor given that block as an option; factors off llama3's rule are refused by name.
std::vector<float> converter_llama3_factors(double theta, int dim, double factor, double low, double high, double old) {
  std::vector<float> out;
  for (int i = 0; i < dim; i += 2) {
    const float freq = 1.0f / std::pow(static_cast<float>(theta), static_cast<float>(i) / dim);  // torch float32
    const double wavelen = 2 * 3.141592653589793 / freq;
    if (wavelen < old / high) out.push_back(1.0f);
    else if (wavelen > old / low) out.push_back(static_cast<float>(factor));
    else {
      const double smooth = (old / wavelen - low) / (high - low);
      out.push_back(static_cast<float>(1 / ((1 - smooth) / factor + smooth)));
    }
  }
  return out;
}

TEST(LmGguf, Llama3RopeFreqsAreReadAsTheirBlock) {
  Config c = tiny_config(false, 64, 0, true);
  c.rope_theta = 500000;
  c.context = 131072;
  const Tiny m = make_tiny(c, 17);
  const auto file = [&](const std::vector<float>* freqs) {
    GgufWriter g;
    write_hparams(g, "llama", c);
    for (const auto& [name, v] : m.w) g.tensor(name, m.shape.at(name), v, 0);
    if (freqs) g.tensor("rope_freqs.weight", {32}, *freqs, 0);
    return g.bytes();
  };
  const std::vector<float> f = converter_llama3_factors(500000, 64, 32, 1, 4, 8192);
  int between = 0;
  for (const float x : f) between += x > 1 && x < 32;
  EXPECT_EQ(between, 3);  // three pairs between the two wavelengths, the rest 1 or 32
  const std::vector<uint8_t> with = file(&f), without = file(nullptr);
  const Loaded l = load_gguf(with.data(), with.size());
  ASSERT_EQ(l.scaling.type, posenc::parse_rope_type("llama3"));
  EXPECT_EQ(*l.scaling.factor, 32);
  EXPECT_EQ(*l.scaling.low_freq_factor, 1);
  EXPECT_EQ(*l.scaling.high_freq_factor, 4);
  EXPECT_EQ(*l.scaling.original_max_position_embeddings, 8192);
  EXPECT_EQ(load_gguf(without.data(), without.size()).scaling.type, posenc::parse_rope_type("default"));
  const std::vector<int32_t> tok = random_tokens(60, c.vocab_size, 4);
  ForwardOptions own, given, none;
  own.scaling = l.scaling;
  given.scaling.type = posenc::parse_rope_type("llama3");
  given.scaling.factor = 32, given.scaling.low_freq_factor = 1, given.scaling.high_freq_factor = 4;
  given.scaling.original_max_position_embeddings = 8192;
  const Loaded plain = load_gguf(without.data(), without.size());
  EXPECT_EQ(forward(l.model, tok.data(), 60, own).nll, forward(plain.model, tok.data(), 60, given).nll);
  // (the block changes the forward: three pairs slowed, the lowest 29 by 32)
  const std::vector<float> unscaled = forward(plain.model, tok.data(), 60, none).nll;
  EXPECT_GT(max_diff(forward(l.model, tok.data(), 60, own).nll, std::vector<double>(unscaled.begin(), unscaled.end())), 1e-3);
  // another block (original context 64, as lm-gguf-families.test.js's tiny Llama 3.2) is fitted from its pairs between
  const std::vector<float> f64 = converter_llama3_factors(500000, 64, 8, 1, 4, 64);
  const std::vector<uint8_t> other = file(&f64);
  const Loaded o = load_gguf(other.data(), other.size());
  EXPECT_EQ(*o.scaling.factor, 8);
  const std::vector<double> got = rope_frequencies(64, 500000, o.scaling, std::nullopt).inv_freq;
  RopeScaling want = given.scaling;
  want.factor = 8, want.original_max_position_embeddings = 64;
  const std::vector<double> exact = rope_frequencies(64, 500000, want, std::nullopt).inv_freq;
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i] / exact[i], 1, 1e-5) << "pair " << i;
  std::vector<float> bad = f;
  bad[1] = 32;  // a high frequency slowed: no llama3 block does that
  const std::vector<uint8_t> off = file(&bad);
  EXPECT_THROW(
      {
        try {
          load_gguf(off.data(), off.size());
        } catch (const posenc::Error& e) {
          EXPECT_STREQ(e.what(), "GGUF tensor rope_freqs.weight does not follow llama3's rule (factors 1 to factor, smooth between)");
          throw;
        }
      },
      posenc::Error);
}

// --- stories260K across formats
struct Stories {
  std::vector<uint8_t> bin, gguf, tok;
  Stories()
      : bin(read_file(stories_dir() + "/stories260K.bin")),
        gguf(read_file(stories_dir() + "/stories260K.gguf")),
        tok(read_file(stories_dir() + "/tok512.bin")) {}
};

TEST(LmStories, BinHeaderAndGgufMetadata) {
  POSENC_REQUIRE_STORIES();
  const Stories s;
  const Model bin = load_llama2c(s.bin.data(), s.bin.size());
  const Config& c = bin.config();
  EXPECT_EQ(c.dim, 64);
  EXPECT_EQ(c.hidden_dim, 172);
  EXPECT_EQ(c.n_layers, 5);
  EXPECT_EQ(c.n_heads, 8);
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.hd(), 8);
  EXPECT_EQ(c.context, 512);
  EXPECT_EQ(c.context_source, ContextSource::TrainedHeader);
  EXPECT_TRUE(c.tied_embeddings);
  EXPECT_EQ(rope_layout(c), RopeLayout::Interleaved);
  const Loaded g = load_gguf(s.gguf.data(), s.gguf.size());
  EXPECT_EQ(g.model.config().context, 2048);
  EXPECT_EQ(g.model.config().context_source, ContextSource::ConverterDefault);
  EXPECT_EQ(rope_layout(g.model.config()), RopeLayout::Interleaved);
  EXPECT_FALSE(g.model.config().tied_embeddings);  // the converter wrote output.weight, a copy
}

TEST(LmStories, GgufAndBinGiveTheSameTokensAndNll) {
  POSENC_REQUIRE_STORIES();
  const Stories s;
  const Model bin = load_llama2c(s.bin.data(), s.bin.size());
  const Loaded g = load_gguf(s.gguf.data(), s.gguf.size());
  const Tokenizer tok = load_llama2c_tokenizer(s.tok.data(), s.tok.size(), 512);
  ASSERT_TRUE(g.tokenizer.has_value());
  const std::string text = read_text(source_dir() + "/web/app/lm/passage.txt");
  std::vector<int32_t> ids = tok.encode(text);
  EXPECT_EQ(g.tokenizer->encode(text), ids);
  ids.resize(600);
  ForwardOptions o;
  o.scaling.type = posenc::parse_rope_type("yarn");
  o.scaling.factor = 4;
  o.scaling.original_max_position_embeddings = 512;  // unset, each file's own context applies (512 vs 2048)
  EXPECT_EQ(forward(bin, ids.data(), 600, o).nll, forward(g.model, ids.data(), 600, o).nll);  // same weights, same bits
}

// HF's conversion permutes each head's Q and K rows from interleaved pairs to the half-split
// layout: row (2i + s) of a head goes to row (s * hd/2 + i). Loaded as HF tensors, the same
// weights must give the same NLL up to float rounding.
TEST(LmStories, TheSameWeightsAsHfTensorsGiveTheSameNll) {
  POSENC_REQUIRE_STORIES();
  const Stories s;
  const Model bin = load_llama2c(s.bin.data(), s.bin.size());
  Config c = bin.config();
  c.source = "safetensors";
  const float* w = reinterpret_cast<const float*>(s.bin.data() + 28);
  const int D = c.dim, F = c.hidden_dim, V = c.vocab_size, L = c.n_layers, hd = c.hd(), KV = c.n_kv_heads * hd;
  std::vector<std::vector<float>> store;
  std::vector<TensorBytes> t;
  std::size_t at = 0;
  auto take = [&](const std::string& name, std::vector<int64_t> shape, int heads) {
    std::size_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(w + at, w + at + n);
    at += n;
    if (heads) {  // permute rows within each head
      std::vector<float> p(v.size());
      const std::size_t cols = shape[1];
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < hd / 2; ++i)
          for (int s2 = 0; s2 < 2; ++s2)
            std::copy_n(v.data() + (h * hd + 2 * i + s2) * cols, cols, p.data() + (h * hd + s2 * hd / 2 + i) * cols);
      v = p;
    }
    store.push_back(std::move(v));
    t.push_back({name, DType::F32, shape, reinterpret_cast<const uint8_t*>(store.back().data()), n * 4});
  };
  store.reserve(16 * L);
  auto layers = [&](const char* part, std::vector<int64_t> shape, int heads) {
    for (int l = 0; l < L; ++l) take("model.layers." + std::to_string(l) + "." + part, shape, heads);
  };
  take("model.embed_tokens.weight", {V, D}, 0);
  layers("input_layernorm.weight", {D}, 0);
  layers("self_attn.q_proj.weight", {D, D}, c.n_heads);
  layers("self_attn.k_proj.weight", {KV, D}, c.n_kv_heads);
  layers("self_attn.v_proj.weight", {KV, D}, 0);
  layers("self_attn.o_proj.weight", {D, D}, 0);
  layers("post_attention_layernorm.weight", {D}, 0);
  layers("mlp.gate_proj.weight", {F, D}, 0);
  layers("mlp.down_proj.weight", {D, F}, 0);
  layers("mlp.up_proj.weight", {F, D}, 0);
  take("model.norm.weight", {D}, 0);
  const Model hf = from_tensors(c, t);
  EXPECT_EQ(rope_layout(hf.config()), RopeLayout::Half);
  const std::vector<int32_t> ids = random_tokens(300, V, 9);
  const std::vector<float> a = forward(bin, ids.data(), 300).nll, b = forward(hf, ids.data(), 300).nll;
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  std::printf("[lm .bin vs HF-permuted tensors, T=300] max |dNLL| %.3g\n", m);
  EXPECT_LT(m, 1e-4);
}

TEST(LmStories, HeadStatisticsAndPooledMaps) {
  POSENC_REQUIRE_STORIES();
  const Stories s;
  const Model bin = load_llama2c(s.bin.data(), s.bin.size());
  const std::vector<int32_t> ids = random_tokens(200, 512, 4);
  ForwardOptions o;
  o.head_stats = true;
  o.map_layer = 2;
  o.map_px = 37;
  const ForwardResult r = forward(bin, ids.data(), 200, o);
  EXPECT_EQ(r.nll, forward(bin, ids.data(), 200).nll);  // statistics change nothing
  ASSERT_EQ(r.entropy.size(), 40u);
  for (std::size_t i = 0; i < r.entropy.size(); ++i) {
    EXPECT_GE(r.entropy[i], 0.0f);
    EXPECT_LE(r.entropy[i], std::log(200.0f));
    EXPECT_GT(r.sink[i], 0.0f);
    EXPECT_LE(r.sink[i], 1.0f);
  }
  ASSERT_EQ(r.maps.size(), 8u * 37 * 37);
  for (float p : r.maps) EXPECT_TRUE(p == -1.0f || (p >= 0.0f && p <= 1.0f));
  for (float p : r.peaks) EXPECT_TRUE(p > 0.0f && p <= 1.0f);

  // Statistics at shorter lengths from the same forward: the means over the first n rows equal a
  // forward over n tokens (a causal row does not see what follows), to float rounding; the last
  // length's equal the default (all rows).
  ForwardOptions at;
  at.head_stats = true;
  at.stats_lengths = {100, 200};
  const ForwardResult both = forward(bin, ids.data(), 200, at);
  ForwardOptions plain;
  plain.head_stats = true;
  const ForwardResult first100 = forward(bin, ids.data(), 100, plain);
  ASSERT_EQ(both.entropy.size(), 80u);
  for (std::size_t i = 0; i < 40; ++i) {
    EXPECT_NEAR(both.entropy[i], first100.entropy[i], 1e-5) << i;
    EXPECT_NEAR(both.sink[i], first100.sink[i], 1e-6) << i;
    EXPECT_EQ(both.entropy[40 + i], r.entropy[i]) << i;
    EXPECT_EQ(both.sink[40 + i], r.sink[i]) << i;
  }
  at.stats_lengths = {201};
  EXPECT_THROW(forward(bin, ids.data(), 200, at), posenc::Error);
}

// --- Tokenizer
Tokenizer toy_tokenizer() {
  std::vector<std::string> p = {"<unk>", "<s>", "</s>"};
  for (int b = 0; b < 256; ++b) {
    char n[8];
    std::snprintf(n, sizeof n, "<0x%02X>", b);
    p.push_back(n);
  }
  std::vector<float> s(p.size(), 0.0f);
  for (auto [piece, score] : std::vector<std::pair<std::string, float>>{{" ", -5}, {"a", -1}, {"b", -2}, {"ab", 1}, {" a", 2}, {" ab", -20000000000.0f}}) {
    p.push_back(piece);
    s.push_back(score);
  }
  return Tokenizer(p, s, 1, 2);
}

TEST(LmTokenizer, MergesTheBestPairFirstAndFallsBackToBytes) {
  const Tokenizer t = toy_tokenizer();
  // " ab": pairs " a" (2) and "ab" (1): " a" merges first; " ab" scores below llama2.c's -1e10 floor.
  EXPECT_EQ(t.encode("ab"), (std::vector<int32_t>{1, 263, 261}));
  EXPECT_EQ(t.encode(""), (std::vector<int32_t>{1}));
  EXPECT_EQ(t.encode("", false), (std::vector<int32_t>{}));
  // "é" is not a piece: its two UTF-8 bytes, each as <0xXX>.
  EXPECT_EQ(t.encode("\xC3\xA9", false), (std::vector<int32_t>{259, 3 + 0xC3, 3 + 0xA9}));
  const Tokenizer no_prefix(std::vector<std::string>{"<s>", "a", " ", " a"}, {0, 0, 0, 1}, 0, -1, false);
  EXPECT_EQ(no_prefix.encode("a"), (std::vector<int32_t>{0, 1}));  // no dummy-prefix space
  EXPECT_EQ(no_prefix.encode(" a"), (std::vector<int32_t>{0, 3}));
  const Tokenizer no_bytes({"<s>", "a"}, {0, 0}, 0, -1);
  EXPECT_THROW(no_bytes.encode("b"), Error);
}

// --- Hostile files: each a clean posenc::Error naming the problem
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(LmHostile, Llama2cCheckpoints) {
  POSENC_REQUIRE_STORIES();
  std::vector<uint8_t> b = read_file(stories_dir() + "/stories260K.bin");
  auto load = [](std::vector<uint8_t> x) { return error_of([&] { load_llama2c(x.data(), x.size()); }); };
  EXPECT_NE(load({b.begin(), b.begin() + 20}).find("truncated at byte 20"), std::string::npos);
  EXPECT_NE(load({b.begin(), b.end() - 4}).find("truncated"), std::string::npos);
  std::vector<uint8_t> lying = b;
  lying[0] = 0, lying[1] = 0, lying[2] = 0, lying[3] = 0x40;  // dim 2^30
  EXPECT_NE(load(lying).find("dim must be"), std::string::npos) << load(lying);
  lying = b;
  lying[4 * 2] = 200;  // 200 layers: the file is far too short
  EXPECT_NE(load(lying).find("needs"), std::string::npos) << load(lying);
  std::vector<uint8_t> nan = b;
  const uint32_t qnan = 0x7fc00000;
  std::memcpy(nan.data() + 28 + 4 * 40000, &qnan, 4);  // inside blk.0.attn_q (wq starts at float 32768 + 320)
  EXPECT_NE(load(nan).find("has a NaN at element"), std::string::npos) << load(nan);
  EXPECT_NE(load(nan).find("attn_q"), std::string::npos) << load(nan);
  const std::vector<uint8_t> tok = read_file(stories_dir() + "/tok512.bin");
  EXPECT_NE(error_of([&] { load_llama2c_tokenizer(tok.data(), tok.size() - 3, 512); }).find("truncated"), std::string::npos);
  EXPECT_NE(error_of([&] { load_llama2c_tokenizer(tok.data(), tok.size(), 511); }).find("bytes after"), std::string::npos);
}

std::vector<uint8_t> gguf_with_tensor_type(uint32_t type) {
  GgufWriter g;
  g.kv_str("general.architecture", "llama");
  g.tensor_raw("blk.0.attn_q.weight", {64, 64}, std::vector<uint8_t>(64 * 64 / 256 * 144), type);
  return g.bytes();
}

TEST(LmHostile, GgufFiles) {
  auto load = [](const std::vector<uint8_t>& x) { return error_of([&] { load_gguf(x.data(), x.size()); }); };
  const std::vector<uint8_t> q4k = gguf_with_tensor_type(12);
  const std::string e = error_of([&] {
    const GgufFile f = parse_gguf(q4k.data(), q4k.size());
    EXPECT_EQ(ggml_type_name(f.tensors[0].ggml_type), "Q4_K");
    load_gguf(q4k.data(), q4k.size());
  });
  EXPECT_NE(e.find("is missing"), std::string::npos) << e;  // no hyper-parameters: refused first
  EXPECT_EQ(ggml_type_name(39), "MXFP4");
  EXPECT_EQ(ggml_type_name(31), "type 31");
  EXPECT_EQ(load({'G', 'G', 'U'}), "GGUF is truncated at byte 3 (reading the magic at byte 0, 4 bytes needed)");
  EXPECT_NE(load({'G', 'G', 'U', 'F', 9, 0, 0, 0}).find("version 9"), std::string::npos);
  const Config tiny = tiny_config(false, 0, 0, true);
  GgufWriter scaled;
  write_hparams(scaled, "llama", tiny);
  scaled.kv_str("llama.rope.scaling.type", "yarn");  // (linear is read: the file's own scaling, Loaded::scaling)
  EXPECT_NE(load(scaled.bytes()).find("llama.rope.scaling.type 'yarn'"), std::string::npos) << load(scaled.bytes());
  GgufWriter other;
  write_hparams(other, "mamba", tiny);
  std::string known;  // the family table's GGUF names
  for (const posenc::lm::Family& f : posenc::lm::families())
    if (f.gguf) known += (known.empty() ? "" : ", ") + std::string(f.name);
  EXPECT_EQ(known.rfind("llama, qwen2", 0), 0u) << known;
  EXPECT_EQ(load(other.bytes()), "GGUF architecture 'mamba' is not supported (" + known + ")");
  GgufWriter q4;
  write_hparams(q4, "llama", tiny);
  q4.tensor_raw("token_embd.weight", {64, 64}, std::vector<uint8_t>(64 * 64 / 256 * 144), 12);
  EXPECT_EQ(load(q4.bytes()), "tensor token_embd.weight is Q4_K but its rows are not a multiple of 256 values");
  GgufWriter lie;
  lie.kv_strs("tokenizer.ggml.tokens", {"a", "b"});
  std::vector<uint8_t> f = lie.bytes();
  // The array's count sits after magic, version, 2 counts, key (8 + 21 bytes), value type and element type.
  const std::size_t count_at = 24 + 8 + 21 + 4 + 4;
  f[count_at + 5] = 0x10;  // 2 -> 2 + 2^40 items
  EXPECT_NE(load(f).find("claims"), std::string::npos) << load(f);
}

TEST(LmHostile, GgufRefusesUnsupportedTensorTypesByName) {
  POSENC_REQUIRE_STORIES();
  std::vector<uint8_t> g = read_file(stories_dir() + "/stories260K.gguf");
  const GgufFile f = parse_gguf(g.data(), g.size());
  // blk.0.attn_q.weight's type field: rewrite it to IQ2_XXS (16) in place.
  const std::string name = "blk.0.attn_q.weight";
  const auto it = std::search(g.begin(), g.end(), name.begin(), name.end());
  ASSERT_NE(it, g.end());
  const std::size_t type_at = (it - g.begin()) + name.size() + 4 + 2 * 8;
  g[type_at] = 16;
  EXPECT_EQ(error_of([&] { load_gguf(g.data(), g.size()); }),
            "tensor blk.0.attn_q.weight has type IQ2_XXS, which posenc does not read (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, "
            "Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K)");
  EXPECT_EQ(f.tensors.size(), 48u);
}

TEST(LmForward, RefusesBadArguments) {
  const Tiny m = make_tiny(tiny_config(false, 0, 0, true), 1);
  const Model model = from_tensors(m.c, as_tensors(m));
  const std::vector<int32_t> tok = {1, 2, 64};
  EXPECT_NE(error_of([&] { forward(model, tok.data(), 3); }).find("tokens[2]"), std::string::npos);
  EXPECT_NE(error_of([&] { forward(model, tok.data(), 0); }).find("T must be"), std::string::npos);
  ForwardOptions o;
  o.map_layer = 5;
  EXPECT_NE(error_of([&] { forward(model, tok.data(), 2, o); }).find("map_layer"), std::string::npos);
  Config c = m.c;
  c.n_kv_heads = 3;
  EXPECT_NE(error_of([&] { from_tensors(c, as_tensors(m)); }).find("n_kv_heads"), std::string::npos);
  std::vector<TensorBytes> t = as_tensors(m);
  t.pop_back();
  EXPECT_NE(error_of([&] { from_tensors(m.c, t); }).find("is missing"), std::string::npos);
}

// A forward in parts (the page runs the parts on different Workers): the part over [0, a + 1) keeps a
// rows, the part over [a, b + 1) continues from them and keeps b, the last runs to T. Their NLL, joined,
// is the whole forward's, for a scaling of each kind the parts may take (the key blocks a row visits come
// in another order, so equal to float rounding).
TEST(LmForward, PartsWithAPastGiveTheWholeForward) {
  const Tiny m = make_tiny(tiny_config(false, 0, 0, true), 5);
  const Model model = from_tensors(m.c, as_tensors(m));
  const int T = 150, a = 67, b = 130;  // 150 rows: the kernel's 64-row blocks fall differently in each part
  const std::vector<int32_t> tok = random_tokens(T, m.c.vocab_size, 9);
  for (const RopeType type : {posenc::parse_rope_type("default"), posenc::parse_rope_type("linear"), posenc::parse_rope_type("yarn")}) {
    ForwardOptions o;
    o.scaling.type = type;
    if (type != posenc::parse_rope_type("default")) o.scaling.factor = 4;
    const std::vector<float> whole = forward(model, tok.data(), T, o).nll;
    ForwardOptions o1 = o;
    o1.keep = a;
    const ForwardResult r1 = forward(model, tok.data(), a + 1, o1);
    ASSERT_EQ(r1.cache.rows, a);
    ForwardOptions o2 = o;
    o2.past = &r1.cache;
    o2.keep = b - a;
    const ForwardResult r2 = forward(model, tok.data() + a, b - a + 1, o2);
    ASSERT_EQ(r2.cache.rows, b);
    ForwardOptions o3 = o;
    o3.past = &r2.cache;
    const ForwardResult r3 = forward(model, tok.data() + b, T - b, o3);
    std::vector<float> joined = r1.nll;
    joined.insert(joined.end(), r2.nll.begin(), r2.nll.end());
    joined.insert(joined.end(), r3.nll.begin(), r3.nll.end());
    ASSERT_EQ(joined.size(), whole.size());
    double worst = 0;
    for (std::size_t i = 0; i < whole.size(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(joined[i]) - whole[i]));
    EXPECT_LT(worst, 2e-5) << rope_type_name(type);
    // the kept keys are the whole forward's: a part that starts at the same row gives the same NLL again
    EXPECT_EQ(forward(model, tok.data() + b, T - b, o3).nll, r3.nll);
  }
}

TEST(LmForward, RefusesAPastItCannotUse) {
  const Tiny m = make_tiny(tiny_config(false, 0, 0, true), 1);
  const Model model = from_tensors(m.c, as_tensors(m));
  const std::vector<int32_t> tok = random_tokens(20, m.c.vocab_size, 2);
  ForwardOptions o;
  o.keep = 10;
  const ForwardResult r = forward(model, tok.data(), 11, o);
  ForwardOptions bad;
  bad.keep = 21;
  EXPECT_NE(error_of([&] { forward(model, tok.data(), 20, bad); }).find("keep"), std::string::npos);
  bad = {};
  bad.keep = 5;
  bad.scaling.type = posenc::parse_rope_type("dynamic");
  bad.scaling.factor = 2;
  EXPECT_NE(error_of([&] { forward(model, tok.data(), 20, bad); }).find("dynamic"), std::string::npos);
  bad = {};
  bad.past = &r.cache;
  bad.head_stats = true;
  EXPECT_NE(error_of([&] { forward(model, tok.data() + 10, 10, bad); }).find("head statistics"), std::string::npos);
  KvCache wrong = r.cache;
  wrong.k.pop_back();
  bad = {};
  bad.past = &wrong;
  EXPECT_NE(error_of([&] { forward(model, tok.data() + 10, 10, bad); }).find("past"), std::string::npos);
}

// --- A forward in chunks (Stream): its steps' NLL, joined, and its statistics, maps and peaks are the whole
// forward's, for every scaling (dynamic NTK's too: the stream computes its frequencies at the whole length, as the
// one-call forward does) and a sliding window (Mistral), with steps that fall across the maps' bands and the
// attention kernel's 64-row blocks.
double worst_diff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double w = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) w = std::max(w, std::fabs(static_cast<double>(a[i]) - b[i]));
  return w;
}

std::vector<float> stream_nll(Stream& s, const std::vector<int>& steps) {
  std::vector<float> nll;
  for (std::size_t i = 0; s.done() < s.length(); ++i) {
    const std::vector<float> part = s.step(steps[i % steps.size()]);
    nll.insert(nll.end(), part.begin(), part.end());
  }
  return nll;
}

TEST(LmStream, ChunksGiveTheWholeForward) {
  for (const bool window : {false, true}) {
    Config c = tiny_config(false, 0, 0, true);
    if (window) {  // Mistral: every layer slides over 40 keys (its own included)
      c.arch = Arch::Mistral;
      c.layers = {Config::Layer{true, 40, 0, true}, Config::Layer{true, 40, 0, true}};
    }
    const Tiny m = make_tiny(c, 11);
    const Model model = from_tensors(m.c, as_tensors(m));
    const int T = 150;
    const std::vector<int32_t> tok = random_tokens(T, m.c.vocab_size, 3);
    for (const RopeType type : {posenc::parse_rope_type("default"), posenc::parse_rope_type("linear"), posenc::parse_rope_type("dynamic"), posenc::parse_rope_type("yarn")}) {
      SCOPED_TRACE(std::string(rope_type_name(type)) + (window ? ", window 40" : ""));
      ForwardOptions o;
      o.scaling.type = type;
      if (type != posenc::parse_rope_type("default")) o.scaling.factor = 4;
      o.head_stats = true;
      o.stats_lengths = {32, 100, T};
      o.map_layer = 1;
      o.map_px = 16;
      const ForwardResult whole = forward(model, tok.data(), T, o);
      StreamOptions so;
      so.scaling = o.scaling;
      so.head_stats = true;
      so.stats_lengths = o.stats_lengths;
      so.map_layer = 1;
      so.map_px = 16;
      so.chunk = 70;
      Stream s(model, tok.data(), T, so);
      const std::vector<float> nll = stream_nll(s, {37, 70, 9});  // rows 37, 107, 116, 153...: across bands and blocks
      EXPECT_LT(worst_diff(nll, whole.nll), 2e-5);
      const ForwardResult r = s.result();
      EXPECT_LT(worst_diff(r.entropy, whole.entropy), 2e-5);
      EXPECT_LT(worst_diff(r.sink, whole.sink), 2e-5);
      EXPECT_LT(worst_diff(r.maps, whole.maps), 2e-5);
      EXPECT_LT(worst_diff(r.peaks, whole.peaks), 2e-5);
    }
  }
}

// Dynamic NTK's NLL at a row depends on the whole length: a stream over the first 100 tokens is not the first 100
// rows of a stream over 150 (and the stream over 150 is the forward over 150, above).
TEST(LmStream, DynamicNtkFollowsTheWholeLength) {
  const Tiny m = make_tiny(tiny_config(false, 0, 0, true), 11);
  const Model model = from_tensors(m.c, as_tensors(m));
  const std::vector<int32_t> tok = random_tokens(150, m.c.vocab_size, 3);
  StreamOptions so;
  so.scaling.type = posenc::parse_rope_type("dynamic");
  so.scaling.factor = 4;
  Stream a(model, tok.data(), 150, so), b(model, tok.data(), 100, so);
  const std::vector<float> na = a.step(99), nb = b.step(99);
  EXPECT_GT(worst_diff(na, nb), 1e-3);
}

// The 16-bit cache: the rule, and what it changes. On stories260K over the page's passage (2,048 tokens, 4x its
// context, YaRN x4), against the float32 cache, the float16 cache moves a position's NLL by 1.3e-3 nats at the median
// and 0.026 at the 99th percentile (0.53 at worst, one position where the tiny model's 8-channel heads are sharpest),
// the mean over 64 positions (what the figure draws) by at most the bound below, the whole mean by 2e-4. A cache
// that were not 16-bit would not move it at all.
TEST(LmStream, HalfCacheChangesTheNllLittle) {
  POSENC_REQUIRE_STORIES();
  const Stories st;
  const Model model = load_llama2c(st.bin.data(), st.bin.size());
  const Tokenizer tok = load_llama2c_tokenizer(st.tok.data(), st.tok.size(), 512);
  std::vector<int32_t> ids = tok.encode(read_text(source_dir() + "/web/app/lm/passage.txt"));
  ASSERT_GE(ids.size(), 2048u);
  ids.resize(2048);
  StreamOptions so;
  so.scaling.type = posenc::parse_rope_type("yarn");
  so.scaling.factor = 4;
  Stream f32(model, ids.data(), 2048, so);
  so.kv = KvType::F16;
  Stream f16(model, ids.data(), 2048, so);
  const std::vector<float> a = stream_nll(f32, {256}), b = stream_nll(f16, {256});
  double mean = 0;
  for (std::size_t i = 0; i < a.size(); ++i) mean += (static_cast<double>(b[i]) - a[i]) / a.size();
  const double worst = worst_diff(a, b);
  std::vector<double> d;
  for (std::size_t i = 0; i < a.size(); ++i) d.push_back(std::fabs(static_cast<double>(b[i]) - a[i]));
  std::sort(d.begin(), d.end());
  double bucket = 0;  // the figure's: mean NLL over 64 positions (32 buckets of 2,048)
  for (std::size_t k = 0; k + 64 <= a.size(); k += 64) {
    double s = 0;
    for (std::size_t i = k; i < k + 64; ++i) s += static_cast<double>(b[i]) - a[i];
    bucket = std::max(bucket, std::fabs(s / 64));
  }
  std::printf("float16 cache against float32: |dNLL| median %.3g, 99th percentile %.3g, worst %.3g nats; worst 64-position "
              "mean %.3g, mean %.3g\n", d[d.size() / 2], d[d.size() * 99 / 100], worst, bucket, mean);
  EXPECT_GT(worst, 0.0);             // the cache is 16-bit
  EXPECT_LT(d[d.size() / 2], 5e-3);  // most positions move by a few thousandths of a nat
  EXPECT_LT(bucket, 5e-3);           // what the figure draws moves by less than 0.5 % in perplexity
  EXPECT_LT(std::fabs(mean), 1e-3);
  // the rule: float32 up to kKvF32Bytes of float32 cache, float16 above
  EXPECT_EQ(kv_type_for(model.config(), 2048), KvType::F32);  // 1,280 bytes a token
  Config big = model.config();
  big.n_layers = 30, big.n_kv_heads = 3, big.head_dim = 64;  // SmolLM2-135M's: 46,080 bytes a token
  EXPECT_EQ(kv_type_for(big, 1456), KvType::F32);
  EXPECT_EQ(kv_type_for(big, 1457), KvType::F16);
  EXPECT_EQ(kv_cache_bytes(big, 4096, KvType::F16), std::size_t{94371840});
}

TEST(LmStream, RefusesBadSteps) {
  const Tiny m = make_tiny(tiny_config(false, 0, 0, true), 1);
  const std::vector<int32_t> tok = random_tokens(20, m.c.vocab_size, 2);
  StreamOptions so;
  so.chunk = 8;
  const Model model = from_tensors(m.c, as_tensors(m));
  Stream s(model, tok.data(), 20, so);
  EXPECT_NE(error_of([&] { s.step(9); }).find("n must be an integer in [1, 8]"), std::string::npos);
  EXPECT_NE(error_of([&] { s.result(); }).find("0 of 20 rows run"), std::string::npos);
  EXPECT_EQ(s.step(8).size(), 8u);
  EXPECT_EQ(s.step(8).size(), 8u);
  EXPECT_EQ(s.step(8).size(), 3u);  // rows 16..19: the last predicts nothing
  EXPECT_NE(error_of([&] { s.step(1); }).find("every row already run"), std::string::npos);
  so.map_layer = 1;
  so.map_px = 21;
  EXPECT_NE(error_of([&] { Stream(model, tok.data(), 20, so); }).find("map_px"), std::string::npos);
}

}  // namespace
}  // namespace posenc::lm
