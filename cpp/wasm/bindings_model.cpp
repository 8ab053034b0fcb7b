// embind layer for the tiny transformer and the task generators. As thin as
// bindings.cpp: config values (in schema order) and pointers in, status codes out; models and
// generators are handed to JS as opaque addresses owned by the JS wrapper.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "bindings_common.hpp"
#include "posenc/checkpoint.hpp"
#include "posenc/model.hpp"
#include "posenc/tasks.hpp"

namespace {

using namespace posenc::wasm;

// A config travels as one double per field of posenc::config_fields(), in that order
// (choices as their index); the JS library reads the schema from configSchema().
posenc::ModelConfig unpack_config(const double* v) {
  posenc::ModelConfig c;
  const auto fields = posenc::config_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) fields[i].set(c, v[i]);
  return c;
}

void pack_config(const posenc::ModelConfig& c, double* v) {
  const auto fields = posenc::config_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) v[i] = fields[i].get(c);
}

using emscripten::val;

// The registry, as plain objects (posenc/encoding.hpp).
val encoding_list() {
  val out = val::array();
  for (const posenc::EncodingInfo& e : posenc::encodings()) {
    val o = val::object();
    o.set("name", std::string(e.name));
    o.set("id", static_cast<uint32_t>(e.id));
    o.set("label", std::string(e.label));
    o.set("blurb", std::string(e.blurb));
    o.set("fields", std::string(e.fields));
    o.set("positionTable", e.position_table);
    o.set("scoreBias", e.score_bias);
    o.set("qkTransform", e.qk_transform);
    o.set("streaming", e.streaming);
    o.set("prefixStable", e.prefix_stable);
    o.set("sink", e.sink);
    out.call<void>("push", o);
  }
  return out;
}

// The config schema, as plain objects (posenc::config_fields()).
val config_schema() {
  static const char* const kTypes[] = {"int", "uint64", "float", "choice"};
  val out = val::array();
  for (const posenc::ConfigField& f : posenc::config_fields()) {
    val o = val::object();
    o.set("name", std::string(f.name));
    o.set("doc", std::string(f.doc));
    o.set("type", std::string(kTypes[static_cast<int>(f.type)]));
    o.set("min", f.min);
    o.set("max", f.max);
    o.set("minExclusive", f.min_exclusive);
    o.set("required", f.required);
    o.set("since", f.since);
    o.set("default", f.default_value());
    val choices = val::array();
    for (const std::string& c : f.choices) choices.call<void>("push", c);
    o.set("choices", choices);
    val applies = val::array();  // the encodings this field is checked for
    for (const posenc::EncodingInfo& e : posenc::encodings())
      if (posenc::field_applies(f, e.id)) applies.call<void>("push", std::string(e.name));
    o.set("encodings", applies);
    out.call<void>("push", o);
  }
  return out;
}

// The AdamW settings schema (posenc::optimizer_fields()).
val optimizer_schema() {
  val out = val::array();
  for (const posenc::OptimizerField& f : posenc::optimizer_fields()) {
    val o = val::object();
    o.set("name", std::string(f.name));
    o.set("min", f.min);
    o.set("max", f.max);
    o.set("minExclusive", f.min_exclusive);
    o.set("maxExclusive", f.max_exclusive);
    o.set("default", f.default_value());
    out.call<void>("push", o);
  }
  return out;
}

posenc::Model& model(ptr h) { return *at<posenc::Model>(h); }

// The model's AdamW settings, one double per optimizer field, in schema order.
int model_optimizer(ptr h, ptr values) {
  return guard([&] {
    const auto fields = posenc::optimizer_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) at<double>(values)[i] = model(h).optimizer_options().*fields[i].member;
  });
}
int model_set_optimizer(ptr h, ptr values) {
  return guard([&] {
    posenc::AdamWOptions o;
    const auto fields = posenc::optimizer_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) o.*fields[i].member = static_cast<float>(at<const double>(values)[i]);
    posenc::validate_adamw(o);
    model(h).optimizer_options() = o;
  });
}

void write_result(const posenc::LossResult& r, ptr out) {
  double* o = at<double>(out);
  o[0] = r.loss;
  o[1] = r.accuracy;
  o[2] = r.scored;
  o[3] = r.correct;
  o[4] = r.grad_norm;
}

int model_create(ptr values, ptr out_handle) {
  return guard([&] {
    auto* m = new posenc::Model(unpack_config(at<const double>(values)));
    *at<uint32_t>(out_handle) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(m));
  });
}

void model_delete(ptr h) { delete at<posenc::Model>(h); }

int model_config(ptr h, ptr values) {
  return guard([&] { pack_config(model(h).config(), at<double>(values)); });
}

double model_num_parameters(ptr h) { return static_cast<double>(model(h).num_parameters()); }
double model_step(ptr h) { return static_cast<double>(model(h).step()); }
int model_trained_length(ptr h) { return model(h).trained_length(); }

int model_train_step(ptr h, ptr tokens, ptr targets, int B, int T, double lr, ptr out) {
  return guard([&] {
    write_result(model(h).train_step(at<const int32_t>(tokens), at<const int32_t>(targets), B, T,
                                     static_cast<float>(lr)),
                 out);
  });
}

// targets == 0: forward only. scaling_slots == 0: no RoPE scaling override.
// out: loss result (5 doubles), then the logits and attention addresses.
int model_forward(ptr h, ptr tokens, ptr targets, int B, int T, ptr scaling_slots, ptr long_factor,
                  ptr short_factor, int factor_count, bool want_attention, int attention_layer, ptr out) {
  return guard([&] {
    posenc::ForwardOptions o;
    o.want_attention = want_attention;
    o.attention_layer = attention_layer;
    if (scaling_slots) o.rope_scaling = unpack_scaling(at<const double>(scaling_slots), long_factor, short_factor, factor_count);
    auto& m = model(h);
    posenc::LossResult r;
    const float* logits = nullptr;
    if (targets)
      r = m.evaluate(at<const int32_t>(tokens), at<const int32_t>(targets), B, T, o);
    else
      logits = m.forward(at<const int32_t>(tokens), B, T, o);
    write_result(r, out);
    // Addresses of the logits [B, T, V] (forward only) and attention maps [L, H, T, T] ([1, H, T, T]
    // with an attention_layer; 0 if none),
    // valid until the next call on this model.
    const auto& maps = m.attention_maps();
    at<double>(out)[5] = static_cast<double>(reinterpret_cast<uintptr_t>(logits));
    at<double>(out)[6] = want_attention && !maps.empty() ? static_cast<double>(reinterpret_cast<uintptr_t>(maps.data())) : 0;
  });
}

int model_position_status(ptr h, int T, ptr out) {
  return guard([&] {
    auto s = model(h).position_status(T);
    std::memcpy(at<uint8_t>(out), s.data(), s.size());
  });
}

// Saves into a malloc'd buffer; JS copies it out and frees it. weights: posenc::WeightFormat, or < 0
// for the format's default (float16).
int model_save(ptr h, int weights, ptr out_address, ptr out_size) {
  return guard([&] {
    posenc::SaveOptions o;
    if (weights >= 0) o.weights = static_cast<posenc::WeightFormat>(weights);
    auto bytes = posenc::save_checkpoint(model(h), o);
    auto* buf = static_cast<uint8_t*>(std::malloc(bytes.size()));
    if (!buf) throw std::bad_alloc();
    std::memcpy(buf, bytes.data(), bytes.size());
    *at<uint32_t>(out_address) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(buf));
    *at<uint32_t>(out_size) = static_cast<uint32_t>(bytes.size());
  });
}

// learned_policy < 0: as saved; else the OutOfRange value to run with.
int model_load(ptr bytes, double size, int learned_policy, ptr out_handle) {
  return guard([&] {
    posenc::LoadOptions o;
    if (learned_policy >= 0) o.learned_policy = static_cast<posenc::OutOfRange>(learned_policy);
    auto* m = new posenc::Model(posenc::load_checkpoint(at<const uint8_t>(bytes), static_cast<std::size_t>(size), o));
    *at<uint32_t>(out_handle) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(m));
  });
}

// The header of checkpoint bytes: config values (schema order), then trained length,
// version, parameter count and weight format into meta (4 doubles).
int checkpoint_info(ptr bytes, double size, ptr values, ptr meta) {
  return guard([&] {
    const posenc::CheckpointInfo i = posenc::read_checkpoint_info(at<const uint8_t>(bytes), static_cast<std::size_t>(size));
    pack_config(i.config, at<double>(values));
    at<double>(meta)[0] = i.trained_length;
    at<double>(meta)[1] = i.version;
    at<double>(meta)[2] = static_cast<double>(i.parameters);
    at<double>(meta)[3] = static_cast<double>(static_cast<uint32_t>(i.weights));
  });
}

// depth: NaN = unset (random needle position per sequence).
posenc::TaskOptions task_options(int kind, int symbols, bool variable_length, double depth, bool packed,
                                 bool score_repeats, int order, int branching, double table_seed) {
  posenc::TaskOptions o;
  o.kind = static_cast<posenc::TaskKind>(kind);
  o.symbols = symbols;
  o.variable_length = variable_length;
  if (!std::isnan(depth)) o.depth = depth;
  o.packed = packed;
  o.score_repeats = score_repeats;
  o.order = order;
  o.branching = branching;
  o.table_seed = static_cast<uint64_t>(table_seed);
  o.validate();
  return o;
}

int task_create(int kind, int symbols, bool variable_length, double depth, bool packed, bool score_repeats, int order,
                int branching, double table_seed, double seed, ptr out_handle) {
  return guard([&] {
    auto* g = new posenc::TaskGenerator(
        task_options(kind, symbols, variable_length, depth, packed, score_repeats, order, branching, table_seed),
        static_cast<uint64_t>(seed));
    *at<uint32_t>(out_handle) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(g));
  });
}

void task_delete(ptr h) { delete at<posenc::TaskGenerator>(h); }

int task_sample(ptr h, int B, int T, ptr tokens, ptr targets) {
  return guard([&] { at<posenc::TaskGenerator>(h)->sample(B, T, at<int32_t>(tokens), at<int32_t>(targets)); });
}

// out: loss, accuracy, scored (float64) of the ideal predictor on tokens/targets [B, T].
int task_oracle(ptr h, ptr tokens, ptr targets, int B, int T, ptr out) {
  return guard([&] {
    const posenc::TaskOracle o =
        at<posenc::TaskGenerator>(h)->oracle(at<const int32_t>(tokens), at<const int32_t>(targets), B, T);
    double* r = at<double>(out);
    r[0] = o.loss;
    r[1] = o.accuracy;
    r[2] = o.scored;
  });
}

// out: vocab size, min length, first symbol id (int32).
int task_info(int kind, int symbols, bool variable_length, double depth, bool packed, bool score_repeats, int order,
              int branching, double table_seed, ptr out) {
  return guard([&] {
    const auto o = task_options(kind, symbols, variable_length, depth, packed, score_repeats, order, branching, table_seed);
    at<int32_t>(out)[0] = posenc::task_vocab_size(o);
    at<int32_t>(out)[1] = posenc::task_min_length(o);
    at<int32_t>(out)[2] = posenc::kFirstSymbol;
  });
}

double lr_at(double step, double total, double warmup, double max_lr, double min_lr) {
  return posenc::lr_at(static_cast<long long>(step), static_cast<long long>(total), static_cast<long long>(warmup),
                       static_cast<float>(max_lr), static_cast<float>(min_lr));
}

}  // namespace

EMSCRIPTEN_BINDINGS(posenc_model) {
  using emscripten::function;
  function("modelCreate", &model_create);
  function("modelDelete", &model_delete);
  function("modelConfig", &model_config);
  function("modelNumParameters", &model_num_parameters);
  function("modelStep", &model_step);
  function("modelTrainedLength", &model_trained_length);
  function("modelTrainStep", &model_train_step);
  function("modelForward", &model_forward);
  function("modelPositionStatus", &model_position_status);
  function("modelSave", &model_save);
  function("modelLoad", &model_load);
  function("checkpointInfo", &checkpoint_info);
  function("encodingList", &encoding_list);
  function("configSchema", &config_schema);
  function("optimizerSchema", &optimizer_schema);
  function("modelOptimizer", &model_optimizer);
  function("modelSetOptimizer", &model_set_optimizer);
  function("taskCreate", &task_create);
  function("taskDelete", &task_delete);
  function("taskSample", &task_sample);
  function("taskInfo", &task_info);
  function("taskOracle", &task_oracle);
  function("lrAt", &lr_at);
}
