// posenc::lm: real, trained Llama-architecture language models (Llama, Qwen2), for inference only.
//
// Formats read here: llama2.c's legacy `.bin` checkpoint and `tokenizer.bin`, and GGUF v3 (v2 also
// reads). HF safetensors are parsed by the JS side, which hands the core a Config and the named
// tensors (from_tensors). Every loader bounds each size it reads against the bytes actually
// present before it allocates, and throws posenc::Error with a one-line message naming the problem.
//
// Weight-memory policy: every weight (F32, F16, BF16, Q8_0) is dequantised to float32 at load and
// stored transposed, [in, out], for the matmul kernel: 4 bytes per parameter, whatever the file's
// dtype. The tied classifier is stored once ([D, V]); the embedding lookup reads its column.
// So a model needs about 4 x its parameter count in bytes (stories260K 1 MB, stories110M 440 MB);
// in wasm (2 GB maximum memory) models up to about 400 M parameters load. Activations are
// T x (2 dim + 3 q_dim + 4 kv_dim) floats plus [64, hidden_dim] x 2 and [64, vocab] blocks: never
// all T rows of logits, never a [T, T] attention matrix (attention is streamed; maps come from
// bands of query rows' scores, pooled as they are made, with each row's log-sum-exp from the streamed
// attention, heads x T floats; statistics from its per-row values, 2 T floats). stories260K at T = 4096: 14 MB
// peak resident, natively.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::lm {

enum class Arch { Llama, Qwen2 };
enum class Source { Llama2c, Gguf, HfSafetensors };
// Where Config::context (the original, trained context) came from.
enum class ContextSource {
  TrainedHeader,     // llama2.c .bin header seq_len: the context the model was trained with
  FileMetadata,      // GGUF llama.context_length / config.json max_position_embeddings
  ConverterDefault,  // a value the file carries that its converter wrote by default (see gguf)
};
const char* context_source_name(ContextSource s);
const char* arch_name(Arch a);

struct Config {
  Arch arch = Arch::Llama;
  Source source = Source::HfSafetensors;
  int dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0;
  int head_dim = 0;    // 0: dim / n_heads
  int rotary_dim = 0;  // 0: head_dim; else even, in [2, head_dim] (partial rotary)
  double rope_theta = 10000.0;
  double norm_eps = 1e-5;
  bool tied_embeddings = true;
  bool qkv_bias = false;  // Qwen2
  int context = 0;        // original context (>= 1)
  ContextSource context_source = ContextSource::FileMetadata;

  int hd() const { return head_dim ? head_dim : (n_heads ? dim / n_heads : 0); }
  int rd() const { return rotary_dim ? rotary_dim : hd(); }
};
// Interleaved pairs for llama2.c and GGUF llama (llama.cpp's converter permutes Q and K);
// half-split for HF safetensors and GGUF qwen2 (NEOX rope in llama.cpp).
RopeLayout rope_layout(const Config& c);
// Throws posenc::Error naming the first field out of range (sizes bounded, heads divide, ...).
void validate(const Config& c);

// --- Tensors as they lie in a file (row-major, outermost dimension first, as PyTorch).
enum class DType { F32, F16, BF16, Q8_0 };
const char* dtype_name(DType t);
struct TensorBytes {
  std::string name;             // GGUF (blk.0.attn_q.weight) or HF (model.layers.0.self_attn.q_proj.weight) names
  DType dtype = DType::F32;
  std::vector<int64_t> shape;   // e.g. q_proj [n_heads * head_dim, dim]
  const uint8_t* data = nullptr;
  std::size_t bytes = 0;
};

class Model {
 public:
  const Config& config() const { return cfg_; }
  std::size_t parameter_count() const { return params_; }
  // The file's tensors by dtype (dtype_name, count), in DType order: what describe() reports.
  const std::vector<std::pair<std::string, int>>& file_dtypes() const { return file_dtypes_; }
  // One block's weights, float32, transposed to [in, out].
  struct Layer {
    std::vector<float> attn_norm, ffn_norm;  // [D]
    std::vector<float> wq, wk, wv, wo;       // [D, H*hd], [D, Hkv*hd], [D, Hkv*hd], [H*hd, D]
    std::vector<float> bq, bk, bv;           // Qwen2 only: [H*hd], [Hkv*hd], [Hkv*hd]
    std::vector<float> w_gate, w_up, w_down;  // [D, F], [D, F], [F, D]
  };

 private:
  friend Model from_tensors(const Config&, const std::vector<TensorBytes>&);
  friend struct Access;
  Config cfg_;
  std::vector<Layer> layers_;
  std::vector<float> embed_;     // [V, D] when untied; empty when tied
  std::vector<float> cls_;       // [D, V]
  std::vector<float> out_norm_;  // [D]
  std::size_t params_ = 0;
  std::vector<std::pair<std::string, int>> file_dtypes_;
};

// Builds a model from named tensors; names may be GGUF's or HF's. Every tensor the config needs
// must be present with its exact shape and byte count; extra tensors are refused by name except
// the ones that carry nothing for the forward (rotary tables, HF's rotary_emb.inv_freq).
// Weights are checked finite ("tensor X has a NaN at element N").
Model from_tensors(const Config& config, const std::vector<TensorBytes>& tensors);

// --- llama2.c
// .bin: seven int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len; a negative
// vocab_size means an untied classifier at the end), then float32 weights in llama2.c's order.
Model load_llama2c(const uint8_t* data, std::size_t size);

// --- Tokenizer: SentencePiece-style BPE with byte fallback (llama2.c's encode).
class Tokenizer {
 public:
  // pieces with spaces as ' ' (GGUF's U+2581 is converted by the loader). bos/eos: -1 = none.
  // dummy_prefix: SentencePiece's add_dummy_prefix (GGUF tokenizer.ggml.add_space_prefix).
  Tokenizer(std::vector<std::string> pieces, std::vector<float> scores, int bos, int eos, bool dummy_prefix = true);
  // BOS (when add_bos and defined), then the dummy-prefix space when text is not empty, then the
  // pieces: each UTF-8 code point its piece or its <0xXX> bytes, then the best-scoring adjacent
  // pair merged repeatedly (the leftmost on ties) while any pair is a piece.
  std::vector<int32_t> encode(std::string_view text, bool add_bos = true) const;
  const std::string& piece(int id) const;
  int size() const { return static_cast<int>(pieces_.size()); }
  int bos() const { return bos_; }
  int eos() const { return eos_; }

 private:
  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string, int> ids_;
  int byte_ids_[256];  // <0xXX> piece of each byte, or -1
  int bos_, eos_;
  bool dummy_prefix_;
  int id_of(std::string_view s) const;
};

// tokenizer.bin: int32 max_token_length, then per token float score, int32 length, bytes.
// vocab_size: the model's (the file has no count); the file must hold exactly that many.
Tokenizer load_llama2c_tokenizer(const uint8_t* data, std::size_t size, int vocab_size);

// --- GGUF
enum class GgufType : uint32_t {
  U8 = 0, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64
};
struct GgufValue {
  GgufType type = GgufType::U8;
  uint64_t u = 0;        // unsigned and bool
  int64_t i = 0;         // signed
  double f = 0;          // float32 / float64
  std::string s;         // string
  GgufType elem = GgufType::U8;  // array element type
  std::vector<GgufValue> items;  // array
};
struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> ne;  // GGUF order: ne[0] fastest
  uint32_t ggml_type = 0;
  uint64_t offset = 0;       // from the start of the data section
};
struct GgufFile {
  uint32_t version = 0;
  std::map<std::string, GgufValue> kv;
  std::vector<GgufTensorInfo> tensors;
  uint64_t alignment = 32;
  uint64_t data_offset = 0;  // where tensor data starts in the file
};
// Header, key-values, tensor infos; every offset and size checked against `size`.
GgufFile parse_gguf(const uint8_t* data, std::size_t size);
// ggml's name of a tensor type ("Q4_K"), or "type N" when unknown.
std::string ggml_type_name(uint32_t t);

struct Loaded {
  Model model;
  std::optional<Tokenizer> tokenizer;  // SentencePiece vocabularies (tokenizer.ggml.model "llama")
  std::string tokenizer_note;          // why there is none, when there is none
};
// arch llama or qwen2; F32, F16, BF16, Q8_0 tensors; everything else refused by name.
Loaded load_gguf(const uint8_t* data, std::size_t size);

// --- Forward (inference): NLL row by row, optional attention statistics and pooled maps.
// The keys (after RoPE) and values of a forward's first rows, for every layer: a forward that takes
// it as `past` continues after those rows (its tokens sit at positions rows .. rows + T - 1), so a
// long forward can run in parts, on different threads or Workers, one after the other.
struct KvCache {
  int rows = 0;
  std::vector<float> k, v;  // [layers, kv_heads, rows, head_dim] each
};
struct ForwardOptions {
  // HF rope_scaling. Unset max_position_embeddings / original_max_position_embeddings default to
  // the config's context; `dynamic` uses seq_len = T (HF's behaviour for one call over the input).
  RopeScaling scaling;
  bool head_stats = false;        // per-layer, per-head attention entropy and first-token mass
  // With head_stats: the lengths n (each in [1, T]) at which they are given, as means over the
  // query rows [0, n) of this one forward (a causal row does not see what follows it, so for any
  // scaling whose frequencies do not follow T this equals a forward over n tokens). Empty: {T}.
  // They come from the streamed attention itself (kernels::RowStats), not from a second pass.
  std::vector<int> stats_lengths;
  int map_layer = -1;             // >= 0: this layer's heads' maps pooled to map_px x map_px
  int map_px = 0;
  std::vector<int> logits_rows;   // rows whose full logits are returned (tests, sampling)
  // The rows before this forward's tokens (nullptr: none). A part with a past gives NLL for its own
  // rows only ([T-1]: its first row predicts its second token), so a forward over tokens [0, T) equals
  // the part over [0, a + 1) with keep = a, then the part over [a, T) with that part's cache as past.
  // Not with the attention statistics or maps (they are means over every row), nor with dynamic NTK
  // (its frequencies follow the whole input's length, which a part does not know).
  const KvCache* past = nullptr;
  int keep = 0;                   // return the past's rows and this forward's first `keep` rows (0..T)
};
struct ForwardResult {
  std::vector<float> nll;         // [T-1]: nll[i] = -log p(tok[i+1] | tok[0..i])
  std::vector<float> entropy;     // [S, L, H]: mean over query rows of -sum_j p log p (nats), S stats lengths
  std::vector<float> sink;        // [S, L, H]: mean over query rows of p(key 0)
  std::vector<float> maps;        // [H, px, px] (attention_pool.hpp's pixels)
  std::vector<float> peaks;       // [H]
  std::vector<float> logits;      // [logits_rows.size(), V]
  KvCache cache;                  // with keep > 0: past rows + keep rows
};
inline constexpr int kMaxLength = 1 << 17;
ForwardResult forward(const Model& model, const int32_t* tokens, int T, const ForwardOptions& options = {});

// --- File formats and what a loaded model is (lm_describe.cpp).
// The formats posenc reads: the one list, indexed by Source (the JS library reads it through the module).
struct FileFormat {
  Source source;
  const char* id;         // the API's name: "llama2c", "gguf", "safetensors"
  const char* label;      // for readers: "llama2.c checkpoint", "GGUF", "Hugging Face safetensors"
  const char* short_name; // in the "not a ... file" sentence: "llama2.c .bin"
  const char* extension;  // ".bin", ".gguf", ".safetensors"
  const char* signature;  // how its content is recognised, in words
};
const std::vector<FileFormat>& file_formats();
inline constexpr std::size_t kFormatHeadBytes = 64;  // detect_format reads at most this many first bytes
// The format of a model file by its content: `head` its first bytes (up to kFormatHeadBytes), `file_size` its whole
// size. GGUF by its magic, safetensors by its header length and '{', llama2.c by a header of seven int32 that form a
// valid model (or its newer export's magic). Anything else throws posenc::Error: "this file is not a GGUF, a
// llama2.c .bin or a safetensors file: it starts with ..." naming what was found.
Source detect_format(const uint8_t* head, std::size_t head_size, uint64_t file_size);

// A context to suggest for a config whose context is its converter's default, and what it rests on.
struct ContextSuggestion {
  int context = 0;      // 0: nothing in the file points to one
  std::string reason;   // a sentence for the reader
};
ContextSuggestion suggest_context(const Config& c);

// What a loaded model is, for the reader: every number from the loaded model itself.
struct ModelInfo {
  std::string family;                                // arch_name
  const FileFormat* format = nullptr;
  std::vector<std::pair<std::string, int>> dtypes;   // the file's tensors by dtype
  std::size_t parameters = 0;
  std::size_t weight_bytes = 0;                      // the memory the loaded weights take
  int context = 0;
  ContextSource context_source = ContextSource::FileMetadata;
  ContextSuggestion suggestion;                      // with ContextSource::ConverterDefault
};
ModelInfo describe(const Model& m);
// The bytes the model's weights take in memory, as stored.
std::size_t weight_bytes(const Model& m);

}  // namespace posenc::lm
