// Rotary position embedding (Su et al. 2021).
#pragma once
#include <cstdint>

#include "posenc/position_types.hpp"  // RopeLayout

namespace posenc {

struct RopeApplyOptions {
  int length = 0;                      // rows of x
  int dim = 0;                         // row width
  int rotary_dim = 0;                  // leading channels that rotate (even, <= dim); the rest pass through
  RopeLayout layout = RopeLayout::Interleaved;
  const double* inv_freq = nullptr;    // rotary_dim/2 values (from rope_frequencies)
  double attention_scale = 1.0;        // multiplies cos and sin, as HF does
  const int32_t* positions = nullptr;  // length values >= 0, or nullptr for 0..length-1
};

// cos/sin tables for rows: cos_out, sin_out are length*(rotary_dim/2) floats.
// The angle p*w is formed and reduced modulo 2*pi in double, so it is accurate at p = 1e6.
void rope_tables(const RopeApplyOptions& o, float* cos_out, float* sin_out);
// out = rotate(x); x and out are length*dim floats and may alias.
void apply_rope(const RopeApplyOptions& o, const float* x, float* out);

}  // namespace posenc
