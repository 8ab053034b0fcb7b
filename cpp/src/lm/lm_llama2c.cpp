// posenc::lm: llama2.c's legacy `.bin` checkpoint and its `tokenizer.bin` (lm.hpp).
//
// .bin layout (llama2.c run.c): int32 dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
// seq_len; then float32, each weight [out, in] as PyTorch stores it:
//   token_embedding [V, D], rms_att [L, D], wq [L, D, D], wk [L, KV, D], wv [L, KV, D], wo [L, D, D],
//   rms_ffn [L, D], w1 [L, F, D], w2 [L, D, F], w3 [L, F, D], rms_final [D],
//   freq_cis_real [seq_len, hd/2], freq_cis_imag [seq_len, hd/2] (unused: recomputed),
//   wcls [V, D] only when vocab_size < 0 (untied classifier).
#include <cstring>
#include <string>
#include <vector>

#include "lm_internal.hpp"

namespace posenc::lm {
extern const FileFormat kLlama2cFormat;
namespace {

constexpr uint32_t kExportMagic = 0x616b3432;  // "ak42": llama2.c's newer export formats

Config read_header(ByteReader& r, bool& untied) {
  int32_t h[7];
  const char* names[7] = {"dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len"};
  for (int i = 0; i < 7; ++i) h[i] = r.get<int32_t>(names[i]);
  if (static_cast<uint32_t>(h[0]) == kExportMagic)
    throw Error(ErrorKind::Range, "llama2.c checkpoint is a newer export (magic ak42, version " + std::to_string(h[1]) +
                                      "); posenc reads the legacy .bin format");
  untied = h[5] < 0;
  Config c;
  c.arch = Arch::Llama;
  c.source = kLlama2cFormat.id;
  c.dim = h[0];
  c.hidden_dim = h[1];
  c.n_layers = h[2];
  c.n_heads = h[3];
  c.n_kv_heads = h[4];
  c.vocab_size = h[5] == INT32_MIN ? 0 : (untied ? -h[5] : h[5]);
  c.context = h[6];
  c.context_source = ContextSource::TrainedHeader;
  c.tied_embeddings = !untied;
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(ErrorKind::Range, std::string("llama2.c header: ") + e.what());
  }
  return c;
}

struct Cursor {
  ByteReader& r;
  std::vector<TensorBytes>& out;
  // Takes `count` float32 tensors of `shape`, named prefix + l + suffix (or `name` when count is 0).
  void take(const std::string& name, std::vector<int64_t> shape) {
    uint64_t n = 1;
    for (int64_t d : shape) n *= static_cast<uint64_t>(d);  // bounded by validate(): < 2^46
    TensorBytes t{name, DType::F32, std::move(shape), nullptr, static_cast<std::size_t>(4 * n)};
    t.data = r.skip(4 * n, out.size() < 1 ? "token_embedding" : "weights");
    out.push_back(std::move(t));
  }
  void per_layer(int L, const char* suffix, const std::vector<int64_t>& shape) {
    for (int l = 0; l < L; ++l) take("blk." + std::to_string(l) + "." + suffix, shape);
  }
};

uint64_t expected_floats(const Config& c, bool untied) {
  const uint64_t D = c.dim, F = c.hidden_dim, L = c.n_layers, V = c.vocab_size, hd = c.hd(), KV = c.n_kv_heads * hd;
  const uint64_t per_layer = 2 * D + 2 * D * D + 2 * KV * D + 3 * F * D;
  return V * D + L * per_layer + D + static_cast<uint64_t>(c.context) * hd + (untied ? V * D : 0);
}

// The format row's detector: whether `head` (a file's first bytes) starts with a llama2.c header, seven int32 that
// form a valid model whose heads divide dim, or llama2.c's newer export magic (which load_llama2c then names).
bool llama2c_header_valid(const uint8_t* head, std::size_t size) {
  if (size >= 4 && (head[0] | head[1] << 8 | head[2] << 16 | static_cast<uint32_t>(head[3]) << 24) == kExportMagic) return true;
  ByteReader r(head, size, "llama2.c checkpoint");
  bool untied = false;
  try {
    const Config c = read_header(r, untied);
    return c.dim % c.n_heads == 0;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

Model load_llama2c(const uint8_t* data, std::size_t size, Storage storage) {
  if (!data) throw Error(ErrorKind::Type, "llama2.c checkpoint has no data (null pointer)");
  ByteReader r(data, size, "llama2.c checkpoint");
  bool untied = false;
  const Config c = read_header(r, untied);
  if (c.dim % c.n_heads != 0)
    throw Error(ErrorKind::Range, "llama2.c header: n_heads must divide dim = " + std::to_string(c.dim) + " (got " +
                                      std::to_string(c.n_heads) + ")");
  const uint64_t want = 28 + 4 * expected_floats(c, untied);
  if (size != want)
    throw Error(ErrorKind::Range, "llama2.c checkpoint has " + std::to_string(size) + " bytes; its header (dim " +
                                      std::to_string(c.dim) + ", " + std::to_string(c.n_layers) + " layers, vocab " +
                                      std::to_string(c.vocab_size) + ") needs " + std::to_string(want) +
                                      (size < want ? ": truncated" : ": extra bytes after the weights"));
  const int64_t D = c.dim, F = c.hidden_dim, V = c.vocab_size, KV = int64_t{c.n_kv_heads} * c.hd();
  std::vector<TensorBytes> t;
  Cursor cur{r, t};
  cur.take("token_embd.weight", {V, D});
  cur.per_layer(c.n_layers, "attn_norm.weight", {D});
  cur.per_layer(c.n_layers, "attn_q.weight", {D, D});
  cur.per_layer(c.n_layers, "attn_k.weight", {KV, D});
  cur.per_layer(c.n_layers, "attn_v.weight", {KV, D});
  cur.per_layer(c.n_layers, "attn_output.weight", {D, D});
  cur.per_layer(c.n_layers, "ffn_norm.weight", {D});
  cur.per_layer(c.n_layers, "ffn_gate.weight", {F, D});
  cur.per_layer(c.n_layers, "ffn_down.weight", {D, F});
  cur.per_layer(c.n_layers, "ffn_up.weight", {F, D});
  cur.take("output_norm.weight", {D});
  r.skip(uint64_t{4} * c.context * c.hd(), "freq_cis");  // real and imag: recomputed from theta
  if (untied) cur.take("output.weight", {V, D});
  return from_tensors(c, t, std::move(storage));
}

Tokenizer load_llama2c_tokenizer(const uint8_t* data, std::size_t size, int vocab_size) {
  if (!data) throw Error(ErrorKind::Type, "tokenizer.bin has no data (null pointer)");
  require_int_range("vocab_size", vocab_size, 1, kMaxVocab);
  ByteReader r(data, size, "tokenizer.bin");
  const int32_t max_len = r.get<int32_t>("max_token_length");
  if (max_len < 1 || max_len > 1 << 16)
    range_error("tokenizer.bin max_token_length", "an integer in [1, 65536]", std::to_string(max_len));
  // Each token takes at least 8 bytes: a lying vocab size is caught before anything is reserved.
  if (static_cast<uint64_t>(vocab_size) * 8 > r.remaining())
    throw Error(ErrorKind::Range, "tokenizer.bin is truncated: " + std::to_string(size) + " bytes cannot hold " +
                                      std::to_string(vocab_size) + " tokens");
  std::vector<std::string> pieces(vocab_size);
  std::vector<float> scores(vocab_size);
  for (int i = 0; i < vocab_size; ++i) {
    scores[i] = r.get<float>("a token score");
    const int32_t len = r.get<int32_t>("a token length");
    if (len < 0 || len > max_len)
      throw Error(ErrorKind::Range, "tokenizer.bin token " + std::to_string(i) + " has length " + std::to_string(len) +
                                        " (max_token_length " + std::to_string(max_len) + ")");
    const uint8_t* p = r.skip(static_cast<uint64_t>(len), "a token's bytes");
    pieces[i].assign(reinterpret_cast<const char*>(p), static_cast<std::size_t>(len));
  }
  if (r.remaining() != 0)
    throw Error(ErrorKind::Range, "tokenizer.bin has " + std::to_string(r.remaining()) + " bytes after its " +
                                      std::to_string(vocab_size) + " tokens (a vocabulary of another size?)");
  return Tokenizer(std::move(pieces), std::move(scores), vocab_size > 1 ? 1 : -1, vocab_size > 2 ? 2 : -1);
}

namespace {
// The model, and its tokenizer when a tokenizer.bin was given beside it.
Loaded load_file(LoadInput&& in) {
  Loaded l{.model = load_llama2c(in.data, in.size, std::move(in.storage)), .tokenizer_note = "no tokenizer.bin was given"};
  if (in.tokenizer) {
    l.tokenizer = load_llama2c_tokenizer(in.tokenizer, in.tokenizer_size, l.model.config().vocab_size);
    l.tokenizer_note.clear();
  }
  return l;
}
}  // namespace

extern const FileFormat kLlama2cFormat = {
    "llama2c", "llama2.c checkpoint", "llama2.c .bin", ".bin",
    "seven whole numbers that describe the model (dim, hidden size, layers, heads, key-value heads, vocabulary, context)",
    "tokenizer", false, false, false, RopeLayout::Interleaved, llama2c_header_valid, load_file};

}  // namespace posenc::lm
