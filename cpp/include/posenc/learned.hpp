// Learned absolute position table (BERT, GPT-2): one trained row per position.
#pragma once
#include <cstdint>

namespace posenc {

// What to do with a position at or past the table's end. There is no silent
// default: Error is the default, and every other policy is named.
enum class OutOfRange {
  Error,  // throw posenc::Error (RangeError)
  Clamp,  // reuse the last trained row
  Zero,   // a zero vector (as if the position had no encoding)
};

// table: rows*dim floats. positions: count ints. out: count*dim floats.
void learned_lookup(const float* table, int rows, int dim, const int32_t* positions, int count, OutOfRange policy,
                    float* out);

}  // namespace posenc
