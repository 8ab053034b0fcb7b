// The encoding registry (posenc/encoding.hpp): one entry per encoding. Adding an encoding:
// its file (core function + model hooks, see encoding_model.hpp), one row here (appended: its
// place is its checkpoint id) and its reference test. Everything else (parsing, the checkpoint id,
// the JS list, the page's rows, the test and fuzz loops) reads this table.
#include <memory>
#include <string>

#include "../kind_table.hpp"
#include "../model/encoding_model.hpp"
#include "posenc/error.hpp"

namespace posenc {

// The hooks, each defined in its encoding's file.
EncodingModel* make_sinusoidal_model(const ModelConfig&);  // sinusoidal.cpp
EncodingModel* make_learned_model(const ModelConfig&);     // learned.cpp
EncodingModel* make_t5_model(const ModelConfig&);          // t5.cpp
EncodingModel* make_alibi_model(const ModelConfig&);       // alibi.cpp
EncodingModel* make_rope_model(const ModelConfig&);        // rope_model.cpp
EncodingModel* make_shaw_model(const ModelConfig&);        // shaw.cpp
EncodingModel* make_xpos_model(const ModelConfig&);        // xpos.cpp
EncodingModel* make_prope_model(const ModelConfig&);       // prope.cpp
EncodingModel* make_fire_model(const ModelConfig&);        // fire.cpp
EncodingModel* make_random_rope_model(const ModelConfig&);     // randomized.cpp
EncodingModel* make_random_learned_model(const ModelConfig&);  // randomized.cpp
EncodingModel* make_ssmax_model(const ModelConfig&);           // ssmax.cpp
EncodingModel* make_sinks_model(const ModelConfig&);           // sinks.cpp

namespace {
EncodingModel* make_none_model(const ModelConfig& c) { return new EncodingModel(c); }  // every hook a no-op

//  id (its place: the checkpoint id), name, label, blurb, fields (config fields only it reads), position_table, score_bias, qk_transform, streaming,
//  prefix_stable, make, sink (default false)
constexpr EncodingInfo kEncodings[] = {
    {Encoding{0}, "none", "NoPE",
     "No position signal at all. Each token sees only the tokens before it, and that alone lets it count them.", "", false,
     false, false, true, true, make_none_model},
    {Encoding{1}, "sinusoidal", "Sinusoidal",
     "Fixed sines and cosines added to the tokens. Defined at every position, but positions past training give "
     "vectors the model never saw.",
     "", true, false, false, true, true, make_sinusoidal_model},
    {Encoding{2}, "learned", "Learned",
     "One trained vector per position. Past the end of the table there is nothing to look up; here the last row is "
     "reused (red strip).",
     "learnedPolicy", true, false, false, true, true, make_learned_model},
    {Encoding{3}, "t5", "T5 buckets",
     "A learned bias per bucket of distance. Far distances share buckets, so long offsets all look alike.",
     "t5NumBuckets,t5MaxDistance", false, true, false, true, true, make_t5_model},
    {Encoding{4}, "alibi", "ALiBi",
     "A fixed penalty proportional to distance, steeper in some heads. Attention stays local at any length.", "",
     false, true, false, true, true, make_alibi_model},
    {Encoding{5}, "rope", "RoPE",
     "Rotates queries and keys, so scores depend on the offset only, but angles past training were never seen; "
     "interpolating the positions (PI, NTK, YaRN) brings them back into range.",
     "ropeLayout,ropeBase,rotaryDim", false, false, true, true, true, make_rope_model},
    {Encoding{6}, "shaw", "Shaw",
     "A learned vector per relative distance, clipped at k: beyond k every offset looks the same.", "shawK", false,
     true, false, true, true, make_shaw_model},
    {Encoding{7}, "xpos", "xPos",
     "RoPE whose every frequency pair also decays with distance (queries scaled up, keys down), so far keys "
     "weigh less.",
     "ropeLayout,ropeBase,rotaryDim,xposScaleBase,xposGamma", false, false, true, true, true, make_xpos_model},
    {Encoding{8}, "prope", "p-RoPE",
     "RoPE without its slowest-turning pairs: those channels carry content with no position at all.",
     "ropeLayout,ropeBase,rotaryDim,ropeFraction", false, false, true, true, true, make_prope_model},
    {Encoding{9}, "fire", "FIRE",
     "A small learned network of the log distance, divided by the log of the query's position: past training, "
     "distances are squeezed into the range it learned.",
     "fireHidden,fireC,fireThreshold", false, true, false, false, true, make_fire_model},
    {Encoding{10}, "rope_random", "RoPE, random positions",
     "RoPE at a sorted random sample of positions from a long range: training already turns through the angles "
     "long sequences need.",
     "ropeLayout,ropeBase,rotaryDim,randomLength", false, false, true, true, false, make_random_rope_model},
    {Encoding{11}, "learned_random", "Learned, random positions",
     "A learned table over a long range, read at sorted random positions, so every row gets trained, not only the "
     "first ones.",
     "randomLength", true, false, false, true, false, make_random_learned_model},
    {Encoding{12}, "ssmax", "RoPE + SSMax",
     "RoPE whose scores are multiplied by a learned number times the log of how many tokens the query sees, so "
     "attention does not spread thinner as the text grows.",
     "ropeLayout,ropeBase,rotaryDim", false, false, true, true, true, make_ssmax_model},
    {Encoding{13}, "sinks", "RoPE + sinks",
     "RoPE with one learned score per head that takes part in every softmax but carries nothing, so a token can "
     "attend to nothing instead of piling its attention on the first token.",
     "ropeLayout,ropeBase,rotaryDim", false, false, true, true, true, make_sinks_model, true},
};
static_assert(std::size(kEncodings) > 0);

static_assert(rows_in_enum_order(kEncodings), "kEncodings[i].id must be Encoding{i}: ids are checkpoint ids");
}  // namespace

std::span<const EncodingInfo> encodings() { return kEncodings; }

const EncodingInfo* find_encoding(Encoding e) {
  const auto i = static_cast<std::size_t>(e);
  return i < std::size(kEncodings) ? &kEncodings[i] : nullptr;
}

const char* encoding_name(Encoding e) {
  const EncodingInfo* info = find_encoding(e);
  return info ? info->name : "?";
}

Encoding parse_encoding(const std::string& name) {
  for (const EncodingInfo& e : kEncodings)
    if (name == e.name) return e.id;
  range_error("encoding", encoding_choices(), "'" + name + "'");
}

std::unique_ptr<EncodingModel> make_encoding_model(const ModelConfig& cfg) {
  const EncodingInfo* info = find_encoding(cfg.encoding);
  if (!info) range_error("encoding", encoding_choices(), std::to_string(static_cast<uint32_t>(cfg.encoding)));
  return std::unique_ptr<EncodingModel>(info->make(cfg));
}

void expand_distance_bias(const float* by_distance, int T, int q0, float* rows) {
  for (int p = q0; p < T; ++p) {
    float* row = rows + static_cast<std::ptrdiff_t>(p - q0) * T;
    const float* d = by_distance + (T - 1 - p);  // d[j] = by_distance[j - p + T - 1]
    for (int j = 0; j <= p; ++j) row[j] = d[j];
  }
}

}  // namespace posenc
