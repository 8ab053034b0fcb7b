// ALiBi (Press, Smith & Lewis 2022): a fixed per-head linear penalty on scores.
#pragma once
#include <cstdint>

namespace posenc {

// Slopes as in ofirpress/attention_with_linear_biases: a geometric sequence
// starting at 2^(-8/n) for n a power of two; otherwise the slopes of the
// closest lower power of two, followed by every other slope of twice that.
void alibi_slopes(int heads, float* out);

struct AlibiBiasOptions {
  int heads = 0;
  int query_length = 0;
  int key_length = 0;  // >= query_length; query i sits at position i + (Tk - Tq)
  bool causal = true;  // causal: -m (i - j) for j <= i, -inf after; else -m |i - j|
};
// out: heads*Tq*Tk floats.
void alibi_bias(const AlibiBiasOptions& o, float* out);

}  // namespace posenc
