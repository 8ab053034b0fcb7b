// Sinusoidal absolute encoding (Vaswani et al. 2017), added to embeddings.
#pragma once
#include <cstdint>

namespace posenc {

enum class SinusoidLayout {
  Interleaved,  // PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i)   (the paper, the seed)
  Concat,       // PE[p, i] = sin(p w_i), PE[p, d/2 + i] = cos(p w_i) (tensor2tensor, fairseq)
};
enum class SinusoidSpacing {
  Paper,          // w_i = base^(-2i/d)
  Tensor2Tensor,  // w_i = exp(-i ln(base) / max(d/2 - 1, 1))
};

struct SinusoidalOptions {
  int length = 0;      // rows, >= 0
  int dim = 0;         // >= 2; an odd dim gets one more channel (zero, or the paper's sin; see sinusoidal.cpp)
  double base = 10000; // > 1
  SinusoidLayout layout = SinusoidLayout::Interleaved;
  SinusoidSpacing spacing = SinusoidSpacing::Paper;
  int start = 0;       // position of row 0 (row r is position start + r), >= 0
};

// Frequencies w_i (floor(dim/2) of them), in double.
void sinusoid_frequencies(const SinusoidalOptions& o, double* w);
// Writes length*dim floats, row-major. Angles are reduced in double, so
// positions up to ~1e9 stay accurate to float precision. Throws posenc::Error.
void sinusoidal(const SinusoidalOptions& o, float* out);

}  // namespace posenc
