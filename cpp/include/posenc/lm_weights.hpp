// posenc::lm: a weight matrix as the forward keeps it, in the file's own storage format.
// DType lists the formats a tensor may have in a file; lm_weights.cpp's table gives each one's
// block size, byte count, ggml type id and decoder, and the forward multiplies every matrix through
// one call (lm_internal.hpp: matmul(out, x, W, T, accumulate)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace posenc::lm {

// Appended only: the JS loader passes a safetensors tensor's dtype by its index here.
enum class DType { F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K };
const char* dtype_name(DType t);

// A matrix of `rows` output features by `cols` input features (PyTorch's [out, in]).
//   F32: float32, transposed, [cols, rows] (the matmul kernel's right-hand side, as before).
//   every other dtype: the file's bytes, row by row, [rows, cols / block] blocks (ggml's layouts).
struct Weight {
  DType dtype = DType::F32;
  int rows = 0, cols = 0;
  std::vector<uint8_t> data;
  bool empty() const { return rows == 0; }
  std::size_t bytes() const { return data.size(); }
};

}  // namespace posenc::lm
