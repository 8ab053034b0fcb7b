// Internal: ModelImpl, shared by model.cpp (forward/backward) and
// optimizer.cpp (AdamW, clipping).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "posenc/model.hpp"

namespace posenc {

inline constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

// Offsets (in floats) of one block's tensors, into the parameter / gradient buffers.
struct LayerOffsets {
  std::size_t ln1_w, ln1_b;    // [C], [C]
  std::size_t qkv_w, qkv_b;    // [C, 3C], [3C]   q | k | v, head h at columns h*hd .. (h+1)*hd of each third
  std::size_t proj_w, proj_b;  // [C, C], [C]
  std::size_t ln2_w, ln2_b;    // [C], [C]
  std::size_t fc_w, fc_b;      // [C, F], [F]
  std::size_t fcp_w, fcp_b;    // [F, C], [C]
};

// Activations of one block (pointers into Impl::arena). N = B*T. In inference every layer
// points at the same set (nothing is kept for a backward pass).
struct LayerActs {
  float* ln1;       // [N, C]
  float* ln1_mean;  // [N]
  float* ln1_rstd;  // [N]
  float* qkv;       // [N, 3C]
  float* q;         // [B, H, T, hd] (rotated, for RoPE)
  float* k;         // [B, H, T, hd] (rotated, for RoPE)
  float* v;         // [B, H, T, hd]
  float* att;       // training: [B, H, T, T] probabilities; inference with maps: one shared [T, T]
                    // scratch; streaming inference: none
  float* atty;      // [N, C] heads merged (P @ v)   (last layer in training: [B, T - q0, C], also below)
  float* res2;      // [N, C] after the attention residual
  float* ln2;       // [N, C]
  float* ln2_mean;  // [N]
  float* ln2_rstd;  // [N]
  float* fch;       // [N, F] pre-GELU
  float* fcg;       // [N, F] post-GELU
  float* fct;       // [N, F] tanh inside the GELU (kept for backward)
  float* res3;      // [N, C] block output
};

struct Acts {
  float* x0 = nullptr;  // [N, C] token embedding (+ absolute position)
  std::vector<LayerActs> layer;
  float* lnf = nullptr;       // [N, C]
  float* lnf_mean = nullptr;  // [N]
  float* lnf_rstd = nullptr;  // [N]
  float* logits = nullptr;    // [N, V]
  float* probs = nullptr;     // [N, V] softmax (scored rows), then dlogits in backward
  // per-head scratch
  float* bias = nullptr;  // the encoding's bias scratch (EncodingModel::bias_floats), e.g. [T, T]
  float* rel = nullptr;   // the encoding's per-query scratch (EncodingModel::rel_floats), e.g. Shaw [T, 2k+1]
  float* yh = nullptr;    // [T, hd] one head's output
  // backward scratch (training only)
  float* dres = nullptr;   // [N, C] gradient of the residual stream
  float* dln = nullptr;    // [N, C]
  float* datty = nullptr;  // [N, C]
  float* dbuf = nullptr;   // [N, F]
  float* dqkv = nullptr;   // [N, 3C]
  float* dq = nullptr;     // [B, H, T, hd]
  float* dk = nullptr;     // [B, H, T, hd]
  float* dv = nullptr;     // [B, H, T, hd]
  float* dy = nullptr;     // [T, hd]
  float* vt = nullptr;     // [hd, T] one head's v transposed
  float* dP = nullptr;     // [T, T]
  float* drel = nullptr;   // same size as rel
};

class EncodingModel;

struct ModelImpl {
  ModelConfig cfg;
  int L = 0, H = 0, C = 0, hd = 0, F = 0, V = 0;
  float scale = 1.0f;  // 1/sqrt(hd)

  std::vector<TensorInfo> tensors;
  std::vector<float> init_std;  // per tensor: NaN = the model's rule by name, else the encoding's N(0, std)
  std::size_t wte = kAbsent, lnf_w = kAbsent, lnf_b = kAbsent, lm_head = kAbsent;
  std::vector<LayerOffsets> layer;
  std::size_t nparams = 0;
  std::vector<float> params, grads, adam_m, adam_v;

  AdamWOptions opt;
  long long step = 0;
  int trained_length = 0;
  int scored_length = 0;  // 1 + the last position any training batch scored (Model::scored_length)

  // The encoding's hooks and its state (tables, tensor offsets): encoding_model.hpp.
  std::unique_ptr<EncodingModel> enc;

  // Activations.
  std::vector<float> arena;
  Acts acts;
  int B = 0, T = 0;
  bool training = false;
  bool streaming = false;  // inference without attention maps: attention never forms [T, T]
  bool can_stream = true;  // the encoding's bias fits the streaming kernel (registry)
  // First query row of the LAST layer: training sets it to the first scored position
  // (rows before it need no logits), so that layer's attention output, MLP, final LN
  // and head run on [B, T - q0] rows; inference uses 0.
  int q0 = 0;
  std::vector<int32_t> targets_q;  // targets of rows t >= q0, [B, T - q0]
  std::vector<float> att_maps;  // [L, H, T, T] of sequence 0, when asked for ([1, H, T, T]: one layer)
  // Training's micro-batches (Model::forward_backward): (u, b) per scored sequence, sorted by u; the
  // gathered tokens and targets of one micro-batch, [Bg, Tg].
  std::vector<std::pair<int, int>> mb_order;
  std::vector<int32_t> mb_tokens, mb_targets;
  // Per row b of the current forward, for the random-position encodings (randomized.cpp): which
  // example of the caller's batch it is (a micro-batch gathers rows out of order) and that example's
  // length (ForwardOptions::lengths, else the caller's T; a micro-batch may run shorter than it). [B]
  std::vector<uint64_t> example_index;
  std::vector<int> example_length;
  uint64_t position_draw = 0;  // the draw of this forward: the AdamW step in training, else the option's
  // Checks opt.lengths against (B, T) (RangeError naming lengths[b]).
  void check_lengths(const ForwardOptions& opt, int B, int T) const;
  // Rows b = 0..B-1 are examples order[b] (nullptr: b) of a caller's batch of length T_caller.
  void set_examples(const ForwardOptions& opt, int B, int T_caller, const std::pair<int, int>* order);

  explicit ModelImpl(const ModelConfig& c);
  // Validates, makes the encoding and lays out the tensors; no buffers, no weights (tensor_table).
  struct LayoutOnly {};
  ModelImpl(const ModelConfig& c, LayoutOnly);
  ~ModelImpl();
  void build_layout();
  void init_weights();

  // Checks B and T and lays out activations for them (and map_count layers of maps with
  // want_attention); throws RangeError past the limits.
  void prepare(int B, int T, bool training, bool want_attention, int map_count);
  // The layers whose maps opt asks for, [first, last]: every layer, attention_layer's only, or none
  // (last = -1). RangeError naming attentionLayer if it is not -1 or in [0, L).
  struct MapLayers {
    int first = 0, last = -1;
    int count() const { return last - first + 1; }
  };
  MapLayers map_layers(const ForwardOptions& opt) const;
  void check_inputs(const int32_t* tokens, const int32_t* targets, int B, int T) const;
  void check_position_options(const ForwardOptions& opt) const;  // RangeError: ropeScaling on an encoding without it
  void prepare_position_tables(int T, const ForwardOptions& opt);   // checks opt, then the encoding's tables for T

  void forward(const int32_t* tokens, MapLayers kept);  // kept: the layers that keep maps (map_layers)
  void backward(const int32_t* tokens);
  float* P(std::size_t off) { return params.data() + off; }
  float* G(std::size_t off) { return grads.data() + off; }
};

}  // namespace posenc
