// Model checkpoints: a versioned little-endian binary format.
//
// Version 1 layout (offsets in bytes; every integer little-endian):
//    0  4   magic "PSNC"
//    4  u32 format version (1)
//    8  u32 config block size (72 in version 1)
//   12  config block (72 bytes):
//         u32 encoding (posenc::Encoding)   i32 layers   i32 heads   i32 d_model
//         i32 mlp_ratio   i32 vocab_size   i32 max_length   u64 seed
//         u32 rope_layout   f64 rope_base   i32 rotary_dim   i32 t5_num_buckets
//         i32 t5_max_distance   i32 shaw_k   u32 learned_policy
//         i32 trained_length (model state: largest T trained on)
//   84  u64 parameter count P
//   92  P x f32 weights, in the model's tensor-table order
//   92+4P  u64 FNV-1a-64 checksum of every byte before it
// Version 2 appends the fields added since (config_fields() with since == 2: xposScaleBase
// i32, xposGamma f64, ropeFraction f64, fireHidden i32, fireC f64, fireThreshold i32,
// randomLength i32) after learned_policy, before trained_length (config block 112 bytes, so the
// weights start at 132). A float32 model is saved in the oldest version that
// holds its config: version 1 unless a version-2 field differs from its default.
// Version 3 stores the weights at reduced precision: the version-2 config block (112 bytes), then
//  124  u64 parameter count P
//  132  u32 weight format (1 = IEEE 754 binary16, round to nearest even; no other value is valid)
//  136  P weights as binary16, in the tensor-table order, stored as two byte planes: the P low
//       bytes, then the P high bytes (sign, exponent and top mantissa bits together compress:
//       a gzip/brotli-served checkpoint shrinks 6-7% more than with interleaved bytes)
//  136+2P  u64 FNV-1a-64 checksum of every byte before it
// Weight format 2 (int8, version 3 too) stores the linear maps of each block (the tensors named
// h<l>.attn.qkv.weight, h<l>.attn.proj.weight, h<l>.mlp.fc.weight, h<l>.mlp.proj.weight; shape
// [in, out]) as int8 with one binary16 scale per output column, and every other weight as binary16:
//  136  Q int8 values: each coded tensor's [in, out] values, row-major, in tensor-table order
//  136+Q  H binary16 values as two byte planes (H low bytes, then H high bytes), in tensor-table
//       order: for a coded tensor its out column scales, for any other tensor its weights
//  136+Q+2H  u64 FNV-1a-64 checksum
// (Q and H follow from the config's tensor table.) A weight w of column c is first rounded to
// binary16 (so float16 and float32 sources code alike), then s_c = binary16(max_r |w_rc| / 127)
// and q = round-to-nearest-even(w / s_c) clamped to [-127, 127]; loading gives s_c * q.
// Loading widens each weight to float32 exactly, so re-saving a loaded version-3 model in float16
// gives the same bytes, and converting a float32 checkpoint gives the bytes saving the in-memory
// model in float16 would have. Every version loads.
// Optimizer state is not saved: a loaded model restarts AdamW from zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "posenc/model.hpp"

namespace posenc {

inline constexpr uint32_t kCheckpointVersion = 3;  // the newest version read and written

// How a checkpoint stores its weights. Float16 (version 3) is the default: shipped checkpoints are
// half the size and change the sweep by less than its verdicts resolve (tests/js/checkpoint-precision.test.js).
// Float32 (versions 1, 2) keeps the weights bit for bit.
// Int8 (version 3, weight format 2) quarters the bytes of the block matrices; it moves accuracy and
// loss more than float16 (measured in tests/js/checkpoint-precision.test.js), so it is opt-in.
enum class WeightFormat : uint32_t { Float32 = 0, Float16 = 1, Int8 = 2 };
struct SaveOptions {
  WeightFormat weights = WeightFormat::Float16;
};

// IEEE 754 binary16 <-> float32 (round to nearest even; overflow to infinity; NaN payloads kept
// in their top 10 bits). half_to_float is exact, so float_to_half(half_to_float(h)) == h.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

// FNV-1a, 64-bit (offset basis 14695981039346656037, prime 1099511628211).
uint64_t fnv1a64(const uint8_t* data, std::size_t size);

std::vector<uint8_t> save_checkpoint(const Model& model, const SaveOptions& options = {});

// Reads and fully checks a checkpoint. Throws posenc::Error (RangeError) with a
// message saying what is wrong: truncated, bad magic, unsupported version,
// checksum mismatch, invalid config, or a parameter count that does not match
// the config. Never reads outside [data, data + size).
// learned_policy: run the loaded model with another out-of-table policy than the saved one
// (the weights are the same; the policy is how positions past the table are read).
struct LoadOptions {
  std::optional<OutOfRange> learned_policy;
};
Model load_checkpoint(const uint8_t* data, std::size_t size, const LoadOptions& options = {});
// The same checks, returning only the config.
ModelConfig read_checkpoint_config(const uint8_t* data, std::size_t size);
// The same checks, returning what the header says (no weights are copied).
struct CheckpointInfo {
  ModelConfig config;
  int trained_length = 0;
  uint32_t version = 0;
  std::size_t parameters = 0;
  WeightFormat weights = WeightFormat::Float32;
};
CheckpointInfo read_checkpoint_info(const uint8_t* data, std::size_t size);

}  // namespace posenc
