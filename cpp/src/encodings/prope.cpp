// p-RoPE (Barbero et al. 2024, "Round and round we go! What makes Rotary Positional
// Encodings useful?"): RoPE that keeps only the fraction p (ropeFraction) of its rotary pairs
// with the highest frequencies; the lowest-frequency pairs get frequency 0, so they do not
// rotate and carry content with no position (p = 1: RoPE, p -> 0: NoPE). Kept pairs:
// round(p * rd/2), the first ones (inv_freq_i = base^(-2i/rd) falls with i).
//   forward/backward: RoPE's (rope_model.cpp) with these frequencies.
#include <cmath>

#include "rope_model.hpp"

namespace posenc {
namespace {

class PRopeModel : public RopeModel {
 public:
  using RopeModel::RopeModel;

 protected:
  RopeFrequencies frequencies() const override {
    RopeFrequencies f = RopeModel::frequencies();
    const int half = rd / 2;
    const int keep = static_cast<int>(std::lround(cfg.rope_fraction * half));
    for (int i = keep; i < half; ++i) f.inv_freq[i] = 0.0;
    return f;
  }
};

}  // namespace

EncodingModel* make_prope_model(const ModelConfig& c) { return new PRopeModel(c); }

}  // namespace posenc
