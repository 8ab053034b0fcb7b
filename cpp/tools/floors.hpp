// Position-free floors shared by the experiment tools (posenc_train, posenc_spectrum).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "posenc/sweep.hpp"
#include "posenc/tasks.hpp"

namespace posenc::tools {

struct FloorScore {
  double accuracy = 0, loss = 0;
};

// Copy and Reverse: the bag-of-tokens floor at length L. A predictor that ignores position and knows only the
// multiset of the input symbols x1 .. xh predicts the most frequent one (the first of equal counts) at every
// answer position; its loss is that of the input's own symbol frequencies (add-1/2 smoothing over the n symbols).
// Scored on the sweep's own sequences at L (sweep_seed(eval_seed, L, -1), `sequences` of them, full length).
inline FloorScore bag_floor(const TaskOptions& task, int L, int sequences, uint64_t eval_seed) {
  TaskOptions t = task;
  t.variable_length = false;  // as the sweep evaluates
  const int n = t.symbols;
  std::vector<int32_t> tokens(static_cast<std::size_t>(sequences) * L), targets(tokens.size());
  TaskGenerator(t, sweep_seed(eval_seed, L, -1)).sample(sequences, L, tokens.data(), targets.data());
  FloorScore s;
  long long scored = 0;
  std::vector<int> count(n);
  for (int b = 0; b < sequences; ++b) {
    const int32_t* x = tokens.data() + static_cast<std::size_t>(b) * L;
    const int32_t* y = targets.data() + static_cast<std::size_t>(b) * L;
    std::fill(count.begin(), count.end(), 0);
    int inputs = 0;
    for (int i = 1; i < L && x[i] != kTokenSep; ++i, ++inputs) ++count[x[i] - kFirstSymbol];
    const int32_t mode = kFirstSymbol + static_cast<int32_t>(std::max_element(count.begin(), count.end()) - count.begin());
    for (int i = 0; i < L; ++i)
      if (y[i] >= 0) {
        s.accuracy += y[i] == mode ? 1 : 0;
        s.loss -= std::log((count[y[i] - kFirstSymbol] + 0.5) / (inputs + 0.5 * n));
        ++scored;
      }
  }
  s.accuracy /= static_cast<double>(scored);
  s.loss /= static_cast<double>(scored);
  return s;
}

// Copy and Reverse: the induction floor at length L, the accuracy of content matching with no positions
// (posenc::induction_accuracy: the last 1 .. kInductionContext tokens looked up in the input by content) on the
// same sequences as bag_floor. An algorithm, not a trained model; a model that scores no more than it may be
// matching content, not addressing positions.
inline constexpr int kInductionContext = 4;
inline double induction_floor(const TaskOptions& task, int L, int sequences, uint64_t eval_seed) {
  TaskOptions t = task;
  t.variable_length = false;  // as the sweep evaluates
  std::vector<int32_t> tokens(static_cast<std::size_t>(sequences) * L), targets(tokens.size());
  TaskGenerator(t, sweep_seed(eval_seed, L, -1)).sample(sequences, L, tokens.data(), targets.data());
  return induction_accuracy(t.kind, tokens.data(), targets.data(), sequences, L, kInductionContext);
}

}  // namespace posenc::tools
