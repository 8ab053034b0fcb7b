// SSMax, Scalable-Softmax (Nakanishi 2025, "Scalable-Softmax Is Superior for Attention",
// arXiv 2501.19399), on RoPE as in the paper's models. The paper's equation replaces the softmax
// over a vector z of n scores by
//   SSMax(z)_i = n^(s z_i) / sum_j n^(s z_j) = exp((s log n) z_i) / sum_j exp((s log n) z_j),
// with s a learned scalar per layer and head, and implements it by multiplying the query by
// s log n. Here n is the number of keys the query attends to: p + 1 for the causal query at
// position p, T when attention is bidirectional. No bias term (the paper's variant with a bias
// s log n + b is not this row).
// Start: s = 1 / log(max_length), so that at the training length the model starts as plain RoPE
// (this project's choice; the paper does not say how s starts). Tensor h<l>.attn.ssmax [H].
//   forward:  q_rot = rotate(q);  q_out[b,h,t] = c[l,h,t] q_rot[b,h,t],  c = s[l,h] log n_t
//   backward: ds[l,h] += sum_{b,t} log n_t (q_rot[b,h,t] . dq_out[b,h,t]);
//             dq_rot = c dq_out;  dq = the rotation's transpose of dq_rot
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../model/model_impl.hpp"
#include "rope_model.hpp"

namespace posenc {
namespace {

class SSMaxModel : public RopeModel {
 public:
  using RopeModel::RopeModel;
  uint64_t layer_parameters() const override { return static_cast<uint64_t>(cfg.heads); }
  void add_layer_tensors(const AddTensor& add, int l, const std::string& p) override {
    if (l == 0) s.assign(cfg.layers, 0);
    s[l] = add(p + "attn.ssmax", {cfg.heads}, false, 0.0f);  // zeros (no draw), then init_tensors
  }
  void init_tensors(ModelImpl& m) override {
    const double s0 = 1.0 / std::log(static_cast<double>(std::max(2, cfg.max_length)));
    for (std::size_t off : s) std::fill(m.P(off), m.P(off) + cfg.heads, static_cast<float>(s0));
  }
  void prepare(ModelImpl& m, int T, const ForwardOptions& opt) override {
    RopeModel::prepare(m, T, opt);
    log_n.resize(T);
    for (int t = 0; t < T; ++t) log_n[t] = static_cast<float>(std::log(static_cast<double>(m.cfg.causal ? t + 1 : T)));
  }
  void qk_forward(ModelImpl& m, int l, float* q, float* k) override {
    RopeModel::qk_forward(m, l, q, k);
    const std::size_t head = static_cast<std::size_t>(m.T) * m.hd;
    if (m.training && q_rot.size() != static_cast<std::size_t>(cfg.layers)) q_rot.resize(cfg.layers);
    if (m.training) q_rot[l].assign(q, q + static_cast<std::size_t>(m.B) * m.H * head);  // for ds
    const float* sl = m.P(s[l]);
    for (int b = 0; b < m.B; ++b)
      for (int h = 0; h < m.H; ++h) {
        float* x = q + (static_cast<std::size_t>(b) * m.H + h) * head;
        for (int t = 0; t < m.T; ++t) {
          const float c = sl[h] * log_n[t];
          for (int e = 0; e < m.hd; ++e) x[static_cast<std::size_t>(t) * m.hd + e] *= c;
        }
      }
  }
  void qk_backward(ModelImpl& m, int l, float* dq, float* dk) override {
    const std::size_t head = static_cast<std::size_t>(m.T) * m.hd;
    const float* sl = m.P(s[l]);
    float* dsl = m.G(s[l]);
    for (int b = 0; b < m.B; ++b)
      for (int h = 0; h < m.H; ++h) {
        const std::size_t o = (static_cast<std::size_t>(b) * m.H + h) * head;
        float* dx = dq + o;
        const float* x = q_rot[l].data() + o;
        double ds = 0.0;
        for (int t = 0; t < m.T; ++t) {
          const float* xr = x + static_cast<std::size_t>(t) * m.hd;
          float* dr = dx + static_cast<std::size_t>(t) * m.hd;
          double dot = 0.0;
          for (int e = 0; e < m.hd; ++e) dot += double(xr[e]) * dr[e];
          ds += log_n[t] * dot;
          const float c = sl[h] * log_n[t];
          for (int e = 0; e < m.hd; ++e) dr[e] *= c;
        }
        dsl[h] += static_cast<float>(ds);
      }
    RopeModel::qk_backward(m, l, dq, dk);
  }

 private:
  std::vector<std::size_t> s;               // [L] offsets of h<l>.attn.ssmax [H]
  std::vector<float> log_n;                 // [T] log of the keys each position attends to
  std::vector<std::vector<float>> q_rot;    // [L][B*H*T*hd] rotated, unscaled q (training)
};

}  // namespace

EncodingModel* make_ssmax_model(const ModelConfig& c) { return new SSMaxModel(c); }

}  // namespace posenc
