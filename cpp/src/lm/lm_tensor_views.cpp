// posenc::lm: the forward's tensors as they lie (lm.hpp's TensorView), for a second executor of the same steps.
// The kinds are named here, once, in the order a layer lists them.
#include "lm_internal.hpp"

namespace posenc::lm {

std::vector<TensorView> tensor_views(const Model& m) {
  std::vector<TensorView> out;
  const auto matrix = [&](const char* kind, int layer, const Weight& w) {
    if (!w.empty()) out.push_back({kind, layer, w.dtype, w.rows, w.cols, w.raw(), w.bytes()});
  };
  const auto vector = [&](const char* kind, int layer, const std::vector<float>& v) {
    if (!v.empty())
      out.push_back({kind, layer, DType::F32, static_cast<int>(v.size()), 0,
                     reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(float)});
  };
  matrix("embed", -1, Access::embed(m));
  matrix("classifier", -1, Access::cls(m));
  vector("out_norm", -1, Access::out_norm(m));
  const std::vector<Model::Layer>& layers = Access::layers(m);
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const Model::Layer& L = layers[l];
    vector("attn_norm", l, L.attn_norm);
    matrix("wq", l, L.wq);
    matrix("wk", l, L.wk);
    matrix("wv", l, L.wv);
    vector("bq", l, L.bq);
    vector("bk", l, L.bk);
    vector("bv", l, L.bv);
    vector("q_norm", l, L.q_norm);
    vector("k_norm", l, L.k_norm);
    matrix("wo", l, L.wo);
    vector("attn_post_norm", l, L.attn_post_norm);
    vector("ffn_norm", l, L.ffn_norm);
    matrix("gate", l, L.w_gate);
    matrix("up", l, L.w_up);
    matrix("down", l, L.w_down);
    vector("ffn_post_norm", l, L.ffn_post_norm);
  }
  return out;
}

}  // namespace posenc::lm
