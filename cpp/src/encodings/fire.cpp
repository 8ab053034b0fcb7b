// FIRE (Li et al. 2023, "Functional Interpolation for Relative Positions Improves Long
// Context Transformers"): an additive attention bias that is a learned function of the
// normalised log distance,
//   b_h(i, j) = f_theta(psi(i - j) / psi(max(L, i)))_h,   psi(x) = log(c x + 1),
// f_theta an MLP 1 -> hidden -> heads, one per layer (no output bias: a constant per head
// shifts every score of a row alike, and softmax ignores it). The hidden activation is the
// model's GELU (tanh form) where the paper uses ReLU: smooth, so the finite-difference
// gradient checks hold at every length (a ReLU kink sits inside some pair's step at T = 37). Dividing by psi of the query
// position (progressive interpolation, with the threshold L so that short prefixes are not
// stretched) maps every distance of any query into [0, 1], the range seen in training.
// Here c and L are fixed hyperparameters (fireC, fireThreshold; 0 = maxLength), where the
// paper also learns them; positions are 0-based (i = query position, j <= i).
// The bias depends on the query position, not only on the distance, so the streaming kernel
// cannot take it (registry: streaming false): inference materialises [T, T] per head.
//   forward (per layer, all heads at once):   x[i, j] = psi(i - j) / psi(max(L, i))     [T, T]
//     pre = w1 x + b1, hid = gelu(pre)  [hidden];  bias[h, i, j] = w2[:, h] . hid          [H, T, T]
//   backward, from dS[h] [Tq, T] (before the 1/sqrt(hd) scale), gathered over b and h:
//     dw2 += hid g^T;  dpre = gelu'(pre) * (w2 g);  db1 += dpre;  dw1 += dpre x
// Both run one query row at a time with SIMD over the keys (a pair at a time, the 4 x 32 products
// of w2 were scalar and took 3/4 of a FIRE forward).
#include <algorithm>
#include <cmath>
#include <vector>

#include "../model/encoding_model.hpp"
#include "../model/model_impl.hpp"
#include "../model/model_layers.hpp"

namespace posenc {
namespace {

struct FireLayer {
  std::size_t w1 = 0, b1 = 0, w2 = 0;  // [1, hidden], [hidden], [hidden, H]
};

class FireModel : public EncodingModel {
 public:
  const char* causal_only() const override { return "its bias is a function of i - j >= 0 (keys j <= i)"; }
  using EncodingModel::EncodingModel;
  uint64_t layer_parameters() const override {
    const uint64_t n = cfg.fire_hidden, h = cfg.heads;
    return n + n + n * h;
  }
  void add_layer_tensors(const AddTensor& add, int, const std::string& p) override {
    const int n = cfg.fire_hidden, H = cfg.heads;
    FireLayer f;
    f.w1 = add(p + "attn.fire.fc1.weight", {1, n}, false, 1.0f);  // x in [0, 1]: unit weights spread the units
    f.b1 = add(p + "attn.fire.fc1.bias", {n}, false, 0.0f);
    f.w2 = add(p + "attn.fire.fc2.weight", {n, H}, false, 0.02f);
    layers.push_back(f);
  }
  uint64_t bias_floats(int T, bool) const override { return uint64_t(cfg.heads) * T * T; }

  void prepare(ModelImpl& m, int T, const ForwardOptions&) override {
    built_l = -1;
    if (T != x_rows) {
      x.assign(static_cast<std::size_t>(T) * T, 0.0f);
      const double L = cfg.fire_threshold > 0 ? cfg.fire_threshold : cfg.max_length, c = cfg.fire_c;
      for (int i = 0; i < T; ++i) {
        const double denom = std::log(c * std::max<double>(L, i) + 1.0);
        for (int j = 0; j <= i; ++j) x[static_cast<std::size_t>(i) * T + j] = static_cast<float>(std::log(c * (i - j) + 1.0) / denom);
      }
      x_rows = T;
    }
    if (m.training) dbias.assign(static_cast<std::size_t>(m.H) * T * T, 0.0f);
  }

  const float* bias(ModelImpl& m, int l, int h, int, int q0, const float*) override {
    const int T = m.T, H = m.H, hidden = cfg.fire_hidden;
    float* out = m.acts.bias;  // [H, T, T]: head h's row i at out + (h T + i) T
    if (built_l != l) {
      const FireLayer& f = layers[l];
      const float *w1 = m.P(f.w1), *b1 = m.P(f.b1), *w2 = m.P(f.w2);
      // SIMD over each query row's keys j <= i (the units summed in the order u = 0, 1, ... for every pair)
      for (int i = 0; i < T; ++i)
        layers::mlp_scalar_forward(out + static_cast<std::size_t>(i) * T, static_cast<std::size_t>(T) * T,
                                   x.data() + static_cast<std::size_t>(i) * T, static_cast<std::size_t>(i) + 1, w1, b1,
                                   w2, hidden, H);
      built_l = l;
    }
    return out + (static_cast<std::size_t>(h) * T + q0) * T;
  }

  void bias_backward(ModelImpl& m, int, int h, int, int q0, const float*, const float* dS, float*) override {
    const int T = m.T;
    float* d = dbias.data() + static_cast<std::size_t>(h) * T * T;
    for (int i = q0; i < T; ++i) {
      const float* row = dS + static_cast<std::size_t>(i - q0) * T;
      for (int j = 0; j <= i; ++j) d[static_cast<std::size_t>(i) * T + j] += row[j];
    }
  }

  void bias_backward_end(ModelImpl& m, int l) override {
    const int T = m.T, H = m.H, hidden = cfg.fire_hidden;
    const FireLayer& f = layers[l];
    const float *w1 = m.P(f.w1), *b1 = m.P(f.b1), *w2 = m.P(f.w2);
    float *dw1 = m.G(f.w1), *db1 = m.G(f.b1), *dw2 = m.G(f.w2);
    rows.resize(static_cast<std::size_t>(4) * T);
    float *pre_r = rows.data(), *hid_r = pre_r + T, *th_r = hid_r + T, *dh_r = th_r + T;
    // One query row at a time, SIMD over its keys j <= i (the hidden activations recomputed, not
    // kept); g_h = dbias[h, i, :]. Rows with no gradient (queries that reach no loss) are skipped.
    for (int i = 0; i < T; ++i) {
      const std::size_t n = static_cast<std::size_t>(i) + 1;
      const float* xr = x.data() + static_cast<std::size_t>(i) * T;
      auto g = [&](int hh) { return dbias.data() + (static_cast<std::size_t>(hh) * T + i) * T; };
      bool any = false;
      for (int hh = 0; hh < H && !any; ++hh) any = std::any_of(g(hh), g(hh) + n, [](float v) { return v != 0.0f; });
      if (!any) continue;
      for (int k = 0; k < hidden; ++k) {
        layers::affine(pre_r, xr, w1[k], b1[k], n);
        layers::gelu_forward(hid_r, th_r, pre_r, n);
        std::fill_n(dh_r, n, 0.0f);
        for (int hh = 0; hh < H; ++hh) {
          dw2[k * H + hh] += layers::dot(hid_r, g(hh), n);  // dw2[k, h] += sum_j hid_k[j] g_h[j]
          layers::axpy(dh_r, g(hh), w2[k * H + hh], n);     // dhid_k[j] = sum_h w2[k, h] g_h[j]
        }
        layers::gelu_backward(dh_r, pre_r, th_r, dh_r, n);  // dpre_k[j]
        db1[k] += layers::sum(dh_r, n);
        dw1[k] += layers::dot(dh_r, xr, n);
      }
    }
    std::fill(dbias.begin(), dbias.end(), 0.0f);
  }

 private:
  std::vector<FireLayer> layers;
  int x_rows = 0;
  std::vector<float> x;      // [T, T] normalised log distances (j <= i)
  std::vector<float> dbias;  // [H, T, T] gradient of the bias, gathered over sequences and heads
  std::vector<float> rows;   // backward: one query row's pre-activations, GELU, tanh and their gradient [4, T]
  int built_l = -1;
};

}  // namespace

EncodingModel* make_fire_model(const ModelConfig& c) { return new FireModel(c); }

}  // namespace posenc
