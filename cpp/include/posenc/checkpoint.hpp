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
// weights start at 132). A model is saved in the oldest version that
// holds its config: version 1 unless a version-2 field differs from its default. Both load.
// Optimizer state is not saved: a loaded model restarts AdamW from zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "posenc/model.hpp"

namespace posenc {

inline constexpr uint32_t kCheckpointVersion = 2;  // the newest version read and written

// FNV-1a, 64-bit (offset basis 14695981039346656037, prime 1099511628211).
uint64_t fnv1a64(const uint8_t* data, std::size_t size);

std::vector<uint8_t> save_checkpoint(const Model& model);

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
};
CheckpointInfo read_checkpoint_info(const uint8_t* data, std::size_t size);

}  // namespace posenc
