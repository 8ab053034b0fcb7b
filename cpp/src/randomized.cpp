// Randomized positional encodings (Ruoss et al. 2023, "Randomized Positional Encodings Boost
// Length Generalization of Transformers"; google-deepmind/randomized_positional_encodings):
// the positions of a length-T sequence are a sorted random subset of [0, M) (M = randomLength,
// larger than any test length) instead of 0..T-1, so training already sees the large positions
// a long test sequence needs, in the right order. Here for RoPE (the angles of sampled
// positions) and a learned table (M rows, all reachable in training).
// One sample per forward, shared by the sequences of the batch: draw d of a length-T forward
// comes from a generator seeded by (seed, d, T), with d = the AdamW steps done while training
// (a fresh sample every step) and d = 0 in inference (as the paper, inference samples too; a
// fixed draw keeps outputs deterministic, equal for a saved and a loaded model, and equal to the
// first training step's, so finite differences check the gradients).
//   forward:  pos = sorted sample of T distinct values of [0, M)               [T]
//             RoPE: rotate q, k at t by pos[t] (rope.cpp);  learned: x0[b, t] += wpe[pos[t]]
//   backward: RoPE: the rotation's transpose;  learned: dwpe[pos[t]] += dx0[b, t]
#include <algorithm>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/learned.hpp"
#include "posenc/rng.hpp"
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
  // The first T of a sorted sample of S = max(T, m.position_length) positions: a training
  // micro-batch shorter than its batch reads the batch's sample.
  void sample(const Model::Impl& m, int T, std::vector<int32_t>& out) const {
    const uint64_t draw = m.training ? static_cast<uint64_t>(m.step) : 0;
    const int S = std::max(T, m.position_length);
    Rng r(cfg.seed ^ 0x9e3779b97f4a7c15ull, (draw << 20) | static_cast<uint64_t>(S));
    out.resize(S);
    int need = S;
    for (int v = 0, left = cfg.random_length; need > 0; ++v, --left)
      if (static_cast<int>(r.below(static_cast<uint32_t>(left))) < need) out[S - need--] = v;
    out.resize(T);
  }

 private:
  const ModelConfig& cfg;
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
  bool positions(Model::Impl& m, int T, std::vector<int32_t>& out) override {
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
  void prepare(Model::Impl& m, int T, const ForwardOptions&) override {
    sampler.sample(m, T, pos);
    rows.resize(pos.size() * m.C);
    learned_lookup(m.P(wpe), cfg.random_length, m.C, pos.data(), T, OutOfRange::Error, rows.data());
  }
  bool adds_position() const override { return true; }
  void embed_forward(Model::Impl& m, int, int t, float* x) override {
    const float* r = rows.data() + static_cast<std::size_t>(t) * m.C;
    for (int i = 0; i < m.C; ++i) x[i] += r[i];
  }
  void embed_backward(Model::Impl& m, int, int t, const float* d) override {
    float* g = m.G(wpe) + static_cast<std::size_t>(pos[t]) * m.C;
    for (int i = 0; i < m.C; ++i) g[i] += d[i];
  }

 private:
  PositionSampler sampler;
  std::size_t wpe = 0;
  std::vector<int32_t> pos;  // [T]
  std::vector<float> rows;   // [T, C]
};

}  // namespace

EncodingModel* make_random_rope_model(const ModelConfig& c) { return new RandomRopeModel(c); }
EncodingModel* make_random_learned_model(const ModelConfig& c) { return new RandomLearnedModel(c); }

}  // namespace posenc
