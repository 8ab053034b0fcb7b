// posenc::lm: a model and its tokenizer from a parsed GGUF (lm.hpp): an architecture that a row of the
// family table names as llama.cpp's, hyperparameters from <arch>.* keys, the SentencePiece vocabulary
// from tokenizer.ggml.*.
#include "lm_internal.hpp"

namespace posenc::lm {
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

Config read_config(const GgufFile& f) {
  Config c;
  c.source = Source::Gguf;
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
  // A file's own rope scaling (a fine-tuned extension) or llama3's per-pair factors would change
  // the forward; posenc applies scalings only as the caller's option, so such files are refused.
  if (const GgufValue* v = find(f, a + ".rope.scaling.type"); v && !(v->type == GgufType::String && v->s == "none"))
    throw Error(ErrorKind::Range, "GGUF key " + a + ".rope.scaling.type '" + v->s.substr(0, 32) +
                                      "': a file's own rope scaling is not supported (posenc applies scaling as an option)");
  if (tensor(f, "rope_freqs.weight"))
    throw Error(ErrorKind::Range, "GGUF tensor rope_freqs.weight (per-pair rope frequency factors, as llama3 models have) is not supported");
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
  if (model->s != "llama")
    return note = "tokenizer.ggml.model '" + model->s.substr(0, 32) + "' is not SentencePiece ('llama'): use the model's tokenizer.json", std::nullopt;
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
  std::string note;
  std::optional<Tokenizer> tok = read_tokenizer(f, c.vocab_size, note);
  return Loaded{from_tensors(c, tensor_bytes(f, data), std::move(storage)), std::move(tok), std::move(note)};
}

}  // namespace posenc::lm
