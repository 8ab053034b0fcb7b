// Learned attention sinks, as gpt-oss (OpenAI 2025; HF transformers models/gpt_oss/modeling_gpt_oss.py,
// eager_attention_forward), on RoPE as there: each head has one learned logit z (module.sinks [H], per layer,
// drawn N(0, initializer_range 0.02)) appended to every row of its scaled, masked scores; the softmax runs
// over [scores, z] and the sink's column is dropped, so
//   p_ij = exp(s_ij) / (exp(z_lh) + sum_j' exp(s_ij'))      s = scale q k^T (rotated q, k), masked
// A query can put weight on nothing (its output shrinks towards 0) instead of on the first token.
// Tensor h<l>.attn.sinks [H]; the kernels add exp(z) to the denominator (kernels::attention_scores_softmax).
//   backward: dz_lh = -sum_{b,i,j} dS_ij   (dS = dLoss/ds before the scale; the probabilities do not change
//             when every logit, z included, moves by the same amount, so the gradients sum to 0)
#include <limits>
#include <string>
#include <vector>

#include "../model/model_impl.hpp"
#include "rope_model.hpp"

namespace posenc {
namespace {

class SinkModel : public RopeModel {
 public:
  using RopeModel::RopeModel;
  uint64_t layer_parameters() const override { return static_cast<uint64_t>(cfg.heads); }
  void add_layer_tensors(const AddTensor& add, int l, const std::string& p) override {
    if (l == 0) z.assign(cfg.layers, 0);
    z[l] = add(p + "attn.sinks", {cfg.heads}, false, 0.02f);
  }
  float sink(ModelImpl& m, int l, int h) override { return m.P(z[l])[h]; }
  void bias_backward(ModelImpl& m, int l, int h, int, int q0, const float*, const float* dS, float*) override {
    double sum = 0.0;
    for (int p = q0; p < m.T; ++p) {
      const float* row = dS + static_cast<std::ptrdiff_t>(p - q0) * m.T;
      const int keys = m.cfg.causal ? p + 1 : m.T;  // dS past them is not computed
      for (int j = 0; j < keys; ++j) sum += row[j];
    }
    m.G(z[l])[h] -= static_cast<float>(sum);
  }

 private:
  std::vector<std::size_t> z;  // [L] offsets of h<l>.attn.sinks [H]
};

}  // namespace

EncodingModel* make_sinks_model(const ModelConfig& c) { return new SinkModel(c); }

}  // namespace posenc
