// RoPE inverse frequencies and attention factor, following HF transformers'
// modeling_rope_utils.py (newest): default, linear, dynamic, yarn, llama3,
// longrope, proportional; plus the query-side scales some models multiply into
// attention as a function of position (Llama 4, Ministral 3) and DeepSeek's
// softmax-scale correction.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace posenc {

// A row of rope_types(): its index. The values have no names here; code names a type by the table's name,
// parse_rope_type("yarn"), so that a type is declared in one place, its row. RopeType{} (row 0) is "default".
enum class RopeType : int {};

RopeType parse_rope_type(const std::string& name);  // throws RangeError naming rope_type
const char* rope_type_name(RopeType t);

// The fields of an HF `rope_scaling` block plus the config values it reads.
// Optional fields are unset when the config does not have them, exactly as
// HF's `.get(...)` would return None.
struct RopeScaling {
  RopeType type{};  // row 0, "default": unscaled
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
  // llama.cpp's YaRN ext_factor (HF has none: 1). Scales the ramp that mixes
  // extrapolated and interpolated frequencies; 0 = pure interpolation.
  std::optional<double> ext_factor;
  // llama3
  std::optional<double> low_freq_factor;
  std::optional<double> high_freq_factor;
  // proportional (Gemma 4): the share of head_dim's pairs that rotate; the
  // rest get frequency 0. Other types take the rotary dim itself as `dim`.
  std::optional<double> partial_rotary_factor;
  // longrope (dim/2 values each)
  std::vector<double> long_factor;
  std::vector<double> short_factor;
};

struct RopeFrequencies {
  std::vector<double> inv_freq;  // dim/2 values
  double attention_scale = 1.0;  // HF's attention_factor / attention_scaling: multiplies cos and sin
};

// The keys of a scaling block, once: scaling_fields() lists them (the numbers in the order of the slots the wasm
// layer passes them in, then the per-pair lists), rope_types() lists the types with the keys each reads. The JS
// library, the page, the types' test and the README read both through the module (ropeScalingSchema()).
enum class ScalingFieldKind { Number, Integer, Flag, Factors };
struct ScalingField {
  const char* key;    // HF's snake_case key
  const char* camel;  // the same key in camelCase (the JS API takes either)
  ScalingFieldKind kind;
  // What the core accepts (Factors: each value). min_exclusive: min itself is refused.
  double min, max;
  bool min_exclusive;
  // HF's default when the key is left out; NaN: none (required, or derived from other keys).
  double hf_default;
  // Set from the model's (original) context when left out, as HF's config classes do.
  bool from_context;
  // The page's slider for it (page_key empty: none): the state's key, default and range.
  const char* page_key;
  double page_default, page_min, page_max;
  void (*set)(RopeScaling&, double);                     // Number, Integer, Flag
  std::optional<double> (*get)(const RopeScaling&);      // Number, Integer, Flag (flags as 0/1); nullopt: unset
  std::vector<double> RopeScaling::*list;  // Factors
};
std::span<const ScalingField> scaling_fields();

// Adding a type: its compute function and row in rope_scaling.cpp, its row in the JS library's
// per-type code (TYPE_CODE in web/lib/scaling.js: its PyTorch lines, and its GGUF keys when llama.cpp spells it) and
// its reference test. The declarations' RopeType and the README's table are rewritten from this table by the build;
// tests/js/scaling-table.test.js fails when the JS rows and this table disagree.
struct RopeTypeInfo {
  RopeType id;
  const char* name;   // HF's rope_type spelling
  const char* gguf;   // llama.cpp's rope.scaling.type spelling ("" when llama.cpp has none)
  const char* label;  // as readers know it
  const char* fields; // the keys it reads, comma-separated (scaling_fields()' keys)
  bool page;          // offered on the page's RoPE scaling control
  RopeFrequencies (*compute)(int dim, double base, const RopeScaling& s, std::optional<int> seq_len);
};
std::span<const RopeTypeInfo> rope_types();
// The key through which a model's (original) context reaches rope type `t`, or nullptr: the last of the keys it reads
// that HF fills from the context (original_max_position_embeddings after max_position_embeddings: HF's original
// defaults to max_position_embeddings, so a context set there reaches both). The JS library's contextKey is the same rule.
const ScalingField* context_field(RopeType t);

// dim: the rotary dimension (even, >= 2). seq_len: the current sequence
// length (max position + 1) for `dynamic` and `longrope`; unset = HF's None.
// For `proportional`, dim is the whole head_dim (HF returns head_dim/2 values).
RopeFrequencies rope_frequencies(int dim, double base, const RopeScaling& s, std::optional<int> seq_len);

// Scales that multiply the queries (so the attention logits) as a function of
// the 0-based position p, applied after RoPE:
//  Llama4Temperature (Llama 4's NoPE layers, attn_temperature_tuning):
//     1 + a * log1p(floor((p + 1) / b)),   a = attn_scale, b = floor_scale
//  Llama4ScalingBeta (Ministral 3, rope_parameters.llama_4_scaling_beta):
//     1 + a * log(1 + floor(p / b)),       a = beta, b = original_max_position_embeddings
enum class QueryScaleKind { None, Llama4Temperature, Llama4ScalingBeta };
// positions: n values (>= 0); out: n values.
void query_scale(QueryScaleKind kind, double a, double b, const double* positions, int n, double* out);

// DeepSeek-V2/V3's softmax-scale multiplier (modeling_deepseek_v3 yarn_apply_mscale):
// mscale^2 with mscale = 0.1 * mscale_all_dim * ln(factor) + 1 (1 when factor <= 1 or mscale_all_dim is 0).
double deepseek_softmax_scale(double factor, double mscale_all_dim);

}  // namespace posenc
