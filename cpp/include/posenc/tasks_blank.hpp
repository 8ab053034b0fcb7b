// Blank-slot tasks, in the format of Ruoss et al. 2023 (google-deepmind/randomized_positional_encodings,
// its "non-autoregressive" models): the input is a string w of n symbols followed by one BLANK token
// per output symbol, and a bidirectional model predicts every output symbol at once, at the blank
// slots. Loss and accuracy are taken there only (targets -1 elsewhere). Every sequence of a batch has
// the same n (the reference draws one length per training step), so a batch needs no padding.
// Kept apart from TaskKind (the page's task list mirrors it): these tasks need a non-causal model.
//
// Vocabulary: 0 = BLANK, 1 .. symbols = the symbols (binary: 1, 2), so vocab_size = symbols + 1.
//   duplicate ("duplicate_string"): [w, BLANK x 2n] -> targets w w at the blanks;  T = 3n
//   reverse   ("reverse_string"):   [w, BLANK x n]  -> targets reverse(w);         T = 2n
// w is uniform over the symbols; the stream of batches is a pure function of (options, seed, calls).
#pragma once

#include <cstdint>
#include <string>

#include "posenc/rng.hpp"

namespace posenc {

inline constexpr int32_t kTokenBlank = 0;

enum class BlankTask { Duplicate, Reverse };
const char* blank_task_name(BlankTask t);             // "duplicate", "reverse"
BlankTask parse_blank_task(const std::string& name);  // RangeError naming `task`

class BlankTaskGenerator {
 public:
  // symbols in [1, 65000] (the paper: 2). RangeError naming the field otherwise.
  BlankTaskGenerator(BlankTask task, int symbols, uint64_t seed);
  int vocab_size() const { return symbols_ + 1; }
  // Tokens of one sequence with input length n >= 1: 3n (duplicate) or 2n (reverse).
  int sequence_length(int n) const;
  // Fills tokens and targets [B, sequence_length(n)] with B fresh strings of length n.
  void sample(int B, int n, int32_t* tokens, int32_t* targets);

 private:
  BlankTask task_;
  int symbols_;
  Rng rng_;
};

}  // namespace posenc
