// The copy tasks of Kazemnejad et al. 2023 (see tasks_kazemnejad.hpp for the formats and splits).
#include "posenc/tasks_kazemnejad.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "../kind_table.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"

namespace posenc {
namespace {

struct KzTaskRow {
  KzTask id;
  const char* name;
};
constexpr KzTaskRow kTasks[] = {{KzTask::Cmc, "cmc"}, {KzTask::Rsc, "rsc"}, {KzTask::Rdc, "rdc"}};
static_assert(std::size(kTasks) == kKzTaskCount && rows_in_enum_order(kTasks), "kTasks: one row per KzTask, in order");

template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {  // Fisher-Yates
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(static_cast<uint32_t>(i))]);
}

int32_t sym(int i) { return kz::kFirstSymbol + i; }

KzExample copy_example(const std::vector<int32_t>& source, const std::vector<int32_t>& answer,
                       const std::vector<int32_t>& prompt) {
  KzExample e;
  e.length = static_cast<int>(source.size());
  e.tokens = prompt;
  e.tokens.insert(e.tokens.end(), source.begin(), source.end());
  e.tokens.push_back(kz::kSep);
  e.answer_start = static_cast<int>(e.tokens.size());
  e.tokens.insert(e.tokens.end(), answer.begin(), answer.end());
  e.tokens.push_back(kz::kEos);
  return e;
}

// rdc's alphabet size: their int((1 + sqrt(1 + 4 N)) / 2) for N examples per bin, capped by the list.
int rdc_symbols(double per_bin, int U) {
  return std::min(U, static_cast<int>((1.0 + std::sqrt(1.0 + 4.0 * std::floor(per_bin))) / 2.0));
}

// Every example of one length bin (cmc: `count` fresh draws).
std::vector<KzExample> make_bin(const KzSplitOptions& o, int n, int count, int used, Rng& rng) {
  std::vector<KzExample> bin;
  const std::vector<int32_t> copy_prompt = {kz::kCopy, kz::kColon};
  switch (o.task) {
    case KzTask::Cmc:
      for (int e = 0; e < count; ++e) {
        std::vector<int32_t> x(n);
        for (auto& t : x) t = sym(static_cast<int>(rng.below(static_cast<uint32_t>(used))));
        bin.push_back(copy_example(x, x, copy_prompt));
      }
      break;
    case KzTask::Rsc:
      for (int s = 0; s < used; ++s) {
        const std::vector<int32_t> x(n, sym(s));
        bin.push_back(copy_example(x, x, copy_prompt));
      }
      break;
    case KzTask::Rdc:
      for (int a = 0; a < used; ++a)
        for (int b = 0; b < used; ++b) {
          if (a == b) continue;
          bin.push_back(copy_example(std::vector<int32_t>(n, sym(a)), std::vector<int32_t>(n, sym(b)),
                                     {kz::kReplace, sym(a), kz::kWith, sym(b), kz::kIn}));
        }
      break;
  }
  return bin;
}

}  // namespace

const char* kz_task_name(KzTask t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kKzTaskCount ? kTasks[i].name : "?";
}

KzTask parse_kz_task(const std::string& name) {
  for (const KzTaskRow& t : kTasks)
    if (name == t.name) return t.id;
  range_error("task", one_of(kTasks), "'" + name + "'");
}

void KzSplitOptions::validate() const {
  const int k = static_cast<int>(task);
  if (k < 0 || k >= kKzTaskCount) range_error("task", one_of(kTasks), std::to_string(k));
  require_int_range("trainMin", train_min, 1, 1000);
  require_int_range("trainMax", train_max, train_min, 1000);
  require_int_range("testMin", test_min, 1, 1000);
  require_int_range("testMax", test_max, test_min, 1000);
  require_int_range("numTrain", num_train, 1, 10000000);
  require_int_range("numTest", num_test, 0, 10000000);
  require_int_range("symbols", symbols, 2, 60000);
}

int kz_vocab_size(const KzSplitOptions& o) { return kz::kFirstSymbol + o.symbols; }

int kz_max_tokens(KzTask t, int length) { return 2 * length + (t == KzTask::Rdc ? 7 : 4); }

KzSplits make_kz_splits(const KzSplitOptions& o) {
  o.validate();
  Rng rng(o.seed, 0x6b7a);
  const int train_bins = o.train_max - o.train_min + 1, test_bins = o.test_max - o.test_min + 1;
  const double per_bin = 1.15 * o.num_train / train_bins;
  const int count = static_cast<int>(per_bin);
  KzSplits s;
  s.symbols_used = o.task == KzTask::Cmc   ? std::min(kz::kCmcSymbols, o.symbols)
                   : o.task == KzTask::Rsc ? std::min(count, o.symbols)
                                           : rdc_symbols(per_bin, o.symbols);
  if (s.symbols_used < (o.task == KzTask::Rdc ? 2 : 1))
    range_error("numTrain", "large enough for at least one example per length bin", std::to_string(o.num_train));

  std::vector<KzExample> all;
  for (int n = o.train_min; n <= o.train_max; ++n) {
    auto bin = make_bin(o, n, count, s.symbols_used, rng);
    for (auto& e : bin) all.push_back(std::move(e));
  }
  shuffle(all, rng);
  const std::size_t ntrain = std::min<std::size_t>(all.size(), static_cast<std::size_t>(o.num_train));
  s.train.assign(std::make_move_iterator(all.begin()), std::make_move_iterator(all.begin() + ntrain));
  s.validation.assign(std::make_move_iterator(all.begin() + ntrain), std::make_move_iterator(all.end()));

  const int want = o.num_test / test_bins;
  for (int n = o.test_min; n <= o.test_max; ++n) {
    auto bin = make_bin(o, n, o.task == KzTask::Cmc ? want : count, s.symbols_used, rng);
    shuffle(bin, rng);  // a draw without replacement: the first `want` of a shuffle
    const std::size_t keep = std::min<std::size_t>(bin.size(), static_cast<std::size_t>(want));
    for (std::size_t i = 0; i < keep; ++i) s.test.push_back(std::move(bin[i]));
  }
  shuffle(s.test, rng);
  return s;
}

void kz_fill_batch(const KzExample* const* examples, int B, int T, int32_t* tokens, int32_t* targets) {
  for (int b = 0; b < B; ++b) {
    const KzExample& e = *examples[b];
    const int len = static_cast<int>(e.tokens.size());
    if (len > T) range_error("T", "at least every example's token count (" + std::to_string(len) + ")", std::to_string(T));
    int32_t* tk = tokens + static_cast<std::size_t>(b) * T;
    int32_t* tg = targets + static_cast<std::size_t>(b) * T;
    std::fill(tk, tk + T, kz::kPad);
    std::fill(tg, tg + T, -1);
    std::copy(e.tokens.begin(), e.tokens.end(), tk);
    for (int t = e.answer_start - 1; t < len - 1; ++t) tg[t] = e.tokens[t + 1];
  }
}

void KzScore::add(const KzScore& o) {
  examples += o.examples, exact += o.exact, tokens += o.tokens, correct += o.correct;
}
double KzScore::exact_rate() const { return examples ? double(exact) / examples : std::nan(""); }
double KzScore::token_rate() const { return tokens ? double(correct) / tokens : std::nan(""); }

KzScore kz_score(Model& model, const std::vector<const KzExample*>& examples, int max_batch) {
  require_int_range("maxBatch", max_batch, 1, 1 << 20);
  KzScore s;
  std::vector<const KzExample*> sorted = examples;
  std::stable_sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->tokens.size() < b->tokens.size(); });
  const int V = model.config().vocab_size;
  std::vector<int32_t> tokens, targets;
  for (std::size_t i = 0; i < sorted.size();) {
    const int T = static_cast<int>(sorted[i]->tokens.size());
    std::size_t j = i;
    while (j < sorted.size() && static_cast<int>(sorted[j]->tokens.size()) == T && j - i < std::size_t(max_batch)) ++j;
    const int B = static_cast<int>(j - i);
    tokens.resize(std::size_t(B) * T);
    targets.resize(std::size_t(B) * T);
    kz_fill_batch(sorted.data() + i, B, T, tokens.data(), targets.data());
    const float* logits = model.forward(tokens.data(), B, T);
    for (int b = 0; b < B; ++b) {
      bool all = true;
      for (int t = 0; t < T; ++t) {
        const int32_t y = targets[std::size_t(b) * T + t];
        if (y < 0) continue;
        const float* row = logits + (std::size_t(b) * T + t) * V;
        const bool right = std::max_element(row, row + V) - row == y;
        ++s.tokens;
        s.correct += right;
        all = all && right;
      }
      ++s.examples;
      s.exact += all;
    }
    i = j;
  }
  return s;
}

KzSampler::KzSampler(int n, uint64_t seed) : rng_(seed, 0x73616d70) {
  require_int_range("n", n, 1, 1 << 30);
  order_.resize(n);
  for (int i = 0; i < n; ++i) order_[i] = i;
  pos_ = order_.size();  // shuffle on the first call
}

int KzSampler::next() {
  if (pos_ == order_.size()) {
    shuffle(order_, rng_);
    pos_ = 0;
  }
  return order_[pos_++];
}

}  // namespace posenc
