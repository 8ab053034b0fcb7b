// Task generators: layout, targets, vocabulary, determinism, Copy's unchanged
// stream, Reverse, Retrieval (both layouts, needle depth, dictionary), Markov
// (shared table, transitions, oracle), KthRetrieval (layout, an independent solver, depth,
// the answer is not a function of the multiset of tokens) and option checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "posenc/checkpoint.hpp"  // fnv1a64
#include "posenc/error.hpp"
#include "posenc/tasks.hpp"
#include "test_util.hpp"

namespace {

using posenc::kFirstSymbol;
using posenc::kTokenBos;
using posenc::kTokenPad;
using posenc::kTokenSep;
using posenc::TaskGenerator;
using posenc::TaskKind;
using posenc::TaskOptions;

struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> tok, tgt;
  const int32_t* x(int b) const { return tok.data() + static_cast<std::size_t>(b) * T; }
  const int32_t* y(int b) const { return tgt.data() + static_cast<std::size_t>(b) * T; }
};

Batch draw(TaskGenerator& g, int B, int T) {
  Batch r;
  r.B = B;
  r.T = T;
  r.tok.resize(static_cast<std::size_t>(B) * T);
  r.tgt.resize(r.tok.size());
  g.sample(B, T, r.tok.data(), r.tgt.data());
  return r;
}

TaskOptions task(TaskKind k, int symbols = 8) {
  TaskOptions o;
  o.kind = k;
  o.symbols = symbols;
  return o;
}

int scored(const Batch& b, int s) {
  int n = 0;
  for (int t = 0; t < b.T; ++t) n += b.y(s)[t] >= 0 ? 1 : 0;
  return n;
}

TEST(tasks, NamesFollowTheEnumOrder) {
  const char* names[] = {"copy", "reverse", "retrieval", "markov", "kth_retrieval"};
  for (int i = 0; i < posenc::kTaskCount; ++i) {
    EXPECT_STREQ(posenc::task_name(static_cast<TaskKind>(i)), names[i]);
    EXPECT_EQ(static_cast<int>(posenc::parse_task(names[i])), i);
  }
  ExpectError([] { posenc::parse_task("sort"); }, posenc::ErrorKind::Range, "task must be one of 'copy', 'reverse'");
}

// Copy's stream is the one it had before the other tasks existed (hashes recorded then).
TEST(tasks, CopyStreamUnchanged) {
  const uint64_t expected[2][3] = {{6328579890457788626ull, 3564969126641328948ull, 8807379892491287893ull},
                                   {5559928145584616477ull, 993701894695525215ull, 2505630027814777078ull}};
  for (int var = 0; var < 2; ++var)
    for (int i = 0; i < 3; ++i) {
      TaskOptions o;
      o.symbols = std::vector<int>{1, 5, 8}[i];
      o.variable_length = var == 1;
      TaskGenerator g(o, 42);
      std::vector<int32_t> all;
      for (int T : {4, 7, 32, 65}) {
        const Batch b = draw(g, 3, T);
        all.insert(all.end(), b.tok.begin(), b.tok.end());
        all.insert(all.end(), b.tgt.begin(), b.tgt.end());
      }
      EXPECT_EQ(posenc::fnv1a64(reinterpret_cast<const uint8_t*>(all.data()), all.size() * 4), expected[var][i])
          << "variable " << var << " symbols " << o.symbols;
    }
}

TEST(tasks, ReverseLayoutTargetsAndSharedDraws) {
  for (bool var : {false, true}) {
    TaskOptions c = task(TaskKind::Copy, 5), r = task(TaskKind::Reverse, 5);
    c.variable_length = r.variable_length = var;
    EXPECT_EQ(posenc::task_vocab_size(r), 8);
    EXPECT_EQ(posenc::task_min_length(r), 4);
    TaskGenerator gc(c, 9), gr(r, 9);
    for (int T : {4, 5, 17, 40, 256}) {
      const Batch bc = draw(gc, 4, T), br = draw(gr, 4, T);
      for (int s = 0; s < 4; ++s) {
        const int32_t* x = br.x(s);
        const int32_t* y = br.y(s);
        const int32_t* xc = bc.x(s);
        int h = 0;
        while (x[h + 1] != kTokenSep) ++h;
        if (!var) EXPECT_EQ(h, (T - 2) / 2);
        EXPECT_EQ(x[0], kTokenBos);
        for (int i = 1; i <= h; ++i) {
          EXPECT_EQ(x[i], xc[i]);                 // same draws as Copy
          EXPECT_EQ(x[h + 1 + i], x[h + 1 - i]);  // reversed
          EXPECT_GE(x[i], kFirstSymbol);
          EXPECT_LT(x[i], kFirstSymbol + 5);
        }
        for (int t = 2 * h + 2; t < T; ++t) EXPECT_EQ(x[t], kTokenPad);
        for (int t = 0; t < T; ++t) EXPECT_EQ(y[t], (t >= h + 1 && t <= 2 * h) ? x[t + 1] : -1) << t;
        EXPECT_EQ(scored(br, s), h);
      }
    }
  }
}

// Parses one retrieval sequence: the pairs (key index, value index), the query and answer.
struct Retrieval {
  std::vector<std::pair<int, int>> pairs;
  int sep = -1, query = -1, answer = -1;
};

Retrieval parse_retrieval(const int32_t* x, int T, const TaskOptions& o) {
  const int n = o.symbols, m = (n + 1) / 2, nv = n - m;
  Retrieval r;
  EXPECT_EQ(x[0], kTokenBos);
  int t = 1;
  while (t < T && x[t] != kTokenSep) {
    if (o.packed) {
      const int id = x[t] - kFirstSymbol - n;
      EXPECT_GE(id, 0);
      EXPECT_LT(id, m * nv);
      r.pairs.push_back({id / nv, m + id % nv});
      t += 1;
    } else {
      const int k = x[t] - kFirstSymbol, v = x[t + 1] - kFirstSymbol;
      EXPECT_GE(k, 0);
      EXPECT_LT(k, m);  // keys and values in separate ranges
      EXPECT_GE(v, m);
      EXPECT_LT(v, n);
      r.pairs.push_back({k, v});
      t += 2;
    }
  }
  r.sep = t;
  r.query = x[t + 1] - kFirstSymbol;
  r.answer = x[t + 2] - kFirstSymbol;
  for (int u = t + 3; u < T; ++u) EXPECT_EQ(x[u], kTokenPad);
  return r;
}

TEST(tasks, RetrievalLayoutNeedleAndTargets) {
  for (bool packed : {true, false})
    for (bool var : {false, true}) {
      TaskOptions o = task(TaskKind::Retrieval, 16);
      o.packed = packed;
      o.variable_length = var;
      EXPECT_EQ(posenc::task_vocab_size(o), packed ? 16 + 3 + 8 * 8 : 19);
      EXPECT_EQ(posenc::task_min_length(o), packed ? 5 : 6);
      TaskGenerator g(o, 3);
      for (int T : {posenc::task_min_length(o), 7, 32, 33, 256}) {
        const Batch b = draw(g, 8, T);
        for (int s = 0; s < 8; ++s) {
          const Retrieval r = parse_retrieval(b.x(s), T, o);
          const int p = static_cast<int>(r.pairs.size());
          if (!var) EXPECT_EQ(p, packed ? T - 4 : (T - 4) / 2);
          EXPECT_GE(p, 1);
          // the query key occurs exactly once, with the answer as its value
          int hits = 0;
          std::map<int, int> dict;
          for (auto [k, v] : r.pairs) {
            if (k == r.query) {
              ++hits;
              EXPECT_EQ(v, r.answer);
            }
            if (dict.count(k)) EXPECT_EQ(dict[k], v) << "a key keeps its value within a sequence";
            dict[k] = v;
          }
          EXPECT_EQ(hits, 1);
          // only the query position is scored, with the answer
          for (int t = 0; t < T; ++t) EXPECT_EQ(b.y(s)[t], t == r.sep + 1 ? kFirstSymbol + r.answer : -1);
        }
      }
    }
}

TEST(tasks, RetrievalDepthPlacesTheNeedle) {
  for (bool packed : {true, false})
    for (double depth : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      TaskOptions o = task(TaskKind::Retrieval, 10);
      o.packed = packed;
      o.depth = depth;
      TaskGenerator g(o, 11);
      for (int T : {6, 21, 64, 255}) {
        const Batch b = draw(g, 4, T);
        for (int s = 0; s < 4; ++s) {
          const Retrieval r = parse_retrieval(b.x(s), T, o);
          const int p = static_cast<int>(r.pairs.size());
          const int expected = static_cast<int>(std::lround(depth * (p - 1)));
          EXPECT_EQ(r.pairs[expected].first, r.query) << "depth " << depth << " T " << T;
        }
      }
    }
  // unset: the needle lands everywhere
  TaskOptions o = task(TaskKind::Retrieval, 10);
  TaskGenerator g(o, 11);
  const Batch b = draw(g, 200, 20);
  std::set<int> where;
  for (int s = 0; s < 200; ++s) {
    const Retrieval r = parse_retrieval(b.x(s), 20, o);
    for (int i = 0; i < static_cast<int>(r.pairs.size()); ++i)
      if (r.pairs[i].first == r.query) where.insert(i);
  }
  EXPECT_EQ(where.size(), 16u);
}

TEST(tasks, RetrievalScoreRepeats) {
  TaskOptions o = task(TaskKind::Retrieval, 8);  // 4 keys: repeats are frequent
  o.packed = false;
  TaskOptions dense = o;
  dense.score_repeats = true;
  TaskGenerator a(o, 5), d(dense, 5);
  const Batch ba = draw(a, 6, 40), bd = draw(d, 6, 40);
  EXPECT_EQ(ba.tok, bd.tok);  // the tokens do not depend on score_repeats
  int repeats = 0;
  for (int s = 0; s < 6; ++s) {
    const int32_t* x = bd.x(s);
    std::set<int32_t> seen;
    for (int t = 1; x[t] != kTokenSep; t += 2) {
      const bool repeat = seen.count(x[t]) > 0;
      seen.insert(x[t]);
      EXPECT_EQ(bd.y(s)[t], repeat ? x[t + 1] : -1);
      repeats += repeat ? 1 : 0;
    }
  }
  EXPECT_GT(repeats, 10);
}

TEST(tasks, MarkovTableIsSharedAndSamplesFollowIt) {
  TaskOptions o = task(TaskKind::Markov, 6);
  o.order = 2;
  o.branching = 3;
  EXPECT_EQ(posenc::task_vocab_size(o), 9);
  EXPECT_EQ(posenc::task_min_length(o), 4);
  TaskGenerator g1(o, 1), g2(o, 2);
  const int V = posenc::task_vocab_size(o);
  const Batch b1 = draw(g1, 16, 64), b2 = draw(g2, 16, 64);
  EXPECT_NE(b1.tok, b2.tok);
  std::vector<double> p1(V), p2(V);
  std::map<std::pair<int, int>, std::map<int, int>> counts;
  for (int s = 0; s < 16; ++s) {
    const int32_t* x = b1.x(s);
    EXPECT_EQ(x[0], kTokenBos);
    for (int t = 0; t < 64; ++t) {
      if (t >= 1) {
        EXPECT_GE(x[t], kFirstSymbol);
        EXPECT_LT(x[t], V);
      }
      const bool is_scored = t >= 2 && t <= 62;
      EXPECT_EQ(b1.y(s)[t], is_scored ? x[t + 1] : -1);
      if (!is_scored) continue;
      // generator seed 2 has the same table
      g1.next_distribution(x, t, b1.y(s)[t], p1.data());
      g2.next_distribution(x, t, b1.y(s)[t], p2.data());
      EXPECT_EQ(p1, p2);
      EXPECT_GT(p1[x[t + 1]], 0.0) << "a transition outside the table";
      int nonzero = 0;
      double sum = 0;
      for (double q : p1) {
        nonzero += q > 0 ? 1 : 0;
        sum += q;
      }
      EXPECT_EQ(nonzero, 3);
      EXPECT_NEAR(sum, 1.0, 1e-12);
      counts[{x[t - 1], x[t]}][x[t + 1]]++;
    }
  }
  // another table seed gives another chain
  TaskOptions other = o;
  other.table_seed = 2;
  TaskGenerator g3(other, 1);
  bool differs = false;
  for (int s = 0; s < 16 && !differs; ++s)
    for (int t = 2; t <= 62 && !differs; ++t) {
      g1.next_distribution(b1.x(s), t, -1, p1.data());
      g3.next_distribution(b1.x(s), t, -1, p2.data());
      differs = p1 != p2;
    }
  EXPECT_TRUE(differs);
}

TEST(tasks, MarkovFrequenciesMatchTheTable) {
  TaskOptions o = task(TaskKind::Markov, 3);
  o.order = 1;
  o.branching = 2;
  TaskGenerator g(o, 4);
  const Batch b = draw(g, 200, 100);
  const int V = posenc::task_vocab_size(o);
  std::vector<double> p(V);
  std::map<int, std::vector<double>> freq;
  for (int s = 0; s < 200; ++s)
    for (int t = 1; t < 99; ++t) {
      auto& f = freq[b.x(s)[t]];
      f.resize(V);
      f[b.x(s)[t + 1]] += 1;
    }
  for (auto& [ctx, f] : freq) {
    double total = 0;
    for (double c : f) total += c;
    const int32_t seq[2] = {kTokenBos, ctx};
    g.next_distribution(seq, 1, -1, p.data());
    for (int v = 0; v < V; ++v) EXPECT_NEAR(f[v] / total, p[v], 0.03) << "context " << ctx << " next " << v;
  }
}

TEST(tasks, Oracle) {
  // Deterministic tasks: loss 0, accuracy 1.
  TaskGenerator c(task(TaskKind::Copy), 1);
  Batch b = draw(c, 4, 20);
  auto o = c.oracle(b.tok.data(), b.tgt.data(), 4, 20);
  EXPECT_EQ(o.scored, 4 * 9);
  EXPECT_EQ(o.loss, 0.0);
  EXPECT_EQ(o.accuracy, 1.0);
  // Markov with one next symbol per context: deterministic too.
  TaskOptions m1 = task(TaskKind::Markov, 5);
  m1.branching = 1;
  TaskGenerator g1(m1, 1);
  b = draw(g1, 4, 30);
  o = g1.oracle(b.tok.data(), b.tgt.data(), 4, 30);
  EXPECT_EQ(o.scored, 4 * 27);
  EXPECT_NEAR(o.loss, 0.0, 1e-12);
  EXPECT_NEAR(o.accuracy, 1.0, 1e-12);
  // Otherwise: the mean entropy and max probability of the rows at the scored positions.
  TaskOptions m = task(TaskKind::Markov, 5);
  TaskGenerator g(m, 1);
  b = draw(g, 3, 12);
  o = g.oracle(b.tok.data(), b.tgt.data(), 3, 12);
  const int V = posenc::task_vocab_size(m);
  std::vector<double> p(V);
  double loss = 0, acc = 0;
  int n = 0;
  for (int s = 0; s < 3; ++s)
    for (int t = 0; t < 12; ++t) {
      if (b.y(s)[t] < 0) continue;
      g.next_distribution(b.x(s), t, b.y(s)[t], p.data());
      for (double q : p)
        if (q > 0) loss -= q * std::log(q);
      acc += *std::max_element(p.begin(), p.end());
      ++n;
    }
  EXPECT_EQ(o.scored, n);
  EXPECT_NEAR(o.loss, loss / n, 1e-12);
  EXPECT_NEAR(o.accuracy, acc / n, 1e-12);
  EXPECT_GT(o.loss, 0.1);
  EXPECT_LT(o.accuracy, 1.0);
}

// KthRetrieval decoded independently of the generator: pair token -> (key, value), then the
// answer is the value of the o-th occurrence of the query key, found by scanning in order.
struct KthDecoded {
  int p = 0, sep = 0;
  int32_t query = -1, ordinal = -1, answer = -1;
  std::vector<int> occurrences;  // pair indices whose key is the query's
};
KthDecoded kth_decode(const TaskOptions& o, const int32_t* x, int T) {
  const int n = o.symbols, m = (n + 1) / 2, nv = n - m;
  const int32_t first_query = kFirstSymbol + n + m * nv;  // after the pair tokens
  KthDecoded d;
  int t = 1;
  while (t < T && x[t] != kTokenSep) ++t;
  d.sep = t;
  d.p = t - 1;
  d.query = (x[t + 1] - first_query) / 2;
  d.ordinal = (x[t + 1] - first_query) % 2;  // 0: first, 1: second
  for (int i = 0; i < d.p; ++i) {
    const int pair = x[1 + i] - kFirstSymbol - n;
    if (pair / nv == d.query) d.occurrences.push_back(i);
  }
  if (d.ordinal >= 0 && d.ordinal < static_cast<int>(d.occurrences.size())) {
    const int pair = x[1 + d.occurrences[d.ordinal]] - kFirstSymbol - n;
    d.answer = kFirstSymbol + m + pair % nv;
  }
  return d;
}

TEST(tasks, KthRetrievalLayoutAndAnIndependentSolver) {
  for (bool var : {false, true})
    for (int T : {6, 7, 32, 100}) {
      TaskOptions o = task(TaskKind::KthRetrieval, 16);
      o.variable_length = var;
      const int n = 16, m = 8, nv = 8;
      EXPECT_EQ(posenc::task_vocab_size(o), n + 3 + m * nv + 2 * m);
      EXPECT_EQ(posenc::task_min_length(o), 6);
      EXPECT_EQ(posenc::kth_query_token(o, 0, 0), n + 3 + m * nv);
      EXPECT_EQ(posenc::kth_query_token(o, m - 1, 1), posenc::task_vocab_size(o) - 1);
      TaskGenerator g(o, 5);
      const Batch b = draw(g, 200, T);
      int second = 0, tails = 0;
      std::set<int> sizes;
      for (int s = 0; s < b.B; ++s) {
        const int32_t* x = b.x(s);
        const int32_t* y = b.y(s);
        EXPECT_EQ(x[0], kTokenBos);
        const KthDecoded d = kth_decode(o, x, T);
        sizes.insert(d.p);
        EXPECT_GE(d.p, 2);
        if (!var) EXPECT_EQ(d.p, T - 4);
        for (int i = 0; i < d.p; ++i) {  // pair tokens only before SEP
          EXPECT_GE(x[1 + i], kFirstSymbol + n);
          EXPECT_LT(x[1 + i], kFirstSymbol + n + m * nv);
        }
        ASSERT_EQ(d.occurrences.size(), 2u) << "the query key occurs exactly twice";
        const int32_t v0 = (x[1 + d.occurrences[0]] - kFirstSymbol - n) % nv;
        const int32_t v1 = (x[1 + d.occurrences[1]] - kFirstSymbol - n) % nv;
        EXPECT_NE(v0, v1) << "its two values differ";
        ASSERT_TRUE(d.ordinal == 0 || d.ordinal == 1);
        second += d.ordinal;
        EXPECT_EQ(x[d.sep + 2], d.answer);
        EXPECT_EQ(y[d.sep + 1], d.answer) << "the target is the value of the asked occurrence";
        // The tail: further queries (Q', a'), each about a key other than q that occurs at least
        // twice, no (key, ordinal) twice, until there is no room or no query left; then PAD.
        std::vector<std::vector<int>> seen(m);  // pair indices of each key
        for (int i = 0; i < d.p; ++i) seen[(x[1 + i] - kFirstSymbol - n) / nv].push_back(i);
        std::set<int> asked, askable;
        for (int k = 0; k < m; ++k)
          if (k != d.query && seen[k].size() >= 2) askable.insert({2 * k, 2 * k + 1});
        int t = d.sep + 3;
        for (; t + 1 < T && x[t] != kTokenPad; t += 2) {
          const int c = x[t] - (kFirstSymbol + n + m * nv);
          ASSERT_TRUE(askable.count(c)) << "a query token about a key that occurs twice, not q";
          EXPECT_TRUE(asked.insert(c).second) << "asked once";
          const int32_t a = kFirstSymbol + m + (x[1 + seen[c / 2][c % 2]] - kFirstSymbol - n) % nv;
          EXPECT_EQ(y[t], a);
          EXPECT_EQ(x[t + 1], a);
          EXPECT_EQ(y[t + 1], -1);
        }
        if (t + 1 < T) EXPECT_EQ(asked, askable) << "the tail stops early only when every query is asked";
        if (!var) EXPECT_EQ(t, T) << "full length: no tail";
        tails += static_cast<int>(asked.size());
        for (; t < T; ++t) EXPECT_EQ(x[t], kTokenPad);
        EXPECT_EQ(scored(b, s), 1 + static_cast<int>(asked.size()));
      }
      if (T >= 32) {  // both ordinals are asked, about equally often
        EXPECT_GT(second, 60);
        EXPECT_LT(second, 140);
      }
      if (var && T >= 32) EXPECT_GT(sizes.size(), 10u);
      if (var && T >= 32) EXPECT_GT(tails, 200 * 3) << "variable lengths: a tail of several queries on average";
    }
}

// Swapping the two occurrences of the query key keeps every token (the multiset, and the
// query and ordinal) and changes the answer: no function of the multiset solves the task,
// the best one scores 1/2. Content alone does solve Retrieval (the control).
TEST(tasks, KthRetrievalAnswerIsNotAFunctionOfTheMultiset) {
  TaskOptions o = task(TaskKind::KthRetrieval, 16);
  TaskGenerator g(o, 9);
  const int T = 32;
  const Batch b = draw(g, 100, T);
  for (int s = 0; s < b.B; ++s) {
    std::vector<int32_t> x(b.x(s), b.x(s) + T);
    const KthDecoded d = kth_decode(o, x.data(), T);
    std::vector<int32_t> swapped = x;
    std::swap(swapped[1 + d.occurrences[0]], swapped[1 + d.occurrences[1]]);
    std::multiset<int32_t> a(x.begin(), x.begin() + d.sep + 2), c(swapped.begin(), swapped.begin() + d.sep + 2);
    EXPECT_EQ(a, c);
    const KthDecoded e = kth_decode(o, swapped.data(), T);
    EXPECT_NE(e.answer, d.answer);
  }
}

TEST(tasks, KthRetrievalDepthPlacesTheAskedOccurrence) {
  for (double depth : {0.0, 0.25, 0.5, 1.0}) {
    TaskOptions o = task(TaskKind::KthRetrieval, 16);
    o.depth = depth;
    TaskGenerator g(o, 3);
    const int T = 44;  // p = 40
    const Batch b = draw(g, 50, T);
    for (int s = 0; s < b.B; ++s) {
      const KthDecoded d = kth_decode(o, b.x(s), T);
      EXPECT_EQ(d.occurrences[d.ordinal], static_cast<int>(std::lround(depth * (d.p - 1))));
      if (depth == 0.0) EXPECT_EQ(d.ordinal, 0);
      if (depth == 1.0) EXPECT_EQ(d.ordinal, 1);
    }
  }
  TaskOptions o = task(TaskKind::KthRetrieval, 16);
  o.packed = false;
  ExpectError([o] { TaskGenerator g(o, 1); }, posenc::ErrorKind::Range, "packed must be true for task 'kth_retrieval'");
  o = task(TaskKind::KthRetrieval, 3);
  ExpectError([o] { TaskGenerator g(o, 1); }, posenc::ErrorKind::Range, "symbols must be an integer in [4, 500]");
  ExpectError([] { posenc::kth_query_token(task(TaskKind::Copy), 0, 0); }, posenc::ErrorKind::Range, "task must be");
  ExpectError([] { posenc::kth_query_token(task(TaskKind::KthRetrieval, 16), 8, 0); }, posenc::ErrorKind::Range, "key");
  ExpectError([] { posenc::kth_query_token(task(TaskKind::KthRetrieval, 16), 0, 2); }, posenc::ErrorKind::Range, "ordinal");
}

TEST(tasks, EveryTaskFillsLongLengthsDeterministically) {
  for (int k = 0; k < posenc::kTaskCount; ++k)
    for (bool var : {false, true}) {
      TaskOptions o = task(static_cast<TaskKind>(k), 8);
      o.variable_length = var;
      TaskGenerator a(o, 77), b(o, 77), c(o, 78);
      for (int T : {posenc::task_min_length(o), 31, 32, 256, 1000}) {
        const Batch ba = draw(a, 3, T), bb = draw(b, 3, T), bc = draw(c, 3, T);
        EXPECT_EQ(ba.tok, bb.tok);
        EXPECT_EQ(ba.tgt, bb.tgt);
        EXPECT_NE(ba.tok, bc.tok) << posenc::task_name(o.kind) << " T " << T;
        const int V = posenc::task_vocab_size(o);
        for (std::size_t i = 0; i < ba.tok.size(); ++i) {
          EXPECT_GE(ba.tok[i], 0);
          EXPECT_LT(ba.tok[i], V);
          EXPECT_GE(ba.tgt[i], -1);
          EXPECT_LT(ba.tgt[i], V);
        }
        for (int s = 0; s < 3; ++s) EXPECT_GE(scored(ba, s), 1);
      }
    }
}

TEST(tasks, OptionChecks) {
  using posenc::ErrorKind;
  auto make = [](TaskOptions o) { return [o] { TaskGenerator g(o, 1); }; };
  TaskOptions o = task(TaskKind::Retrieval, 3);
  ExpectError(make(o), ErrorKind::Range, "symbols must be an integer in [4, 500] for packed task 'retrieval'");
  o.symbols = 501;
  ExpectError(make(o), ErrorKind::Range, "symbols must be an integer in [4, 500]");
  o.packed = false;
  EXPECT_NO_THROW(make(o)());
  o = task(TaskKind::Retrieval, 8);
  o.depth = 1.5;
  ExpectError(make(o), ErrorKind::Range, "depth must be a number in [0, 1]");
  o.depth = std::nan("");
  ExpectError(make(o), ErrorKind::Range, "depth");
  o = task(TaskKind::Markov, 4);
  o.order = 0;
  ExpectError(make(o), ErrorKind::Range, "order must be an integer in [1, 4]");
  o.order = 2;
  o.branching = 5;
  ExpectError(make(o), ErrorKind::Range, "branching must be an integer in [1, 4]");
  o = task(TaskKind::Markov, 2000);
  ExpectError(make(o), ErrorKind::Range, "symbols^order <= 2^20");
  o = task(static_cast<TaskKind>(9));
  ExpectError(make(o), ErrorKind::Range, "task must be one of");
  TaskGenerator g(task(TaskKind::Markov, 4), 1);
  std::vector<int32_t> tok(3), tgt(3);
  ExpectError([&] { g.sample(1, 3, tok.data(), tgt.data()); }, ErrorKind::Range, "T must be an integer in [4,");
}

}  // namespace

namespace {

TaskOptions strings(TaskKind k, posenc::CopyStrings s, int kgram) {
  TaskOptions o = task(k);
  o.strings = s;
  o.kgram = kgram;
  return o;
}
// The copied string x1 .. xh of row b (before SEP).
std::vector<int32_t> copied(const Batch& r, int b) {
  std::vector<int32_t> x;
  for (int i = 1; i < r.T && r.x(b)[i] != kTokenSep; ++i) x.push_back(r.x(b)[i]);
  return x;
}

}  // namespace

// strings 'distinct': no window of k symbols occurs twice; Copy and Reverse share the draws, the layout is Copy's.
TEST(tasks, DistinctStringsRepeatNoKgram) {
  for (int k = 2; k <= 4; ++k)
    for (TaskKind kind : {TaskKind::Copy, TaskKind::Reverse}) {
      TaskGenerator g(strings(kind, posenc::CopyStrings::Distinct, k), 5);
      const Batch r = draw(g, 64, 2 * (k == 2 ? 30 : 100) + 2);
      for (int b = 0; b < r.B; ++b) {
        const std::vector<int32_t> x = copied(r, b);
        ASSERT_EQ(static_cast<int>(x.size()), (r.T - 2) / 2);
        std::set<std::vector<int32_t>> seen;
        for (std::size_t i = 0; i + k <= x.size(); ++i) EXPECT_TRUE(seen.insert({x.begin() + i, x.begin() + i + k}).second);
        EXPECT_EQ(scored(r, b), static_cast<int>(x.size()));
      }
    }
  // the uniform draws of the same seed repeat bigrams: the option changes the strings
  TaskGenerator u(task(TaskKind::Copy), 5);
  const Batch r = draw(u, 64, 62);
  int repeated = 0;
  for (int b = 0; b < r.B; ++b) {
    const std::vector<int32_t> x = copied(r, b);
    std::set<std::pair<int32_t, int32_t>> seen;
    for (std::size_t i = 0; i + 2 <= x.size(); ++i) repeated += seen.insert({x[i], x[i + 1]}).second ? 0 : 1;
  }
  EXPECT_GT(repeated, 0);
}

// strings 'repeats': two symbols per sequence, so every k-gram (k <= 4) recurs in a long string.
TEST(tasks, RepeatsStringsUseTwoSymbols) {
  TaskGenerator g(strings(TaskKind::Copy, posenc::CopyStrings::Repeats, 3), 9);
  const Batch r = draw(g, 32, 130);
  for (int b = 0; b < r.B; ++b) {
    const std::vector<int32_t> x = copied(r, b);
    EXPECT_EQ(std::set<int32_t>(x.begin(), x.end()).size(), 2u);
    std::map<std::vector<int32_t>, int> grams;
    for (std::size_t i = 0; i + 4 <= x.size(); ++i) ++grams[{x.begin() + i, x.begin() + i + 4}];
    int recurring = 0;
    for (const auto& [g4, c] : grams) recurring += c > 1 ? 1 : 0;
    EXPECT_GE(recurring, 8);  // of the 16 possible 4-grams, most recur in 61 windows
  }
}

// The induction baseline on a hand-made sequence: [BOS a b a c SEP a b a c] with a < b < c.
TEST(tasks, InductionBaselineByHand) {
  const int32_t a = kFirstSymbol, b = kFirstSymbol + 1, c = kFirstSymbol + 2;
  const std::vector<int32_t> tok = {kTokenBos, a, b, a, c, kTokenSep, a, b, a, c};
  std::vector<int32_t> tgt(tok.size(), -1);
  for (int t = 5; t < 9; ++t) tgt[t] = tok[t + 1];
  // context 4: [SEP]->a, [SEP a]->b, [SEP a b]->a, [SEP a b a]->c: all right
  EXPECT_DOUBLE_EQ(posenc::induction_accuracy(TaskKind::Copy, tok.data(), tgt.data(), 1, 10, 4), 1.0);
  // context 1: after the second a, [a] is followed by b and by c in the input: the tie goes to b (smaller): 3 of 4
  EXPECT_DOUBLE_EQ(posenc::induction_accuracy(TaskKind::Copy, tok.data(), tgt.data(), 1, 10, 1), 0.75);
  // reverse [BOS a b a c SEP c a b a]: [SEP]->c (before SEP), [c]->a, then [a] is preceded by BOS-side nothing and b:
  const std::vector<int32_t> rev = {kTokenBos, a, b, a, c, kTokenSep, c, a, b, a};
  std::vector<int32_t> rt(rev.size(), -1);
  for (int t = 5; t < 9; ++t) rt[t] = rev[t + 1];
  EXPECT_DOUBLE_EQ(posenc::induction_accuracy(TaskKind::Reverse, rev.data(), rt.data(), 1, 10, 4), 1.0);
  // context 1 at "a" (t = 7): the input has a at 1 (nothing before it in the string) and at 3 (b before it): b, right;
  // at "b" (t = 8): b at 2, a before it: a, right; so 4 of 4 here too
  EXPECT_DOUBLE_EQ(posenc::induction_accuracy(TaskKind::Reverse, rev.data(), rt.data(), 1, 10, 1), 1.0);
}

// No repeated k-gram: content matching of the last k tokens solves Copy and Reverse at every length; adversarial
// repeats bring it down; uniform strings sit between.
TEST(tasks, InductionBaselineSolvesDistinctNotRepeats) {
  for (TaskKind kind : {TaskKind::Copy, TaskKind::Reverse})
    for (int k = 2; k <= 4; ++k) {
      TaskGenerator d(strings(kind, posenc::CopyStrings::Distinct, k), 3);
      const Batch r = draw(d, 32, k == 2 ? 62 : 130);
      EXPECT_DOUBLE_EQ(posenc::induction_accuracy(kind, r.tok.data(), r.tgt.data(), r.B, r.T, k), 1.0);
      TaskGenerator a(strings(kind, posenc::CopyStrings::Repeats, k), 3);
      const Batch q = draw(a, 32, 130);
      EXPECT_LT(posenc::induction_accuracy(kind, q.tok.data(), q.tgt.data(), q.B, q.T, 4), 0.75);  // measured 0.71 (uniform strings: 0.9 and more)
    }
}

TEST(tasks, StringsOptionsValidated) {
  ExpectError([] { TaskGenerator(strings(TaskKind::Markov, posenc::CopyStrings::Distinct, 3), 1); }, posenc::ErrorKind::Range, "strings must be");
  ExpectError([] { TaskGenerator(strings(TaskKind::Copy, posenc::CopyStrings::Distinct, 5), 1); }, posenc::ErrorKind::Range, "kgram must be");
  ExpectError([] {  // 8 symbols, k = 2: 64 bigrams; h = 127 needs 126 windows
    TaskGenerator g(strings(TaskKind::Copy, posenc::CopyStrings::Distinct, 2), 1);
    draw(g, 1, 256);
  }, posenc::ErrorKind::Range, "T must be");
  ExpectError([] { std::vector<int32_t> t(8, 0); posenc::induction_accuracy(TaskKind::Markov, t.data(), t.data(), 1, 8, 2); },
              posenc::ErrorKind::Range, "task must be");
  ExpectError([] { std::vector<int32_t> t(8, 0); posenc::induction_accuracy(TaskKind::Copy, t.data(), t.data(), 1, 8, 0); },
              posenc::ErrorKind::Range, "maxContext must be");
}
