// The constant tables of posenc::simd's polynomial kernels (see Constants in
// simd.hpp). Deliberately mutable, with external linkage: the compiler must
// load them, which keeps V8 from rebuilding them as v128.const inside loops.
#include <cstdint>

#include "posenc/simd.hpp"

namespace posenc::simd::detail {

#if !POSENC_SCALAR
float exp_table[15] = {
    88.3f, 1.44269504088896341f, 12582912.0f,              // clamp, log2(e), magic = 1.5 * 2^23
    -0.693145751953125f, -1.42860682030941723e-06f,       // -ln2 split: hi (exact products), lo
    1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f,  // Taylor, highest degree first
    -87.3f,                                               // below: exactly 0
    __builtin_bit_cast(float, __builtin_bit_cast(uint32_t, 12582912.0f) - 127u),  // magic_bias
};
float sin_table[9] = {
    3.14159265358979f, 1.57079632679490f,
    1.0f / 6227020800.0f, -1.0f / 39916800.0f, 1.0f / 362880.0f, -1.0f / 5040.0f, 1.0f / 120.0f, -1.0f / 6.0f, 1.0f,
};
#endif

}  // namespace posenc::simd::detail
