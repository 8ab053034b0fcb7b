// Length-generalisation sweep: evaluate a trained model on a task at many
// lengths (typically 0.5x .. 8x its training length) and report, per length,
// loss and accuracy, accuracy by relative position, the ideal predictor's loss
// and accuracy, and per attention head the mean entropy and mean distance of
// its attention; for Retrieval also a needle-depth x length accuracy grid.
// Optionally with an eval-time RoPE scaling (position interpolation, NTK,
// dynamic NTK, YaRN), applied without retraining.
//
// Pure C++ on top of Model and TaskGenerator (no I/O): the native CLI uses it,
// and the wasm layer can later. Deterministic: the numbers are a pure function
// of (model weights, task options, sweep options).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "posenc/model.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/tasks.hpp"

namespace posenc {

// Eval-time RoPE context extension, with s = L / train_length at evaluation length L.
// Applied only when L > train_length (s > 1): at L <= train_length every method is the
// plain model (no override), so its rows equal the unscaled ones there.
//   None     no override.
//   Linear   position interpolation (Chen et al. 2023): HF {rope_type linear, factor s};
//            every frequency / s.
//   Ntk      static NTK-aware scaling: base' = base * s^(d/(d-2)) (d = rotary dim). HF has
//            no static "ntk" rope_type; this base is exactly HF's {rope_type dynamic,
//            factor 1, max_position_embeddings train_length} at seq_len L, which is how it
//            is expressed here.
//   Dynamic  HF dynamic NTK {rope_type dynamic, factor f = SweepOptions::dynamic_factor,
//            max_position_embeddings train_length}, as HF runs it when each token is predicted
//            from the sequence so far (generation without a cache): the prediction at position t
//            uses seq_len = t + 1, base'(t) = base * (f (t + 1) / train_length - (f - 1))^(d/(d-2))
//            for t + 1 > train_length, the trained base before; so it costs one forward per
//            scored position past train_length. (sweep_rope_scaling gives the seq_len-L block;
//            the attention statistics are those of one forward at seq_len L.)
//   Yarn     HF {rope_type yarn, factor s, original_max_position_embeddings train_length}
//            with HF's defaults (beta_fast 32, beta_slow 1, attention factor 0.1 ln s + 1).
enum class SweepScaling { None, Linear, Ntk, Dynamic, Yarn };
inline constexpr int kSweepScalingCount = 5;
const char* sweep_scaling_name(SweepScaling s);             // "none", "linear", "ntk", "dynamic", "yarn"
SweepScaling parse_sweep_scaling(const std::string& name);  // RangeError naming `scaling`

// The override used at length L (unset for None and for L <= train_length).
std::optional<RopeScaling> sweep_rope_scaling(SweepScaling method, int length, int train_length,
                                              double dynamic_factor = 2.0);

struct SweepOptions {
  std::vector<int> lengths;     // evaluation lengths, each >= task_min_length
  int train_length = 0;         // the length trained at (RoPE scalings use it); 0 = model.trained_length()
  int sequences = 64;           // sequences per length
  int max_batch_tokens = 2048;  // forward chunks of at most max(1, this / L) sequences (memory guard)
  uint64_t seed = 1;            // evaluation data: each length (and grid cell) has its own generator
  SweepScaling scaling = SweepScaling::None;  // RoPE models only (RangeError otherwise)
  double dynamic_factor = 2.0;
  // Set: this RoPE override at EVERY length (a model fine-tuned with it, e.g. PI with factor 4
  // fine-tuned at 4x); `scaling` then only names the row.
  std::optional<RopeScaling> fixed_rope_scaling;
  int position_bins = 16;       // accuracy by relative position t / L of the predicting position
  int attention_sequences = 4;  // attention statistics averaged over this many sequences (0 = none)
  // Log-length logit scaling at evaluation: at L > train_length every attention logit's q.k term
  // is multiplied by ln(L) / ln(train_length) (ForwardOptions::attention_logit_scale); at
  // L <= train_length the plain model. Needs train_length >= 2; not with scaling Dynamic.
  bool log_length_scaling = false;
  // Retrieval and KthRetrieval only: needle depths of the depth x length grid, and sequences per cell.
  std::vector<double> grid_depths = {0.0, 0.25, 0.5, 0.75, 1.0};
  int grid_sequences = 64;
  void validate() const;
};

// Attention statistics of one head: means over the query rows i = 0 .. T-1 of
//   entropy_i  = -sum_j p_ij ln p_ij           (nats; 0 for row 0, at most ln(i + 1))
//   distance_i =  sum_j p_ij (i - j)           (how far back the head looks, in tokens)
// and the mean over the query rows i = 1 .. T-1 of
//   sink_i     =  p_i0                         (the mass on the first token, BOS; row 0 is
//                                               1 by causality and is left out; 0 when T = 1)
struct HeadStats {
  int layer = 0;
  int head = 0;
  double entropy = 0.0;
  double distance = 0.0;
  double sink = 0.0;
};
// One head's map: probabilities [T, T], row i = query i (entries j > i are ignored).
HeadStats attention_head_stats(const float* map, int T);

struct LengthResult {
  int length = 0;
  double loss = 0.0;       // mean cross-entropy over scored positions (nats)
  double accuracy = 0.0;   // fraction of scored positions with argmax == target
  int scored = 0;
  int correct = 0;
  double oracle_loss = 0.0;      // the ideal predictor on the same sequences (TaskGenerator::oracle)
  double oracle_accuracy = 1.0;
  // position_bins values: accuracy over scored positions t with floor(bins * t / L) == bin;
  // NaN where that bin has no scored position (scored_by_position == 0).
  std::vector<double> accuracy_by_position;
  std::vector<int> scored_by_position;
  std::vector<HeadStats> heads;  // layers x heads, averaged over attention_sequences sequences
  int untrained_positions = 0;   // positions in [0, L) whose Model::position_status is not Trained
};

struct SweepResult {
  std::string scaling;  // sweep_scaling_name
  std::vector<LengthResult> lengths;
  // Retrieval only (else empty): grid_accuracy[d][l] = accuracy with the needle at depth
  // grid_depths[d], at length grid_lengths[l] (= the sweep lengths).
  std::vector<double> grid_depths;
  std::vector<int> grid_lengths;
  std::vector<std::vector<double>> grid_accuracy;
};

// Evaluates `model` on `task` (its variable_length, depth and score_repeats are ignored:
// every sequence fills the length; depth is random per sequence, except in the grid;
// Retrieval scores the answer position only).
SweepResult sweep(Model& model, const TaskOptions& task, const SweepOptions& options);

// The generator seed the sweep uses at `length`: row -1 for the per-length evaluation,
// row d for the grid's depth d (so a test or a page can regenerate the same sequences).
uint64_t sweep_seed(uint64_t seed, int length, int row);

// Loss and correctness of one position's logits [V] against its target (-1: not scored),
// computed as Model::evaluate computes them (the first maximum wins), in double.
struct ScoredPosition {
  bool scored = false;
  bool correct = false;
  double loss = 0.0;
};
ScoredPosition score_position(const float* logits, int V, int32_t target);

}  // namespace posenc
