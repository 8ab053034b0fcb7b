// Shared by the posenc::lm fuzz targets: the contract for a model that loaded. It runs a forward
// pass of a few tokens (with head statistics and a pooled map of its first layer) that either
// returns a finite NLL for every row or throws posenc::Error (weights that overflow). Odd seeds run YaRN x4, even ones
// the file's own scaling when it has one (a GGUF's LongRoPE factors or llama3 rope_freqs).
#pragma once

#include <algorithm>
#include <vector>

#include "fuzz_input.hpp"
#include "posenc/lm.hpp"

namespace posenc::fuzz {

inline void check_forward(const lm::Model& m, uint8_t seed, const RopeScaling& file_scaling = {}) {
  const lm::Config& c = m.config();
  const int T = std::min(c.context, 6);
  std::vector<int32_t> tokens(T);
  for (int t = 0; t < T; ++t) tokens[t] = (t * 7 + seed) % c.vocab_size;
  lm::ForwardOptions o;
  o.head_stats = true;
  o.map_layer = 0;
  o.map_px = std::min(T, 2);
  o.logits_rows = {T - 1};
  if (seed & 1) {
    o.scaling.type = posenc::parse_rope_type("yarn");
    o.scaling.factor = 4;
  } else {
    o.scaling = file_scaling;
  }
  lm::ForwardResult r;
  if (!call([&] { r = lm::forward(m, tokens.data(), T, o); })) return;
  FUZZ_CHECK(static_cast<int>(r.nll.size()) == T - 1, "forward: nll has the wrong length");
  FUZZ_CHECK(all_finite(r.nll.data(), r.nll.size()), "forward returned a non-finite NLL");
  FUZZ_CHECK(r.entropy.size() == static_cast<std::size_t>(c.n_layers) * c.n_heads, "forward: entropy has the wrong length");
  FUZZ_CHECK(r.logits.size() == static_cast<std::size_t>(c.vocab_size), "forward: logits have the wrong length");
}

}  // namespace posenc::fuzz
