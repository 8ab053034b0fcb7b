// embind layer for the tiny transformer and the task generators. As thin as
// bindings.cpp: config slots and pointers in, status codes out; models and
// generators are handed to JS as opaque addresses owned by the JS wrapper.
#include <emscripten/bind.h>

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

// Config slots (int32), in this order; the JS library writes them.
enum ConfigSlot {
  kEncoding, kLayers, kHeads, kDModel, kMlpRatio, kVocab, kMaxLength, kRopeLayout, kRotaryDim, kT5Buckets,
  kT5MaxDistance, kShawK, kLearnedPolicy, kConfigSlots
};

posenc::ModelConfig unpack_config(const int32_t* s, double rope_base, double seed) {
  posenc::ModelConfig c;
  c.encoding = static_cast<posenc::Encoding>(s[kEncoding]);
  c.layers = s[kLayers];
  c.heads = s[kHeads];
  c.d_model = s[kDModel];
  c.mlp_ratio = s[kMlpRatio];
  c.vocab_size = s[kVocab];
  c.max_length = s[kMaxLength];
  c.rope_layout = static_cast<posenc::RopeLayout>(s[kRopeLayout]);
  c.rotary_dim = s[kRotaryDim];
  c.t5_num_buckets = s[kT5Buckets];
  c.t5_max_distance = s[kT5MaxDistance];
  c.shaw_k = s[kShawK];
  c.learned_policy = static_cast<posenc::OutOfRange>(s[kLearnedPolicy]);
  c.rope_base = rope_base;
  c.seed = static_cast<uint64_t>(seed);
  return c;
}

void pack_config(const posenc::ModelConfig& c, int32_t* s, double* f) {
  s[kEncoding] = static_cast<int32_t>(c.encoding);
  s[kLayers] = c.layers;
  s[kHeads] = c.heads;
  s[kDModel] = c.d_model;
  s[kMlpRatio] = c.mlp_ratio;
  s[kVocab] = c.vocab_size;
  s[kMaxLength] = c.max_length;
  s[kRopeLayout] = static_cast<int32_t>(c.rope_layout);
  s[kRotaryDim] = c.rotary_dim;
  s[kT5Buckets] = c.t5_num_buckets;
  s[kT5MaxDistance] = c.t5_max_distance;
  s[kShawK] = c.shaw_k;
  s[kLearnedPolicy] = static_cast<int32_t>(c.learned_policy);
  f[0] = c.rope_base;
  f[1] = static_cast<double>(c.seed);
}

posenc::Model& model(ptr h) { return *at<posenc::Model>(h); }

void write_result(const posenc::LossResult& r, ptr out) {
  double* o = at<double>(out);
  o[0] = r.loss;
  o[1] = r.accuracy;
  o[2] = r.scored;
  o[3] = r.correct;
  o[4] = r.grad_norm;
}

int model_create(ptr slots, double rope_base, double seed, ptr out_handle) {
  return guard([&] {
    auto* m = new posenc::Model(unpack_config(at<const int32_t>(slots), rope_base, seed));
    *at<uint32_t>(out_handle) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(m));
  });
}

void model_delete(ptr h) { delete at<posenc::Model>(h); }

int model_config(ptr h, ptr slots, ptr floats) {
  return guard([&] { pack_config(model(h).config(), at<int32_t>(slots), at<double>(floats)); });
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
                  ptr short_factor, int factor_count, bool want_attention, ptr out) {
  return guard([&] {
    posenc::ForwardOptions o;
    o.want_attention = want_attention;
    if (scaling_slots) o.rope_scaling = unpack_scaling(at<const double>(scaling_slots), long_factor, short_factor, factor_count);
    auto& m = model(h);
    posenc::LossResult r;
    const float* logits = nullptr;
    if (targets)
      r = m.evaluate(at<const int32_t>(tokens), at<const int32_t>(targets), B, T, o);
    else
      logits = m.forward(at<const int32_t>(tokens), B, T, o);
    write_result(r, out);
    // Addresses of the logits [B, T, V] (forward only) and attention maps [L, H, T, T] (0 if none),
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

// Saves into a malloc'd buffer; JS copies it out and frees it.
int model_save(ptr h, ptr out_address, ptr out_size) {
  return guard([&] {
    auto bytes = posenc::save_checkpoint(model(h));
    auto* buf = static_cast<uint8_t*>(std::malloc(bytes.size()));
    if (!buf) throw std::bad_alloc();
    std::memcpy(buf, bytes.data(), bytes.size());
    *at<uint32_t>(out_address) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(buf));
    *at<uint32_t>(out_size) = static_cast<uint32_t>(bytes.size());
  });
}

int model_load(ptr bytes, double size, ptr out_handle) {
  return guard([&] {
    auto* m = new posenc::Model(posenc::load_checkpoint(at<const uint8_t>(bytes), static_cast<std::size_t>(size)));
    *at<uint32_t>(out_handle) = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(m));
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

int task_info(int kind, int symbols, bool variable_length, double depth, bool packed, bool score_repeats, int order,
              int branching, double table_seed, ptr out) {
  return guard([&] {
    const auto o = task_options(kind, symbols, variable_length, depth, packed, score_repeats, order, branching, table_seed);
    at<int32_t>(out)[0] = posenc::task_vocab_size(o);
    at<int32_t>(out)[1] = posenc::task_min_length(o);
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
  function("taskCreate", &task_create);
  function("taskDelete", &task_delete);
  function("taskSample", &task_sample);
  function("taskInfo", &task_info);
  function("lrAt", &lr_at);
}
