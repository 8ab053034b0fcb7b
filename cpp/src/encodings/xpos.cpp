// xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"; microsoft/torchscale
// xpos_relative_position.py): RoPE whose pair i is also scaled by zeta_i^(n / scale_base),
//   zeta_i = (2i / d + gamma) / (1 + gamma)       (torchscale: gamma 0.4, scale_base 512; d = rotary dim)
// q at position n by zeta^(n/scale_base), k by its inverse, so q_m . k_n carries
// zeta^((m - n)/scale_base) <= 1: each pair decays with distance, slow pairs (zeta -> 1) least.
// Positions are centred as in torchscale (n = t - ceil(T/2)); the offset cancels in q . k.
//   forward:  q_rot = scale_q * rotate(q),  k_rot = scale_k * rotate(k)    [B, H, T, hd]
//   backward: the transpose of each scaled rotation (the RoPE kernels' backward on the scaled tables)
#include <cmath>
#include <vector>

#include "posenc/error.hpp"
#include "rope_model.hpp"

namespace posenc {
namespace {

class XPosModel : public RopeModel {
 public:
  const char* causal_only() const override { return "its scale decays with i - j and would grow for keys j > i"; }
  using RopeModel::RopeModel;

 protected:
  void scales(int T, std::vector<double>& qs, std::vector<double>& ks) const override {
    const int half = rd / 2;
    qs.resize(static_cast<std::size_t>(T) * half);
    ks.resize(qs.size());
    const int min_pos = -((T + 1) / 2);  // torchscale: -length // 2 (Python floor) = -ceil(T/2)
    for (int t = 0; t < T; ++t) {
      const double n = static_cast<double>(t + min_pos) / cfg.xpos_scale_base;
      for (int i = 0; i < half; ++i) {
        const double zeta = (2.0 * i / rd + cfg.xpos_gamma) / (1.0 + cfg.xpos_gamma);
        qs[static_cast<std::size_t>(t) * half + i] = std::pow(zeta, n);
        ks[static_cast<std::size_t>(t) * half + i] = std::pow(zeta, -n);
      }
    }
  }
};

}  // namespace

EncodingModel* make_xpos_model(const ModelConfig& c) { return new XPosModel(c); }

}  // namespace posenc
