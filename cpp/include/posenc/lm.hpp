// posenc::lm: real, trained Llama-architecture language models (Llama, Qwen2), for inference only.
//
// Formats read here: llama2.c's legacy `.bin` checkpoint and `tokenizer.bin`, and GGUF v3 (v2 also
// reads). HF safetensors' JSON (config.json, the header's tensor table) is read by the JS side, which hands
// the core a Config and the named tensors (LoadInput). Each format is one row of file_formats(), with its
// detector and loader; load() loads any of them. Every loader bounds each size it reads against the bytes actually
// present before it allocates, and throws posenc::Error with a one-line message naming the problem.
//
// Weight-memory policy: every matrix stays in its file's format (lm_weights.hpp: F32, F16, BF16, and
// ggml's Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K blocks, mixed freely), and is
// multiplied 64 rows at a time, decoded to float32 (activations stay float32). Bytes per parameter:
// F32 4, F16 / BF16 2, Q8_0 1.06, Q6_K 0.82, Q5_1 0.75, Q5_0 / Q5_K 0.69, Q4_1 0.63, Q4_0 / Q4_K
// 0.56, Q3_K 0.43, Q2_K 0.33; vectors (norms, biases) become float32. Handed the file's buffer
// (Storage), a loader reads the matrices where they lie (a float32 one is transposed in place, to
// [in, out]), so the file is held once: a model needs about its file's size (Qwen2.5-0.5B Q4_K_M
// 0.39 GB, Llama-3.2-1B Q4_K_M 0.80 GB). The wasm module may grow to 4 GB. The tied classifier is
// the embedding matrix itself (a token's vector is its row). Activations are
// T x (2 dim + 3 q_dim + 4 kv_dim) floats plus [64, hidden_dim] x 2 and [64, vocab] blocks: never
// all T rows of logits, never a [T, T] attention matrix (attention is streamed; maps come from
// bands of query rows' scores, pooled as they are made, with each row's log-sum-exp from the streamed
// attention, heads x T floats; statistics from its per-row values, 2 T floats). stories260K at T = 4096: 14 MB
// peak resident, natively.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "posenc/lm_extend.hpp"
#include "posenc/lm_weights.hpp"
#include "posenc/position_types.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::lm {

// The model families posenc runs: one row each in families() (lm_family.cpp), in this order.
enum class Arch { Llama, Qwen2, Mistral, Qwen3, SmolLM3, Olmo2, Phi3, Gemma3 };
enum class QkNorm {
  None,
  PerHead,  // RMSNorm over each head's head_dim channels, one weight [head_dim] shared by the heads (Qwen3)
  Whole,    // RMSNorm over the whole projection, weights [heads * head_dim] (OLMo 2)
};
enum class Activation {
  SiLU,      // SwiGLU: silu(gate) * up
  GeluTanh,  // GeGLU: gelu(gate, tanh approximation) * up (Gemma)
};
// How llama.cpp writes and reads a family's GGUF files where they say less than config.json, or store a weight
// otherwise than HF (its convert_hf_to_gguf.py and llama-model.cpp): load_gguf builds Config::layers from these.
struct GgufRules {
  bool norms_plus_one = false;  // the converter stored each RMSNorm weight + 1 (Gemma): not added again
  int nope_every = 0;           // every nth layer (n, 2n, ...) has no RoPE (SmolLM3: 4, llama.cpp's n_no_rope_layer_step)
  // <arch>.attention.sliding_window applies to every layer (1), to every layer but each nth (n: llama.cpp's
  // set_swa_pattern, Gemma 3: 6, unless <arch>.attention.sliding_window_pattern says otherwise), or is refused (0)
  int window_every = 0;
  double window_theta = 0;      // the sliding layers' RoPE base without <arch>.rope.freq_base_swa (Gemma 3: 10000); 0: rope_theta
  bool head_dim_scale = false;  // scores scale by 1/sqrt(key_length), by 1/sqrt(hidden / heads) at 62 layers (llama.cpp's Gemma 3)
};
// One family's differences from Llama (the forward and the loaders read them; adding a family is one row).
// Per-layer rules that a config.json gives (NoPE layers, sliding windows) come as Config::layers.
struct Family {
  Arch arch;
  const char* name;      // llama.cpp's general.architecture for its GGUF files
  const char* label;     // the family as readers know it ("Gemma 3"), shown
  const char* hf_types;  // config.json model_type values, comma-separated
  const char* source;    // the HF modeling code followed
  bool qkv_bias;         // q/k/v projections have biases (Qwen2)
  QkNorm qk_norm;        // q/k RMSNorm before RoPE
  bool pre_norms;        // RMSNorm before attention and MLP (Llama); false: none (OLMo 2)
  bool post_norms;       // RMSNorm of the attention and MLP outputs before the residual add (OLMo 2)
  bool fused_qkv;        // one q/k/v projection, [q | k | v] rows (Phi-3's qkv_proj; split at load)
  bool fused_gate_up;    // one gate/up projection, [gate | up] rows (Phi-3's gate_up_proj; split at load)
  bool norm_plus_one;    // RMSNorm multiplies by (1 + weight) (Gemma; 1 is added at load)
  bool embed_scale;      // the embeddings are multiplied by sqrt(dim) (Gemma)
  Activation act;
  double attn_scalar;    // the default of Config::attn_scalar (Gemma 3's query_pre_attn_scalar: 256); 0: head_dim
  bool gguf;             // llama.cpp writes this family's GGUF files under `name`
  RopeLayout gguf_layout;  // llama.cpp's rope type for it (NORM: interleaved pairs; NEOX: half)
  GgufRules gguf_rules;
};
const std::vector<Family>& families();
const Family& family(Arch a);
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
  std::string_view source = "safetensors";  // the file format's id (its file_formats() row)
  int dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0;
  int head_dim = 0;    // 0: dim / n_heads
  int rotary_dim = 0;  // 0: head_dim; else even, in [2, head_dim] (partial rotary)
  double rope_theta = 10000.0;
  double norm_eps = 1e-5;
  bool tied_embeddings = true;
  bool qkv_bias = false;  // Qwen2 (from_tensors sets it from the family row)
  int context = 0;        // original context (>= 1)
  ContextSource context_source = ContextSource::FileMetadata;
  // Per layer (empty: every layer rotates and attends to every earlier key).
  struct Layer {
    bool rope = true;    // false: a NoPE layer (SmolLM3's no_rope_layers)
    int window = 0;      // > 0: sliding-window attention over that many keys (the query's own included)
    double theta = 0;    // > 0: this layer's RoPE base (Gemma 3's local layers); 0: rope_theta
    bool scaled = true;  // false: the forward's RoPE scaling skips this layer (Gemma 3's local layers)
  };
  std::vector<Layer> layers;
  double attn_scalar = 0;  // scores are q.k / sqrt(attn_scalar) (Gemma 3's query_pre_attn_scalar); 0: the family's, else head_dim

  int hd() const { return head_dim ? head_dim : (n_heads ? dim / n_heads : 0); }
  int rd() const { return rotary_dim ? rotary_dim : hd(); }
};
// The config's numbers, once, in the order the wasm layer passes them between the core and the JS library
// (lmConfigSlots(); enums as their index, flags as 0/1): each with its JS name and accessors. `get` gives what a loaded
// model uses (head_dim and rotary_dim resolved, the layout derived); `set` is null for a derived slot.
struct ConfigSlot {
  const char* name;
  double (*get)(const Config&);
  void (*set)(Config&, double);
};
std::span<const ConfigSlot> config_slots();
// The format's (FileFormat::layout: interleaved pairs for llama2.c, half-split for HF safetensors), or for a file
// llama.cpp wrote, the family's (Family::gguf_layout: llama.cpp's converter permutes Q and K of GGUF llama).
RopeLayout rope_layout(const Config& c);
// Throws posenc::Error naming the first field out of range (sizes bounded, heads divide, ...).
void validate(const Config& c);

// --- Tensors as they lie in a file (row-major, outermost dimension first, as PyTorch).
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
  // One block's weights: matrices [out, in] in their file's format (lm_weights.hpp), vectors float32.
  struct Layer {
    std::vector<float> attn_norm, ffn_norm;  // [D]
    Weight wq, wk, wv, wo;                   // [H*hd, D], [Hkv*hd, D], [Hkv*hd, D], [D, H*hd]
    std::vector<float> bq, bk, bv;           // Qwen2 only: [H*hd], [Hkv*hd], [Hkv*hd]
    Weight w_gate, w_up, w_down;             // [F, D], [F, D], [D, F]
    std::vector<float> q_norm, k_norm;        // Family::qk_norm: [hd] each (PerHead) or [H*hd], [Hkv*hd] (Whole)
    std::vector<float> attn_post_norm, ffn_post_norm;  // Family::post_norms: [D] each
  };
  // Bytes the weights take in memory (every matrix in its format, vectors as float32).
  std::size_t weight_bytes() const { return weight_bytes_; }

 private:
  friend Model from_tensors(const Config&, const std::vector<TensorBytes>&, Storage);
  friend std::vector<std::vector<float>*> norms(Model&);
  friend struct Access;
  Config cfg_;
  std::vector<Layer> layers_;
  Weight embed_;                 // [V, D] when untied; empty when tied
  Weight cls_;                   // [V, D]; tied: the embedding too (a token's vector is its row)
  std::vector<float> out_norm_;  // [D]
  std::size_t params_ = 0, weight_bytes_ = 0;
  Storage storage_;              // the file the matrices are read from in place (from_tensors' storage)
  std::vector<std::pair<std::string, int>> file_dtypes_;
};

// Builds a model from named tensors; names may be GGUF's or HF's. Every tensor the config needs
// must be present with its exact shape and byte count; extra tensors are refused by name except
// the ones that carry nothing for the forward (rotary tables, HF's rotary_emb.inv_freq).
// Weights are checked finite ("tensor X has a NaN at element N").
// With storage, every tensor's bytes lie in it: the model keeps it and reads its matrices there (a float32 matrix is
// transposed in place), so a file is held once; without, the matrices are copied.
Model from_tensors(const Config& config, const std::vector<TensorBytes>& tensors, Storage storage = {});

// --- llama2.c
// .bin: seven int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len; a negative
// vocab_size means an untied classifier at the end), then float32 weights in llama2.c's order.
Model load_llama2c(const uint8_t* data, std::size_t size, Storage storage = {});  // storage: data's buffer, kept

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

// --- Byte-level BPE vocabularies in GGUF (tokenizer.ggml.model "gpt2": Llama 3, Qwen2/3, SmolLM, OLMo 2): the pre-tokenizers,
// named by tokenizer.ggml.pre as llama.cpp's converter writes it. Each splits text with its regexes in turn (every piece
// of one split again by the next; the text between matches stays a piece of its own), then each piece's UTF-8 bytes
// become GPT-2's byte characters and the merges run on them. The regexes are the ones the models' own tokenizer.json
// files publish (Hugging Face / Rust regex syntax).
struct BpePreTokenizer {
  const char* names;                // tokenizer.ggml.pre values, comma-separated; the first names the row
  const char* label;                // how it splits, in plain words ("Llama 3's way (digits in runs of up to three)")
  std::vector<const char*> splits;  // the regexes, applied in turn
  bool ignore_merges;               // a piece that is a whole token is that token (Llama 3's BPE option)
  bool add_bos;                     // BOS first, when tokenizer.ggml.add_bos_token does not say (llama.cpp's default)
};
const std::vector<BpePreTokenizer>& bpe_pre_tokenizers();

struct Loaded {
  Model model;
  // The file's own RoPE scaling, which a forward applies unless given another (ForwardOptions::scaling): llama3's from
  // rope_freqs.weight, LongRoPE's from rope_factors_long / rope_factors_short, linear from <arch>.rope.scaling.*.
  RopeScaling scaling{};
  std::optional<Tokenizer> tokenizer{};  // SentencePiece vocabularies (tokenizer.ggml.model "llama")
  // Byte-level BPE vocabularies (tokenizer.ggml.model "gpt2") as Hugging Face's tokenizer.json and
  // tokenizer_config.json ({bos_token, eos_token}), for a tokenizer.json reader (the JS library's): a BPE model with the
  // file's tokens and merges (the first of a repeated merge kept, as llama.cpp does), the pre-tokenizer's splits then
  // ByteLevel, control and user-defined tokens as added tokens, BOS / EOS added as add_bos_token / add_eos_token say.
  std::string tokenizer_json{}, tokenizer_config_json{};
  std::string tokenizer_label{};  // that tokenizer in plain words ("byte-level BPE, text split Qwen2's way (...)")
  std::string tokenizer_note{};   // why there is no tokenizer, when there is none
};
// An architecture of the family table that llama.cpp writes (Family::gguf), tensors in any format of lm_dtype.cpp's
// table; everything else refused by name.
Loaded load_gguf(const uint8_t* data, std::size_t size, Storage storage = {});  // storage: data's buffer, kept

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
  // Not with the attention statistics or maps (they are means over every row), nor with dynamic NTK as one call
  // (its frequencies follow the whole input's length, which a part does not know), nor with ReRoPE (its far scores
  // need keys the cache does not carry).
  const KvCache* past = nullptr;
  int keep = 0;                   // return the past's rows and this forward's first `keep` rows (0..T)
  // Threads that share the work (threads.hpp), 1..threads::kMax; 0: threads::default_count(). Any count gives
  // the same bits.
  int threads = 0;
  // A training-free extension (lm_extend.hpp; resolved and checked against `scaling` by the forward), and dynamic
  // NTK's form (with RopeType::Dynamic only: Cached rotates each row at seq_len = its position + 1).
  Extend extend;
  DynamicForm dynamic = DynamicForm::Call;
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

// --- The forward's inputs as they lie, for a second executor of the same steps (the browser's GPU, in the JS
// library): every tensor the forward reads, and the RoPE frequencies it rotates by (lm_tensor_views.cpp).
// A matrix's bytes are in its storage format (lm_weights.hpp: F32 transposed to [cols, rows], every other dtype
// row by row in blocks); a vector (a norm's or a bias's weights) is float32 with cols 0.
struct TensorView {
  const char* kind;  // "embed", "classifier", "out_norm", then per layer "attn_norm", "wq", "wk", "wv", "bq", ... "down"
  int layer;         // -1: not a layer's
  DType dtype;
  int rows, cols;
  const uint8_t* data;
  std::size_t bytes;
};
// Every tensor of m the forward reads, model-wide ones first, then layer by layer; absent ones (an untied model's
// separate embedding is listed, a tied one's is not; biases only where the family has them) are left out.
std::vector<TensorView> tensor_views(const Model& m);
// The inverse frequencies (rotary_dim / 2) and attention scale of the forward's RoPE over `rows` positions, with
// `scaling` (its unset context keys defaulting to the config's context): what forward() rotates the scaled layers by;
// layer >= 0: what it rotates that layer by (Config::layers: its own base, and no scaling where it is not scaled).
RopeFrequencies forward_rope_frequencies(const Config& c, const RopeScaling& scaling, int rows, int layer = -1);
// --- A forward in chunks (the page's figure streams in): the same forward over tokens [0, T), run `step(n)` rows
// at a time, each step giving its rows' NLL as soon as they are computed. The keys and values stay in one cache of
// T rows allocated at the start (one layer's rows are decoded to float32 for attention when the cache is 16-bit),
// so a step costs its rows' share of the whole forward and nothing is copied between steps.
// Every RoPE scaling is computed at the whole input's length T, which the stream knows from the start: dynamic NTK's
// frequencies (seq_len = T) are the one-call forward's, as HF's model gives for one call over the input. (HF's
// generate with a cache instead recomputes them per call from the largest position so far and leaves earlier keys
// rotated at the older frequencies: a different model per length, not the one drawn.) A sliding window, the
// attention statistics (means of per-row values over rows [0, n)) and the pooled maps (a pixel is a maximum over
// its rows) are taken row by row, so the stream's result equals forward()'s to float rounding with a float32 cache.
enum class KvType { F32, F16 };
inline constexpr KvType kKvTypes[] = {KvType::F32, KvType::F16};  // every KvType, in order
const char* kv_type_name(KvType t);  // "float32", "float16"
// The cache's bytes per element: 4 or 2.
int kv_bytes(KvType t);
// The rule: float32 while the whole cache of a T-token run fits in kKvF32Bytes in float32 (every stories260K run:
// 1.3 kB a token, and the accuracy tests' models), float16 above (as llama.cpp's default cache; half the memory, an
// NLL change of about 1e-3 nats, measured in the tests against the float32 cache).
inline constexpr std::size_t kKvF32Bytes = std::size_t{64} << 20;
KvType kv_type_for(const Config& c, int T);
// Bytes of a T-row cache of config c: layers x kv heads x T x head_dim x 2 (keys, values) x kv_bytes.
std::size_t kv_cache_bytes(const Config& c, int T, KvType t);
struct StreamOptions {
  RopeScaling scaling;             // as ForwardOptions::scaling
  bool head_stats = false;         // as ForwardOptions
  std::vector<int> stats_lengths;  // as ForwardOptions (empty: {T})
  int map_layer = -1;
  int map_px = 0;
  KvType kv = KvType::F32;
  int chunk = 256;                 // the rows a step runs at most (for the memory plan; step's n is checked against it)
  int threads = 0;                 // as ForwardOptions::threads
  Extend extend;                   // as ForwardOptions
  DynamicForm dynamic = DynamicForm::Call;
};
// The memory a stream over T tokens takes beyond the model's weights, by the same sizes the stream allocates:
// the cache, and the working memory of one step (activations of `chunk` rows, the 64-row blocks of the FFN and the
// logits, one layer's decoded keys and values with a 16-bit cache, the maps' scratch).
struct StreamMemory {
  std::size_t weights = 0, cache = 0, work = 0;
  std::size_t total() const { return weights + cache + work; }
};
StreamMemory stream_memory(const Model& m, int T, const StreamOptions& o);
class Stream {
 public:
  // tokens [T] are copied; the model must outlive the stream. Checks as forward() does.
  Stream(const Model& m, const int32_t* tokens, int T, const StreamOptions& o);
  ~Stream();
  Stream(Stream&&) noexcept;
  Stream& operator=(Stream&&) noexcept;
  int length() const;
  int done() const;  // rows run so far
  // Runs rows [done, done + n) (n in [1, chunk], clamped to T): the NLL of each of them that predicts a token
  // (row i predicts token i + 1; the last row predicts none), in row order.
  std::vector<float> step(int n);
  // After the last row: the attention statistics, maps and peaks, as forward() gives them (nll left empty).
  ForwardResult result() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// --- File formats and what a loaded model is (lm_describe.cpp).
// What a format's loader is given: the model file, and what came beside it.
struct LoadInput {
  const uint8_t* data = nullptr;  // the model file's bytes
  std::size_t size = 0;
  Storage storage;                // data's buffer, kept by the model (empty: the model copies what it keeps)
  // A tokenizer file given beside the model, for a format that takes one and reads it in the core (llama2.c's
  // tokenizer.bin); nullptr: none given.
  const uint8_t* tokenizer = nullptr;
  std::size_t tokenizer_size = 0;
  // For a format whose architecture and tensor table are JSON (FileFormat::config_json), read by the JS library: the
  // config (config.json) and the tensors (the header's table; their bytes in storage).
  const Config* config = nullptr;
  std::vector<TensorBytes> tensors;
};
// The formats posenc reads: one table, one row per format (the JS library reads it through the module, and loads
// every format through load()). Each row is defined beside its reader (lm_llama2c.cpp, lm_gguf_model.cpp,
// lm_safetensors.cpp) and listed once in file_formats(); its place there is its index in the API.
struct FileFormat {
  const char* id;          // the API's name: "llama2c", "gguf", "safetensors"; Config::source
  const char* label;       // for readers: "llama2.c checkpoint", "GGUF", "Hugging Face safetensors"
  const char* short_name;  // in the "not a ... file" sentence: "llama2.c .bin"
  const char* extension;   // ".bin", ".gguf", ".safetensors"
  const char* signature;   // how its content is recognised, in words
  const char* inputs;      // the files the JS loadLanguageModel takes beside the model, by its keys, comma-separated
  bool config_json;        // its architecture is config.json and its tensor table JSON: the library reads both (LoadInput)
  bool tokenizer_json;     // a tokenizer given beside it is tokenizer.json, which the library reads (else the core does)
  bool llamacpp;           // written by llama.cpp's converter: the family's gguf_layout and gguf_rules apply
  RopeLayout layout;       // else its RoPE pair layout
  // Whether a file's first bytes (up to kFormatHeadBytes) are this format's; formats' signatures do not overlap.
  bool (*detect)(const uint8_t* head, std::size_t n);
  Loaded (*load)(LoadInput&& in);
};
const std::vector<FileFormat>& file_formats();
// The index of the format with this id; throws posenc::Error (Range) naming the ids for any other.
std::size_t format_index(std::string_view id);
// Loads a model file of format file_formats()[format], as its row's loader does.
Loaded load(std::size_t format, LoadInput&& in);
inline constexpr std::size_t kFormatHeadBytes = 64;  // detect_format reads at most this many first bytes
// The format of a model file by its content (its index in file_formats()): `head` its first bytes (up to
// kFormatHeadBytes), `file_size` its whole size, asked of each row's detector. GGUF by its magic, safetensors by its
// header length and '{', llama2.c by a header of seven int32 that form a valid model (or its newer export's magic).
// Anything else throws posenc::Error: "this file is not a llama2.c .bin, a GGUF or a safetensors file: it starts
// with ..." naming what was found.
std::size_t detect_format(const uint8_t* head, std::size_t head_size, uint64_t file_size);

// A context to suggest for a config whose context is its converter's default, and what it rests on.
struct ContextSuggestion {
  int context = 0;      // 0: nothing in the file points to one
  std::string reason;   // a sentence for the reader
};
ContextSuggestion suggest_context(const Config& c);

// What a loaded model is, for the reader: every number from the loaded model itself.
struct ModelInfo {
  std::string family;                                // arch_name
  std::string family_label;                          // the family table's label ("Gemma 3")
  const FileFormat* format = nullptr;
  std::vector<std::pair<std::string, int>> dtypes;   // the file's tensors by dtype
  std::size_t parameters = 0;
  std::size_t weight_bytes = 0;                      // the memory the loaded weights take
  int context = 0;
  ContextSource context_source = ContextSource::FileMetadata;
  ContextSuggestion suggestion;                      // with ContextSource::ConverterDefault
};
ModelInfo describe(const Model& m);

}  // namespace posenc::lm
