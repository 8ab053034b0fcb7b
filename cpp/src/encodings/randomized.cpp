// Randomized positional encodings (Ruoss et al. 2023, "Randomized Positional Encodings Boost
// Length Generalization of Transformers"; google-deepmind/randomized_positional_encodings):
// the positions of a length-n sequence are a sorted random subset of [0, M) (M = randomLength,
// larger than any test length) instead of 0..n-1, so training already sees the large positions
// a long test sequence needs, in the right order. Here for RoPE (the angles of sampled
// positions) and a learned table (M rows, all reachable in training).
// One draw per example, for that example's own length n_b (ForwardOptions::lengths, else T), so a
// short example of a padded batch spans [0, M) like a long one. Draw d of example b comes from a
// generator keyed by (seed, d, b, n_b) (inference: b + ForwardOptions::first_example): d = the AdamW steps done while training (fresh draws every
// step), d = ForwardOptions::position_draw in inference (default 0; as in the paper, inference
// samples too, and a fixed key keeps outputs deterministic, equal for a saved and a loaded model,
// and draw 0 equal to the first training step's, so finite differences check the gradients). The
// reference draws one sample per forward, shared by its batch (whose examples have one length).
//   forward:  pos[b] = sorted sample of n_b distinct values of [0, M); padding t >= n_b continues
//             pos[b][n_b - 1] + (t - n_b + 1), capped at M - 1                        pos [B, T]
//             RoPE: rotate q, k at (b, t) by pos[b, t] (rope_model.cpp);  learned: x0[b, t] += wpe[pos[b, t]]
//   backward: RoPE: the rotation's transpose;  learned: dwpe[pos[b, t]] += dx0[b, t]
#include <algorithm>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/learned.hpp"
#include "posenc/rng.hpp"
#include "../model/model_impl.hpp"
#include "rope_model.hpp"

namespace posenc {
namespace {

// Sorted positions (Knuth's selection sampling: one pass over [0, M), each value kept with
// probability still-needed / still-left).
class PositionSampler {
 public:
  explicit PositionSampler(const ModelConfig& c) : cfg(c) {}
  // The contract (issue 26): a model refuses, at creation and at load, a maxLength its sampler
  // cannot cover, so every forward within maxLength runs. Longer forwards (a length sweep) run up
  // to randomLength and are refused past it by check().
  void validate() const {
    if (cfg.max_length > cfg.random_length)
      throw Error(ErrorKind::Range, "maxLength = " + std::to_string(cfg.max_length) + " exceeds randomLength = " +
                                        std::to_string(cfg.random_length) +
                                        ": positions are sampled from [0, randomLength), so randomLength must be >= maxLength");
  }
  void check(int T) const {
    if (T > cfg.random_length)
      throw Error(ErrorKind::Range, "sequence length T = " + std::to_string(T) + " exceeds randomLength = " +
                                        std::to_string(cfg.random_length) + " (the range positions are sampled from)");
  }
  // out [B, T]: row b = the first T positions of example m.example_index[b]'s draw for its length
  // m.example_length[b] (a training micro-batch may run shorter than the example), padding continued.
  void sample(const ModelImpl& m, int T, std::vector<int32_t>& out) {
    out.resize(static_cast<std::size_t>(m.B) * T);
    for (int b = 0; b < m.B; ++b) {
      const int n = m.example_length[b];
      uint64_t key = m.position_draw;
      key = splitmix64(key) ^ m.example_index[b];
      key = splitmix64(key) ^ static_cast<uint64_t>(n);
      Rng r(cfg.seed ^ 0x9e3779b97f4a7c15ull, splitmix64(key));
      draw.resize(n);
      int need = n;
      for (int v = 0, left = cfg.random_length; need > 0; ++v, --left)
        if (static_cast<int>(r.below(static_cast<uint32_t>(left))) < need) draw[n - need--] = v;
      int32_t* row = out.data() + static_cast<std::size_t>(b) * T;
      for (int t = 0; t < T; ++t) row[t] = t < n ? draw[t] : std::min(draw[n - 1] + (t - n + 1), cfg.random_length - 1);
    }
  }

 private:
  const ModelConfig& cfg;
  std::vector<int32_t> draw;  // [n] one example's sorted sample
};

class RandomRopeModel : public RopeModel {
 public:
  explicit RandomRopeModel(const ModelConfig& c) : RopeModel(c), sampler(cfg) {}
  void validate() const override {
    RopeModel::validate();
    sampler.validate();
  }
  void check_length(int T) const override { sampler.check(T); }

 protected:
  bool positions(ModelImpl& m, int T, std::vector<int32_t>& out) override {
    sampler.sample(m, T, out);
    return true;
  }

 private:
  PositionSampler sampler;
};

class RandomLearnedModel : public EncodingModel {
 public:
  explicit RandomLearnedModel(const ModelConfig& c) : EncodingModel(c), sampler(cfg) {}
  void validate() const override { sampler.validate(); }
  uint64_t global_parameters() const override { return uint64_t(cfg.random_length) * cfg.d_model; }
  void add_tensors(const AddTensor& add) override { wpe = add("wpe", {cfg.random_length, cfg.d_model}, false, 0.02f); }
  void check_length(int T) const override { sampler.check(T); }
  void prepare(ModelImpl& m, int T, const ForwardOptions&) override {
    sampler.sample(m, T, pos);
    rows.resize(pos.size() * m.C);
    learned_lookup(m.P(wpe), cfg.random_length, m.C, pos.data(), static_cast<int>(pos.size()), OutOfRange::Error,
                   rows.data());
  }
  bool adds_position() const override { return true; }
  void embed_forward(ModelImpl& m, int b, int t, float* x) override {
    const float* r = rows.data() + (static_cast<std::size_t>(b) * m.T + t) * m.C;
    for (int i = 0; i < m.C; ++i) x[i] += r[i];
  }
  void embed_backward(ModelImpl& m, int b, int t, const float* d) override {
    float* g = m.G(wpe) + static_cast<std::size_t>(pos[static_cast<std::size_t>(b) * m.T + t]) * m.C;
    for (int i = 0; i < m.C; ++i) g[i] += d[i];
  }

 private:
  PositionSampler sampler;
  std::size_t wpe = 0;
  std::vector<int32_t> pos;  // [B, T]
  std::vector<float> rows;   // [B, T, C]
};

}  // namespace

EncodingModel* make_random_rope_model(const ModelConfig& c) { return new RandomRopeModel(c); }
EncodingModel* make_random_learned_model(const ModelConfig& c) { return new RandomLearnedModel(c); }

}  // namespace posenc
