// posenc::lm: a model and its tokenizer from a parsed GGUF (lm.hpp): an architecture that a row of the
// family table names as llama.cpp's, hyperparameters from <arch>.* keys, the SentencePiece vocabulary
// from tokenizer.ggml.* (a byte-level BPE one goes to lm_gguf_bpe.cpp).
#include <algorithm>
#include <cmath>

#include "lm_internal.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::lm {
extern const FileFormat kGgufFormat;
namespace {

// The llama2.c -> GGUF converter of llama.cpp (examples/convert-llama2c-to-ggml) writes
// general.name "llama" and the misspelt key tokenizer.ggml.seperator_token_id, and stores its
// own n_ctx option (2048 unless given) as context_length, not the checkpoint's trained seq_len.
bool from_llama2c_converter(const GgufFile& f) {
  const auto name = f.kv.find("general.name");
  return name != f.kv.end() && name->second.type == GgufType::String && name->second.s == "llama" &&
         f.kv.count("tokenizer.ggml.seperator_token_id") && !f.kv.count("general.file_type");
}

const GgufValue* find(const GgufFile& f, const std::string& key) {
  const auto it = f.kv.find(key);
  return it == f.kv.end() ? nullptr : &it->second;
}

bool is_int(GgufType t) {
  return t == GgufType::U8 || t == GgufType::I8 || t == GgufType::U16 || t == GgufType::I16 || t == GgufType::U32 ||
         t == GgufType::I32 || t == GgufType::U64 || t == GgufType::I64;
}
bool is_signed(GgufType t) { return t == GgufType::I8 || t == GgufType::I16 || t == GgufType::I32 || t == GgufType::I64; }

// An integer key in [lo, hi]; `fallback` when absent (or required when fallback < lo).
int get_int(const GgufFile& f, const std::string& key, long long lo, long long hi, long long fallback) {
  const GgufValue* v = find(f, key);
  if (!v) {
    if (fallback < lo) throw Error(ErrorKind::Range, "GGUF key " + key + " is missing");
    return static_cast<int>(fallback);
  }
  if (!is_int(v->type)) throw Error(ErrorKind::Type, "GGUF key " + key + " must be an integer");
  const bool sig = is_signed(v->type);
  const std::string got = sig ? std::to_string(v->i) : std::to_string(v->u);
  // Unsigned values above hi (hi >= 0) fail before the cast, so the cast below is exact.
  if ((sig && (v->i < lo || v->i > hi)) || (!sig && (v->u > static_cast<unsigned long long>(hi) || static_cast<long long>(v->u) < lo)))
    throw Error(ErrorKind::Range, "GGUF key " + key + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " + got + ")");
  return static_cast<int>(sig ? v->i : static_cast<long long>(v->u));
}

double get_float(const GgufFile& f, const std::string& key, double fallback) {
  const GgufValue* v = find(f, key);
  if (!v) return fallback;
  if (v->type != GgufType::F32 && v->type != GgufType::F64) throw Error(ErrorKind::Type, "GGUF key " + key + " must be a float");
  return v->f;
}

Arch read_arch(const GgufFile& f) {
  const GgufValue* v = find(f, "general.architecture");
  if (!v || v->type != GgufType::String) throw Error(ErrorKind::Range, "GGUF key general.architecture is missing");
  std::string known;
  for (const Family& fam : families()) {
    if (!fam.gguf) continue;
    if (v->s == fam.name) return fam.arch;
    known += (known.empty() ? "" : ", ") + std::string(fam.name);
  }
  throw Error(ErrorKind::Range, "GGUF architecture '" + v->s.substr(0, 64) + "' is not supported (" + known + ")");
}

const GgufTensorInfo* tensor(const GgufFile& f, const std::string& name) {
  for (const GgufTensorInfo& t : f.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

// A key that is either one unsigned integer or an array of them / of bools, one per layer (llama.cpp's get_key_or_arr).
std::vector<long long> int_or_array(const GgufFile& f, const std::string& key) {
  const GgufValue* v = find(f, key);
  if (!v) return {};
  std::vector<long long> out;
  const auto one = [&](const GgufValue& x) {
    if (!is_int(x.type) && x.type != GgufType::Bool) throw Error(ErrorKind::Type, "GGUF key " + key + " must hold integers or bools");
    out.push_back(is_signed(x.type) ? x.i : static_cast<long long>(x.u));
  };
  if (v->type == GgufType::Array)
    for (const GgufValue& x : v->items) one(x);
  else
    one(*v);
  return out;
}

// Config::layers from the family's GGUF rules (lm.hpp's GgufRules): NoPE layers, sliding windows and their RoPE base.
void read_layers(const GgufFile& f, const std::string& a, Config& c) {
  const GgufRules& r = family(c.arch).gguf_rules;
  const int window = get_int(f, a + ".attention.sliding_window", 0, kMaxContext, 0);
  if (window > 0 && r.window_every == 0)
    throw Error(ErrorKind::Range, "GGUF key " + a + ".attention.sliding_window: sliding-window attention is not supported for " +
                                      family(c.arch).label + " files");
  std::vector<Config::Layer> layers(c.n_layers);
  bool any = false;
  if (r.nope_every > 0)
    for (int l = 0; l < c.n_layers; ++l)
      if ((l + 1) % r.nope_every == 0) layers[l].rope = false, any = true;
  if (window > 0) {
    // which layers slide: each but every nth (llama.cpp's set_swa_pattern(n): layer l slides when l % n < n - 1), or
    // as <arch>.attention.sliding_window_pattern gives it (a period, or one flag per layer)
    const std::vector<long long> pattern = int_or_array(f, a + ".attention.sliding_window_pattern");
    if (pattern.size() > 1 && static_cast<int>(pattern.size()) != c.n_layers)
      throw Error(ErrorKind::Range, "GGUF key " + a + ".attention.sliding_window_pattern must hold one flag per layer (" +
                                        std::to_string(c.n_layers) + ")");
    const long long every = pattern.size() == 1 ? pattern[0] : r.window_every;
    if (every < 1 || every > kMaxLayers)
      throw Error(ErrorKind::Range, "GGUF key " + a + ".attention.sliding_window_pattern must be in [1, " + std::to_string(kMaxLayers) + "]");
    double theta = get_float(f, a + ".rope.freq_base_swa", r.window_theta);
    if (theta == 0) theta = c.rope_theta;
    for (int l = 0; l < c.n_layers; ++l) {
      const bool slides = pattern.size() > 1 ? pattern[l] != 0 : every == 1 || l % every < every - 1;
      if (!slides) continue;
      layers[l].window = window;
      if (every > 1 || pattern.size() > 1) layers[l].theta = theta, layers[l].scaled = false;  // local layers: their own base, unscaled
      any = true;
    }
  }
  if (any) c.layers = std::move(layers);
  if (r.head_dim_scale)  // llama.cpp's Gemma 3 (gemma_pytorch's config): query_pre_attn_scalar is not in the file
    c.attn_scalar = c.n_layers == 62 ? static_cast<double>(c.dim / c.n_heads) : static_cast<double>(c.hd());
}

Config read_config(const GgufFile& f) {
  Config c;
  c.source = kGgufFormat.id;
  c.arch = read_arch(f);
  const std::string a = arch_name(c.arch);
  c.dim = get_int(f, a + ".embedding_length", 1, kMaxDim, 0);
  c.n_layers = get_int(f, a + ".block_count", 1, kMaxLayers, 0);
  c.hidden_dim = get_int(f, a + ".feed_forward_length", 1, kMaxHidden, 0);
  c.n_heads = get_int(f, a + ".attention.head_count", 1, kMaxHeads, 0);
  c.n_kv_heads = get_int(f, a + ".attention.head_count_kv", 1, kMaxHeads, c.n_heads);
  c.head_dim = get_int(f, a + ".attention.key_length", 0, kMaxHeadDim, 0);
  if (c.head_dim == c.dim / c.n_heads && c.dim % c.n_heads == 0) c.head_dim = 0;
  c.rotary_dim = get_int(f, a + ".rope.dimension_count", 0, kMaxHeadDim, 0);
  c.rope_theta = get_float(f, a + ".rope.freq_base", 10000.0);
  c.norm_eps = get_float(f, a + ".attention.layer_norm_rms_epsilon", 1e-5);
  c.context = get_int(f, a + ".context_length", 1, kMaxContext, 0);
  c.context_source = from_llama2c_converter(f) ? ContextSource::ConverterDefault : ContextSource::FileMetadata;
  if (const GgufValue* v = find(f, a + ".rope.scaling.type");
      v && !(v->type == GgufType::String && (v->s == "none" || v->s == "linear")))
    throw Error(ErrorKind::Range, "GGUF key " + a + ".rope.scaling.type '" + v->s.substr(0, 32) +
                                      "': a file's own rope scaling other than linear is not supported (posenc applies scaling as an option)");
  read_layers(f, a, c);
  c.qkv_bias = family(c.arch).qkv_bias;
  c.tied_embeddings = tensor(f, "output.weight") == nullptr;
  const GgufTensorInfo* embd = tensor(f, "token_embd.weight");
  if (!embd) throw Error(ErrorKind::Range, "GGUF tensor token_embd.weight is missing");
  if (embd->ne.size() != 2 || embd->ne[1] > static_cast<uint64_t>(kMaxVocab))
    throw Error(ErrorKind::Range, "GGUF tensor token_embd.weight must be [vocab, dim] with vocab <= " + std::to_string(kMaxVocab));
  c.vocab_size = static_cast<int>(embd->ne[1]);
  validate(c);
  return c;
}

DType dtype_of(const GgufTensorInfo& t) {
  if (const Format* f = format_of_ggml(t.ggml_type)) return f->dtype;
  throw Error(ErrorKind::Range, "tensor " + t.name + " has type " + ggml_type_name(t.ggml_type) +
                                    ", which posenc does not read (" + format_list() + ")");
}

std::vector<TensorBytes> tensor_bytes(const GgufFile& f, const uint8_t* data) {
  std::vector<TensorBytes> out;
  for (const GgufTensorInfo& t : f.tensors) {
    TensorBytes b;
    b.name = t.name;
    b.dtype = dtype_of(t);
    uint64_t n = 1;
    for (auto it = t.ne.rbegin(); it != t.ne.rend(); ++it) {  // GGUF ne[0] is the fastest: reverse
      b.shape.push_back(static_cast<int64_t>(*it));
      n *= *it;
    }
    const Format& fmt = format(b.dtype);
    b.bytes = static_cast<std::size_t>(n / fmt.block * fmt.block_bytes);
    b.data = data + f.data_offset + t.offset;  // in the file: parse_gguf checked
    out.push_back(std::move(b));
  }
  return out;
}

// The per-pair RoPE factors that a tensor `name` [rd/2] holds (llama.cpp divides pair i's frequency by its factor), taken
// out of `list` (they are no weight of the forward); empty when the file has none.
std::vector<double> take_factors(std::vector<TensorBytes>& list, const std::string& name, int rd) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const TensorBytes& t) { return t.name == name; });
  if (it == list.end()) return {};
  if (it->shape != std::vector<int64_t>{rd / 2})
    throw Error(ErrorKind::Range, "GGUF tensor " + name + " must hold one factor per rotated pair (" + std::to_string(rd / 2) + ")");
  const std::vector<float> v = dequantise(*it);
  list.erase(it);
  std::vector<double> out;
  for (const float x : v) {
    if (!(x > 0)) throw Error(ErrorKind::Range, "GGUF tensor " + name + " must hold factors > 0");
    out.push_back(x);
  }
  return out;
}

// Pair i's factor under a llama3 block: its default frequency over its llama3 one.
std::vector<double> llama3_factors(const RopeScaling& s, int rd, double theta) {
  const std::vector<double> plain = rope_frequencies(rd, theta, RopeScaling{}, std::nullopt).inv_freq;
  const std::vector<double> scaled = rope_frequencies(rd, theta, s, std::nullopt).inv_freq;
  std::vector<double> f(plain.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = plain[i] / scaled[i];
  return f;
}

// llama.cpp's converter writes a llama3 rope_scaling block as rope_freqs.weight alone: pair i's factor is 1 for short
// wavelengths, `factor` for long ones, and 1 / ((1 - s) / factor + s) between, s = (L / wavelength - low) / (high - low),
// L the original context. The block is recovered (Llama 3.1-3.3's own, L 8192, low 1, high 4, when it fits; else fitted to
// the pairs between, with low 1, which gives the same factors) and must give back every factor within 1e-4.
RopeScaling llama3_from(const std::vector<double>& f, int rd, double theta) {
  RopeScaling s;
  s.type = parse_rope_type("llama3");
  s.factor = *std::max_element(f.begin(), f.end());
  const auto worst = [&](const RopeScaling& x) {
    const std::vector<double> g = llama3_factors(x, rd, theta);
    double d = 0;
    for (std::size_t i = 0; i < f.size(); ++i) d = std::max(d, std::fabs(g[i] - f[i]) / f[i]);
    return d;
  };
  s.original_max_position_embeddings = 8192, s.low_freq_factor = 1.0, s.high_freq_factor = 4.0;
  if (*s.factor > 1 && worst(s) > 1e-4) {
    // s_i = a / wavelength_i - b over the pairs between (a = L / (high - low), b = low / (high - low)): least squares
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    const std::vector<double> inv = rope_frequencies(rd, theta, RopeScaling{}, std::nullopt).inv_freq;
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f[i] < 1 + 1e-4 || f[i] > *s.factor * (1 - 1e-4)) continue;
      const double x = inv[i] / (2 * 3.141592653589793), y = (1 / f[i] - 1 / *s.factor) / (1 - 1 / *s.factor);
      n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    const double det = n * sxx - sx * sx;
    if (n >= 2 && det > 0) {
      const double a = (n * sxy - sx * sy) / det, b = (a * sx - sy) / n;  // y = a x - b
      if (a > 0 && b > 0 && a / b < 1e9) {
        s.original_max_position_embeddings = static_cast<int>(std::lround(a / b));
        s.low_freq_factor = 1.0, s.high_freq_factor = 1 + 1 / b;
      }
    }
  }
  if (*s.factor < 1 || worst(s) > 1e-4)
    throw Error(ErrorKind::Range, "GGUF tensor rope_freqs.weight does not follow llama3's rule (factors 1 to factor, smooth between)");
  return s;
}

// The file's own RoPE scaling (Loaded::scaling); its factor tensors are taken out of `list`.
RopeScaling read_scaling(const GgufFile& f, const Config& c, std::vector<TensorBytes>& list) {
  const std::string a = arch_name(c.arch);
  RopeScaling s;
  if (const GgufValue* v = find(f, a + ".rope.scaling.type"); v && v->s == "linear") {
    s.type = parse_rope_type("linear");
    s.factor = get_float(f, a + ".rope.scaling.factor", 0);
    if (!(*s.factor > 0) || !std::isfinite(*s.factor))
      throw Error(ErrorKind::Range, "GGUF key " + a + ".rope.scaling.factor must be a number > 0 with rope.scaling.type linear");
  }
  const std::vector<double> freqs = take_factors(list, "rope_freqs.weight", c.rd());
  std::vector<double> lng = take_factors(list, "rope_factors_long.weight", c.rd());
  std::vector<double> shrt = take_factors(list, "rope_factors_short.weight", c.rd());
  if ((!freqs.empty() || !lng.empty() || !shrt.empty()) && s.type != parse_rope_type("default"))
    throw Error(ErrorKind::Range, "GGUF rope factor tensors and " + a + ".rope.scaling.type linear cannot both apply");
  if (!freqs.empty()) {
    if (!lng.empty() || !shrt.empty()) throw Error(ErrorKind::Range, "GGUF tensors rope_freqs.weight and rope_factors_* cannot both apply");
    return llama3_from(freqs, c.rd(), c.rope_theta);
  }
  if (lng.empty() != shrt.empty())
    throw Error(ErrorKind::Range, "GGUF tensors rope_factors_long.weight and rope_factors_short.weight come together (LongRoPE)");
  if (!lng.empty()) {  // Phi-3's LongRoPE: llama.cpp's converter writes the original context and the attention factor as keys
    s.type = parse_rope_type("longrope");
    s.long_factor = std::move(lng);
    s.short_factor = std::move(shrt);
    s.original_max_position_embeddings = get_int(f, a + ".rope.scaling.original_context_length", 1, kMaxContext, 0);
    if (find(f, a + ".rope.scaling.attn_factor")) s.attention_factor = get_float(f, a + ".rope.scaling.attn_factor", 1.0);
  }
  return s;
}

// U+2581 (SentencePiece's space marker) -> ' ', as llama2.c's tokenizer.bin stores pieces.
std::string unmark(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "\xE2\x96\x81") == 0) {
      out += ' ';
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::optional<Tokenizer> read_tokenizer(const GgufFile& f, int vocab_size, std::string& note) {
  const GgufValue* model = find(f, "tokenizer.ggml.model");
  if (!model || model->type != GgufType::String) return note = "the GGUF has no tokenizer (tokenizer.ggml.model)", std::nullopt;
  if (model->s != "llama")  // (byte-level BPE, "gpt2", is read by gguf_bpe_tokenizer)
    return note = "its tokenizer is of a kind posenc does not read (\"" + model->s.substr(0, 32) +
                  "\"; it reads SentencePiece, \"llama\", and byte-level BPE, \"gpt2\")", std::nullopt;
  const GgufValue* tokens = find(f, "tokenizer.ggml.tokens");
  const GgufValue* scores = find(f, "tokenizer.ggml.scores");
  if (!tokens || tokens->type != GgufType::Array || tokens->elem != GgufType::String)
    throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.tokens must be an array of strings");
  if (scores && (scores->type != GgufType::Array || scores->elem != GgufType::F32 || scores->items.size() != tokens->items.size()))
    throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.scores must be an array of float32, one per token");
  if (static_cast<int>(tokens->items.size()) != vocab_size)
    throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.tokens has " + std::to_string(tokens->items.size()) +
                                      " tokens; token_embd.weight has " + std::to_string(vocab_size));
  std::vector<std::string> pieces;
  std::vector<float> s;
  for (std::size_t i = 0; i < tokens->items.size(); ++i) {
    pieces.push_back(unmark(tokens->items[i].s));
    s.push_back(scores ? static_cast<float>(scores->items[i].f) : 0.0f);
  }
  const int bos = get_int(f, "tokenizer.ggml.bos_token_id", -1, vocab_size - 1, -1);
  const int eos = get_int(f, "tokenizer.ggml.eos_token_id", -1, vocab_size - 1, -1);
  const GgufValue* prefix = find(f, "tokenizer.ggml.add_space_prefix");
  if (prefix && prefix->type != GgufType::Bool) throw Error(ErrorKind::Type, "GGUF key tokenizer.ggml.add_space_prefix must be a bool");
  return Tokenizer(std::move(pieces), std::move(s), bos, eos, !prefix || prefix->u != 0);
}

}  // namespace

Loaded load_gguf(const uint8_t* data, std::size_t size, Storage storage) {
  const GgufFile f = parse_gguf(data, size);
  const Config c = read_config(f);
  std::vector<TensorBytes> tensors = tensor_bytes(f, data);
  RopeScaling scaling = read_scaling(f, c, tensors);
  Loaded out{.model = from_tensors(c, tensors, std::move(storage)), .scaling = std::move(scaling)};
  const GgufValue* kind = find(f, "tokenizer.ggml.model");
  if (kind && kind->type == GgufType::String && kind->s == "gpt2")
    gguf_bpe_tokenizer(f, c.vocab_size, out);
  else
    out.tokenizer = read_tokenizer(f, c.vocab_size, out.tokenizer_note);
  return out;
}

namespace {
bool detect_gguf(const uint8_t* head, std::size_t n) { return n >= 4 && std::memcmp(head, "GGUF", 4) == 0; }
Loaded load_file(LoadInput&& in) { return load_gguf(in.data, in.size, std::move(in.storage)); }
}  // namespace

extern const FileFormat kGgufFormat = {"gguf", "GGUF", "GGUF", ".gguf", "the four letters GGUF", "", false, false,
                                       true, RopeLayout::Half, detect_gguf, load_file};

}  // namespace posenc::lm
