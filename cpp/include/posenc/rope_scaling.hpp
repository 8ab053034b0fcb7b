// RoPE inverse frequencies and attention factor, following HF transformers'
// modeling_rope_utils.py (newest): default, linear, dynamic, yarn, llama3, longrope.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace posenc {

enum class RopeType { Default, Linear, Dynamic, Yarn, Llama3, LongRope };

RopeType parse_rope_type(const std::string& name);  // throws RangeError naming rope_type
const char* rope_type_name(RopeType t);

// The fields of an HF `rope_scaling` block plus the config values it reads.
// Optional fields are unset when the config does not have them, exactly as
// HF's `.get(...)` would return None.
struct RopeScaling {
  RopeType type = RopeType::Default;
  // Unset = HF's None/missing. linear, dynamic and llama3 require it; yarn and
  // longrope fall back to max_position_embeddings / original_max_position_embeddings.
  std::optional<double> factor;
  std::optional<int> max_position_embeddings;           // config.max_position_embeddings
  std::optional<int> original_max_position_embeddings;  // rope_scaling / config value
  // yarn
  std::optional<double> attention_factor;
  std::optional<double> beta_fast;  // HF default 32
  std::optional<double> beta_slow;  // HF default 1
  std::optional<double> mscale;
  std::optional<double> mscale_all_dim;
  std::optional<bool> truncate;  // HF default true
  // llama3
  std::optional<double> low_freq_factor;
  std::optional<double> high_freq_factor;
  // longrope (dim/2 values each)
  std::vector<double> long_factor;
  std::vector<double> short_factor;
};

struct RopeFrequencies {
  std::vector<double> inv_freq;  // dim/2 values
  double attention_scale = 1.0;  // HF's attention_factor / attention_scaling: multiplies cos and sin
};

// dim: the rotary dimension (even, >= 2). seq_len: the current sequence
// length (max position + 1) for `dynamic` and `longrope`; unset = HF's None.
RopeFrequencies rope_frequencies(int dim, double base, const RopeScaling& s, std::optional<int> seq_len);

}  // namespace posenc
