// posenc::lm's forward on several threads (ForwardOptions::threads) gives the same bits as on one: random
// models in float32, float16, bfloat16 and Q8_0 (and Q4_K and a K-format mix: BlockFormatsGiveTheBitsOfOne),
// at T = 3 (the formats' kernels), 77 and 300 (T not a
// multiple of any split: the rows of x by 32, the attention's query rows by 256, the column panels by 256),
// with the attention statistics and a map, and a forward continued from a past.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "lm_test_util.hpp"
#include "posenc/error.hpp"
#include "posenc/lm.hpp"
#include "posenc/threads.hpp"

namespace posenc::lm {
namespace {

using namespace test;

// 5 column panels of 256 in the classifier: split by panels on 2 threads, by rows on 3 and more
Config small_config() {
  return Config{.arch = Arch::Llama, .dim = 96, .hidden_dim = 160, .n_layers = 2, .n_heads = 3, .n_kv_heads = 1, .vocab_size = 1100,
                .context = 512};
}

std::vector<int32_t> tokens(int T, int V) {
  std::vector<int32_t> t(T);
  for (int i = 0; i < T; ++i) t[i] = static_cast<int32_t>((i * 7919 + 13) % V);
  return t;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);  // (memcmp of null: UB)
}

void expect_same(const ForwardResult& a, const ForwardResult& b, const std::string& what) {
  EXPECT_TRUE(same_bits(a.nll, b.nll)) << what << ": nll";
  EXPECT_TRUE(same_bits(a.logits, b.logits)) << what << ": logits";
  EXPECT_TRUE(same_bits(a.entropy, b.entropy)) << what << ": entropy";
  EXPECT_TRUE(same_bits(a.sink, b.sink)) << what << ": sink";
  EXPECT_TRUE(same_bits(a.maps, b.maps)) << what << ": maps";
  EXPECT_TRUE(same_bits(a.peaks, b.peaks)) << what << ": peaks";
  EXPECT_TRUE(same_bits(a.cache.k, b.cache.k) && same_bits(a.cache.v, b.cache.v)) << what << ": cache";
}

TEST(LmThreads, EveryThreadCountGivesTheBitsOfOne) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
    const RandomModel rm = random_model(small_config(), dtype, 7 + static_cast<uint32_t>(dtype));
    const Model model = from_tensors(rm.config, rm.tensors);
    for (int T : {3, 77, 300}) {
      const std::vector<int32_t> tok = tokens(T, rm.config.vocab_size);
      ForwardOptions o;
      o.logits_rows = {0, T - 1};
      o.head_stats = true;
      o.stats_lengths = {1, T};
      o.map_layer = 1;
      o.map_px = std::min(T, 16);
      o.threads = 1;
      const ForwardResult one = forward(model, tok.data(), T, o);
      ASSERT_EQ(one.nll.size(), static_cast<std::size_t>(T - 1));
      for (int n : {2, 3, 5}) {
        o.threads = n;
        expect_same(one, forward(model, tok.data(), T, o), std::string(dtype_name(dtype)) + " T=" + std::to_string(T) +
                                                               " threads=" + std::to_string(n));
      }
    }
  }
}

// Q4_K, and a Q4_K_M-like mix (Q6_K for ffn_down and the output, Q5_0 for attn_v, Q8_0 for the embeddings):
// T = 3 and 20 through the formats' kernels, 77 and 300 through the decoded panels.
TEST(LmThreads, BlockFormatsGiveTheBitsOfOne) {
  const Config c{.arch = Arch::Llama, .dim = 256, .hidden_dim = 512, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2,
                 .vocab_size = 600, .context = 512};
  const auto mix = [](const std::string& name) {
    if (name.find("ffn_down") != std::string::npos || name == "output.weight") return DType::Q6_K;
    if (name.find("attn_v") != std::string::npos) return DType::Q5_0;
    if (name == "token_embd.weight") return DType::Q8_0;
    return DType::Q4_K;
  };
  for (bool mixed : {false, true}) {
    const RandomModel rm = mixed ? random_model(c, DType::Q4_K, 21, mix) : random_model(c, DType::Q4_K, 20);
    const Model model = from_tensors(rm.config, rm.tensors);
    for (int T : {3, 20, 77, 300}) {
      const std::vector<int32_t> tok = tokens(T, rm.config.vocab_size);
      ForwardOptions o;
      o.logits_rows = {0, T - 1};
      o.threads = 1;
      const ForwardResult one = forward(model, tok.data(), T, o);
      for (float v : one.nll) ASSERT_TRUE(std::isfinite(v));
      for (int n : {2, 3}) {
        o.threads = n;
        expect_same(one, forward(model, tok.data(), T, o), std::string(mixed ? "mix" : "Q4_K") + " T=" + std::to_string(T) +
                                                               " threads=" + std::to_string(n));
      }
    }
  }
}

TEST(LmThreads, AForwardFromAPastGivesTheBitsOfOne) {
  const RandomModel rm = random_model(small_config(), DType::BF16, 3);
  const Model model = from_tensors(rm.config, rm.tensors);
  const std::vector<int32_t> tok = tokens(400, rm.config.vocab_size);
  ForwardOptions first;
  first.keep = 130;
  first.threads = 1;
  const ForwardResult a1 = forward(model, tok.data(), 131, first);
  first.threads = 2;
  const ForwardResult a2 = forward(model, tok.data(), 131, first);
  expect_same(a1, a2, "first part");
  ForwardOptions rest;
  rest.past = &a1.cache;
  rest.threads = 1;
  const ForwardResult b1 = forward(model, tok.data() + 130, 270, rest);
  rest.threads = 2;
  expect_same(b1, forward(model, tok.data() + 130, 270, rest), "part from a past");
}

TEST(LmThreads, ThreadCountOutOfRangeIsNamed) {
  const RandomModel rm = random_model(small_config(), DType::F32, 1);
  const Model model = from_tensors(rm.config, rm.tensors);
  const std::vector<int32_t> tok = tokens(4, rm.config.vocab_size);
  for (int n : {-1, threads::kMax + 1}) {
    ForwardOptions o;
    o.threads = n;
    try {
      forward(model, tok.data(), 4, o);
      ADD_FAILURE() << "threads = " << n << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("threads"), std::string::npos) << e.what();
    }
  }
}

TEST(LmThreads, PoolRunsEveryItemOnceAndRethrows) {
  std::vector<int> hits(1000, 0);
  threads::parallel_for(1000, 4, [&](int i) { ++hits[i]; });
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(hits[i], 1) << i;
  EXPECT_THROW(threads::parallel_for(50, 3, [&](int i) {
    if (i == 17) throw std::runtime_error("item 17");
  }), std::runtime_error);
  std::atomic<int> count{0};
  threads::parallel_for(8, 2, [&](int) { threads::parallel_for(4, 2, [&](int) { ++count; }); });  // nested: inline
  EXPECT_EQ(count.load(), 32);
}

}  // namespace
}  // namespace posenc::lm
