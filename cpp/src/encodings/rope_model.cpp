// RoPE's model hooks (encoding_model.hpp, rope_model.hpp): q and k of every head rotated by their position.
//   forward:  q, k [B, H, T, hd] -> rotate(q), rotate(k)   (row (b, h, t) by angle t * w_i)
//   backward: dq, dk [B, H, T, hd] -> the transpose of the rotation (rotate by -angle)
// The kernels take one cos/sin row per x row, so the [T, rd/2] tables are repeated per head
// (and per example, or one table per example for randomized positions; rebuilt per forward:
// cheap next to attention). The tables come from rope_tables (rope.cpp).
#include "rope_model.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../model/model_impl.hpp"
#include "posenc/error.hpp"
#include "posenc/kernels.hpp"
#include "posenc/rope.hpp"

namespace posenc {

RopeModel::RopeModel(const ModelConfig& c) : EncodingModel(c), rd(c.effective_rotary_dim()) {}

void RopeModel::validate() const {
  const int hdim = cfg.head_dim();
  if (cfg.rotary_dim == 0) {
    if (hdim % 2 != 0)
      throw Error(ErrorKind::Range, std::string("dModel / heads (the head dim) must be even for encoding '") +
                                        encoding_name(cfg.encoding) + "' (got " + std::to_string(hdim) +
                                        "); or set rotaryDim");
  } else if (cfg.rotary_dim < 2 || cfg.rotary_dim > hdim || cfg.rotary_dim % 2 != 0) {
    range_error("rotaryDim", "0 (= head dim) or an even integer in [2, " + std::to_string(hdim) + "]",
                std::to_string(cfg.rotary_dim));
  }
}

RopeFrequencies RopeModel::frequencies() const {
  return rope_frequencies(rd, cfg.rope_base, RopeScaling{}, std::nullopt);
}

namespace {
// table [T, rd/2] -> rows (b, h, 0..T-1) of out [B*H*T, rd/2], for every head h of examples b0 .. b1-1.
void place_rows(const std::vector<float>& table, int b0, int b1, int H, std::vector<float>& out) {
  for (int b = b0; b < b1; ++b)
    for (int h = 0; h < H; ++h)
      std::memcpy(out.data() + (static_cast<std::size_t>(b) * H + h) * table.size(), table.data(),
                  sizeof(float) * table.size());
}
}  // namespace

void RopeModel::prepare(ModelImpl& m, int T, const ForwardOptions& opt) {
  if (inv_freq.empty()) {
    RopeFrequencies f = frequencies();
    inv_freq = std::move(f.inv_freq);
    attention_scale = f.attention_scale;
  }
  const std::size_t half = static_cast<std::size_t>(rd / 2), n = static_cast<std::size_t>(T) * half;
  std::vector<float> cos(n), sin(n);
  RopeApplyOptions ro;
  ro.length = T;
  ro.dim = m.hd;
  ro.rotary_dim = rd;
  ro.layout = cfg.rope_layout;
  if (opt.rope_scaling) {
    RopeFrequencies f = rope_frequencies(rd, cfg.rope_base, *opt.rope_scaling, T);
    override_freq = std::move(f.inv_freq);
    ro.inv_freq = override_freq.data();
    ro.attention_scale = f.attention_scale;
  } else {
    ro.inv_freq = inv_freq.data();
    ro.attention_scale = attention_scale;
  }
  // Randomized positions: one table per example; else 0..T-1, one table for every example.
  const bool per_example = positions(m, T, pos);
  std::vector<double> qs, ks;
  scales(T, qs, ks);
  separate_k = !qs.empty();
  const std::size_t rows = static_cast<std::size_t>(m.B) * m.H * n;
  q_cos.resize(rows);
  q_sin.resize(rows);
  if (separate_k) {
    k_cos.resize(rows);
    k_sin.resize(rows);
  }
  std::vector<float> c2(separate_k ? n : 0), s2(separate_k ? n : 0);
  for (int b = 0; b < (per_example ? m.B : 1); ++b) {
    if (per_example) ro.positions = pos.data() + static_cast<std::size_t>(b) * T;
    rope_tables(ro, cos.data(), sin.data());
    const int b0 = per_example ? b : 0, b1 = per_example ? b + 1 : m.B;
    if (!separate_k) {
      place_rows(cos, b0, b1, m.H, q_cos);
      place_rows(sin, b0, b1, m.H, q_sin);
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {  // q: cos, sin * q_scale
      c2[i] = static_cast<float>(cos[i] * qs[i]);
      s2[i] = static_cast<float>(sin[i] * qs[i]);
    }
    place_rows(c2, b0, b1, m.H, q_cos);
    place_rows(s2, b0, b1, m.H, q_sin);
    for (std::size_t i = 0; i < n; ++i) {  // k: cos, sin * k_scale
      c2[i] = static_cast<float>(cos[i] * ks[i]);
      s2[i] = static_cast<float>(sin[i] * ks[i]);
    }
    place_rows(c2, b0, b1, m.H, k_cos);
    place_rows(s2, b0, b1, m.H, k_sin);
  }
}

namespace {
void rotate(RopeLayout layout, float* x, const float* c, const float* s, int rows, int hd, int rd,
            bool backward) {
  if (layout == RopeLayout::Half) {
    if (backward)
      kernels::rope_rotate_half_backward(x, x, c, s, rows, hd, rd);
    else
      kernels::rope_rotate_half(x, x, c, s, rows, hd, rd);
  } else {
    if (backward)
      kernels::rope_rotate_interleaved_backward(x, x, c, s, rows, hd, rd);
    else
      kernels::rope_rotate_interleaved(x, x, c, s, rows, hd, rd);
  }
}
}  // namespace

void RopeModel::qk_forward(ModelImpl& m, int, float* q, float* k) {
  const int rows = m.B * m.H * m.T;
  rotate(cfg.rope_layout, q, q_cos.data(), q_sin.data(), rows, m.hd, rd, false);
  rotate(cfg.rope_layout, k, separate_k ? k_cos.data() : q_cos.data(), separate_k ? k_sin.data() : q_sin.data(),
         rows, m.hd, rd, false);
}

void RopeModel::qk_backward(ModelImpl& m, int, float* dq, float* dk) {
  const int rows = m.B * m.H * m.T;
  rotate(cfg.rope_layout, dq, q_cos.data(), q_sin.data(), rows, m.hd, rd, true);
  rotate(cfg.rope_layout, dk, separate_k ? k_cos.data() : q_cos.data(),
         separate_k ? k_sin.data() : q_sin.data(), rows, m.hd, rd, true);
}

EncodingModel* make_rope_model(const ModelConfig& c) { return new RopeModel(c); }

}  // namespace posenc
