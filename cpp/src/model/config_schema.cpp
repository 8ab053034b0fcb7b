// The model-config schema (posenc/model.hpp): every ModelConfig field once, with its JS
// name, type, range and checkpoint version. Checkpoints, bindings and the JS validation
// read this table; the defaults are ModelConfig{}'s.
#include <cmath>
#include <string>

#include "../kind_table.hpp"
#include "posenc/encoding.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"

namespace posenc {
namespace {

std::vector<std::string> encoding_names() {
  std::vector<std::string> out;
  for (const EncodingInfo& e : encodings()) out.emplace_back(e.name);
  return out;
}

// Field accessors: F_INT(js, member, min, max, since, doc), ...
#define F_INT(js, m, lo, hi, since, doc)                                                               \
  ConfigField{js, doc, FieldType::Int, lo, hi, false, false, since, {},                                     \
              [](const ModelConfig& c) { return static_cast<double>(c.m); },                           \
              [](ModelConfig& c, double v) { c.m = static_cast<int>(v); }}
#define F_FLOAT(js, m, lo, hi, since, doc)                                                             \
  ConfigField{js, doc, FieldType::Float, lo, hi, true, false, since, {},                                    \
              [](const ModelConfig& c) { return static_cast<double>(c.m); },                           \
              [](ModelConfig& c, double v) { c.m = v; }}
#define F_CHOICE(js, m, type, choices, since, doc)                                                      \
  ConfigField{js, doc, FieldType::Choice, 0, 0, false, false, since, choices,                               \
              [](const ModelConfig& c) { return static_cast<double>(static_cast<uint32_t>(c.m)); },   \
              [](ModelConfig& c, double v) { c.m = static_cast<type>(static_cast<uint32_t>(v)); }}

std::vector<ConfigField> build() {
  constexpr double kInf = INFINITY;
  std::vector<ConfigField> f = {
      // Version 1, in its byte order (checkpoint.hpp).
      F_CHOICE("encoding", encoding, Encoding, encoding_names(), 1, ""),
      F_INT("layers", layers, 1, 64, 1, ""),
      F_INT("heads", heads, 1, 64, 1, "must divide dModel"),
      F_INT("dModel", d_model, 2, 4096, 1, "even for 'sinusoidal'; dModel/heads even for 'rope' without rotaryDim"),
      F_INT("mlpRatio", mlp_ratio, 1, 16, 1, "MLP hidden width = mlpRatio·dModel"),
      F_INT("vocabSize", vocab_size, 2, 65536, 1, "use the task's `vocabSize` ({@link Posenc.taskInfo})"),
      F_INT("maxLength", max_length, 1, 65536, 1, "training length and rows of the 'learned' table"),
      ConfigField{"seed", "initialisation seed: the same seed and config give bit-identical weights", FieldType::UInt64,
                  0, 9007199254740991.0, false, false, 1, {},
                  [](const ModelConfig& c) { return static_cast<double>(c.seed); },
                  [](ModelConfig& c, double v) { c.seed = static_cast<uint64_t>(v); }},
      F_CHOICE("ropeLayout", rope_layout, RopeLayout, (std::vector<std::string>{"interleaved", "half"}), 1, ""),
      F_FLOAT("ropeBase", rope_base, 1, kInf, 1, ""),
      F_INT("rotaryDim", rotary_dim, 0, 4096, 1, "0 (= head dim) or an even int up to dModel/heads"),
      F_INT("t5NumBuckets", t5_num_buckets, 2, 1024, 1, "unidirectional buckets"),
      F_INT("t5MaxDistance", t5_max_distance, 2, 1 << 20, 1, "at least t5NumBuckets/2 + 1"),
      F_INT("shawK", shaw_k, 0, 4096, 1, "clipping distance"),
      F_CHOICE("learnedPolicy", learned_policy, OutOfRange, (std::vector<std::string>{"error", "clamp", "zero"}), 1,
               "what positions >= maxLength do"),
      // Version 2.
      F_INT("xposScaleBase", xpos_scale_base, 1, 1 << 20, 2, "pair i is scaled by zeta_i^(n / xposScaleBase)"),
      F_FLOAT("xposGamma", xpos_gamma, 0, 1000, 2, "zeta_i = (2i/d + xposGamma) / (1 + xposGamma)"),
      F_FLOAT("ropeFraction", rope_fraction, 0, 1, 2, "fraction of the rotary pairs kept (the highest frequencies)"),
      F_INT("fireHidden", fire_hidden, 1, 256, 2, "hidden width of its MLP"),
      F_FLOAT("fireC", fire_c, 0, 1e6, 2, "c in psi(x) = log(c x + 1)"),
      F_INT("fireThreshold", fire_threshold, 0, 65536, 2, "the threshold L in psi(max(L, i)); 0 = maxLength"),
      F_INT("randomLength", random_length, 1, 65536, 2, "positions are sampled from [0, randomLength)"),
  };
  for (ConfigField& x : f) {
    if (x.type == FieldType::Choice) x.max = static_cast<double>(x.choices.size()) - 1;
    if (std::string(x.name) == "vocabSize") x.required = true;
  }
  return f;
}

}  // namespace

bool field_applies(const ConfigField& f, Encoding e) {
  if (f.type == FieldType::Choice) return true;  // always in range (they are cast to enums)
  const std::string name = std::string(",") + f.name + ",";
  bool specific = false;
  for (const EncodingInfo& info : encodings()) {
    if ((std::string(",") + info.fields + ",").find(name) == std::string::npos) continue;
    if (info.id == e) return true;
    specific = true;
  }
  return !specific;  // a field no encoding claims belongs to every model
}

double ConfigField::default_value() const { return get(ModelConfig{}); }

std::span<const ConfigField> config_fields() {
  static const std::vector<ConfigField> fields = build();
  return fields;
}

void validate_config_fields(const ModelConfig& c) {
  for (const ConfigField& f : config_fields()) {
    if (!field_applies(f, c.encoding)) continue;  // e.g. shawK of a RoPE model: unused, unchecked
    const double v = f.get(c);
    switch (f.type) {
      case FieldType::Int:
        require_int_range(f.name, static_cast<int>(v), static_cast<int>(f.min), static_cast<int>(f.max));
        break;
      case FieldType::UInt64:
        // The seed: the JS API holds it as a Number, exact up to 2^53 - 1, so the core takes no larger
        // one (a checkpoint written with one would load with a seed that does not round-trip). Any
        // uint64 past the bound converts to a double >= 2^53, so the comparison is exact enough.
        if (v > f.max) range_error(f.name, "an integer in [0, 2^53 - 1]", std::to_string(c.seed));
        break;
      case FieldType::Float:
        if (!std::isfinite(v) || v < f.min || (f.min_exclusive && v == f.min) || v > f.max)
          range_error(f.name,
                      std::string("a finite number ") + (f.min_exclusive ? "> " : ">= ") + format_number(f.min) +
                          (std::isfinite(f.max) ? " and <= " + format_number(f.max) : ""),
                      format_number(v));
        break;
      case FieldType::Choice:
        if (v < 0 || v > f.max) range_error(f.name, one_of(f.choices), std::to_string(static_cast<long long>(v)));
        break;
    }
  }
}

std::string encoding_choices() { return one_of(encoding_names()); }

}  // namespace posenc
