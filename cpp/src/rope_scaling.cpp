// RoPE inverse frequencies and attention factor for each HF rope_type.
//
// Reference: HF transformers src/transformers/modeling_rope_utils.py, newest
// (v5 `rope_parameters` API), read from a fork of upstream main:
//   8b-is/transformers @ 07dc0bab60a71fa935af8891ddda73e44293e18e
//   (has _compute_proportional_rope_parameters, Gemma-4 / DeepSeek-V4 hooks)
// and cross-checked against zucchini-nlp/transformers @ 26892c16b782513fdf938920653228ef63a19d7d,
// which has identical _compute_{linear_scaling,dynamic_ntk,yarn,longrope,llama3}_parameters.
// The copy stored for huggingface/transformers itself (ef468064...) is an older
// v4.4x one (no truncate/mscale, yarn factor always overridden), so it was not followed.
//
// Points where the newest version matters:
//  - standardize_rope_params: for llama3/yarn/longrope,
//    original_max_position_embeddings defaults to config.max_position_embeddings.
//  - yarn and longrope: `if factor is None: factor = max_position_embeddings /
//    original_max_position_embeddings` (an explicit factor is never overridden).
//  - dynamic: seq_len = max(seq_len, config.max_position_embeddings).
//  - yarn `beta_fast or 32` / `beta_slow or 1`: 0 means "use the default", as in Python.
//  - llama3: HF only warns when high_freq_factor <= low_freq_factor (Llama 4 Scout
//    ships 1.0 and 1.0); its torch.where masks the smooth factor's division, so
//    equal factors leave every pair either kept or divided by factor.
//  - proportional (Gemma 4's full-attention layers): rope_angles =
//    int(partial_rotary_factor * head_dim // 2) pairs rotate with exponent 2i/head_dim,
//    the other head_dim/2 - rope_angles pairs get frequency 0; all divided by factor (default 1).
// HF computes the per-frequency tensors in float32 and the scalars in Python
// float; we compute everything in double.
#include "posenc/rope_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>

#include "kind_table.hpp"
#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kMaxInt = std::numeric_limits<int>::max();
constexpr int kMaxDim = 1 << 16;
using Seq = std::optional<int>;

std::string key(const char* name) { return std::string("rope_scaling.") + name; }

// A required positive number (HF's rope_parameters["name"]).
double required_positive(const char* name, const std::optional<double>& v) {
  if (!v) range_error(key(name), "a finite number > 0", "missing");
  require_positive(key(name).c_str(), *v);
  return *v;
}

// Python's `rope_parameters.get(name) or default`: unset and 0 both give the default.
double positive_or(const char* name, const std::optional<double>& v, double fallback) {
  if (!v || *v == 0) return fallback;
  require_positive(key(name).c_str(), *v);
  return *v;
}

// yarn's mscale / mscale_all_dim: optional, finite, >= 0 (0 is falsy in Python: "unset").
double nonnegative_or_zero(const char* name, const std::optional<double>& v) {
  if (!v) return 0;
  if (!std::isfinite(*v) || *v < 0) range_error(key(name), "a finite number >= 0", format_number(*v));
  return *v;
}

int max_positions(const RopeScaling& s) {
  if (!s.max_position_embeddings) range_error("max_position_embeddings", "an integer >= 1", "missing");
  require_int_range("max_position_embeddings", *s.max_position_embeddings, 1, kMaxInt);
  return *s.max_position_embeddings;
}

// standardize_rope_params: setdefault("original_max_position_embeddings", config.max_position_embeddings).
int original_max_positions(const RopeScaling& s) {
  if (s.original_max_position_embeddings) {
    require_int_range(key("original_max_position_embeddings").c_str(), *s.original_max_position_embeddings, 1, kMaxInt);
    return *s.original_max_position_embeddings;
  }
  if (!s.max_position_embeddings)
    range_error(key("original_max_position_embeddings"), "an integer >= 1 (or max_position_embeddings set)", "missing");
  return max_positions(s);
}

// yarn / longrope: an explicit factor, else max_position_embeddings / original_max_position_embeddings.
double factor_or_ratio(const RopeScaling& s, int original_max) {
  if (s.factor) return required_positive("factor", s.factor);
  if (!s.max_position_embeddings)
    range_error(key("factor"), "a finite number > 0 (or max_position_embeddings set to derive it)", "missing");
  return static_cast<double>(max_positions(s)) / original_max;
}

// 1 / base^(arange(0, dim, 2) / dim): the default (original RoPE) frequencies.
std::vector<double> default_inv_freq(int dim, double base) {
  std::vector<double> inv(dim / 2);
  for (int i = 0; i < dim / 2; ++i) inv[i] = 1.0 / std::pow(base, (2.0 * i) / dim);
  return inv;
}

RopeFrequencies original(int dim, double base, const RopeScaling&, Seq) { return {default_inv_freq(dim, base), 1.0}; }

RopeFrequencies linear(int dim, double base, const RopeScaling& s, Seq) {
  const double factor = required_positive("factor", s.factor);
  RopeFrequencies r{default_inv_freq(dim, base), 1.0};
  for (double& f : r.inv_freq) f /= factor;
  return r;
}

RopeFrequencies dynamic(int dim, double base, const RopeScaling& s, Seq seq_len) {
  if (dim < 4)
    range_error("dim", "an even integer >= 4 for rope_type 'dynamic' (HF divides by dim - 2)", std::to_string(dim));
  const double factor = required_positive("factor", s.factor);
  const int max_pos = max_positions(s);
  const double len = std::max(seq_len.value_or(max_pos), max_pos);
  const double ntk_base =
      base * std::pow((factor * len / max_pos) - (factor - 1), static_cast<double>(dim) / (dim - 2));
  if (!std::isfinite(ntk_base))
    range_error(key("factor"), "small enough that the dynamic NTK base stays finite", format_number(factor));
  return {default_inv_freq(dim, ntk_base), 1.0};
}

// yarn's get_mscale(scale, mscale=1).
double get_mscale(double scale, double mscale = 1) { return scale <= 1 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0; }

double yarn_attention_factor(const RopeScaling& s, double factor) {
  if (s.attention_factor) return required_positive("attention_factor", s.attention_factor);
  const double mscale = nonnegative_or_zero("mscale", s.mscale);
  const double mscale_all_dim = nonnegative_or_zero("mscale_all_dim", s.mscale_all_dim);
  if (mscale != 0 && mscale_all_dim != 0) return get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim);
  return get_mscale(factor);
}

// find_correction_dim: the dimension whose wavelength makes num_rotations turns over max_pos.
double find_correction_dim(double num_rotations, int dim, double base, int max_pos) {
  return (dim * std::log(max_pos / (num_rotations * 2 * kPi))) / (2 * std::log(base));
}

RopeFrequencies yarn(int dim, double base, const RopeScaling& s, Seq) {
  const int original_max = original_max_positions(s);
  const double factor = factor_or_ratio(s, original_max);
  const double attention = yarn_attention_factor(s, factor);
  const double beta_fast = positive_or("beta_fast", s.beta_fast, 32);
  const double beta_slow = positive_or("beta_slow", s.beta_slow, 1);

  // find_correction_range(beta_fast, beta_slow, ...), floor/ceil only when truncate.
  double low = find_correction_dim(beta_fast, dim, base, original_max);
  double high = find_correction_dim(beta_slow, dim, base, original_max);
  if (s.truncate.value_or(true)) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, dim - 1.0);
  if (low == high) high += 0.001;  // linear_ramp_factor: prevent singularity

  // llama.cpp's ext_factor scales the mix (HF: 1).
  const double ext = s.ext_factor.value_or(1.0);
  if (!(ext >= 0 && ext <= 1)) range_error(key("ext_factor"), "a number in [0, 1]", format_number(ext));

  RopeFrequencies r{std::vector<double>(dim / 2), attention};
  for (int i = 0; i < dim / 2; ++i) {
    const double pos_freq = std::pow(base, (2.0 * i) / dim);
    const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
    const double extrapolation_factor = (1 - ramp) * ext;  // 1: keep the frequency, 0: divide by factor
    r.inv_freq[i] = (1.0 / (factor * pos_freq)) * (1 - extrapolation_factor) + (1.0 / pos_freq) * extrapolation_factor;
  }
  return r;
}

RopeFrequencies llama3(int dim, double base, const RopeScaling& s, Seq) {
  const double factor = required_positive("factor", s.factor);
  const double low = required_positive("low_freq_factor", s.low_freq_factor);
  const double high = required_positive("high_freq_factor", s.high_freq_factor);
  // HF only warns when high <= low: the smooth factor is then computed (inf or NaN)
  // but masked by is_medium_freq, which no pair satisfies unless its wavelength
  // is exactly the original context (then HF gives NaN and check_finite_result refuses).
  const double old_context = original_max_positions(s);
  const double low_freq_wavelen = old_context / low, high_freq_wavelen = old_context / high;

  RopeFrequencies r{default_inv_freq(dim, base), 1.0};
  for (double& inv : r.inv_freq) {
    const double wavelen = 2 * kPi / inv;
    const double scaled = wavelen > low_freq_wavelen ? inv / factor : inv;
    const double smooth = (old_context / wavelen - low) / (high - low);
    const double smoothed = (1 - smooth) * scaled / factor + smooth * scaled;
    const bool medium = !(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen);
    inv = medium ? smoothed : scaled;
  }
  return r;
}

const std::vector<double>& checked_factors(const char* name, const std::vector<double>& v, int dim) {
  if (static_cast<int>(v.size()) != dim / 2)
    range_error(key(name), "a list of dim/2 = " + std::to_string(dim / 2) + " finite numbers > 0",
                v.empty() ? "missing" : std::to_string(v.size()) + " values");
  for (std::size_t i = 0; i < v.size(); ++i)
    require_positive((key(name) + "[" + std::to_string(i) + "]").c_str(), v[i]);
  return v;
}

double longrope_attention_factor(const RopeScaling& s, double factor, int original_max) {
  if (s.attention_factor) return required_positive("attention_factor", s.attention_factor);
  if (factor <= 1.0) return 1.0;
  if (original_max < 2)  // log(original_max) is a divisor
    range_error(key("original_max_position_embeddings"), "an integer >= 2 when attention_factor is derived",
                std::to_string(original_max));
  return std::sqrt(1 + std::log(factor) / std::log(static_cast<double>(original_max)));
}

RopeFrequencies longrope(int dim, double base, const RopeScaling& s, Seq seq_len) {
  const std::vector<double>& long_factor = checked_factors("long_factor", s.long_factor, dim);
  const std::vector<double>& short_factor = checked_factors("short_factor", s.short_factor, dim);
  const int original_max = original_max_positions(s);
  const double factor = factor_or_ratio(s, original_max);
  // `if seq_len and seq_len > original_max_position_embeddings`: long factors, else short.
  const std::vector<double>& ext = (seq_len && *seq_len > original_max) ? long_factor : short_factor;
  RopeFrequencies r{std::vector<double>(dim / 2), longrope_attention_factor(s, factor, original_max)};
  for (int i = 0; i < dim / 2; ++i) r.inv_freq[i] = 1.0 / (ext[i] * std::pow(base, (2.0 * i) / dim));
  return r;
}

RopeFrequencies proportional(int head_dim, double base, const RopeScaling& s, Seq) {
  const double factor = s.factor ? required_positive("factor", s.factor) : 1.0;
  const double share = s.partial_rotary_factor.value_or(1.0);
  if (!std::isfinite(share) || share < 0 || share > 1)
    range_error(key("partial_rotary_factor"), "a number in [0, 1]", format_number(share));
  // Python: int(rope_proportion * head_dim // 2), i.e. floor((share * head_dim) / 2)
  const int rope_angles = static_cast<int>(std::floor(share * head_dim / 2));
  RopeFrequencies r{std::vector<double>(head_dim / 2, 0.0), 1.0};
  for (int i = 0; i < rope_angles; ++i) r.inv_freq[i] = 1.0 / std::pow(base, (2.0 * i) / head_dim) / factor;
  return r;
}

void check_finite_result(const RopeFrequencies& r, RopeType t) {
  // The scale multiplies float cos/sin tables (rope.hpp), so it must fit in a float.
  bool ok = r.attention_scale > 0 && r.attention_scale <= std::numeric_limits<float>::max();
  for (double f : r.inv_freq) ok = ok && std::isfinite(f) && f >= 0;  // negative: factor < 1 with ext_factor > 1 (fuzz)
  if (!ok)
    range_error("rope_scaling",
                std::string("values giving finite, non-negative frequencies for rope_type '") + rope_type_name(t) + "'",
                "an overflow");
}


constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kIntMax = kMaxInt;

// The types; a row's place is its RopeType (row 0 "default", RopeType{}). fields: what each reads (HF's _compute_*_parameters and standardize_rope_params).
constexpr RopeTypeInfo kTypes[] = {
    {RopeType{0}, "default", "none", "the original RoPE, unscaled", "", false, original},
    {RopeType{1}, "linear", "linear", "linear (position interpolation)", "factor", true, linear},
    {RopeType{2}, "dynamic", "", "dynamic NTK", "factor,max_position_embeddings", true, dynamic},
    {RopeType{3}, "yarn", "yarn", "YaRN",
     "factor,max_position_embeddings,original_max_position_embeddings,attention_factor,beta_fast,beta_slow,mscale,"
     "mscale_all_dim,truncate,ext_factor",
     true, yarn},
    {RopeType{4}, "llama3", "", "Llama 3", "factor,original_max_position_embeddings,low_freq_factor,high_freq_factor",
     true, llama3},
    {RopeType{5}, "longrope", "longrope", "LongRoPE",
     "factor,max_position_embeddings,original_max_position_embeddings,attention_factor,long_factor,short_factor", false,
     longrope},
    {RopeType{6}, "proportional", "", "proportional (Gemma 4)", "factor,partial_rotary_factor", false,
     proportional},
};
constexpr int kTypeCount = static_cast<int>(std::size(kTypes));
static_assert(rows_in_enum_order(kTypes), "kTypes[i].id must be RopeType{i}");
static_assert(std::string_view(kTypes[0].name) == "default", "RopeType{} is the unscaled default");

// A key's setter and getter (unset: nullopt).
#define SET(member, cast)                                 \
  [](RopeScaling& r, double v) { r.member = cast; },      \
      [](const RopeScaling& r) -> std::optional<double> { \
        return r.member ? std::optional<double>(*r.member) : std::nullopt; }
constexpr ScalingField kFields[] = {
    // key, camel, kind, min, max, min_exclusive, HF default, from context, page key, page default, min, max
    {"factor", "factor", ScalingFieldKind::Number, 0, kInf, true, kNone, false, "factor", 4, 1, 32, SET(factor, v), nullptr},
    {"max_position_embeddings", "maxPositionEmbeddings", ScalingFieldKind::Integer, 1, kIntMax, false, kNone, true, "",
     0, 0, 0, SET(max_position_embeddings, static_cast<int>(v)), nullptr},
    {"original_max_position_embeddings", "originalMaxPositionEmbeddings", ScalingFieldKind::Integer, 1, kIntMax, false,
     kNone, true, "", 0, 0, 0, SET(original_max_position_embeddings, static_cast<int>(v)), nullptr},
    {"attention_factor", "attentionFactor", ScalingFieldKind::Number, 0, kInf, true, kNone, false, "", 0, 0, 0,
     SET(attention_factor, v), nullptr},
    // 0 means the default (Python's `or`).
    {"beta_fast", "betaFast", ScalingFieldKind::Number, 0, kInf, false, 32, false, "betaFast", 32, 1, 64,
     SET(beta_fast, v), nullptr},
    {"beta_slow", "betaSlow", ScalingFieldKind::Number, 0, kInf, false, 1, false, "betaSlow", 1, 0.25, 8,
     SET(beta_slow, v), nullptr},
    {"mscale", "mscale", ScalingFieldKind::Number, 0, kInf, false, 0, false, "", 0, 0, 0, SET(mscale, v), nullptr},
    {"mscale_all_dim", "mscaleAllDim", ScalingFieldKind::Number, 0, kInf, false, 0, false, "", 0, 0, 0,
     SET(mscale_all_dim, v), nullptr},
    {"truncate", "truncate", ScalingFieldKind::Flag, 0, 1, false, 1, false, "", 0, 0, 0, SET(truncate, v != 0), nullptr},
    {"low_freq_factor", "lowFreqFactor", ScalingFieldKind::Number, 0, kInf, true, kNone, false, "lowFreq", 1, 0.25, 8,
     SET(low_freq_factor, v), nullptr},
    {"high_freq_factor", "highFreqFactor", ScalingFieldKind::Number, 0, kInf, true, kNone, false, "highFreq", 4, 0.5, 16,
     SET(high_freq_factor, v), nullptr},
    // llama.cpp's YaRN ext_factor (not an HF key).
    {"ext_factor", "extFactor", ScalingFieldKind::Number, 0, 1, false, 1, false, "", 0, 0, 0, SET(ext_factor, v), nullptr},
    {"partial_rotary_factor", "partialRotaryFactor", ScalingFieldKind::Number, 0, 1, false, 1, false, "", 0, 0, 0,
     SET(partial_rotary_factor, v), nullptr},
    {"long_factor", "longFactor", ScalingFieldKind::Factors, 0, kInf, true, kNone, false, "", 0, 0, 0, nullptr,
     nullptr, &RopeScaling::long_factor},
    {"short_factor", "shortFactor", ScalingFieldKind::Factors, 0, kInf, true, kNone, false, "", 0, 0, 0, nullptr,
     nullptr, &RopeScaling::short_factor},
};
#undef SET

}  // namespace

std::span<const RopeTypeInfo> rope_types() { return kTypes; }
std::span<const ScalingField> scaling_fields() { return kFields; }

const ScalingField* context_field(RopeType t) {
  const int i = static_cast<int>(t);
  if (i < 0 || i >= kTypeCount) return nullptr;
  const std::string reads = std::string(",") + kTypes[i].fields + ",";
  const ScalingField* last = nullptr;
  for (const ScalingField& f : kFields)  // the type's keys, in its own order
    if (f.from_context && reads.find(std::string(",") + f.key + ",") != std::string::npos &&
        (!last || reads.find(std::string(",") + f.key + ",") > reads.find(std::string(",") + last->key + ",")))
      last = &f;
  return last;
}

RopeType parse_rope_type(const std::string& name) {
  for (const RopeTypeInfo& t : kTypes)
    if (name == t.name) return t.id;
  range_error("rope_type", one_of(kTypes), "'" + name + "'");
}

const char* rope_type_name(RopeType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kTypeCount ? kTypes[i].name : "unknown";
}

RopeFrequencies rope_frequencies(int dim, double base, const RopeScaling& s, std::optional<int> seq_len) {
  // Bounded like the JS API's dims: dim alone sizes the result (found by fuzz_encodings).
  if (dim < 2 || dim > kMaxDim || dim % 2 != 0) range_error("dim", "an even integer in [2, 65536]", std::to_string(dim));
  if (!std::isfinite(base) || base <= 1) range_error("base", "a finite number > 1", format_number(base));
  if (seq_len) require_int_range("seq_len", *seq_len, 0, kMaxInt);
  const int t = static_cast<int>(s.type);
  if (t < 0 || t >= kTypeCount) range_error("rope_type", one_of(kTypes), std::to_string(t));
  const RopeFrequencies r = kTypes[t].compute(dim, base, s, seq_len);
  check_finite_result(r, s.type);
  return r;
}

void query_scale(QueryScaleKind kind, double a, double b, const double* positions, int n, double* out) {
  if (n < 0) range_error("positions.length", "an integer >= 0", std::to_string(n));
  if (kind != QueryScaleKind::None) {
    const char* an = kind == QueryScaleKind::Llama4Temperature ? "attn_scale" : "llama_4_scaling_beta";
    const char* bn = kind == QueryScaleKind::Llama4Temperature ? "floor_scale" : "original_max_position_embeddings";
    if (!std::isfinite(a)) range_error(an, "a finite number", format_number(a));
    require_positive(bn, b);
  }
  for (int i = 0; i < n; ++i) {
    const double p = positions[i];
    if (!std::isfinite(p) || p < 0) range_error("position", "a finite number >= 0", format_number(p));
    switch (kind) {
      case QueryScaleKind::Llama4Temperature:
        out[i] = 1 + a * std::log1p(std::floor((p + 1) / b));
        break;
      case QueryScaleKind::Llama4ScalingBeta:
        out[i] = 1 + a * std::log(1 + std::floor(p / b));
        break;
      default:
        out[i] = 1;
    }
    // A huge factor times the log overflows (found by fuzz_encodings).
    if (!std::isfinite(out[i]))
      range_error(kind == QueryScaleKind::Llama4Temperature ? "attn_scale" : "llama_4_scaling_beta",
                  "small enough that the query scale stays finite", format_number(a));
  }
}

double deepseek_softmax_scale(double factor, double mscale_all_dim) {
  require_positive("rope_scaling.factor", factor);
  if (!std::isfinite(mscale_all_dim) || mscale_all_dim < 0)
    range_error("rope_scaling.mscale_all_dim", "a finite number >= 0", format_number(mscale_all_dim));
  if (mscale_all_dim == 0) return 1.0;
  const double m = get_mscale(factor, mscale_all_dim);
  if (!std::isfinite(m * m))  // found by fuzz_encodings
    range_error("rope_scaling.mscale_all_dim", "small enough that the softmax scale stays finite", format_number(mscale_all_dim));
  return m * m;
}

}  // namespace posenc
