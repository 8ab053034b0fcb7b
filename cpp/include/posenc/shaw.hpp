// Shaw et al. (2018) relative position index: clip(j - i, -k, k) + k, in [0, 2k].
#pragma once
#include <cstdint>

namespace posenc {

// Query i has absolute position i + (Tk - Tq) (queries aligned to the last keys,
// as in a KV cache); key j has position j. out: Tq*Tk ints. Requires Tq <= Tk.
void shaw_index(int query_length, int key_length, int max_distance, int32_t* out);

}  // namespace posenc
