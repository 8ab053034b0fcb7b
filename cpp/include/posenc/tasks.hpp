// Synthetic sequence tasks for training the tiny model: seeded, deterministic,
// with their own RNG (posenc::Rng), so a seed gives the same batches natively
// and in wasm.
//
// Vocabulary layout (shared by every task):
//   0            PAD   filler after the end of a sequence (never scored)
//   1            BOS   start of sequence
//   2            SEP   separator between the parts of a sequence
//   3 .. 3+n-1   the n task symbols
// so a task with n symbols needs vocab_size = n + 3 (task_vocab_size).
//
// Targets are next-token ids, or -1 where the next token is not predictable
// from the sequence so far (those positions are not scored by the loss or
// the accuracy).
//
// Tasks:
//   Copy:  [BOS, s1 .. sh, SEP, s1 .. sh, PAD ...]   with s_i uniform over the n symbols.
//          h = (T - 2) / 2 (the longest prefix that fits), or, with variable_length,
//          uniform in [1, (T - 2) / 2] per sequence. Scored: the positions from SEP
//          to the second-to-last copied symbol, i.e. the h predictions of the copy.
//          Needs T >= 4.
// (Reverse, retrieval and Markov tasks are planned: each is one more TaskKind and
// one more case in TaskGenerator::sample.)
#pragma once

#include <cstdint>
#include <string>

#include "posenc/rng.hpp"

namespace posenc {

inline constexpr int32_t kTokenPad = 0;
inline constexpr int32_t kTokenBos = 1;
inline constexpr int32_t kTokenSep = 2;
inline constexpr int32_t kFirstSymbol = 3;

enum class TaskKind { Copy };
const char* task_name(TaskKind k);             // "copy"
TaskKind parse_task(const std::string& name);  // RangeError naming `task`

struct TaskOptions {
  TaskKind kind = TaskKind::Copy;
  int symbols = 8;               // n, in [1, 65000]
  bool variable_length = false;  // Copy: random prefix length per sequence
  void validate() const;         // throws posenc::Error naming the field
};

int task_vocab_size(const TaskOptions& o);  // symbols + 3
int task_min_length(const TaskOptions& o);  // shortest T a sequence fits in

class TaskGenerator {
 public:
  TaskGenerator(const TaskOptions& options, uint64_t seed);
  // Fills tokens[B*T] and targets[B*T] (row-major [B, T]) with B fresh sequences.
  // The stream of batches is a pure function of (options, seed, call sequence).
  void sample(int B, int T, int32_t* tokens, int32_t* targets);
  const TaskOptions& options() const { return options_; }

 private:
  void sample_copy(int T, int32_t* tokens, int32_t* targets);
  TaskOptions options_;
  Rng rng_;
};

}  // namespace posenc
