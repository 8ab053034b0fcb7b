// Internal: the model hooks of RoPE (rope_model.cpp), which the rotary variants (xPos, p-RoPE)
// extend: they change the frequencies or scale the q and k tables, the rest is shared.
#pragma once

#include <vector>

#include "../model/encoding_model.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc {

class RopeModel : public EncodingModel {
 public:
  explicit RopeModel(const ModelConfig& c);
  void validate() const override;
  bool accepts_rope_scaling() const override { return cfg.encoding == parse_encoding("rope"); }
  void prepare(ModelImpl& m, int T, const ForwardOptions& opt) override;
  void qk_forward(ModelImpl& m, int l, float* q, float* k) override;
  void qk_backward(ModelImpl& m, int l, float* dq, float* dk) override;

 protected:
  // The training frequencies [rd/2] (p-RoPE zeroes some).
  virtual RopeFrequencies frequencies() const;
  // Per-row multipliers of the q and k tables at position t of a length-T forward (xPos):
  // row t of q's cos/sin table is multiplied by q_scale[t * half + i], k's by k_scale. Empty: none.
  virtual void scales(int /*T*/, std::vector<double>& /*q_scale*/, std::vector<double>& /*k_scale*/) const {}
  // Positions [B, T] of this forward's tokens, one row per example (randomized positions), or
  // false for 0..T-1 in every example.
  virtual bool positions(ModelImpl&, int /*T*/, std::vector<int32_t>& /*out*/) { return false; }

  int rd = 0;  // rotary dim
  std::vector<double> inv_freq;  // [rd/2] training frequencies
  double attention_scale = 1.0;
  std::vector<double> override_freq;
  // [B*H*T, rd/2]: the [T, rd/2] cos/sin tables of each example (one for all without positions())
  // repeated per head, for q and for k (the same unless scales() says otherwise).
  std::vector<float> q_cos, q_sin, k_cos, k_sin;
  bool separate_k = false;
  std::vector<int32_t> pos;  // [B, T] when positions() gives them
};

}  // namespace posenc
