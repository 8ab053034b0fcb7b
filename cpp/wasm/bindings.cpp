// The embind layer: thin by design. Each function takes plain numbers and
// pointers into wasm memory (the JS library allocates and validates), calls
// the core, and turns a C++ exception into a status code plus a message that
// the JS library rethrows as TypeError / RangeError. No exception ever
// escapes into JS (that would surface as a bare number and leak).
#include <emscripten/bind.h>

#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "bindings_common.hpp"
#include "posenc/alibi.hpp"
#include "posenc/attention_pool.hpp"
#include "posenc/kernels.hpp"
#include "posenc/learned.hpp"
#include "posenc/rope.hpp"
#include "posenc/shaw.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"

namespace {

using namespace posenc::wasm;

int sinusoidal(ptr out, int length, int dim, double base, bool concat, bool t2t, int start) {
  return guard([&] {
    posenc::SinusoidalOptions o;
    o.length = length;
    o.dim = dim;
    o.base = base;
    o.layout = concat ? posenc::SinusoidLayout::Concat : posenc::SinusoidLayout::Interleaved;
    o.spacing = t2t ? posenc::SinusoidSpacing::Tensor2Tensor : posenc::SinusoidSpacing::Paper;
    o.start = start;
    posenc::sinusoidal(o, at<float>(out));
  });
}

int learned_lookup(ptr table, int rows, int dim, ptr positions, int count, int policy, ptr out) {
  return guard([&] {
    posenc::learned_lookup(at<const float>(table), rows, dim, at<const int32_t>(positions), count,
                           static_cast<posenc::OutOfRange>(policy), at<float>(out));
  });
}

int shaw_index(ptr out, int tq, int tk, int k) {
  return guard([&] { posenc::shaw_index(tq, tk, k, at<int32_t>(out)); });
}

int t5_buckets(ptr relative, int count, bool bidirectional, int num_buckets, int max_distance, ptr out) {
  return guard([&] {
    posenc::T5BucketOptions o{bidirectional, num_buckets, max_distance};
    posenc::t5_validate(o);
    posenc::t5_buckets(at<const int32_t>(relative), count, o, at<int32_t>(out));
  });
}

int alibi_slopes(int heads, ptr out) {
  return guard([&] { posenc::alibi_slopes(heads, at<float>(out)); });
}

int alibi_bias(ptr out, int heads, int tq, int tk, bool causal) {
  return guard([&] { posenc::alibi_bias({heads, tq, tk, causal}, at<float>(out)); });
}

using emscripten::val;

// The RoPE scaling table (posenc/rope_scaling.hpp) as plain objects: {types: [{name, gguf, label, fields (comma list),
// context (the key the model's context reaches it through, or ''), page}], fields: [{key, camel, kind, min, max, minExclusive, hfDefault, fromContext, page: {key, default, min, max}
// or null}]}. NaN (none) becomes null.
val rope_scaling_schema() {
  static const char* const kKinds[] = {"number", "integer", "flag", "factors"};
  const auto number = [](double x) { return std::isnan(x) ? val::null() : val(x); };
  val types = val::array(), fields = val::array();
  for (const posenc::RopeTypeInfo& t : posenc::rope_types()) {
    val o = val::object();
    o.set("name", std::string(t.name));
    o.set("gguf", std::string(t.gguf));
    o.set("label", std::string(t.label));
    o.set("fields", std::string(t.fields));
    const posenc::ScalingField* context = posenc::context_field(t.id);
    o.set("context", std::string(context ? context->key : ""));
    o.set("page", t.page);
    types.call<void>("push", o);
  }
  for (const posenc::ScalingField& f : posenc::scaling_fields()) {
    val o = val::object();
    o.set("key", std::string(f.key));
    o.set("camel", std::string(f.camel));
    o.set("kind", std::string(kKinds[static_cast<int>(f.kind)]));
    o.set("min", f.min);
    o.set("max", f.max);
    o.set("minExclusive", f.min_exclusive);
    o.set("hfDefault", number(f.hf_default));
    o.set("fromContext", f.from_context);
    val page = val::null();
    if (*f.page_key) {
      page = val::object();
      page.set("key", std::string(f.page_key));
      page.set("default", f.page_default);
      page.set("min", f.page_min);
      page.set("max", f.page_max);
    }
    o.set("page", page);
    fields.call<void>("push", o);
  }
  val out = val::object();
  out.set("types", types);
  out.set("fields", fields);
  return out;
}

// out: dim/2 inverse frequencies (float64) followed by the attention scale.
int rope_frequencies(int dim, double base, ptr slots, ptr long_factor, ptr short_factor, int factor_count,
                     int seq_len, ptr out) {
  return guard([&] {
    auto scaling = unpack_scaling(at<const double>(slots), long_factor, short_factor, factor_count);
    auto f = posenc::rope_frequencies(dim, base, scaling, seq_len > 0 ? std::optional<int>(seq_len) : std::nullopt);
    double* o = at<double>(out);
    for (size_t i = 0; i < f.inv_freq.size(); ++i) o[i] = f.inv_freq[i];
    o[f.inv_freq.size()] = f.attention_scale;
  });
}

// out: count query scales at the positions (float64), see posenc::query_scale.
int rope_query_scale(int kind, double a, double b, ptr positions, int count, ptr out) {
  return guard([&] {
    posenc::query_scale(static_cast<posenc::QueryScaleKind>(kind), a, b, at<const double>(positions), count,
                        at<double>(out));
  });
}

// out: one float64, DeepSeek's softmax-scale multiplier.
int deepseek_softmax_scale(double factor, double mscale_all_dim, ptr out) {
  return guard([&] { *at<double>(out) = posenc::deepseek_softmax_scale(factor, mscale_all_dim); });
}

int apply_rope(ptr x, ptr out, int length, int dim, int rotary_dim, bool half, ptr inv_freq, double attention_scale,
               ptr positions) {
  return guard([&] {
    posenc::RopeApplyOptions o;
    o.length = length;
    o.dim = dim;
    o.rotary_dim = rotary_dim;
    o.layout = half ? posenc::RopeLayout::Half : posenc::RopeLayout::Interleaved;
    o.inv_freq = at<const double>(inv_freq);
    o.attention_scale = attention_scale;
    o.positions = positions ? at<const int32_t>(positions) : nullptr;
    posenc::apply_rope(o, at<const float>(x), at<float>(out));
  });
}

int attention(ptr q, ptr k, ptr s, int tq, int tk, int d, double scale, bool causal, double slope, ptr bias) {
  return guard([&] {
    posenc::kernels::attention_scores_softmax(at<const float>(q), at<const float>(k), at<float>(s), tq, tk, d,
                                              static_cast<float>(scale), causal, static_cast<float>(slope),
                                              bias ? at<const float>(bias) : nullptr);
  });
}

// maps [count, T, T] -> pooled [count, px, px], peaks [count] (posenc/attention_pool.hpp)
int pool_attention(ptr maps, int count, int T, int px, ptr pooled, ptr peaks) {
  return guard([&] { posenc::pool_attention(at<const float>(maps), count, T, px, at<float>(pooled), at<float>(peaks)); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(posenc) {
  using emscripten::function;
  function("sinusoidal", &sinusoidal);
  function("learnedLookup", &learned_lookup);
  function("shawIndex", &shaw_index);
  function("t5Buckets", &t5_buckets);
  function("alibiSlopes", &alibi_slopes);
  function("alibiBias", &alibi_bias);
  function("ropeFrequencies", &rope_frequencies);
  function("ropeScalingSchema", &rope_scaling_schema);
  function("ropeQueryScale", &rope_query_scale);
  function("deepseekSoftmaxScale", &deepseek_softmax_scale);
  function("applyRope", &apply_rope);
  function("attention", &attention);
  function("poolAttention", &pool_attention);
}
