// Kazemnejad et al.'s copy tasks (posenc/tasks_kazemnejad.hpp): hand-checked formats of cmc, rsc and rdc,
// their split sizes at the paper's settings, what each length bin holds, the batch layout and targets,
// determinism, the sampler, option checks, and the teacher-forced exact match against greedy decoding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "posenc/tasks_kazemnejad.hpp"

namespace {

using namespace posenc;
using V = std::vector<int32_t>;
constexpr int32_t S = kz::kFirstSymbol;  // s_0

KzSplitOptions opts(KzTask t, int num_train = 100000) {
  KzSplitOptions o;
  o.task = t;
  o.num_train = num_train;
  return o;
}

TEST(tasks_kazemnejad, NamesAndParse) {
  EXPECT_STREQ(kz_task_name(KzTask::Cmc), "cmc");
  EXPECT_STREQ(kz_task_name(KzTask::Rsc), "rsc");
  EXPECT_STREQ(kz_task_name(KzTask::Rdc), "rdc");
  EXPECT_EQ(parse_kz_task("rdc"), KzTask::Rdc);
  try {
    parse_kz_task("copy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Range);
    EXPECT_NE(std::string(e.what()).find("task"), std::string::npos);
  }
}

// Each task's layout, checked by hand on one example of each kind found in the splits.
TEST(tasks_kazemnejad, CmcFormat) {
  const KzSplits s = make_kz_splits(opts(KzTask::Cmc, 2000));
  EXPECT_EQ(s.symbols_used, 100);
  for (const auto& e : s.train) {
    const int n = e.length;
    ASSERT_EQ(static_cast<int>(e.tokens.size()), 2 * n + 4);
    EXPECT_EQ(e.tokens[0], kz::kCopy);
    EXPECT_EQ(e.tokens[1], kz::kColon);
    EXPECT_EQ(e.tokens[n + 2], kz::kSep);
    EXPECT_EQ(e.answer_start, n + 3);
    EXPECT_EQ(e.tokens.back(), kz::kEos);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(e.tokens[2 + i], e.tokens[n + 3 + i]);  // the answer is the source
      EXPECT_GE(e.tokens[2 + i], S);
      EXPECT_LT(e.tokens[2 + i], S + 100);
    }
  }
}

TEST(tasks_kazemnejad, RscFormatAndBins) {
  KzSplitOptions o = opts(KzTask::Rsc);
  o.symbols = 50;
  const KzSplits s = make_kz_splits(o);
  EXPECT_EQ(s.symbols_used, 50);                // min(per bin 6764, U = 50)
  EXPECT_EQ(s.train.size(), 17u * 50u);        // fewer than num_train: all of them train
  EXPECT_TRUE(s.validation.empty());
  EXPECT_EQ(s.test.size(), 20u * 50u);          // min(500, 50) per test length
  std::map<int, std::set<int32_t>> by_length;   // each bin holds every symbol once
  for (const auto& e : s.train) {
    const int n = e.length;
    ASSERT_EQ(static_cast<int>(e.tokens.size()), 2 * n + 4);
    const int32_t t = e.tokens[2];
    V want = {kz::kCopy, kz::kColon};
    want.insert(want.end(), n, t);
    want.push_back(kz::kSep);
    want.insert(want.end(), n, t);
    want.push_back(kz::kEos);
    EXPECT_EQ(e.tokens, want);
    EXPECT_TRUE(by_length[n].insert(t).second);
  }
  ASSERT_EQ(by_length.size(), 17u);
  EXPECT_EQ(by_length.begin()->first, 4);
  EXPECT_EQ(by_length.rbegin()->first, 20);
  for (const auto& [n, set] : by_length) EXPECT_EQ(set.size(), 50u) << n;
}

TEST(tasks_kazemnejad, RdcFormatPairsAndPaperSizes) {
  const KzSplits s = make_kz_splits(opts(KzTask::Rdc));
  EXPECT_EQ(s.symbols_used, 82);  // int((1 + sqrt(1 + 4 * 6764)) / 2)
  const std::size_t per_bin = 82u * 81u;
  EXPECT_EQ(s.train.size(), 100000u);
  EXPECT_EQ(s.validation.size(), 17u * per_bin - 100000u);
  EXPECT_EQ(s.test.size(), 20u * 500u);
  std::map<int, std::set<std::pair<int32_t, int32_t>>> pairs;
  auto check = [&](const KzExample& e) {
    const int n = e.length;
    ASSERT_EQ(static_cast<int>(e.tokens.size()), 2 * n + 7);
    const int32_t a = e.tokens[1], b = e.tokens[3];
    EXPECT_NE(a, b);
    V want = {kz::kReplace, a, kz::kWith, b, kz::kIn};
    want.insert(want.end(), n, a);
    want.push_back(kz::kSep);
    want.insert(want.end(), n, b);
    want.push_back(kz::kEos);
    EXPECT_EQ(e.tokens, want);
    EXPECT_EQ(e.answer_start, n + 6);
    EXPECT_TRUE(pairs[n].insert({a, b}).second);  // no pair twice in a bin
  };
  for (const auto& e : s.train) check(e);
  for (const auto& e : s.validation) check(e);
  for (const auto& [n, p] : pairs) EXPECT_EQ(p.size(), per_bin) << n;  // train + validation = every pair
  std::map<int, int> test_count;
  for (const auto& e : s.test) {
    check(e);
    ++test_count[e.length];
  }
  ASSERT_EQ(test_count.size(), 20u);
  EXPECT_EQ(test_count.begin()->first, 21);
  EXPECT_EQ(test_count.rbegin()->first, 40);
  for (const auto& [n, k] : test_count) EXPECT_EQ(k, 500) << n;
}

TEST(tasks_kazemnejad, CmcPaperSizes) {
  const KzSplits s = make_kz_splits(opts(KzTask::Cmc));
  EXPECT_EQ(s.train.size(), 100000u);
  EXPECT_EQ(s.validation.size(), 17u * 6764u - 100000u);  // floor(1.15 * 100000 / 17) per bin
  EXPECT_EQ(s.test.size(), 10000u);
  std::map<int, int> train_count;
  for (const auto& e : s.train) ++train_count[e.length];
  for (const auto& e : s.validation) ++train_count[e.length];
  for (const auto& [n, k] : train_count) EXPECT_EQ(k, 6764) << n;
}

TEST(tasks_kazemnejad, FillBatchLayoutAndTargets) {
  KzExample e;  // cmc, n = 2: Copy : s0 s5 SEP s0 s5 EOS
  e.tokens = {kz::kCopy, kz::kColon, S, S + 5, kz::kSep, S, S + 5, kz::kEos};
  e.length = 2;
  e.answer_start = 5;
  KzExample f;  // rsc, n = 1: Copy : s1 SEP s1 EOS
  f.tokens = {kz::kCopy, kz::kColon, S + 1, kz::kSep, S + 1, kz::kEos};
  f.length = 1;
  f.answer_start = 4;
  const KzExample* b[2] = {&e, &f};
  V tokens(2 * 9), targets(2 * 9);
  kz_fill_batch(b, 2, 9, tokens.data(), targets.data());
  EXPECT_EQ(V(tokens.begin(), tokens.begin() + 9), (V{3, 4, S, S + 5, 2, S, S + 5, 1, 0}));
  EXPECT_EQ(V(targets.begin(), targets.begin() + 9), (V{-1, -1, -1, -1, S, S + 5, 1, -1, -1}));
  EXPECT_EQ(V(tokens.begin() + 9, tokens.end()), (V{3, 4, S + 1, 2, S + 1, 1, 0, 0, 0}));
  EXPECT_EQ(V(targets.begin() + 9, targets.end()), (V{-1, -1, -1, S + 1, 1, -1, -1, -1, -1}));
  EXPECT_EQ(e.scored(), 3);
  EXPECT_THROW(kz_fill_batch(b, 2, 7, tokens.data(), targets.data()), Error);  // e needs 8
}

TEST(tasks_kazemnejad, DeterministicAndSeeded) {
  for (KzTask t : {KzTask::Cmc, KzTask::Rsc, KzTask::Rdc}) {
    KzSplitOptions o = opts(t, 3000);
    const KzSplits a = make_kz_splits(o), b = make_kz_splits(o);
    ASSERT_EQ(a.train.size(), b.train.size());
    for (std::size_t i = 0; i < a.train.size(); ++i) ASSERT_EQ(a.train[i].tokens, b.train[i].tokens);
    for (std::size_t i = 0; i < a.test.size(); ++i) ASSERT_EQ(a.test[i].tokens, b.test[i].tokens);
    o.seed += 1;
    const KzSplits c = make_kz_splits(o);
    bool differs = false;
    for (std::size_t i = 0; i < a.train.size() && !differs; ++i) differs = a.train[i].tokens != c.train[i].tokens;
    EXPECT_TRUE(differs) << kz_task_name(t);
  }
}

TEST(tasks_kazemnejad, SamplerEpochsArePermutations) {
  KzSampler s(7, 3), t(7, 3);
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<int> seen;
    for (int i = 0; i < 7; ++i) {
      seen.push_back(s.next());
      EXPECT_EQ(seen.back(), t.next());
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  }
}

// Greedy decoding from the prompt, one forward per generated token (a reference of its own): whether it
// reproduces the whole answer, end token included.
bool greedy_exact(Model& m, const KzExample& e) {
  std::vector<int32_t> seq(e.tokens.begin(), e.tokens.begin() + e.answer_start);
  const int V = m.config().vocab_size;
  for (std::size_t k = e.answer_start; k < e.tokens.size(); ++k) {
    const int T = static_cast<int>(seq.size());
    const float* row = m.forward(seq.data(), 1, T) + std::size_t(T - 1) * V;
    const auto next = static_cast<int32_t>(std::max_element(row, row + V) - row);
    if (next != e.tokens[k]) return false;
    seq.push_back(next);
  }
  return true;
}

TEST(tasks_kazemnejad, TeacherForcedExactMatchIsGreedyDecodings) {
  KzSplitOptions o;
  o.task = KzTask::Rsc;
  o.symbols = 6;
  o.train_min = 1, o.train_max = 6, o.test_min = 7, o.test_max = 14;
  o.num_train = 1000, o.num_test = 48;
  const KzSplits s = make_kz_splits(o);
  ModelConfig c;
  c.encoding = posenc::parse_encoding("none");
  c.layers = 2, c.heads = 2, c.d_model = 32;
  c.vocab_size = kz_vocab_size(o);
  c.max_length = kz_max_tokens(o.task, o.train_max);
  c.seed = 5;
  Model m(c);
  KzSampler sampler(static_cast<int>(s.train.size()), 1);
  std::vector<const KzExample*> batch(16);
  std::vector<int32_t> tokens, targets;
  for (int step = 0; step < 150; ++step) {  // trained a little, so that some answers come out right and some not
    for (auto& e : batch) e = &s.train[sampler.next()];
    const int T = kz_max_tokens(o.task, o.train_max);
    tokens.resize(16 * T);
    targets.resize(16 * T);
    kz_fill_batch(batch.data(), 16, T, tokens.data(), targets.data());
    m.train_step(tokens.data(), targets.data(), 16, T, 3e-3f);
  }
  std::vector<const KzExample*> all;
  for (const auto& e : s.train) all.push_back(&e);
  for (const auto& e : s.test) all.push_back(&e);
  int exact = 0;
  for (const KzExample* e : all) {
    const bool greedy = greedy_exact(m, *e);
    EXPECT_EQ(kz_score(m, {e}).exact == 1, greedy) << "length " << e->length;
    exact += greedy;
  }
  EXPECT_GT(exact, 0);  // both outcomes occur, so the comparison can fail either way
  EXPECT_LT(exact, static_cast<int>(all.size()));
  const KzScore batched = kz_score(m, all, 5);  // groups of equal length, at most 5 a forward
  EXPECT_EQ(batched.exact, exact);
  EXPECT_EQ(batched.examples, static_cast<int>(all.size()));
  long long answer_tokens = 0;
  for (const KzExample* e : all) answer_tokens += e->scored();
  EXPECT_EQ(batched.tokens, answer_tokens);
  std::printf("greedy and teacher-forced exact match agree on %zu examples (%d exact)\n", all.size(), exact);
}

TEST(tasks_kazemnejad, OptionChecks) {
  KzSplitOptions o;
  o.symbols = 1;
  EXPECT_THROW(make_kz_splits(o), Error);
  o = KzSplitOptions{};
  o.train_max = 3;  // below train_min 4
  EXPECT_THROW(make_kz_splits(o), Error);
  o = KzSplitOptions{};
  o.task = KzTask::Rdc;
  o.num_train = 10;  // under one example per bin: no pair of symbols
  EXPECT_THROW(make_kz_splits(o), Error);
  EXPECT_EQ(kz_max_tokens(KzTask::Cmc, 20), 44);
  EXPECT_EQ(kz_max_tokens(KzTask::Rdc, 40), 87);
  EXPECT_EQ(kz_vocab_size(KzSplitOptions{}), 108);
}

}  // namespace
