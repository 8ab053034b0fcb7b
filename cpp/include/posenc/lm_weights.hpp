// posenc::lm: a weight matrix as the forward keeps it, in the file's own storage format.
// DType lists the formats a tensor may have in a file; lm_dtype.cpp's table gives each one's
// block size, byte count, ggml type id and decoder, and the forward multiplies every matrix through
// one call (lm_internal.hpp: matmul(out, x, W, T, accumulate)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace posenc::lm {

// The JS loader passes a safetensors tensor's dtype by its index here, read from dtype_names() (the wasm's lmDtypes).
enum class DType { F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K };
const char* dtype_name(DType t);
// Every DType's name, in DType order.
std::vector<const char*> dtype_names();

// A file's bytes handed to a loader to keep: the model's matrices are then read in place (never copied; float32
// ones are transposed where they lie), and the model frees the buffer when it is destroyed.
using Storage = std::shared_ptr<uint8_t>;

// A matrix of `rows` output features by `cols` input features (PyTorch's [out, in]).
//   F32: float32, transposed, [cols, rows] (the matmul kernel's right-hand side).
//   every other dtype: the file's bytes, row by row, [rows, cols / block] blocks (ggml's layouts).
// The bytes are its own (data), or lie in the model's Storage (view).
struct Weight {
  DType dtype = DType::F32;
  int rows = 0, cols = 0;
  std::vector<uint8_t> data;
  const uint8_t* view = nullptr;
  std::size_t view_bytes = 0;
  bool empty() const { return rows == 0; }
  const uint8_t* raw() const { return view ? view : data.data(); }
  std::size_t bytes() const { return view ? view_bytes : data.size(); }
};

}  // namespace posenc::lm
