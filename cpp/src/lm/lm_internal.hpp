// posenc::lm internals shared by the loaders and the forward (not part of the public API).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/lm.hpp"
#include "posenc/rope.hpp"  // rope_tables, for the forward

namespace posenc::lm {

// Bounds on a configuration (Config validation): far above any model a browser can hold, and
// small enough that products of two of them fit in int64 and no loop counter overflows int.
inline constexpr int kMaxDim = 1 << 16;
inline constexpr int kMaxHidden = 1 << 20;
inline constexpr int kMaxLayers = 1024;
inline constexpr int kMaxHeads = 1024;
inline constexpr int kMaxVocab = 1 << 22;
inline constexpr int kMaxHeadDim = 1024;
inline constexpr int kMaxContext = 1 << 24;  // metadata only (the forward's T is bounded by kMaxLength)

// float16 / bfloat16 bits -> float.
// f16 by its bits (a loop of it vectorises): exponent and mantissa moved up 13 bits and scaled by 2^112 (exact for
// normal and subnormal halves); exponent 31 (inf, NaN) becomes 255; then the sign.
inline float f16_to_f32(uint16_t h) {
  const uint32_t body = (static_cast<uint32_t>(h) & 0x7fffu) << 13;
  float f;
  std::memcpy(&f, &body, 4);
  f *= 0x1p112f;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint32_t special = (h & 0x7c00u) == 0x7c00u ? 0xffffffffu : 0u;  // a mask, not a branch: the loop vectorises
  bits = (bits & ~special) | ((body | 0x7f800000u) & special);
  bits |= (static_cast<uint32_t>(h) & 0x8000u) << 16;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline float bf16_to_f32(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
// One storage format (lm_dtype.cpp's table): `block` values in `block_bytes` bytes; decode turns n
// blocks into n * block floats. product, where a format has one (every format but F32), multiplies its
// rows in place - blocks unpacked in registers, float32 activations and sums - for rows whose length is a
// multiple of product_block:
//   out[t * ldo + r] (+)= sum_c x[t * ldx + c] w_r[c]   for t < T, r < rows; row r's bytes at w + r * row_bytes.
// Each output is summed in the same order whatever T, rows and the pointers (so the same bits on any split).
struct Format {
  DType dtype;
  const char* name;
  uint32_t ggml;  // ggml_type id (ggml.h)
  int block, block_bytes;
  void (*decode)(const uint8_t* blocks, float* out, std::size_t n);
  void (*product)(const uint8_t* w, std::size_t row_bytes, int rows, int cols, const float* x, int ldx, int T, float* out,
                  int ldo, bool accumulate);
  int product_block;
};
const Format& format(DType t);
const Format* format_of_ggml(uint32_t ggml_type);  // nullptr: a type posenc does not read
std::string format_list();                         // "F32, F16, ..." for messages
// A tensor's element count, after checking its rows hold whole blocks and its byte count matches.
uint64_t checked_bytes(const TensorBytes& t);
// Throws "tensor <name> has a NaN at element N" (first + i) for the first non-finite v[i].
void check_finite(const std::string& name, const float* v, std::size_t n, uint64_t first);
// A tensor's values as float32, row-major; throws when its byte count does not match its shape
// and dtype, or when a value is NaN or infinite ("tensor X has a NaN at element N").
std::vector<float> dequantise(const TensorBytes& t);

// --- Weight matrices (lm_weights.cpp)
// The 2-D tensor t, [rows, cols], as the forward keeps it: its dtype's bytes (F32: transposed). Checks its
// byte count and that every value is finite. in_place: t's bytes may be kept where they are (and an aligned
// float32 matrix transposed there), else they are copied.
Weight make_weight(const TensorBytes& t, bool in_place = false);
// Whether make_weight(t, true) keeps t where it is (no new bytes).
bool fits_in_place(const TensorBytes& t);
// out[T, W.rows] (+)= x[T, W.cols] W^T: every matrix product of the forward. path (for the bench and tests): a
// block format's kernel or its decoded panels, or (Auto) whichever is faster at this T.
enum class BlockPath { Auto, Kernel, Panel };
void matmul(float* out, const float* x, const Weight& W, int T, bool accumulate, BlockPath path = BlockPath::Auto);
// out[W.cols] = row r of W (an embedding lookup).
void weight_row(const Weight& W, int r, float* out);

// Reads little-endian values from a byte range; running past the end throws
// "<what> is truncated at byte N (reading <field>)".
class ByteReader {
 public:
  ByteReader(const uint8_t* data, std::size_t size, std::string what) : p_(data), n_(size), what_(std::move(what)) {}
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return n_ - pos_; }
  const uint8_t* here() const { return p_ + pos_; }
  void need(uint64_t bytes, const char* field) const {
    if (bytes > remaining())
      throw Error(ErrorKind::Range, what_ + " is truncated at byte " + std::to_string(n_) + " (reading " + field + " at byte " +
                                        std::to_string(pos_) + ", " + std::to_string(bytes) + " bytes needed)");
  }
  template <class T>
  T get(const char* field) {
    need(sizeof(T), field);
    T v;
    std::memcpy(&v, p_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  const uint8_t* skip(uint64_t bytes, const char* field) {
    need(bytes, field);
    const uint8_t* at = p_ + pos_;
    pos_ += static_cast<std::size_t>(bytes);
    return at;
  }
  void seek(uint64_t to, const char* field) {
    if (to > n_)
      throw Error(ErrorKind::Range, what_ + " is truncated at byte " + std::to_string(n_) + " (" + field + " starts at byte " +
                                        std::to_string(to) + ")");
    pos_ = static_cast<std::size_t>(to);
  }
  const std::string& what() const { return what_; }

 private:
  const uint8_t* p_;
  std::size_t n_;
  std::size_t pos_ = 0;
  std::string what_;
};

// The forward's view of a model's weights.
struct Access {
  static const std::vector<Model::Layer>& layers(const Model& m) { return m.layers_; }
  static const Weight& embed(const Model& m) { return m.embed_; }
  static const Weight& cls(const Model& m) { return m.cls_; }
  static const std::vector<float>& out_norm(const Model& m) { return m.out_norm_; }
};

// The byte-level BPE vocabulary of a GGUF whose tokenizer.ggml.model is "gpt2" (lm_gguf_bpe.cpp), as Loaded's
// tokenizer_json and tokenizer_config_json; an unknown pre-tokenizer leaves both empty and says why in `note`.
void gguf_bpe_tokenizer(const GgufFile& f, int vocab_size, Loaded& out);

}  // namespace posenc::lm
