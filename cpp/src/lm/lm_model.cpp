// posenc::lm: the model's configuration checks and from_tensors (lm.hpp). Tensors arrive in
// GGUF's or HF's names and any supported dtype; each is checked (shape, byte count, finite); a matrix
// is kept in its format (make_weight: in place, with a Storage), a vector dequantised to float32.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#include <malloc.h>
#endif

#include "lm_internal.hpp"
#include "posenc/error.hpp"
#include "posenc/lm.hpp"

namespace posenc::lm {

const char* context_source_name(ContextSource s) {
  switch (s) {
    case ContextSource::TrainedHeader: return "trained (checkpoint header)";
    case ContextSource::FileMetadata: return "file metadata";
    case ContextSource::ConverterDefault: return "converter default";
  }
  return "unknown";
}


namespace {
#define INT(js, m) {js, [](const Config& c) { return static_cast<double>(c.m); }, [](Config& c, double v) { c.m = static_cast<int>(v); }}
#define REAL(js, m) {js, [](const Config& c) { return c.m; }, [](Config& c, double v) { c.m = v; }}
#define FLAG(js, m) {js, [](const Config& c) { return c.m ? 1.0 : 0.0; }, [](Config& c, double v) { c.m = v != 0; }}
#define ENUM(js, m, T)                                                            \
  {js, [](const Config& c) { return static_cast<double>(static_cast<int>(c.m)); }, \
   [](Config& c, double v) { c.m = static_cast<T>(static_cast<int>(v)); }}
const ConfigSlot kConfigSlots[] = {
    ENUM("arch", arch, Arch),
    {"source", [](const Config& c) { return static_cast<double>(format_index(c.source)); },
     [](Config& c, double v) { c.source = file_formats().at(static_cast<std::size_t>(v)).id; }},
    INT("dim", dim),
    INT("hiddenDim", hidden_dim),
    INT("layers", n_layers),
    INT("heads", n_heads),
    INT("kvHeads", n_kv_heads),
    INT("vocabSize", vocab_size),
    {"headDim", [](const Config& c) { return static_cast<double>(c.hd()); },
     [](Config& c, double v) { c.head_dim = static_cast<int>(v); }},
    {"rotaryDim", [](const Config& c) { return static_cast<double>(c.rd()); },
     [](Config& c, double v) { c.rotary_dim = static_cast<int>(v); }},
    REAL("ropeTheta", rope_theta),
    REAL("normEps", norm_eps),
    FLAG("tiedEmbeddings", tied_embeddings),
    FLAG("qkvBias", qkv_bias),
    INT("context", context),
    ENUM("contextSource", context_source, ContextSource),
    {"layout", [](const Config& c) { return static_cast<double>(static_cast<int>(rope_layout(c))); }, nullptr},
    REAL("attnScalar", attn_scalar),
};
#undef INT
#undef REAL
#undef FLAG
#undef ENUM
}  // namespace

std::span<const ConfigSlot> config_slots() { return kConfigSlots; }

RopeLayout rope_layout(const Config& c) {
  const FileFormat& f = file_formats()[format_index(c.source)];
  return f.llamacpp ? family(c.arch).gguf_layout : f.layout;
}

void validate(const Config& c) {
  family(c.arch);  // a known family
  format_index(c.source);  // a known file format
  require_int_range("dim", c.dim, 1, kMaxDim);
  require_int_range("hidden_dim", c.hidden_dim, 1, kMaxHidden);
  require_int_range("n_layers", c.n_layers, 1, kMaxLayers);
  require_int_range("n_heads", c.n_heads, 1, kMaxHeads);
  require_int_range("n_kv_heads", c.n_kv_heads, 1, c.n_heads);
  if (c.n_heads % c.n_kv_heads != 0)
    range_error("n_kv_heads", "a divisor of n_heads = " + std::to_string(c.n_heads), std::to_string(c.n_kv_heads));
  require_int_range("vocab_size", c.vocab_size, 1, kMaxVocab);
  if (c.head_dim == 0 && c.dim % c.n_heads != 0)
    range_error("n_heads", "a divisor of dim = " + std::to_string(c.dim) + " (or head_dim set)", std::to_string(c.n_heads));
  require_int_range("head_dim", c.hd(), 2, kMaxHeadDim);
  if (c.rd() < 2 || c.rd() > c.hd() || c.rd() % 2 != 0)
    range_error("rotary_dim", "an even integer in [2, head_dim = " + std::to_string(c.hd()) + "]", std::to_string(c.rd()));
  if (!std::isfinite(c.rope_theta) || c.rope_theta <= 1) range_error("rope_theta", "a finite number > 1", format_number(c.rope_theta));
  if (!std::isfinite(c.norm_eps) || c.norm_eps < 0 || c.norm_eps > 1)
    range_error("norm_eps", "a number in [0, 1]", format_number(c.norm_eps));
  require_int_range("context", c.context, 1, kMaxContext);
  if (static_cast<int64_t>(c.n_heads) * c.hd() > kMaxDim)
    range_error("n_heads * head_dim", "at most " + std::to_string(kMaxDim), std::to_string(int64_t{c.n_heads} * c.hd()));
  if (!c.layers.empty() && static_cast<int>(c.layers.size()) != c.n_layers)
    range_error("layers", "one rule per layer (" + std::to_string(c.n_layers) + ") or none", std::to_string(c.layers.size()));
  for (const Config::Layer& l : c.layers) {
    require_int_range("layers[i].window", l.window, 0, kMaxContext);
    if (!std::isfinite(l.theta) || (l.theta != 0 && l.theta <= 1))
      range_error("layers[i].theta", "0 (rope_theta) or a finite number > 1", format_number(l.theta));
  }
  if (!std::isfinite(c.attn_scalar) || c.attn_scalar < 0 || c.attn_scalar > 1e9)
    range_error("attn_scalar", "0 (the default) or a number in (0, 1e9]", format_number(c.attn_scalar));
}

namespace {

// HF names -> GGUF names ("model.layers.3.self_attn.q_proj.weight" -> "blk.3.attn_q.weight"). In a family
// with post-norms (Family::post_norms), HF's post_attention_layernorm is the attention output's norm.
std::string canonical(const std::string& name, const Family& fam) {
  static const std::map<std::string, std::string> top = {{"model.embed_tokens.weight", "token_embd.weight"},
                                                         {"lm_head.weight", "output.weight"},
                                                         {"model.norm.weight", "output_norm.weight"}};
  if (auto it = top.find(name); it != top.end()) return it->second;
  static const std::string prefix = "model.layers.";
  if (name.rfind(prefix, 0) != 0) return name;
  const std::size_t dot = name.find('.', prefix.size());
  if (dot == std::string::npos) return name;
  const std::string layer = name.substr(prefix.size(), dot - prefix.size()), rest = name.substr(dot + 1);
  static const std::map<std::string, std::string> parts = {
      {"input_layernorm.weight", "attn_norm.weight"},   {"post_attention_layernorm.weight", "ffn_norm.weight"},
      {"self_attn.q_proj.weight", "attn_q.weight"},     {"self_attn.q_proj.bias", "attn_q.bias"},
      {"self_attn.k_proj.weight", "attn_k.weight"},     {"self_attn.k_proj.bias", "attn_k.bias"},
      {"self_attn.v_proj.weight", "attn_v.weight"},     {"self_attn.v_proj.bias", "attn_v.bias"},
      {"self_attn.o_proj.weight", "attn_output.weight"}, {"mlp.gate_proj.weight", "ffn_gate.weight"},
      {"mlp.up_proj.weight", "ffn_up.weight"},          {"mlp.down_proj.weight", "ffn_down.weight"},
      {"self_attn.rotary_emb.inv_freq", "rotary_emb.inv_freq"},
      {"self_attn.q_norm.weight", "attn_q_norm.weight"}, {"self_attn.k_norm.weight", "attn_k_norm.weight"},
      {"post_feedforward_layernorm.weight", "post_ffw_norm.weight"},
      {"self_attn.qkv_proj.weight", "attn_qkv.weight"}, {"mlp.gate_up_proj.weight", "ffn_up.weight"}};  // llama.cpp's names (Phi-3: [gate | up] rows)
  if (fam.post_norms && rest == "post_attention_layernorm.weight") return "blk." + layer + ".post_attention_norm.weight";
  if (rest == "pre_feedforward_layernorm.weight") return "blk." + layer + ".ffn_norm.weight";  // Gemma
  if (auto it = parts.find(rest); it != parts.end()) return "blk." + layer + "." + it->second;
  return name;
}

// Tensors that carry nothing the forward reads (recomputed rotary tables).
bool ignorable(const std::string& canonical_name) {
  return canonical_name.size() > 19 &&
         canonical_name.compare(canonical_name.size() - 19, 19, "rotary_emb.inv_freq") == 0;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

class Tensors {
 public:
  Tensors(const std::vector<TensorBytes>& list, const Family& fam, bool in_place) : in_place_(in_place) {
    for (const TensorBytes& t : list) {
      const std::string name = canonical(t.name, fam);
      if (ignorable(name)) continue;
      if (!by_name_.emplace(name, &t).second) throw Error(ErrorKind::Range, "tensor " + t.name + " is given twice");
    }
  }
  bool has(const std::string& name) const { return by_name_.count(name) != 0; }
  // The vector `name` of shape `shape` as float32.
  std::vector<float> take(const std::string& name, std::vector<int64_t> shape) { return dequantise(find(name, shape)); }
  // The matrix `name` of shape `shape` [out, in] as the forward keeps it (make_weight).
  Weight take_weight(const std::string& name, std::vector<int64_t> shape) {
    return make_weight(find(name, shape), in_place_);
  }
  // A fused projection [sum(rows), cols] split by rows into its parts, each a matrix [rows_i, cols] as the
  // forward keeps it: a part's rows lie one after another in the file, in any format, so a part is a slice of the bytes.
  std::vector<Weight> take_split(const std::string& name, const std::vector<int64_t>& rows, int64_t cols) {
    int64_t total = 0;
    for (const int64_t r : rows) total += r;
    const TensorBytes& whole = find(name, {total, cols});
    checked_bytes(whole);
    const std::size_t row_bytes = whole.bytes / static_cast<std::size_t>(total);
    std::vector<Weight> parts;
    std::size_t at = 0;
    for (const int64_t r : rows) {
      TensorBytes part = whole;
      part.shape = {r, cols};
      part.data = whole.data + at;
      part.bytes = static_cast<std::size_t>(r) * row_bytes;
      parts.push_back(make_weight(part, in_place_));
      at += part.bytes;
    }
    return parts;
  }
  void refuse_leftovers() const {
    if (!by_name_.empty())
      throw Error(ErrorKind::Range, "tensor " + by_name_.begin()->second->name + " is not part of the model's architecture");
  }

 private:
  std::map<std::string, const TensorBytes*> by_name_;
  bool in_place_;
  // Removes the tensor from the list (so leftovers can be refused) and returns it, shape checked.
  const TensorBytes& find(const std::string& name, const std::vector<int64_t>& shape) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) throw Error(ErrorKind::Range, "tensor " + name + " is missing");
    const TensorBytes& t = *it->second;
    if (t.shape != shape)
      throw Error(ErrorKind::Range, "tensor " + t.name + " has shape " + shape_text(t.shape) + ", expected " + shape_text(shape));
    by_name_.erase(it);
    return t;
  }
};

// The wasm memory's maximum, and what is allocated now (the file's bytes among it). Natively no limit is checked.
struct Room {
  double max, used;
};
Room memory_room() {
#ifdef __EMSCRIPTEN__
  return {static_cast<double>(emscripten_get_heap_max()), static_cast<double>(static_cast<unsigned>(mallinfo().uordblks))};
#else
  return {1e300, 0};
#endif
}

std::string gigabytes(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GB", bytes / 1e9);
  return b;
}

// Matrices are kept in their file's format: read in place from the file's buffer when the model keeps it
// (in_place), else copied; vectors become float32; a float32 matrix is transposed from one copy of it. Refused by
// name when the new bytes do not fit, before anything is allocated.
void check_memory(const std::vector<TensorBytes>& list, bool in_place) {
  double params = 0, weights = 0, need = 0, largest_f32 = 0;
  for (const TensorBytes& t : list) {
    if (ignorable(t.name)) continue;
    double n = 1;
    for (const int64_t d : t.shape) n *= static_cast<double>(d);
    params += n;
    const bool matrix = t.shape.size() == 2;
    weights += matrix ? static_cast<double>(t.bytes) : 4 * n;
    need += !matrix ? 4 * n : in_place && fits_in_place(t) ? 0 : static_cast<double>(t.bytes);
    if (matrix && t.dtype == DType::F32) largest_f32 = std::max(largest_f32, static_cast<double>(t.bytes));
  }
  need += largest_f32;
  const Room room = memory_room();
  if (need <= room.max - room.used) return;
  char count[32];
  const int digits = std::snprintf(count, sizeof count, "%.0f", params);
  std::string grouped;  // 217715072 -> 217,715,072
  for (int i = 0; i < digits; ++i) {
    if (i && (digits - i) % 3 == 0) grouped += ',';
    grouped += count[i];
  }
  throw Error(ErrorKind::Range, "this model has " + grouped + " parameters in " + gigabytes(weights) +
                                    " of weights (each kept in its file's format): loading them needs " + gigabytes(need) +
                                    (in_place ? " more than the file" : "") + ", and this module has " + gigabytes(room.max - room.used) +
                                    " left of its " + gigabytes(room.max) + " (the file's bytes are held in it too)");
}

}  // namespace

// Every RMSNorm weight of a model.
std::vector<std::vector<float>*> norms(Model& m) {
  std::vector<std::vector<float>*> out = {&m.out_norm_};
  for (Model::Layer& L : m.layers_)
    for (std::vector<float>* w : {&L.attn_norm, &L.ffn_norm, &L.q_norm, &L.k_norm, &L.attn_post_norm, &L.ffn_post_norm}) out.push_back(w);
  return out;
}

Model from_tensors(const Config& config, const std::vector<TensorBytes>& list, Storage storage) {
  validate(config);
  const Config& c = config;
  const int64_t D = c.dim, F = c.hidden_dim, V = c.vocab_size, hd = c.hd(), Q = int64_t{c.n_heads} * hd,
                KV = int64_t{c.n_kv_heads} * hd;
  check_memory(list, storage != nullptr);
  const Family& fam = family(c.arch);
  Tensors t(list, fam, storage != nullptr);
  Model m;
  m.cfg_ = c;
  m.cfg_.qkv_bias = fam.qkv_bias;  // the family's, whatever the caller set
  if (m.cfg_.attn_scalar == 0) m.cfg_.attn_scalar = fam.attn_scalar;
  m.cfg_.tied_embeddings = !t.has("output.weight");
  if (c.tied_embeddings != m.cfg_.tied_embeddings)
    throw Error(ErrorKind::Range, c.tied_embeddings ? "the config says tied embeddings but tensor output.weight is present"
                                                    : "the config says untied embeddings but tensor output.weight is missing");
  if (!m.cfg_.tied_embeddings) m.embed_ = t.take_weight("token_embd.weight", {V, D});
  m.cls_ = t.take_weight(m.cfg_.tied_embeddings ? "token_embd.weight" : "output.weight", {V, D});
  m.out_norm_ = t.take("output_norm.weight", {D});
  m.layers_.resize(c.n_layers);
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    Model::Layer& L = m.layers_[l];
    if (fam.pre_norms) L.attn_norm = t.take(p + "attn_norm.weight", {D});
    if (fam.fused_qkv) {
      auto qkv = t.take_split(p + "attn_qkv.weight", {Q, KV, KV}, D);
      L.wq = std::move(qkv[0]), L.wk = std::move(qkv[1]), L.wv = std::move(qkv[2]);
    } else {
      L.wq = t.take_weight(p + "attn_q.weight", {Q, D});
      L.wk = t.take_weight(p + "attn_k.weight", {KV, D});
      L.wv = t.take_weight(p + "attn_v.weight", {KV, D});
    }
    if (fam.qkv_bias) {
      L.bq = t.take(p + "attn_q.bias", {Q});
      L.bk = t.take(p + "attn_k.bias", {KV});
      L.bv = t.take(p + "attn_v.bias", {KV});
    }
    if (fam.qk_norm == QkNorm::PerHead) {
      L.q_norm = t.take(p + "attn_q_norm.weight", {hd});
      L.k_norm = t.take(p + "attn_k_norm.weight", {hd});
    } else if (fam.qk_norm == QkNorm::Whole) {
      L.q_norm = t.take(p + "attn_q_norm.weight", {Q});
      L.k_norm = t.take(p + "attn_k_norm.weight", {KV});
    }
    L.wo = t.take_weight(p + "attn_output.weight", {D, Q});
    if (fam.post_norms) L.attn_post_norm = t.take(p + "post_attention_norm.weight", {D});
    if (fam.pre_norms) L.ffn_norm = t.take(p + "ffn_norm.weight", {D});
    if (fam.fused_gate_up) {
      auto gate_up = t.take_split(p + "ffn_up.weight", {F, F}, D);
      L.w_gate = std::move(gate_up[0]), L.w_up = std::move(gate_up[1]);
    } else {
      L.w_gate = t.take_weight(p + "ffn_gate.weight", {F, D});
      L.w_up = t.take_weight(p + "ffn_up.weight", {F, D});
    }
    L.w_down = t.take_weight(p + "ffn_down.weight", {D, F});
    if (fam.post_norms) L.ffn_post_norm = t.take(p + "post_ffw_norm.weight", {D});
  }
  t.refuse_leftovers();
  // Gemma's RMSNorm: x * (1 + w); llama.cpp's converter stored w + 1 already (GgufRules::norms_plus_one)
  if (fam.norm_plus_one && !(file_formats()[format_index(c.source)].llamacpp && fam.gguf_rules.norms_plus_one))
    for (std::vector<float>* w : norms(m))
      for (float& x : *w) x += 1.0f;
  const auto count = [&](const Weight& w) {
    m.params_ += static_cast<std::size_t>(w.rows) * w.cols;
    m.weight_bytes_ += w.bytes();
  };
  const auto count_vector = [&](const std::vector<float>& v) {
    m.params_ += v.size();
    m.weight_bytes_ += 4 * v.size();
  };
  count(m.embed_);
  count(m.cls_);
  count_vector(m.out_norm_);
  for (const Model::Layer& L : m.layers_) {
    for (const Weight* w : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down}) count(*w);
    for (const auto* v : {&L.attn_norm, &L.ffn_norm, &L.bq, &L.bk, &L.bv, &L.q_norm, &L.k_norm, &L.attn_post_norm, &L.ffn_post_norm})
      count_vector(*v);
  }
  m.storage_ = std::move(storage);
  std::map<DType, int> by_dtype;  // (every dtype a loader hands over, named by dtype_name)
  for (const TensorBytes& x : list) by_dtype[x.dtype] += !ignorable(canonical(x.name, fam));
  for (const auto& [d, n] : by_dtype)
    if (n) m.file_dtypes_.emplace_back(dtype_name(d), n);
  return m;
}

}  // namespace posenc::lm
