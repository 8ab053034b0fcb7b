// posenc: a tiny decoder-only transformer that trains fast, in the style of
// karpathy/llm.c's train_gpt2.c (each layer's backward next to its forward).
//
//   tokens [B,T] -> wte[token] (+ sinusoidal or learned position, for those encodings)
//     -> L pre-LN blocks:  x += proj(causal MHA(LN1(x)))   (position enters here for
//                           (or bidirectional MHA: ModelConfig::causal false)
//                           T5 / ALiBi / RoPE / Shaw)
//                          x += W2 GELU(W1 LN2(x))           (GELU: GPT-2's tanh form)
//     -> final LN -> lm_head -> logits [B,T,V]
//
// Design choices (see also the tensor table below):
//  - Linear weights are stored [in, out] (y = x @ W + b), unlike PyTorch's [out, in].
//  - Unembedding is a separate matrix (NOT tied to wte): lm_head [d_model, V].
//  - AdamW weight decay applies to matmul weights only (qkv, attn proj, mlp fc,
//    mlp proj, lm_head). Not to biases, LayerNorm, the token embedding, position
//    tables, T5 bucket biases or Shaw embeddings.
//  - T5: ONE bucket-bias table [heads, num_buckets] shared by all layers (as in
//    the T5 paper/HF, where only the first layer owns it). Buckets are
//    unidirectional (causal), relative = key_pos - query_pos <= 0.
//  - Shaw: one table [2k+1, head_dim] per layer, shared by the heads; score(i,j)
//    = q_i . (k_j + a_{clip(j-i,-k,k)+k}) / sqrt(head_dim). With a causal mask
//    only rows 0..k are ever used (j <= i); rows k+1..2k stay at their init.
//  - Sinusoidal: the table is added to the token embedding multiplied by
//    `kSinusoidalScale` (see below) so that at init it is on the scale of wte.
//  - All parameters live in one contiguous float buffer, gradients in another of
//    the same layout; tensors() names each (name, offset, shape, decay).
//  - Speed: single thread, no allocation per step once buffers have grown.
//    Attention products skip the masked upper triangle; when training (and in
//    evaluate) the last layer only runs its queries, MLP, final LN and head for
//    positions from the first scored one on (copy: the second half).
//  - Memory: inference without attention maps streams attention (online softmax over key
//    blocks, kernels::attention_forward) and reuses one set of activations for every layer,
//    so it grows linearly with T (T = 16384 fits); maps and training materialise [T, T].
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <span>

#include "posenc/encoding.hpp"        // Encoding, the registry
#include "posenc/model_config.hpp"    // ModelConfig, ForwardOptions
#include "posenc/position_types.hpp"  // OutOfRange, RopeLayout

namespace posenc {

const char* out_of_range_name(OutOfRange p);       // "error", "clamp", "zero"
OutOfRange parse_out_of_range(const std::string& name);  // RangeError naming `learnedPolicy`

// Sinusoidal positions are added as kSinusoidalScale * PE (PE entries in [-1, 1]).
// Unscaled, the table would be ~35x larger than the N(0, 0.02) token embedding at
// init and drown it; this scale puts them at the same RMS (0.02).
inline constexpr float kSinusoidalScale = 0.02f * 1.41421356f;

// One named tensor inside the parameter (and gradient) buffer.
struct TensorInfo {
  std::string name;        // "wte", "wpe", "t5.bias", "h0.ln1.weight", "h0.attn.qkv.weight", ..., "lm_head.weight"
  std::size_t offset = 0;  // in floats, into parameters() / gradients()
  std::vector<int> shape;  // row-major
  std::size_t size = 0;    // product of shape
  bool decay = false;      // AdamW weight decay applies
};

struct LossResult {
  float loss = 0.0f;      // mean cross-entropy over scored positions (0 if none)
  float accuracy = 0.0f;  // fraction of scored positions with argmax(logits) == target
  int scored = 0;         // positions with target >= 0
  int correct = 0;
  float grad_norm = 0.0f;  // train_step only: global gradient norm before clipping
};

// AdamW, with the experiment's settings as defaults (npm run train, the page's training and
// JS train() all start from these: optimizer_fields() below). beta2 = 0.95: on reverse at the
// experiment's size it beat 0.999 (cpp/tools/train_main.cpp); on copy at T=64, B=16 0.999 was
// faster (bench/train_native.cpp, which sets its own --beta2).
struct AdamWOptions {
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;  // decoupled; tensors with decay == true only
  float grad_clip = 1.0f;     // global L2 norm; <= 0 disables
};
// beta1, beta2 in [0, 1), eps > 0, weight_decay >= 0, grad_clip finite (RangeError naming the field).
void validate_adamw(const AdamWOptions& o);
// The AdamW settings as a schema (JS names, ranges; defaults are AdamWOptions{}'s).
struct OptimizerField {
  const char* name;  // "beta2"
  double min, max;
  bool min_exclusive, max_exclusive;
  float AdamWOptions::*member;
  double default_value() const { return AdamWOptions{}.*member; }
};
std::span<const OptimizerField> optimizer_fields();

// ---- The model-config schema: every ModelConfig field, once, in checkpoint order.
// Checkpoints (read/write), the wasm bindings (values as doubles, in this order) and the JS
// library's validation (configSchema() in the module) all read this table.
enum class FieldType { Int, UInt64, Float, Choice };
struct ConfigField {
  const char* name;          // JS name: "dModel"
  // For readers of the API's types (types/posenc.d.ts's ModelOptions is generated from it by scripts/registry.js):
  // what the field means and any bound the range below does not say; "" when the range says it all.
  const char* doc;
  FieldType type;
  double min, max;           // Int/UInt64/Float: allowed range (Choice: 0 .. count-1)
  bool min_exclusive;        // Float: min itself not allowed
  bool required;             // no usable default (vocabSize)
  uint32_t since;            // first checkpoint version that stores it
  std::vector<std::string> choices;  // Choice: the names, by value
  double (*get)(const ModelConfig&);
  void (*set)(ModelConfig&, double);
  double default_value() const;  // its value in ModelConfig{}
};
std::span<const ConfigField> config_fields();
// Whether field f is checked for (and read by) encoding e: the fields an encoding lists in
// the registry (EncodingInfo::fields) apply only to it (and to others listing them); fields no
// encoding lists, and choices, apply to every model.
bool field_applies(const ConfigField& f, Encoding e);
// Range checks of every field that applies (RangeError naming the field); ModelConfig::validate
// adds the cross-field and per-encoding checks.
void validate_config_fields(const ModelConfig& c);

// Per position, what training has done for it (see Model::position_status).
enum class PositionStatus : uint8_t {
  Trained = 0,     // p < scored_length(): reached the training loss (got a gradient)
  Untrained = 1,   // never reached the training loss: p >= scored_length(), e.g. position T-1 of
                   // next-token training at T (for Learned: its row never got a gradient)
  OutOfTable = 2,  // Learned only: p >= max_length, handled by learned_policy
};

// Number of parameters of a model with this config (validates it first).
std::size_t count_parameters(const ModelConfig& config);
// The tensor table a Model of this config has (Model::tensors()), without allocating or
// initialising any weights (validates the config first).
std::vector<TensorInfo> tensor_table(const ModelConfig& config);

// Linear warmup (step 0 -> max_lr/warmup ... step warmup-1 -> max_lr), then cosine
// decay to min_lr at total_steps; min_lr after. step >= 0, 0 <= warmup, total_steps >= 1.
float lr_at(long long step, long long total_steps, long long warmup, float max_lr, float min_lr);

// Size limits checked up front (RangeError), before any work or allocation.
inline constexpr int kMaxSequenceLength = 16384;
inline constexpr std::size_t kMaxParameters = std::size_t(1) << 25;          // 32M floats
inline constexpr std::size_t kMaxActivationFloats = std::size_t(1) << 27;    // 512 MB of activations
// Learning rates allowed by train_step / adamw_update (the JS API's bound): a larger one turns the
// weights to inf/NaN in a single step (found by fuzz_model).
inline constexpr float kMaxLearningRate = 10.0f;

struct ModelImpl;  // opaque (cpp/src/model/model_impl.hpp); the encodings' hooks see it as well

class Model {
 public:
  // Validates the config, lays out the tensors and initialises them from config.seed:
  // GPT-2 style N(0, 0.02), residual projections (attn proj, mlp proj) N(0, 0.02/sqrt(2L)),
  // biases 0, LayerNorm weight 1 / bias 0. Same seed + config => bit-identical weights.
  explicit Model(const ModelConfig& config);
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const;
  std::size_t num_parameters() const;
  const std::vector<TensorInfo>& tensors() const;
  const TensorInfo* find_tensor(const std::string& name) const;  // nullptr if absent
  float* parameters();
  const float* parameters() const;
  float* gradients();
  const float* gradients() const;

  // ---- inference
  // tokens: B*T ids in [0, vocab_size). Returns logits [B, T, V], valid until the
  // next call on this model. Works for any T up to kMaxSequenceLength (T > max_length
  // included: scratch grows), except Learned with learned_policy Error (RangeError).
  const float* forward(const int32_t* tokens, int B, int T, const ForwardOptions& options = {});
  // forward + cross-entropy/accuracy; targets: B*T ids in [0, V) or -1 (not scored).
  // (Skips the last layer's work before the first scored position unless want_attention.)
  LossResult evaluate(const int32_t* tokens, const int32_t* targets, int B, int T,
                      const ForwardOptions& options = {});
  // [L, H, T, T] attention probabilities of sequence 0 from the last forward/evaluate
  // with want_attention (row i = query i; entries j > i are 0); [1, H, T, T] with an
  // attention_layer. Empty otherwise.
  const std::vector<float>& attention_maps() const;
  int last_length() const;  // T of the last forward

  // ---- training
  // Zeroes the gradients, runs forward (keeping activations), the loss, and backward:
  // gradients() then hold d(mean loss)/d(parameters). Records T as trained. Runs as micro-batches
  // of up to 8 sequences sorted by their last target, each only as long as that reaches (the
  // positions after a sequence's last target cannot reach the loss): the same gradients up to
  // the order of float sums, at about half the cost on padded variable-length batches.
  // options: rope_scaling trains with those frequencies (fine-tuning PI / YaRN); want_attention must be false.
  LossResult forward_backward(const int32_t* tokens, const int32_t* targets, int B, int T,
                              const ForwardOptions& options = {});
  float gradient_norm() const;        // global L2 norm of gradients()
  float clip_gradients(float max_norm);  // scales gradients to norm <= max_norm; returns the norm before
  void adamw_update(float lr);        // one AdamW step on gradients() (step counter + 1); validates the options
  // forward_backward + clip (options.grad_clip) + adamw_update. Returns loss/accuracy
  // of the batch before the update, and the gradient norm before clipping. A step whose
  // gradient norm is not finite (a diverged model) throws RangeError and updates nothing.
  LossResult train_step(const int32_t* tokens, const int32_t* targets, int B, int T, float lr,
                        const ForwardOptions& options = {});
  AdamWOptions& optimizer_options();
  const AdamWOptions& optimizer_options() const;
  long long step() const;   // AdamW updates done
  void reset_optimizer();   // zero moments and the step counter

  // ---- positions
  // Largest T used by forward_backward so far (0 if never trained; restored by checkpoints).
  int trained_length() const;
  void set_trained_length(int t);  // also sets scored_length() to max(0, t - 1) (checkpoints)
  // 1 + the last position a training batch scored (0 if never trained): by causality the
  // positions below it got a gradient, the ones from it on none. After set_trained_length(t)
  // (a loaded checkpoint), t - 1: next-token training at t never scores position t - 1.
  int scored_length() const;
  // Status of positions 0..T-1 (see PositionStatus).
  std::vector<PositionStatus> position_status(int T) const;
  // Positions in [0, T) whose status is not Trained.
  std::vector<int32_t> untrained_positions(int T) const;

  using Impl = ModelImpl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace posenc
