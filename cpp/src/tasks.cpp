// Synthetic tasks (see tasks.hpp for the vocabulary layout and each task).
#include "posenc/tasks.hpp"

#include "posenc/error.hpp"

namespace posenc {

const char* task_name(TaskKind k) {
  switch (k) {
    case TaskKind::Copy: return "copy";
  }
  return "?";
}

TaskKind parse_task(const std::string& name) {
  if (name == "copy") return TaskKind::Copy;
  range_error("task", "one of 'copy'", "'" + name + "'");
}

void TaskOptions::validate() const {
  const int k = static_cast<int>(kind);
  if (k != static_cast<int>(TaskKind::Copy)) range_error("task", "one of 'copy'", std::to_string(k));
  require_int_range("symbols", symbols, 1, 65000);
}

int task_vocab_size(const TaskOptions& o) {
  o.validate();
  return o.symbols + kFirstSymbol;
}

int task_min_length(const TaskOptions& o) {
  o.validate();
  return 4;  // Copy: BOS s1 SEP s1
}

TaskGenerator::TaskGenerator(const TaskOptions& options, uint64_t seed) : options_(options), rng_(seed, /*stream=*/7) {
  options_.validate();
}

void TaskGenerator::sample(int B, int T, int32_t* tokens, int32_t* targets) {
  require_int_range("B", B, 1, 1 << 20);
  require_int_range("T", T, task_min_length(options_), 1 << 20);
  if (!tokens || !targets) throw Error(ErrorKind::Type, "tokens and targets must be arrays of B*T integers");
  for (int b = 0; b < B; ++b) {
    int32_t* tok = tokens + static_cast<std::ptrdiff_t>(b) * T;
    int32_t* tgt = targets + static_cast<std::ptrdiff_t>(b) * T;
    switch (options_.kind) {
      case TaskKind::Copy: sample_copy(T, tok, tgt); break;
    }
  }
}

// [BOS, s1..sh, SEP, s1..sh, PAD...]; target[t] = tokens[t+1] for t in [h+1, 2h], else -1.
void TaskGenerator::sample_copy(int T, int32_t* tok, int32_t* tgt) {
  const int hmax = (T - 2) / 2;
  const int h = options_.variable_length ? 1 + static_cast<int>(rng_.below(static_cast<uint32_t>(hmax))) : hmax;
  const uint32_t n = static_cast<uint32_t>(options_.symbols);
  tok[0] = kTokenBos;
  for (int i = 1; i <= h; ++i) tok[i] = kFirstSymbol + static_cast<int32_t>(rng_.below(n));
  tok[h + 1] = kTokenSep;
  for (int i = 1; i <= h; ++i) tok[h + 1 + i] = tok[i];
  for (int t = 2 * h + 2; t < T; ++t) tok[t] = kTokenPad;
  for (int t = 0; t < T; ++t) tgt[t] = (t >= h + 1 && t <= 2 * h) ? tok[t + 1] : -1;
}

}  // namespace posenc
