// Learned absolute position table (BERT, GPT-2): one trained row per position.
#pragma once
#include <cstdint>

#include "posenc/position_types.hpp"  // OutOfRange

namespace posenc {

// table: rows*dim floats. positions: count ints. out: count*dim floats.
void learned_lookup(const float* table, int rows, int dim, const int32_t* positions, int count, OutOfRange policy,
                    float* out);

}  // namespace posenc
