// What a tiny model is made of (ModelConfig) and how one forward is asked for (ForwardOptions): the words the model
// (posenc/model.hpp) and its encodings' hooks share, apart from the model itself.
#pragma once

#include <cstdint>
#include <optional>

#include "posenc/encoding.hpp"        // Encoding, the registry
#include "posenc/position_types.hpp"  // OutOfRange, RopeLayout
#include "posenc/rope_scaling.hpp"    // RopeScaling

namespace posenc {

// Error messages name fields in the JS spelling (dModel, maxLength, ...). The ranges and
// defaults are those of config_fields() (posenc/model.hpp: one schema; the defaults are these initialisers).
struct ModelConfig {
  Encoding encoding = parse_encoding("rope");
  int layers = 2;          // [1, 64]
  int heads = 4;           // [1, 64], divides d_model
  int d_model = 64;        // [2, 4096]
  int mlp_ratio = 4;       // [1, 16]: hidden width = mlp_ratio * d_model
  int vocab_size = 0;      // [2, 65536]: must be set
  int max_length = 64;     // [1, 65536]: training length; rows of the learned table
  uint64_t seed = 1;       // init seed (PCG32 via splitmix64)
  RopeLayout rope_layout = RopeLayout::Half;
  double rope_base = 10000.0;  // > 1
  int rotary_dim = 0;          // 0 = head_dim; else even, in [2, head_dim]
  int t5_num_buckets = 32;     // posenc::t5_validate, unidirectional
  int t5_max_distance = 128;
  int shaw_k = 16;             // clip distance, [0, 4096]
  OutOfRange learned_policy = OutOfRange::Error;  // positions >= max_length (learned only)
  // Checkpoint version 2 on (version 1 checkpoints read these defaults):
  int xpos_scale_base = 512;  // xPos: the scale of pair i is zeta_i^(n / scale_base)
  double xpos_gamma = 0.4;    // xPos: zeta_i = (2i/d + gamma) / (1 + gamma)
  double rope_fraction = 0.75;  // p-RoPE: fraction of the rotary pairs kept (the highest frequencies)
  int fire_hidden = 32;         // FIRE: hidden width of its MLP
  double fire_c = 1.0;          // FIRE: psi(x) = log(c x + 1)
  int fire_threshold = 0;       // FIRE: L in psi(max(L, i)); 0 = maxLength
  int random_length = 1024;     // randomized positions: sampled from [0, random_length)
  // Attention mask. true: causal (the decoder above; every encoding). false: bidirectional, every
  // query sees every key (an encoder, e.g. Ruoss et al.'s blank-slot tasks, posenc/tasks_blank.hpp);
  // refused (RangeError naming the encoding) by the encodings whose bias or scale is defined for
  // keys j <= i only (T5, Shaw, FIRE, xPos). Native only: not in the config schema, so neither
  // checkpoints nor the wasm/JS API carry it, and save_checkpoint refuses a bidirectional model.
  bool causal = true;

  int head_dim() const { return heads > 0 ? d_model / heads : 0; }
  int effective_rotary_dim() const { return rotary_dim == 0 ? head_dim() : rotary_dim; }
  void validate() const;  // throws posenc::Error naming the field
};

struct ForwardOptions {
  // RoPE only (RangeError otherwise): evaluate with other inverse frequencies
  // (linear / dynamic / yarn / llama3 / longrope), without retraining. The
  // frequencies come from posenc::rope_frequencies(rotary_dim, rope_base, *rope_scaling, T).
  std::optional<RopeScaling> rope_scaling;
  // Keep the attention probabilities of sequence 0: attention_maps() = [L, H, T, T].
  bool want_attention = false;
  // With want_attention: -1 keeps every layer's maps; k in [0, L) keeps layer k's only
  // (attention_maps() = [1, H, T, T], equal to the all-layer maps' slice k), and every other
  // layer streams as without maps (evaluate then also skips the last layer's unscored queries
  // when k < L - 1). RangeError naming `attentionLayer` otherwise.
  int attention_layer = -1;
  // Multiplies the q.k term of every attention logit, on top of 1/sqrt(head_dim): scores =
  // attention_logit_scale * q k^T / sqrt(hd) + the encoding's bias (ALiBi, T5, Shaw, FIRE biases
  // are not scaled). An evaluation option (e.g. log-length scaling, ln L / ln T_train; see
  // SweepOptions::log_length_scaling); train_step takes it too, and its backward uses the same
  // scale. RangeError naming `attentionLogitScale` unless finite and > 0.
  float attention_logit_scale = 1.0f;
  // Randomized positions (rope_random, learned_random; other encodings only check the lengths).
  // Example b's positions are a sorted draw of lengths[b] distinct values of [0, randomLength), made
  // for that example alone; its padding tokens (t >= lengths[b]) continue them by one per token,
  // capped at randomLength - 1. lengths: B integers in [1, T] (the tokens before padding), or
  // nullptr: T for every example. RangeError naming `lengths[b]` otherwise.
  const int32_t* lengths = nullptr;
  // Inference: which draw. Evaluation is a pure function of (seed, example index, length, draw), so
  // repeated evaluations agree and a caller averages over draws by passing 0, 1, 2, ...; draw 0 is
  // also the first training step's. Training ignores it: step s of AdamW uses draw s.
  uint64_t position_draw = 0;
  // The index of this call's example 0 in the caller's numbering: example b's draw is keyed by
  // first_example + b, so a set of sequences split into batches gets the same draws however it is
  // split (posenc::sweep passes each chunk's offset). Training keys by the batch index alone.
  uint64_t first_example = 0;
};

}  // namespace posenc
