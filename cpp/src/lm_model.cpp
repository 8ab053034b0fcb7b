// posenc::lm: the model's configuration checks and from_tensors (lm.hpp). Tensors arrive in
// GGUF's or HF's names and any supported dtype; each is checked (shape, byte count, finite) and
// dequantised to float32, transposed to [in, out] for the matmul kernel.
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

const char* arch_name(Arch a) { return a == Arch::Qwen2 ? "qwen2" : "llama"; }

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::Q8_0: return "Q8_0";
  }
  return "unknown";
}

RopeLayout rope_layout(const Config& c) {
  if (c.source == Source::HfSafetensors) return RopeLayout::Half;
  if (c.source == Source::Gguf && c.arch == Arch::Qwen2) return RopeLayout::Half;
  return RopeLayout::Interleaved;
}

void validate(const Config& c) {
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
}

namespace {

// HF names -> GGUF names ("model.layers.3.self_attn.q_proj.weight" -> "blk.3.attn_q.weight").
std::string canonical(const std::string& name) {
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
      {"self_attn.rotary_emb.inv_freq", "rotary_emb.inv_freq"}};
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
  explicit Tensors(const std::vector<TensorBytes>& list) {
    for (const TensorBytes& t : list) {
      const std::string name = canonical(t.name);
      if (ignorable(name)) continue;
      if (!by_name_.emplace(name, &t).second) throw Error(ErrorKind::Range, "tensor " + t.name + " is given twice");
    }
  }
  bool has(const std::string& name) const { return by_name_.count(name) != 0; }
  // The tensor `name` of shape `shape` as float32, row-major (transpose: a 2-D [O, I] becomes [I, O]).
  std::vector<float> take(const std::string& name, std::vector<int64_t> shape, bool transpose) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) throw Error(ErrorKind::Range, "tensor " + name + " is missing");
    const TensorBytes& t = *it->second;
    if (t.shape != shape)
      throw Error(ErrorKind::Range, "tensor " + t.name + " has shape " + shape_text(t.shape) + ", expected " + shape_text(shape));
    std::vector<float> w = dequantise(t);
    by_name_.erase(it);
    if (transpose) w = transposed(w, static_cast<int>(shape[0]), static_cast<int>(shape[1]));
    return w;
  }
  void refuse_leftovers() const {
    if (!by_name_.empty())
      throw Error(ErrorKind::Range, "tensor " + by_name_.begin()->second->name + " is not part of the model's architecture");
  }

 private:
  std::map<std::string, const TensorBytes*> by_name_;
  static std::vector<float> transposed(const std::vector<float>& w, int rows, int cols) {
    std::vector<float> t(w.size());  // [rows, cols] -> [cols, rows]
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) t[static_cast<std::size_t>(c) * rows + r] = w[static_cast<std::size_t>(r) * cols + c];
    return t;
  }
};

// The wasm memory's maximum, and what is allocated now (the file's bytes among it). Natively no limit is checked.
struct Room {
  double max, used;
};
Room memory_room() {
#ifdef __EMSCRIPTEN__
  return {static_cast<double>(emscripten_get_heap_max()), static_cast<double>(mallinfo().uordblks)};
#else
  return {1e300, 0};
#endif
}

std::string gigabytes(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GB", bytes / 1e9);
  return b;
}

// Every weight is kept in float32 (4 bytes a parameter, whatever the file's dtype); loading also needs one
// tensor's transposed copy at a time. Refused by name when that does not fit, before anything is allocated.
void check_memory(const std::vector<TensorBytes>& list) {
  double params = 0, largest = 0;
  for (const TensorBytes& t : list) {
    if (ignorable(canonical(t.name))) continue;
    double n = 1;
    for (const int64_t d : t.shape) n *= static_cast<double>(d);
    params += n;
    largest = std::max(largest, n);
  }
  const double need = 4 * (params + largest);
  const Room room = memory_room();
  if (need <= room.max - room.used) return;
  char count[32];
  const int digits = std::snprintf(count, sizeof count, "%.0f", params);
  std::string grouped;  // 217715072 -> 217,715,072
  for (int i = 0; i < digits; ++i) {
    if (i && (digits - i) % 3 == 0) grouped += ',';
    grouped += count[i];
  }
  throw Error(ErrorKind::Range, "this model has " + grouped + " parameters: posenc keeps them as float32, and loading them needs " +
                                    gigabytes(need) + ", and this module has " + gigabytes(room.max - room.used) + " left of its " +
                                    gigabytes(room.max) + " (the file's bytes are held in it too)");
}

}  // namespace

Model from_tensors(const Config& config, const std::vector<TensorBytes>& list) {
  validate(config);
  const Config& c = config;
  const int64_t D = c.dim, F = c.hidden_dim, V = c.vocab_size, hd = c.hd(), Q = int64_t{c.n_heads} * hd,
                KV = int64_t{c.n_kv_heads} * hd;
  check_memory(list);
  Tensors t(list);
  Model m;
  m.cfg_ = c;
  m.cfg_.tied_embeddings = !t.has("output.weight");
  if (c.tied_embeddings != m.cfg_.tied_embeddings)
    throw Error(ErrorKind::Range, c.tied_embeddings ? "the config says tied embeddings but tensor output.weight is present"
                                                    : "the config says untied embeddings but tensor output.weight is missing");
  if (m.cfg_.tied_embeddings) {
    m.cls_ = t.take("token_embd.weight", {V, D}, true);
  } else {
    m.embed_ = t.take("token_embd.weight", {V, D}, false);
    m.cls_ = t.take("output.weight", {V, D}, true);
  }
  m.out_norm_ = t.take("output_norm.weight", {D}, false);
  m.layers_.resize(c.n_layers);
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    Model::Layer& L = m.layers_[l];
    L.attn_norm = t.take(p + "attn_norm.weight", {D}, false);
    L.wq = t.take(p + "attn_q.weight", {Q, D}, true);
    L.wk = t.take(p + "attn_k.weight", {KV, D}, true);
    L.wv = t.take(p + "attn_v.weight", {KV, D}, true);
    if (c.qkv_bias) {
      L.bq = t.take(p + "attn_q.bias", {Q}, false);
      L.bk = t.take(p + "attn_k.bias", {KV}, false);
      L.bv = t.take(p + "attn_v.bias", {KV}, false);
    }
    L.wo = t.take(p + "attn_output.weight", {D, Q}, true);
    L.ffn_norm = t.take(p + "ffn_norm.weight", {D}, false);
    L.w_gate = t.take(p + "ffn_gate.weight", {F, D}, true);
    L.w_up = t.take(p + "ffn_up.weight", {F, D}, true);
    L.w_down = t.take(p + "ffn_down.weight", {D, F}, true);
  }
  t.refuse_leftovers();
  std::map<DType, int> by_dtype;  // (every dtype a loader hands over, named by dtype_name)
  for (const TensorBytes& x : list) by_dtype[x.dtype] += !ignorable(canonical(x.name));
  for (const auto& [d, n] : by_dtype)
    if (n) m.file_dtypes_.emplace_back(dtype_name(d), n);
  m.params_ = m.embed_.size() + m.cls_.size() + m.out_norm_.size();
  for (const Model::Layer& L : m.layers_)
    for (const auto* w : {&L.attn_norm, &L.ffn_norm, &L.wq, &L.wk, &L.wv, &L.wo, &L.bq, &L.bk, &L.bv, &L.w_gate,
                          &L.w_up, &L.w_down})
      m.params_ += w->size();
  return m;
}

}  // namespace posenc::lm
