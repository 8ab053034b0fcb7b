// Synthetic tasks (see tasks.hpp for the vocabulary layout and each task).
#include "posenc/tasks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <unordered_set>
#include <vector>

#include "../kind_table.hpp"
#include "posenc/error.hpp"

namespace posenc {
namespace {

struct TaskRow {
  TaskKind id;
  const char* name;
};
constexpr TaskRow kTasks[] = {{TaskKind::Copy, "copy"},
                              {TaskKind::Reverse, "reverse"},
                              {TaskKind::Retrieval, "retrieval"},
                              {TaskKind::Markov, "markov"},
                              {TaskKind::KthRetrieval, "kth_retrieval"}};
static_assert(std::size(kTasks) == kTaskCount && rows_in_enum_order(kTasks), "kTasks: one row per TaskKind, in order");

constexpr std::size_t kMaxMarkovContexts = std::size_t(1) << 20;
constexpr int kMaxBranching = 16;
constexpr uint32_t kMaxWeight = 8;

std::size_t markov_contexts(int symbols, int order) {
  std::size_t c = 1;
  for (int i = 0; i < order; ++i) {
    c *= static_cast<std::size_t>(symbols);
    if (c > kMaxMarkovContexts) return kMaxMarkovContexts + 1;
  }
  return c;
}

int retrieval_keys(int symbols) { return (symbols + 1) / 2; }

}  // namespace

const char* task_name(TaskKind k) {
  const int i = static_cast<int>(k);
  return i >= 0 && i < kTaskCount ? kTasks[i].name : "?";
}

TaskKind parse_task(const std::string& name) {
  for (const TaskRow& t : kTasks)
    if (name == t.name) return t.id;
  range_error("task", one_of(kTasks), "'" + name + "'");
}

void TaskOptions::validate() const {
  const int k = static_cast<int>(kind);
  if (k < 0 || k >= kTaskCount) range_error("task", one_of(kTasks), std::to_string(k));
  require_int_range("symbols", symbols, 1, 65000);
  if (depth && !(*depth >= 0.0 && *depth <= 1.0))  // also rejects NaN
    range_error("depth", "a number in [0, 1] (or unset: random)", format_number(*depth));
  if (kind == TaskKind::Retrieval) {  // packed: the pair tokens must fit the vocabulary
    const int hi = packed ? 500 : 65000;
    if (symbols < 4 || symbols > hi)
      range_error("symbols",
                  "an integer in [4, " + std::to_string(hi) + "] for " + (packed ? "packed " : "") +
                      "task 'retrieval' (keys and values need 2 symbols each)",
                  std::to_string(symbols));
  }
  if (kind == TaskKind::KthRetrieval) {
    if (!packed) range_error("packed", "true for task 'kth_retrieval' (one token per pair)", "false");
    require_int_range("symbols", symbols, 4, 500);
  }
  {
    const int st = static_cast<int>(strings);
    if (st < 0 || st > static_cast<int>(CopyStrings::Repeats))
      range_error("strings", "one of 'uniform', 'distinct', 'repeats'", std::to_string(st));
    if (strings != CopyStrings::Uniform) {
      if (kind != TaskKind::Copy && kind != TaskKind::Reverse)
        range_error("strings", "'uniform' for tasks other than 'copy' and 'reverse'", std::to_string(st));
      require_int_range("kgram", kgram, 2, 4);
    }
  }
  if (kind == TaskKind::Markov) {
    require_int_range("order", order, 1, 4);
    if (markov_contexts(symbols, order) > kMaxMarkovContexts)
      range_error("symbols", "such that symbols^order <= 2^20 (the Markov contexts) for task 'markov'",
                  std::to_string(symbols) + "^" + std::to_string(order));
    require_int_range("branching", branching, 1, std::min(symbols, kMaxBranching));
  }
}

int task_vocab_size(const TaskOptions& o) {
  o.validate();
  if ((o.kind == TaskKind::Retrieval && o.packed) || o.kind == TaskKind::KthRetrieval) {
    const int m = retrieval_keys(o.symbols);
    return o.symbols + kFirstSymbol + m * (o.symbols - m) + (o.kind == TaskKind::KthRetrieval ? 2 * m : 0);
  }
  return o.symbols + kFirstSymbol;
}

int task_min_length(const TaskOptions& o) {
  o.validate();
  switch (o.kind) {
    case TaskKind::Copy:
    case TaskKind::Reverse: return 4;    // BOS x1 SEP x1
    case TaskKind::Retrieval: return o.packed ? 5 : 6;  // BOS P SEP q a | BOS k v SEP q a
    case TaskKind::Markov: return o.order + 2;  // BOS x1..xo x_{o+1}
    case TaskKind::KthRetrieval: return 6;      // BOS P P SEP Q a
  }
  return 4;
}

int32_t kth_query_token(const TaskOptions& o, int key, int ordinal) {
  if (o.kind != TaskKind::KthRetrieval)
    range_error("task", "'kth_retrieval' (it has the query tokens)", std::string("'") + task_name(o.kind) + "'");
  const int m = retrieval_keys(o.symbols);
  require_int_range("key", key, 0, m - 1);
  require_int_range("ordinal", ordinal, 0, 1);
  return task_vocab_size(o) - 2 * m + 2 * key + ordinal;
}

TaskGenerator::TaskGenerator(const TaskOptions& options, uint64_t seed) : options_(options), rng_(seed, /*stream=*/7) {
  options_.validate();
  if (options_.kind == TaskKind::Markov) build_markov_table();
}

// Row c lists `branching` distinct next symbols, each with an integer weight in [1, kMaxWeight].
// Drawn from its own stream of table_seed, so the chain is shared by every generator seed.
void TaskGenerator::build_markov_table() {
  const std::size_t contexts = markov_contexts(options_.symbols, options_.order);
  const int k = options_.branching;
  const uint32_t n = static_cast<uint32_t>(options_.symbols);
  Rng r(options_.table_seed, /*stream=*/11);
  table_.resize(contexts * k);
  row_total_.assign(contexts, 0);
  for (std::size_t c = 0; c < contexts; ++c) {
    Transition* row = table_.data() + c * k;
    for (int j = 0; j < k; ++j) {
      int32_t s;
      bool fresh;
      do {  // rejection: distinct symbols within a row (k <= min(n, 16))
        s = static_cast<int32_t>(r.below(n));
        fresh = true;
        for (int i = 0; i < j; ++i) fresh = fresh && row[i].symbol != s;
      } while (!fresh);
      row[j].symbol = s;
      row[j].weight = 1 + r.below(kMaxWeight);
      row_total_[c] += row[j].weight;
    }
  }
}

std::size_t TaskGenerator::markov_context(const int32_t* seq, int t) const {
  std::size_t c = 0;
  for (int i = t - options_.order + 1; i <= t; ++i)
    c = c * static_cast<std::size_t>(options_.symbols) + static_cast<std::size_t>(seq[i] - kFirstSymbol);
  return c;
}

void TaskGenerator::sample(int B, int T, int32_t* tokens, int32_t* targets) {
  require_int_range("B", B, 1, 1 << 20);
  require_int_range("T", T, task_min_length(options_), 1 << 20);
  if (!tokens || !targets) throw Error(ErrorKind::Type, "tokens and targets must be arrays of B*T integers");
  for (int b = 0; b < B; ++b) {
    int32_t* tok = tokens + static_cast<std::ptrdiff_t>(b) * T;
    int32_t* tgt = targets + static_cast<std::ptrdiff_t>(b) * T;
    switch (options_.kind) {
      case TaskKind::Copy: sample_copy(T, tok, tgt, false); break;
      case TaskKind::Reverse: sample_copy(T, tok, tgt, true); break;
      case TaskKind::Retrieval: sample_retrieval(T, tok, tgt); break;
      case TaskKind::Markov: sample_markov(T, tok, tgt); break;
      case TaskKind::KthRetrieval: sample_kth_retrieval(T, tok, tgt); break;
    }
  }
}

// [BOS, x1..xh, SEP, x1..xh (or xh..x1), PAD...]; target[t] = tokens[t+1] for t in [h+1, 2h], else -1.
// The draws do not depend on `reverse` (Copy's stream is the original one).
void TaskGenerator::sample_copy(int T, int32_t* tok, int32_t* tgt, bool reverse) {
  const int hmax = (T - 2) / 2;
  const int h = options_.variable_length ? 1 + static_cast<int>(rng_.below(static_cast<uint32_t>(hmax))) : hmax;
  const uint32_t n = static_cast<uint32_t>(options_.symbols);
  tok[0] = kTokenBos;
  if (options_.strings == CopyStrings::Uniform)
    for (int i = 1; i <= h; ++i) tok[i] = kFirstSymbol + static_cast<int32_t>(rng_.below(n));
  else
    sample_copy_string(h, tok + 1);
  tok[h + 1] = kTokenSep;
  for (int i = 1; i <= h; ++i) tok[h + 1 + i] = reverse ? tok[h + 1 - i] : tok[i];
  for (int t = 2 * h + 2; t < T; ++t) tok[t] = kTokenPad;
  for (int t = 0; t < T; ++t) tgt[t] = (t >= h + 1 && t <= 2 * h) ? tok[t + 1] : -1;
}

// Copy and Reverse, strings distinct or repeats: x[0 .. h-1] (symbol tokens), see tasks.hpp.
void TaskGenerator::sample_copy_string(int h, int32_t* x) {
  const int n = options_.symbols, k = options_.kgram;
  if (options_.strings == CopyStrings::Repeats) {  // two of the n symbols, drawn per sequence (distinct when n > 1)
    const int32_t a = static_cast<int32_t>(rng_.below(static_cast<uint32_t>(n)));
    const int32_t b = n > 1 ? (a + 1 + static_cast<int32_t>(rng_.below(static_cast<uint32_t>(n - 1)))) % n : a;
    for (int i = 0; i < h; ++i) x[i] = kFirstSymbol + (rng_.below(2) ? b : a);
    return;
  }
  // distinct: every window of k symbols new; n^k windows exist (n^k <= 65000^4 fits a double exactly enough)
  const double windows = std::pow(static_cast<double>(n), k);
  if (h - k + 1 > windows / 2)
    range_error("T", "short enough for strings 'distinct' that the copied string's h - k + 1 windows use at most half of the n^k k-grams (n = " +
                         std::to_string(n) + ", k = " + std::to_string(k) + ")", "one with h = " + std::to_string(h));
  std::unordered_set<uint64_t> seen;
  std::vector<int32_t> allowed;
  const auto key = [&](const int32_t* w) {
    uint64_t v = 0;
    for (int i = 0; i < k; ++i) v = v * 65001u + static_cast<uint64_t>(w[i] - kFirstSymbol);
    return v;
  };
  for (int attempt = 0; attempt < 64; ++attempt) {
    seen.clear();
    bool stuck = false;
    for (int i = 0; i < h && !stuck; ++i) {
      if (i < k - 1) {
        x[i] = kFirstSymbol + static_cast<int32_t>(rng_.below(static_cast<uint32_t>(n)));
        continue;
      }
      allowed.clear();
      for (int s = 0; s < n; ++s) {
        x[i] = kFirstSymbol + s;
        if (!seen.count(key(x + i - k + 1))) allowed.push_back(x[i]);
      }
      if (allowed.empty()) stuck = true;
      else {
        x[i] = allowed[rng_.below(static_cast<uint32_t>(allowed.size()))];
        seen.insert(key(x + i - k + 1));
      }
    }
    if (!stuck) return;
  }
  throw Error(ErrorKind::Range, "strings 'distinct': no string without a repeated " + std::to_string(k) +
                                    "-gram found in 64 tries; use a shorter T or more symbols");
}

double induction_accuracy(TaskKind kind, const int32_t* tokens, const int32_t* targets, int B, int T, int max_context) {
  if (kind != TaskKind::Copy && kind != TaskKind::Reverse)
    range_error("task", "'copy' or 'reverse' (the induction baseline reads a copied string)", task_name(kind));
  require_int_range("maxContext", max_context, 1, 16);
  require_int_range("B", B, 1, 1 << 20);
  require_int_range("T", T, 4, 1 << 20);
  if (!tokens || !targets) throw Error(ErrorKind::Type, "tokens and targets must be arrays of B*T integers");
  const bool reverse = kind == TaskKind::Reverse;
  long long scored = 0, right = 0;
  std::map<int32_t, int> votes;
  std::vector<int32_t> hay;
  for (int b = 0; b < B; ++b) {
    const int32_t* x = tokens + static_cast<std::ptrdiff_t>(b) * T;
    const int32_t* y = targets + static_cast<std::ptrdiff_t>(b) * T;
    int sep = 1;
    while (sep < T && x[sep] != kTokenSep) ++sep;  // found by content
    // the input part: copy reads [SEP-for-BOS, x1 .. xh] forwards; reverse reads [x1 .. xh, SEP] backwards
    hay.clear();
    if (!reverse) hay.push_back(kTokenSep);
    for (int i = 1; i < sep; ++i) hay.push_back(x[i]);
    if (reverse) hay.push_back(kTokenSep);
    const int H = static_cast<int>(hay.size());
    for (int t = sep; t < T; ++t) {
      if (y[t] < 0) continue;
      ++scored;
      int32_t guess = -1;
      for (int c = std::min(max_context, t - sep + 1); c >= 1 && guess < 0; --c) {
        votes.clear();
        // the context: x[t-c+1 .. t]; copy: hay[i .. i+c-1] equal to it, predict hay[i+c];
        // reverse: hay[i .. i+c-1] equal to it reversed, predict hay[i-1]
        for (int i = 0; i + c <= H; ++i) {
          bool match = true;
          for (int j = 0; j < c && match; ++j) match = hay[i + j] == (reverse ? x[t - j] : x[t - c + 1 + j]);
          if (!match) continue;
          const int at = reverse ? i - 1 : i + c;
          if (at >= 0 && at < H && hay[at] != kTokenSep) ++votes[hay[at]];
        }
        int best = 0;
        for (const auto& [tok, v] : votes)
          if (v > best) best = v, guess = tok;
      }
      right += guess == y[t] ? 1 : 0;
    }
  }
  return scored ? static_cast<double>(right) / static_cast<double>(scored) : 0.0;
}

// packed:    [BOS, P1 .. Pp, SEP, q, a, PAD...]
// two-token: [BOS, k1 v1 .. kp vp, SEP, q, a, PAD...]
// target at q = a (+ repeated keys with score_repeats), else -1. Draw order: p (variable
// only), needle index (depth unset only), needle key, needle value, then for each
// distractor in sequence order its key and, at the key's first occurrence, its value.
void TaskGenerator::sample_retrieval(int T, int32_t* tok, int32_t* tgt) {
  const bool packed = options_.packed;
  const int width = packed ? 1 : 2;  // tokens per pair
  const int pmax = (T - 4) / width;
  const int p = options_.variable_length ? 1 + static_cast<int>(rng_.below(static_cast<uint32_t>(pmax))) : pmax;
  const int n = options_.symbols;
  const uint32_t m = static_cast<uint32_t>(retrieval_keys(n));
  const uint32_t nv = static_cast<uint32_t>(n) - m;
  int needle;
  if (options_.depth)
    needle = static_cast<int>(std::lround(*options_.depth * (p - 1)));
  else
    needle = static_cast<int>(rng_.below(static_cast<uint32_t>(p)));
  const int32_t key = static_cast<int32_t>(rng_.below(m));
  const int32_t value = static_cast<int32_t>(m + rng_.below(nv));
  if (key_value_.size() != m) key_value_.assign(m, -1);
  std::vector<int32_t>& used = used_keys_;
  used.clear();
  for (int t = 0; t < T; ++t) tgt[t] = -1;
  tok[0] = kTokenBos;
  for (int i = 0; i < p; ++i) {
    int32_t k = key, v = value;
    bool repeat = false;
    if (i != needle) {
      k = static_cast<int32_t>(rng_.below(m - 1));
      if (k >= key) ++k;  // any key but the needle's
      repeat = key_value_[k] >= 0;
      if (!repeat) {
        key_value_[k] = static_cast<int32_t>(m + rng_.below(nv));
        used.push_back(k);
      }
      v = key_value_[k];
    }
    if (packed) {
      tok[1 + i] = kFirstSymbol + n + k * static_cast<int32_t>(nv) + (v - static_cast<int32_t>(m));
    } else {
      tok[1 + 2 * i] = kFirstSymbol + k;
      tok[2 + 2 * i] = kFirstSymbol + v;
      if (repeat && options_.score_repeats) tgt[1 + 2 * i] = kFirstSymbol + v;
    }
  }
  for (int32_t k : used) key_value_[k] = -1;  // forget this sequence's dictionary
  const int sep = 1 + width * p;
  tok[sep] = kTokenSep;
  tok[sep + 1] = kFirstSymbol + key;
  tok[sep + 2] = kFirstSymbol + value;
  for (int t = sep + 3; t < T; ++t) tok[t] = kTokenPad;
  tgt[sep + 1] = kFirstSymbol + value;
}

// [BOS, P1 .. Pp, SEP, Q, a, PAD...]; target at Q = a, else -1. Draw order: p (variable
// only), needle index (depth unset only), the other occurrence's index among the other p - 1
// pairs, the query key, the needle's value, the other occurrence's value (!= the needle's),
// then for each distractor in sequence order its key and its value, then each further query
// (uniform over the ones not yet asked, in key-then-ordinal order).
void TaskGenerator::sample_kth_retrieval(int T, int32_t* tok, int32_t* tgt) {
  const int pmax = T - 4;
  const int p = options_.variable_length ? 2 + static_cast<int>(rng_.below(static_cast<uint32_t>(pmax - 1))) : pmax;
  const int n = options_.symbols;
  const uint32_t m = static_cast<uint32_t>(retrieval_keys(n));
  const uint32_t nv = static_cast<uint32_t>(n) - m;
  const int needle = options_.depth ? static_cast<int>(std::lround(*options_.depth * (p - 1)))
                                    : static_cast<int>(rng_.below(static_cast<uint32_t>(p)));
  int other = static_cast<int>(rng_.below(static_cast<uint32_t>(p - 1)));
  if (other >= needle) ++other;  // any pair but the needle
  const int32_t key = static_cast<int32_t>(rng_.below(m));
  const int32_t value = static_cast<int32_t>(m + rng_.below(nv));
  int32_t other_value = static_cast<int32_t>(m + rng_.below(nv - 1));
  if (other_value >= value) ++other_value;  // the two occurrences differ
  auto pair_token = [&](int32_t k, int32_t v) {
    return kFirstSymbol + n + k * static_cast<int32_t>(nv) + (v - static_cast<int32_t>(m));
  };
  for (int t = 0; t < T; ++t) tgt[t] = -1;
  tok[0] = kTokenBos;
  for (int i = 0; i < p; ++i) {
    if (i == needle) {
      tok[1 + i] = pair_token(key, value);
    } else if (i == other) {
      tok[1 + i] = pair_token(key, other_value);
    } else {
      int32_t k = static_cast<int32_t>(rng_.below(m - 1));
      if (k >= key) ++k;  // any key but the query's
      const int32_t v = static_cast<int32_t>(m + rng_.below(nv));
      tok[1 + i] = pair_token(k, v);
    }
  }
  const int sep = 1 + p;
  tok[sep] = kTokenSep;
  tok[sep + 1] = kth_query_token(options_, key, needle < other ? 0 : 1);
  tok[sep + 2] = kFirstSymbol + value;
  tgt[sep + 1] = kFirstSymbol + value;
  int t = sep + 3;
  if (t + 1 < T) {  // the tail (shorter p only): further queries, each followed by its answer
    // The first two occurrences of every key but q, as pair indices (-1: none).
    kth_first_two_.assign(2 * m, -1);
    for (int i = 0; i < p; ++i) {
      const int k = (tok[1 + i] - kFirstSymbol - n) / static_cast<int>(nv);
      if (k == key) continue;
      int32_t* slot = &kth_first_two_[2 * static_cast<std::size_t>(k)];
      if (slot[0] < 0) slot[0] = i; else if (slot[1] < 0) slot[1] = i;
    }
    kth_candidates_.clear();  // (key, ordinal) of keys that occur at least twice
    for (int k = 0; k < static_cast<int>(m); ++k)
      if (kth_first_two_[2 * static_cast<std::size_t>(k) + 1] >= 0)
        for (int ord = 0; ord < 2; ++ord) kth_candidates_.push_back(2 * k + ord);
    while (t + 1 < T && !kth_candidates_.empty()) {  // drawn without replacement
      const std::size_t j = rng_.below(static_cast<uint32_t>(kth_candidates_.size()));
      const int32_t c = kth_candidates_[j];
      kth_candidates_[j] = kth_candidates_.back();
      kth_candidates_.pop_back();
      const int pair = kth_first_two_[static_cast<std::size_t>(c)];
      const int32_t answer = kFirstSymbol + static_cast<int32_t>(m) + (tok[1 + pair] - kFirstSymbol - n) % static_cast<int32_t>(nv);
      tok[t] = kth_query_token(options_, c / 2, c % 2);
      tgt[t] = answer;
      tok[t + 1] = answer;
      t += 2;
    }
  }
  for (; t < T; ++t) tok[t] = kTokenPad;
}

// [BOS, x1 .. x_{T-1}]: x1..xo uniform, then the chain; target[t] = x_{t+1} for o <= t <= T-2.
void TaskGenerator::sample_markov(int T, int32_t* tok, int32_t* tgt) {
  const int o = options_.order, k = options_.branching;
  const uint32_t n = static_cast<uint32_t>(options_.symbols);
  tok[0] = kTokenBos;
  for (int t = 1; t <= o; ++t) tok[t] = kFirstSymbol + static_cast<int32_t>(rng_.below(n));
  for (int t = o; t + 1 < T; ++t) {
    const std::size_t c = markov_context(tok, t);
    const Transition* row = table_.data() + c * k;
    uint32_t u = rng_.below(row_total_[c]);
    int j = 0;
    while (u >= row[j].weight) u -= row[j++].weight;
    tok[t + 1] = kFirstSymbol + row[j].symbol;
  }
  for (int t = 0; t < T; ++t) tgt[t] = (t >= o && t + 1 < T) ? tok[t + 1] : -1;
}

void TaskGenerator::next_distribution(const int32_t* seq, int t, int32_t target, double* probs) const {
  const int V = task_vocab_size(options_);
  std::fill(probs, probs + V, 0.0);
  if (options_.kind != TaskKind::Markov) {
    if (target >= 0 && target < V) probs[target] = 1.0;
    return;
  }
  if (t < options_.order) range_error("t", "a scored Markov position (>= order)", std::to_string(t));
  const std::size_t c = markov_context(seq, t);
  const Transition* row = table_.data() + c * options_.branching;
  for (int j = 0; j < options_.branching; ++j)
    probs[kFirstSymbol + row[j].symbol] = static_cast<double>(row[j].weight) / row_total_[c];
}

TaskOracle TaskGenerator::oracle(const int32_t* tokens, const int32_t* targets, int B, int T) const {
  TaskOracle r;
  r.loss = 0.0;
  r.accuracy = 0.0;
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      const std::size_t i = static_cast<std::size_t>(b) * T + t;
      if (targets[i] < 0) continue;
      ++r.scored;
      if (options_.kind != TaskKind::Markov) {
        r.accuracy += 1.0;
        continue;
      }
      const std::size_t c = markov_context(tokens + static_cast<std::size_t>(b) * T, t);
      const Transition* row = table_.data() + c * options_.branching;
      const double total = row_total_[c];
      uint32_t best = 0;
      for (int j = 0; j < options_.branching; ++j) {
        const double q = row[j].weight / total;
        r.loss -= q * std::log(q);
        best = std::max(best, row[j].weight);
      }
      r.accuracy += best / total;
    }
  if (r.scored > 0) {
    r.loss /= r.scored;
    r.accuracy /= r.scored;
  } else {
    r.accuracy = 1.0;
  }
  return r;
}

void sequence_lengths(const int32_t* tokens, int B, int T, int32_t* lengths) {
  for (int b = 0; b < B; ++b) {
    const int32_t* row = tokens + static_cast<std::size_t>(b) * T;
    int n = T;
    while (n > 1 && row[n - 1] == kTokenPad) --n;
    lengths[b] = n;
  }
}

}  // namespace posenc
