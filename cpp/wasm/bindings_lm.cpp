// embind layer for posenc::lm (real language models). As thin as bindings.cpp: bytes and
// pointers in, status codes out (lastError() has the message); a loaded model is handed to JS as
// an opaque address owned by the JS wrapper (lmDelete frees it).
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings_common.hpp"
#include "posenc/lm.hpp"
#include "posenc/threads.hpp"

namespace {

using namespace posenc::wasm;
using emscripten::val;
namespace lm = posenc::lm;

struct Handle {
  lm::Model model;
  std::optional<lm::Tokenizer> tokenizer;
  std::string tokenizer_note;
  std::vector<int32_t> tokens;  // the last lmEncode's ids
  posenc::RopeScaling scaling;  // the file's own (lm::Loaded::scaling)
  int threads = 0;              // its forwards' ForwardOptions::threads (lmSetThreads; 0: threads::default_count())
  std::string tokenizer_json, tokenizer_config_json, tokenizer_label;  // a GGUF's byte-level BPE vocabulary (lm::Loaded), until taken
};
Handle& handle(ptr h) { return *at<Handle>(h); }

// A config travels as doubles in the order of the core's slot table (lm::config_slots(), lmConfigSlots() names them);
// lmLoad's also carries the layer rules after these.

// lm::ContextSource's names in the JS API, in its order (the config's and describe()'s contextSource).
const char* const kContextSourceNames[] = {"trained", "file", "converter default"};
static_assert(std::size(kContextSourceNames) == static_cast<std::size_t>(lm::ContextSource::ConverterDefault) + 1);

val lm_context_sources() {
  val out = val::array();
  for (const char* name : kContextSourceNames) out.call<void>("push", std::string(name));
  return out;
}

val lm_config_slots() {
  val out = val::array();
  for (const lm::ConfigSlot& slot : lm::config_slots()) out.call<void>("push", std::string(slot.name));
  return out;
}

lm::Config unpack(const double* v) {
  lm::Config c;
  for (const lm::ConfigSlot& slot : lm::config_slots())
    if (slot.set) slot.set(c, *v++);
    else ++v;
  return c;
}

// The family table (lm.hpp's families()): one object per row, in Arch order.
val lm_families() {
  val rows = val::array();
  for (const lm::Family& f : lm::families()) {
    val r = val::object();
    r.set("name", std::string(f.name));
    r.set("label", std::string(f.label));
    r.set("hfTypes", std::string(f.hf_types));
    r.set("source", std::string(f.source));
    r.set("gguf", f.gguf);
    r.set("qkvBias", f.qkv_bias);
    r.set("qkNorm", static_cast<int>(f.qk_norm));
    r.set("preNorms", f.pre_norms);
    r.set("postNorms", f.post_norms);
    r.set("embedScale", f.embed_scale);
    r.set("activation", static_cast<int>(f.act));
    rows.call<void>("push", r);
  }
  return rows;
}

int new_handle(Handle&& h, ptr out) {
  *at<ptr>(out) = reinterpret_cast<ptr>(new Handle(std::move(h)));
  return kOk;
}

// The tensors a format's JSON table lists (FileFormat::config_json): names (JS array of strings); per tensor i:
// dtypes[i] (lm::DType), ranks[i], dims (all shapes concatenated, as doubles), addresses[i], sizes[i] (bytes, as doubles).
std::vector<lm::TensorBytes> tensors_of(val names, ptr dtypes, ptr ranks, ptr dims, ptr addresses, ptr sizes) {
  std::vector<lm::TensorBytes> t(names["length"].as<unsigned>());
  const double* d = at<const double>(dims);
  for (std::size_t i = 0; i < t.size(); ++i) {
    t[i].name = names[i].as<std::string>();
    t[i].dtype = static_cast<lm::DType>(at<const int32_t>(dtypes)[i]);
    for (int r = 0; r < at<const int32_t>(ranks)[i]; ++r) t[i].shape.push_back(static_cast<int64_t>(*d++));
    t[i].data = at<const uint8_t>(at<const uint32_t>(addresses)[i]);
    t[i].bytes = static_cast<std::size_t>(at<const double>(sizes)[i]);
  }
  return t;
}

// A model file of any format (lm::load, its index in lm::file_formats()). bytes: a malloc'd copy of the file (for a
// format whose tensors are listed, of every tensor's bytes) that the core takes over: the model reads its weights
// there and frees it; on an error it is freed at once. tokenizer (0: none): a tokenizer file's bytes, which the core
// copies. config (0: none): a config as doubles in the slots' order, then four per layer (Config::layers): rope
// (0/1), window (0: none), theta (0: rope_theta), scaled (0/1). names ...: the listed tensors (tensors_of).
int lm_load(int format, ptr bytes, double size, ptr tokenizer, double tokenizer_size, ptr config, val names, ptr dtypes,
            ptr ranks, ptr dims, ptr addresses, ptr sizes, ptr out) {
  return guard([&] {
    lm::LoadInput in;
    in.storage = lm::Storage(at<uint8_t>(bytes), std::free);
    in.data = at<const uint8_t>(bytes);
    in.size = static_cast<std::size_t>(size);
    in.tokenizer = tokenizer ? at<const uint8_t>(tokenizer) : nullptr;
    in.tokenizer_size = static_cast<std::size_t>(tokenizer_size);
    std::optional<lm::Config> c;
    if (config) {
      c = unpack(at<const double>(config));
      const double* rules = at<const double>(config) + lm::config_slots().size();
      if (c->n_layers > 0 && c->n_layers <= 1024)  // (else validate names n_layers)
        for (const double* r = rules; r < rules + 4 * c->n_layers; r += 4)
          c->layers.push_back({r[0] != 0, static_cast<int>(std::clamp(r[1], -1.0, 1e9)), r[2], r[3] != 0});
      in.config = &*c;
    }
    in.tensors = tensors_of(names, dtypes, ranks, dims, addresses, sizes);
    lm::Loaded l = lm::load(static_cast<std::size_t>(format), std::move(in));
    new_handle({std::move(l.model), std::move(l.tokenizer), std::move(l.tokenizer_note), {}, std::move(l.scaling), 0,
                std::move(l.tokenizer_json), std::move(l.tokenizer_config_json), std::move(l.tokenizer_label)}, out);
  });
}

void lm_delete(ptr h) { delete at<Handle>(h); }

// The file's own RoPE scaling as an HF rope_scaling object (its set fields, HF's names), or null when it has none.
val lm_file_scaling(ptr h) {
  const posenc::RopeScaling& s = handle(h).scaling;
  if (s.type == posenc::parse_rope_type("default")) return val::null();
  val o = val::object();
  o.set("rope_type", std::string(posenc::rope_type_name(s.type)));
  for (const posenc::ScalingField& f : posenc::scaling_fields()) {  // its set keys, as the core's table names them
    if (f.list && !(s.*f.list).empty()) o.set(f.key, val::array(s.*f.list));
    if (!f.get) continue;
    if (const std::optional<double> v = f.get(s); v && f.kind == posenc::ScalingFieldKind::Flag) o.set(f.key, *v != 0);
    else if (v) o.set(f.key, *v);
  }
  return o;
}

int lm_config(ptr h, ptr values) {
  return guard([&] {
    const lm::Config& c = handle(h).model.config();
    double* v = at<double>(values);
    for (const lm::ConfigSlot& slot : lm::config_slots()) *v++ = slot.get(c);
  });
}

double lm_parameter_count(ptr h) { return static_cast<double>(handle(h).model.parameter_count()); }
double lm_weight_bytes(ptr h) { return static_cast<double>(handle(h).model.weight_bytes()); }
// The module's maximum memory and the bytes allocated now (for a refusal's numbers).
double lm_memory_max() { return static_cast<double>(emscripten_get_heap_max()); }
double lm_memory_used() { return static_cast<double>(static_cast<unsigned>(mallinfo().uordblks)); }

std::string lm_tokenizer_note(ptr h) { return handle(h).tokenizer ? "" : handle(h).tokenizer_note; }
// A GGUF's byte-level BPE vocabulary as [tokenizer.json, tokenizer_config.json, label] (lm::Loaded), handed over once
// (the handle keeps no copy); ['', '', ''] when it has none.
val lm_take_tokenizer_json(ptr h) {
  Handle& m = handle(h);
  val out = val::array();
  out.call<void>("push", std::exchange(m.tokenizer_json, {}));
  out.call<void>("push", std::exchange(m.tokenizer_config_json, {}));
  out.call<void>("push", std::exchange(m.tokenizer_label, {}));
  return out;
}

int lm_encode(ptr h, std::string text, bool add_bos) {
  return guard([&] {
    Handle& m = handle(h);
    if (!m.tokenizer) throw posenc::Error(posenc::ErrorKind::Range, "the model has no tokenizer: " + m.tokenizer_note);
    m.tokens = m.tokenizer->encode(text, add_bos);
  });
}
ptr lm_tokens(ptr h) { return reinterpret_cast<ptr>(handle(h).tokens.data()); }
int lm_token_count(ptr h) { return static_cast<int>(handle(h).tokens.size()); }
std::string lm_piece(ptr h, int id) {
  const Handle& m = handle(h);
  return m.tokenizer && id >= 0 && id < m.tokenizer->size() ? m.tokenizer->piece(id) : "";
}

// A method of lm::extend_methods() (its index) and its parameters' values in its row's order (NaN: left out).
lm::Extend extend_of(int method, ptr values, int count) {
  const double* v = at<const double>(values);
  return {static_cast<lm::ExtendMethod>(method), std::vector<double>(v, v + std::max(0, count))};
}

// The extension methods (lm::extend_methods()): [{name, label, source, params: [{key, integer, min, max, default (null:
// none), optional, about}], scalings: [rope_type names], refused}], and dynamic NTK's forms [{name, label}].
val lm_extend_methods() {
  val rows = val::array();
  for (const lm::ExtendMethodInfo& m : lm::extend_methods()) {
    val r = val::object(), params = val::array(), scalings = val::array();
    for (const lm::ExtendParam& p : m.params) {
      val o = val::object();
      o.set("key", std::string(p.key));
      o.set("integer", p.integer);
      o.set("min", p.min);
      o.set("max", p.max);
      o.set("default", std::isnan(p.fallback) ? val::null() : val(p.fallback));
      o.set("optional", p.optional);
      o.set("about", std::string(p.about));
      params.call<void>("push", o);
    }
    for (const posenc::RopeTypeInfo& t : posenc::rope_types())
      if (posenc::lm::composes_with(m, t.id)) scalings.call<void>("push", std::string(t.name));
    r.set("name", std::string(m.name));
    r.set("label", std::string(m.label));
    r.set("source", std::string(m.source));
    r.set("params", params);
    r.set("scalings", scalings);
    r.set("refused", std::string(m.refused));
    rows.call<void>("push", r);
  }
  return rows;
}
val lm_dynamic_forms() {
  val rows = val::array();
  for (const lm::DynamicFormInfo& f : lm::dynamic_forms()) {
    val r = val::object();
    r.set("name", std::string(f.name));
    r.set("label", std::string(f.label));
    rows.call<void>("push", r);
  }
  return rows;
}

// Outputs (JS-allocated): nll [T-1]; entropy, sink [S*L*H] (when stats; S = stats_count, or 1 for T when
// it is 0); maps [H*px*px], peaks [H] (when map_layer >= 0); kept_k, kept_v [L*Hkv*(past_rows+keep)*hd]
// (when keep > 0). past_k, past_v: [L*Hkv*past_rows*hd] (when past_rows > 0).
int lm_forward(ptr h, ptr tokens, int T, ptr scaling_slots, ptr long_factor, ptr short_factor, int factor_count,
               bool stats, ptr stats_lengths, int stats_count, int map_layer, int map_px, ptr nll, ptr entropy, ptr sink,
               ptr maps, ptr peaks, int past_rows, ptr past_k, ptr past_v, double past_size, int keep, ptr kept_k,
               ptr kept_v, int extend_method, ptr extend_values, int extend_count, int dynamic) {
  return guard([&] {
    lm::ForwardOptions o;
    o.extend = extend_of(extend_method, extend_values, extend_count);
    o.dynamic = static_cast<lm::DynamicForm>(dynamic);
    lm::KvCache past;
    if (past_rows > 0) {
      const std::size_t n = static_cast<std::size_t>(past_size);
      past.rows = past_rows;
      past.k.assign(at<const float>(past_k), at<const float>(past_k) + n);
      past.v.assign(at<const float>(past_v), at<const float>(past_v) + n);
      o.past = &past;
    }
    o.keep = keep;
    o.scaling = unpack_scaling(at<const double>(scaling_slots), long_factor, short_factor, factor_count);
    o.head_stats = stats;
    if (stats_count > 0) o.stats_lengths.assign(at<const int32_t>(stats_lengths), at<const int32_t>(stats_lengths) + stats_count);
    o.map_layer = map_layer;
    o.map_px = map_px;
    o.threads = handle(h).threads;
    const lm::ForwardResult r = lm::forward(handle(h).model, at<const int32_t>(tokens), T, o);
    std::copy(r.nll.begin(), r.nll.end(), at<float>(nll));
    if (stats) std::copy(r.entropy.begin(), r.entropy.end(), at<float>(entropy));
    if (stats) std::copy(r.sink.begin(), r.sink.end(), at<float>(sink));
    if (map_layer >= 0) std::copy(r.maps.begin(), r.maps.end(), at<float>(maps));
    if (map_layer >= 0) std::copy(r.peaks.begin(), r.peaks.end(), at<float>(peaks));
    if (keep > 0) std::copy(r.cache.k.begin(), r.cache.k.end(), at<float>(kept_k));
    if (keep > 0) std::copy(r.cache.v.begin(), r.cache.v.end(), at<float>(kept_v));
  });
}

// lm::tensor_views(): [{kind, layer, dtype (its name), rows, cols, address, bytes}]. address: where the bytes lie in
// this module's memory, valid until the model is deleted (a view of them detaches when the memory grows).
val lm_tensor_views(ptr h) {
  val out = val::array();
  for (const lm::TensorView& t : lm::tensor_views(handle(h).model)) {
    val o = val::object();
    o.set("kind", std::string(t.kind));
    o.set("layer", t.layer);
    o.set("dtype", std::string(lm::dtype_name(t.dtype)));
    o.set("rows", t.rows);
    o.set("cols", t.cols);
    o.set("address", static_cast<double>(reinterpret_cast<ptr>(t.data)));
    o.set("bytes", static_cast<double>(t.bytes));
    out.call<void>("push", o);
  }
  return out;
}

// Config::layers, four doubles per layer as lm_from_tensors takes them (rope, window, theta, scaled); an empty
// list writes nothing (every layer: rope, no window, rope_theta, scaled). Returns the number of layers written.
int lm_layer_rules(ptr h, ptr out) {
  const std::vector<lm::Config::Layer>& layers = handle(h).model.config().layers;
  double* v = at<double>(out);
  for (const lm::Config::Layer& l : layers) *v++ = l.rope, *v++ = l.window, *v++ = l.theta, *v++ = l.scaled;
  return static_cast<int>(layers.size());
}

// lm::forward_rope_frequencies over `rows` positions (of `layer`, or -1): out [rotary_dim / 2 + 1] = the inverse
// frequencies, then the attention scale. The scaling as lm_forward takes it.
int lm_rope_frequencies(ptr h, ptr scaling_slots, ptr long_factor, ptr short_factor, int factor_count, int rows, int layer, ptr out) {
  return guard([&] {
    const lm::Config& c = handle(h).model.config();
    const posenc::RopeFrequencies f = lm::forward_rope_frequencies(
        c, unpack_scaling(at<const double>(scaling_slots), long_factor, short_factor, factor_count), rows, layer);
    std::copy(f.inv_freq.begin(), f.inv_freq.end(), at<double>(out));
    at<double>(out)[f.inv_freq.size()] = f.attention_scale;
  });
}

// --- A forward in chunks (lm::Stream), handed to JS as an opaque address (lmStreamDelete frees it). kv: the cache's
// lm::KvType index, or -1 for the core's rule (lm::kv_type_for).
lm::StreamOptions stream_options(ptr h, int T, ptr scaling_slots, ptr long_factor, ptr short_factor, int factor_count, bool stats,
                                 ptr stats_lengths, int stats_count, int map_layer, int map_px, int kv, int chunk) {
  lm::StreamOptions o;
  o.scaling = unpack_scaling(at<const double>(scaling_slots), long_factor, short_factor, factor_count);
  o.head_stats = stats;
  if (stats_count > 0) o.stats_lengths.assign(at<const int32_t>(stats_lengths), at<const int32_t>(stats_lengths) + stats_count);
  o.map_layer = map_layer;
  o.map_px = map_px;
  o.kv = kv < 0 ? lm::kv_type_for(handle(h).model.config(), T) : static_cast<lm::KvType>(kv);
  o.chunk = chunk;
  return o;
}

int lm_stream_new(ptr h, ptr tokens, int T, ptr scaling_slots, ptr long_factor, ptr short_factor, int factor_count, bool stats,
                  ptr stats_lengths, int stats_count, int map_layer, int map_px, int kv, int chunk, ptr out, int extend_method,
                  ptr extend_values, int extend_count, int dynamic) {
  return guard([&] {
    lm::StreamOptions o = stream_options(h, T, scaling_slots, long_factor, short_factor, factor_count, stats, stats_lengths,
                                         stats_count, map_layer, map_px, kv, chunk);
    o.extend = extend_of(extend_method, extend_values, extend_count);
    o.dynamic = static_cast<lm::DynamicForm>(dynamic);
    *at<ptr>(out) = reinterpret_cast<ptr>(new lm::Stream(handle(h).model, at<const int32_t>(tokens), T, o));
  });
}
// out: [weights, cache, work] bytes, then the cache's lm::KvType index; kv as lm_stream_new's
int lm_stream_memory(ptr h, int T, bool stats, int map_layer, int map_px, int kv, int chunk, ptr out) {
  return guard([&] {
    posenc::require_int_range("T", T, 2, lm::kMaxLength);
    lm::StreamOptions o;
    o.head_stats = stats;
    o.map_layer = map_layer;
    o.map_px = map_px;
    o.kv = kv < 0 ? lm::kv_type_for(handle(h).model.config(), T) : static_cast<lm::KvType>(kv);
    o.chunk = chunk;
    const lm::StreamMemory m = lm::stream_memory(handle(h).model, T, o);
    double* v = at<double>(out);
    v[0] = static_cast<double>(m.weights), v[1] = static_cast<double>(m.cache), v[2] = static_cast<double>(m.work);
    v[3] = static_cast<int>(o.kv);
  });
}
// nll: [n] floats (JS-allocated); count: how many the step wrote (int32)
int lm_stream_step(ptr s, int n, ptr nll, ptr count) {
  return guard([&] {
    const std::vector<float> r = at<lm::Stream>(s)->step(n);
    std::copy(r.begin(), r.end(), at<float>(nll));
    *at<int32_t>(count) = static_cast<int32_t>(r.size());
  });
}
int lm_stream_done(ptr s) { return at<lm::Stream>(s)->done(); }
// entropy, sink [S*L*H], maps [H*px*px], peaks [H]: as lm_forward's (each written when the stream computes it)
int lm_stream_result(ptr s, ptr entropy, ptr sink, ptr maps, ptr peaks) {
  return guard([&] {
    const lm::ForwardResult r = at<lm::Stream>(s)->result();
    std::copy(r.entropy.begin(), r.entropy.end(), at<float>(entropy));
    std::copy(r.sink.begin(), r.sink.end(), at<float>(sink));
    std::copy(r.maps.begin(), r.maps.end(), at<float>(maps));
    std::copy(r.peaks.begin(), r.peaks.end(), at<float>(peaks));
  });
}
void lm_stream_delete(ptr s) { delete at<lm::Stream>(s); }
// The byte-level BPE pre-tokenizers (lm::bpe_pre_tokenizers): [{names, label, splits, ignoreMerges, addBos}]
val lm_bpe_pre_tokenizers() {
  val out = val::array();
  for (const lm::BpePreTokenizer& p : lm::bpe_pre_tokenizers()) {
    val o = val::object(), splits = val::array();
    for (const char* r : p.splits) splits.call<void>("push", std::string(r));
    o.set("names", std::string(p.names));
    o.set("label", std::string(p.label));
    o.set("splits", splits);
    o.set("ignoreMerges", p.ignore_merges);
    o.set("addBos", p.add_bos);
    out.call<void>("push", o);
  }
  return out;
}

// The cache types' names (lm::KvType's order)
val lm_kv_types() {
  val out = val::array();
  for (lm::KvType t : lm::kKvTypes) out.call<void>("push", std::string(lm::kv_type_name(t)));
  return out;
}

// The weight dtypes' names in lm::DType's order: the index lmLoad takes for a tensor's dtype.
val lm_dtypes() {
  val out = val::array();
  for (const char* name : lm::dtype_names()) out.call<void>("push", std::string(name));
  return out;
}

// The file formats (lm::file_formats()), as plain objects.
val lm_formats() {
  val out = val::array();
  for (const lm::FileFormat& f : lm::file_formats()) {
    val o = val::object();
    o.set("id", std::string(f.id));
    o.set("label", std::string(f.label));
    o.set("shortName", std::string(f.short_name));
    o.set("extension", std::string(f.extension));
    o.set("signature", std::string(f.signature));
    o.set("inputs", std::string(f.inputs));
    o.set("configJson", f.config_json);
    o.set("tokenizerJson", f.tokenizer_json);
    out.call<void>("push", o);
  }
  return out;
}

// head: the file's first bytes (n of them); size: the file's; out: the format's index (lm::file_formats()).
int lm_detect_format(ptr head, int n, double size, ptr out) {
  return guard([&] {
    *at<int32_t>(out) = static_cast<int32_t>(lm::detect_format(at<const uint8_t>(head), static_cast<std::size_t>(n), static_cast<uint64_t>(size)));
  });
}

// lm::describe(), as a plain object.
val lm_describe(ptr h) {
  const lm::ModelInfo i = lm::describe(handle(h).model);
  val o = val::object();
  o.set("family", i.family);
  o.set("familyLabel", i.family_label);
  o.set("format", std::string(i.format->id));
  o.set("formatLabel", std::string(i.format->label));
  val dtypes = val::array();
  for (const auto& [name, count] : i.dtypes) {
    val d = val::object();
    d.set("dtype", name);
    d.set("tensors", count);
    dtypes.call<void>("push", d);
  }
  o.set("dtypes", dtypes);
  o.set("parameters", static_cast<double>(i.parameters));
  o.set("weightBytes", static_cast<double>(i.weight_bytes));
  o.set("context", i.context);
  o.set("contextSource", static_cast<int>(i.context_source));
  o.set("suggestedContext", i.suggestion.context);
  o.set("suggestionReason", i.suggestion.reason);
  return o;
}

void lm_set_threads(ptr h, int n) { handle(h).threads = n; }
// What threads this build has: {default: threads::default_count(), available: threads::available()}.
val lm_threads() {
  val o = val::object();
  o.set("default", posenc::threads::default_count());
  o.set("available", posenc::threads::available());
  return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(posenc_lm) {
  using emscripten::function;
  function("lmLoad", &lm_load);
  function("lmFamilies", &lm_families);
  function("lmDelete", &lm_delete);
  function("lmFileScaling", &lm_file_scaling);
  function("lmConfig", &lm_config);
  function("lmConfigSlots", &lm_config_slots);
  function("lmContextSources", &lm_context_sources);
  function("lmParameterCount", &lm_parameter_count);
  function("lmWeightBytes", &lm_weight_bytes);
  function("lmMemoryMax", &lm_memory_max);
  function("lmMemoryUsed", &lm_memory_used);
  function("lmTokenizerNote", &lm_tokenizer_note);
  function("lmTakeTokenizerJson", &lm_take_tokenizer_json);
  function("lmBpePreTokenizers", &lm_bpe_pre_tokenizers);
  function("lmEncode", &lm_encode);
  function("lmTokens", &lm_tokens);
  function("lmTokenCount", &lm_token_count);
  function("lmPiece", &lm_piece);
  function("lmForward", &lm_forward);
  function("lmExtendMethods", &lm_extend_methods);
  function("lmDynamicForms", &lm_dynamic_forms);
  function("lmDtypes", &lm_dtypes);
  function("lmTensorViews", &lm_tensor_views);
  function("lmLayerRules", &lm_layer_rules);
  function("lmRopeFrequencies", &lm_rope_frequencies);
  function("lmStreamNew", &lm_stream_new);
  function("lmStreamMemory", &lm_stream_memory);
  function("lmStreamStep", &lm_stream_step);
  function("lmStreamDone", &lm_stream_done);
  function("lmStreamResult", &lm_stream_result);
  function("lmStreamDelete", &lm_stream_delete);
  function("lmKvTypes", &lm_kv_types);
  function("lmFormats", &lm_formats);
  function("lmDetectFormat", &lm_detect_format);
  function("lmDescribe", &lm_describe);
  function("lmSetThreads", &lm_set_threads);
  function("lmThreads", &lm_threads);
  emscripten::constant("lmFormatHeadBytes", static_cast<int>(lm::kFormatHeadBytes));
}
