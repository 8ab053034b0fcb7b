// The tiny decoder-only transformer: parameters, forward and backward.
// Read top to bottom like llm.c's train_gpt2.c: each forward is followed by its
// backward; tensor shapes are in the comments. N = B*T rows, C = d_model,
// H heads of hd = C/H channels, F = mlp_ratio*C, V = vocab_size.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "model_impl.hpp"
#include "model_layers.hpp"
#include "posenc/alibi.hpp"
#include "posenc/error.hpp"
#include "posenc/kernels.hpp"
#include "posenc/rng.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"

namespace posenc {

using idx = std::ptrdiff_t;

// ===========================================================================
// Names and config validation

const char* encoding_name(Encoding e) {
  switch (e) {
    case Encoding::None: return "none";
    case Encoding::Sinusoidal: return "sinusoidal";
    case Encoding::Learned: return "learned";
    case Encoding::T5: return "t5";
    case Encoding::Alibi: return "alibi";
    case Encoding::Rope: return "rope";
    case Encoding::Shaw: return "shaw";
  }
  return "?";
}

Encoding parse_encoding(const std::string& name) {
  for (Encoding e : {Encoding::None, Encoding::Sinusoidal, Encoding::Learned, Encoding::T5, Encoding::Alibi,
                     Encoding::Rope, Encoding::Shaw})
    if (name == encoding_name(e)) return e;
  range_error("encoding", "one of 'none', 'sinusoidal', 'learned', 't5', 'alibi', 'rope', 'shaw'", "'" + name + "'");
}

const char* out_of_range_name(OutOfRange p) {
  switch (p) {
    case OutOfRange::Error: return "error";
    case OutOfRange::Clamp: return "clamp";
    case OutOfRange::Zero: return "zero";
  }
  return "?";
}

OutOfRange parse_out_of_range(const std::string& name) {
  for (OutOfRange p : {OutOfRange::Error, OutOfRange::Clamp, OutOfRange::Zero})
    if (name == out_of_range_name(p)) return p;
  range_error("learnedPolicy", "one of 'error', 'clamp', 'zero'", "'" + name + "'");
}

namespace {
uint64_t count_parameters_u64(const ModelConfig& c) {
  const uint64_t C = c.d_model, L = c.layers, V = c.vocab_size, F = uint64_t(c.mlp_ratio) * C;
  uint64_t n = V * C;                                            // wte
  if (c.encoding == Encoding::Learned) n += uint64_t(c.max_length) * C;  // wpe
  if (c.encoding == Encoding::T5) n += uint64_t(c.heads) * c.t5_num_buckets;
  uint64_t per_layer = 4 * C + C * 3 * C + 3 * C + C * C + C + C * F + F + F * C + C;
  if (c.encoding == Encoding::Shaw) per_layer += (2 * uint64_t(c.shaw_k) + 1) * (C / c.heads);
  return n + L * per_layer + 2 * C + C * V;
}
}  // namespace

void ModelConfig::validate() const {
  const int e = static_cast<int>(encoding);
  if (e < 0 || e > static_cast<int>(Encoding::Shaw))
    range_error("encoding", "one of 'none', 'sinusoidal', 'learned', 't5', 'alibi', 'rope', 'shaw'",
                std::to_string(e));
  require_int_range("layers", layers, 1, 64);
  require_int_range("heads", heads, 1, 64);
  require_int_range("dModel", d_model, 2, 4096);
  if (d_model % heads != 0)
    throw Error(ErrorKind::Range, "dModel must be divisible by heads (got dModel " + std::to_string(d_model) +
                                      ", heads " + std::to_string(heads) + ")");
  require_int_range("mlpRatio", mlp_ratio, 1, 16);
  require_int_range("vocabSize", vocab_size, 2, 65536);
  require_int_range("maxLength", max_length, 1, 65536);
  const int lp = static_cast<int>(learned_policy);
  if (lp < 0 || lp > static_cast<int>(OutOfRange::Zero))
    range_error("learnedPolicy", "one of 'error', 'clamp', 'zero'", std::to_string(lp));
  const int hdim = head_dim();
  if (encoding == Encoding::Sinusoidal && d_model % 2 != 0)
    range_error("dModel", "even for encoding 'sinusoidal'", std::to_string(d_model));
  if (encoding == Encoding::Rope) {
    const int rl = static_cast<int>(rope_layout);
    if (rl < 0 || rl > static_cast<int>(RopeLayout::Half))
      range_error("ropeLayout", "one of 'interleaved', 'half'", std::to_string(rl));
    if (!std::isfinite(rope_base) || rope_base <= 1.0)
      range_error("ropeBase", "a finite number > 1", format_number(rope_base));
    if (rotary_dim == 0) {
      if (hdim % 2 != 0)
        throw Error(ErrorKind::Range, "dModel / heads (the head dim) must be even for encoding 'rope' (got " +
                                          std::to_string(hdim) + "); or set rotaryDim");
    } else if (rotary_dim < 2 || rotary_dim > hdim || rotary_dim % 2 != 0) {
      range_error("rotaryDim", "0 (= head dim) or an even integer in [2, " + std::to_string(hdim) + "]",
                  std::to_string(rotary_dim));
    }
  }
  if (encoding == Encoding::T5) {
    require_int_range("t5NumBuckets", t5_num_buckets, 2, 1024);
    // Unidirectional: num_buckets/2 exact buckets, then log-spaced ones up to max_distance.
    require_int_range("t5MaxDistance", t5_max_distance, t5_num_buckets / 2 + 1, 1 << 20);
    t5_validate(T5BucketOptions{false, t5_num_buckets, t5_max_distance});
  }
  if (encoding == Encoding::Shaw) require_int_range("shawK", shaw_k, 0, 4096);
  const uint64_t n = count_parameters_u64(*this);
  if (n > kMaxParameters)
    throw Error(ErrorKind::Range, "model too large: " + std::to_string(n) + " parameters (limit " +
                                      std::to_string(kMaxParameters) + ")");
}

std::size_t count_parameters(const ModelConfig& config) {
  config.validate();
  return static_cast<std::size_t>(count_parameters_u64(config));
}

// ===========================================================================
// Parameters: layout and initialisation

Model::Impl::Impl(const ModelConfig& c) : cfg(c) {
  cfg.validate();
  L = cfg.layers;
  H = cfg.heads;
  C = cfg.d_model;
  hd = cfg.head_dim();
  F = cfg.mlp_ratio * C;
  V = cfg.vocab_size;
  rd = cfg.effective_rotary_dim();
  nrel = 2 * cfg.shaw_k + 1;
  scale = 1.0f / std::sqrt(static_cast<float>(hd));
  build_layout();
  params.assign(nparams, 0.0f);
  grads.assign(nparams, 0.0f);
  adam_m.assign(nparams, 0.0f);
  adam_v.assign(nparams, 0.0f);
  init_weights();
  if (cfg.encoding == Encoding::Alibi) {
    alibi.resize(H);
    alibi_slopes(H, alibi.data());
  }
  if (cfg.encoding == Encoding::Rope) {
    RopeFrequencies f = rope_frequencies(rd, cfg.rope_base, RopeScaling{}, std::nullopt);
    inv_freq = f.inv_freq;
    rope_attention_scale = f.attention_scale;
  }
}

void Model::Impl::build_layout() {
  tensors.clear();
  std::size_t off = 0;
  auto add = [&](const std::string& name, std::vector<int> shape, bool decay) {
    std::size_t n = 1;
    for (int s : shape) n *= static_cast<std::size_t>(s);
    tensors.push_back(TensorInfo{name, off, std::move(shape), n, decay});
    off += n;
    return tensors.back().offset;
  };
  wte = add("wte", {V, C}, false);
  if (cfg.encoding == Encoding::Learned) wpe = add("wpe", {cfg.max_length, C}, false);
  if (cfg.encoding == Encoding::T5) t5 = add("t5.bias", {H, cfg.t5_num_buckets}, false);
  layer.resize(L);
  for (int l = 0; l < L; ++l) {
    const std::string p = "h" + std::to_string(l) + ".";
    LayerOffsets& o = layer[l];
    o.ln1_w = add(p + "ln1.weight", {C}, false);
    o.ln1_b = add(p + "ln1.bias", {C}, false);
    o.qkv_w = add(p + "attn.qkv.weight", {C, 3 * C}, true);
    o.qkv_b = add(p + "attn.qkv.bias", {3 * C}, false);
    o.proj_w = add(p + "attn.proj.weight", {C, C}, true);
    o.proj_b = add(p + "attn.proj.bias", {C}, false);
    o.shaw = cfg.encoding == Encoding::Shaw ? add(p + "attn.shaw", {nrel, hd}, false) : kAbsent;
    o.ln2_w = add(p + "ln2.weight", {C}, false);
    o.ln2_b = add(p + "ln2.bias", {C}, false);
    o.fc_w = add(p + "mlp.fc.weight", {C, F}, true);
    o.fc_b = add(p + "mlp.fc.bias", {F}, false);
    o.fcp_w = add(p + "mlp.proj.weight", {F, C}, true);
    o.fcp_b = add(p + "mlp.proj.bias", {C}, false);
  }
  lnf_w = add("lnf.weight", {C}, false);
  lnf_b = add("lnf.bias", {C}, false);
  lm_head = add("lm_head.weight", {C, V}, true);
  nparams = off;
}

// GPT-2 init, drawn in tensor-table order from one PCG32 stream.
void Model::Impl::init_weights() {
  Rng rng(cfg.seed, /*stream=*/1);
  const float residual_std = 0.02f / std::sqrt(2.0f * static_cast<float>(L));
  for (const TensorInfo& t : tensors) {
    float* p = params.data() + t.offset;
    const std::string& n = t.name;
    auto ends_with = [&](const char* s) {
      const std::size_t k = std::strlen(s);
      return n.size() >= k && n.compare(n.size() - k, k, s) == 0;
    };
    if (ends_with("ln1.weight") || ends_with("ln2.weight") || n == "lnf.weight") {
      std::fill(p, p + t.size, 1.0f);
    } else if (ends_with(".bias") && n != "t5.bias") {
      std::fill(p, p + t.size, 0.0f);
    } else {
      const float std = (ends_with("attn.proj.weight") || ends_with("mlp.proj.weight")) ? residual_std : 0.02f;
      for (std::size_t i = 0; i < t.size; ++i) p[i] = static_cast<float>(rng.normal() * std);
    }
  }
}

// ===========================================================================
// Activations: one arena, laid out per (B, T); grows, never shrinks.

void Model::Impl::check_inputs(const int32_t* tokens, const int32_t* targets, int B_, int T_) const {
  require_int_range("T", T_, 1, kMaxSequenceLength);
  require_int_range("B", B_, 1, 1 << 20);
  if (!tokens) throw Error(ErrorKind::Type, "tokens must be an array of B*T integers (got null)");
  const std::size_t n = static_cast<std::size_t>(B_) * static_cast<std::size_t>(T_);
  for (std::size_t i = 0; i < n; ++i)
    if (tokens[i] < 0 || tokens[i] >= V)
      range_error("tokens[" + std::to_string(i) + "]", "an integer in [0, " + std::to_string(V - 1) + "]",
                  std::to_string(tokens[i]));
  if (targets)
    for (std::size_t i = 0; i < n; ++i)
      if (targets[i] < -1 || targets[i] >= V)
        range_error("targets[" + std::to_string(i) + "]",
                    "-1 (not scored) or an integer in [0, " + std::to_string(V - 1) + "]", std::to_string(targets[i]));
  if (cfg.encoding == Encoding::Learned && cfg.learned_policy == OutOfRange::Error && T_ > cfg.max_length)
    throw Error(ErrorKind::Range,
                "sequence length T = " + std::to_string(T_) + " exceeds maxLength = " +
                    std::to_string(cfg.max_length) +
                    " of the learned position table (learnedPolicy 'error'); positions >= " +
                    std::to_string(cfg.max_length) + " were never trained: use learnedPolicy 'clamp' or 'zero'");
}

void Model::Impl::prepare(int B_, int T_, bool train, bool want_attention) {
  const uint64_t N = uint64_t(B_) * uint64_t(T_), TT = uint64_t(T_) * uint64_t(T_);
  const uint64_t c = C, f = F, v = V, h = H, hdim = hd, nr = (cfg.encoding == Encoding::Shaw) ? nrel : 0;
  // Sizes in floats, in the order they are carved below.
  uint64_t per_layer = N * c * 8 + N * 3 * c + N * f * 2 + N * 4;  // ln1 q k v atty res2 ln2 res3, qkv, fch fcg, stats
  uint64_t total = N * c + L * per_layer + N * c + N * 2 + N * v * 2;
  total += train ? uint64_t(L) * B_ * h * TT : TT;  // attention probabilities
  total += TT + uint64_t(T_) * nr + uint64_t(T_) * hdim;  // bias, rel, yh
  if (train) total += N * c * 3 + N * f + N * 3 * c + 4 * uint64_t(T_) * hdim + TT + uint64_t(T_) * nr;
  const uint64_t maps = want_attention ? uint64_t(L) * h * TT : 0;
  if (total + maps > kMaxActivationFloats)
    throw Error(ErrorKind::Range,
                "B = " + std::to_string(B_) + ", T = " + std::to_string(T_) + (want_attention ? " with attention maps" : "") +
                    " needs " + std::to_string((total + maps) * 4 / (1024 * 1024)) +
                    " MB of activations (limit " + std::to_string(kMaxActivationFloats * 4 / (1024 * 1024)) +
                    " MB): use a smaller batch or sequence length");
  if (arena.size() < total) arena.resize(static_cast<std::size_t>(total));
  float* p = arena.data();
  auto take = [&](uint64_t n) {
    float* r = p;
    p += n;
    return r;
  };
  Acts& a = acts;
  a.x0 = take(N * c);
  a.layer.resize(L);
  float* shared_att = nullptr;
  if (!train) shared_att = take(TT);
  for (int l = 0; l < L; ++l) {
    LayerActs& la = a.layer[l];
    la.ln1 = take(N * c);
    la.ln1_mean = take(N);
    la.ln1_rstd = take(N);
    la.qkv = take(N * 3 * c);
    la.q = take(N * c);
    la.k = take(N * c);
    la.v = take(N * c);
    la.att = train ? take(uint64_t(B_) * h * TT) : shared_att;
    la.atty = take(N * c);
    la.res2 = take(N * c);
    la.ln2 = take(N * c);
    la.ln2_mean = take(N);
    la.ln2_rstd = take(N);
    la.fch = take(N * f);
    la.fcg = take(N * f);
    la.res3 = take(N * c);
  }
  a.lnf = take(N * c);
  a.lnf_mean = take(N);
  a.lnf_rstd = take(N);
  a.logits = take(N * v);
  a.probs = take(N * v);
  a.bias = take(TT);
  a.rel = take(uint64_t(T_) * nr);
  a.yh = take(uint64_t(T_) * hdim);
  if (train) {
    a.dres = take(N * c);
    a.dln = take(N * c);
    a.datty = take(N * c);
    a.dbuf = take(N * f);
    a.dqkv = take(N * 3 * c);
    a.dq = take(uint64_t(T_) * hdim);
    a.dk = take(uint64_t(T_) * hdim);
    a.dv = take(uint64_t(T_) * hdim);
    a.dy = take(uint64_t(T_) * hdim);
    a.dP = take(TT);
    a.drel = take(uint64_t(T_) * nr);
  }
  B = B_;
  T = T_;
  training = train;
  if (want_attention)
    att_maps.resize(static_cast<std::size_t>(maps));
  else
    att_maps.clear();
}

// ===========================================================================
// Position tables (grow with T; RoPE tables rebuilt per forward so an eval-time
// RopeScaling override never leaks into training).

void Model::Impl::prepare_position_tables(int T_, const ForwardOptions& opt) {
  if (opt.rope_scaling && cfg.encoding != Encoding::Rope)
    throw Error(ErrorKind::Range, std::string("ropeScaling applies only to encoding 'rope' (got '") +
                                      encoding_name(cfg.encoding) + "')");
  if (cfg.encoding == Encoding::Sinusoidal && T_ > sin_rows) {
    sin_table.resize(static_cast<std::size_t>(T_) * C);
    SinusoidalOptions so;
    so.length = T_;
    so.dim = C;
    sinusoidal(so, sin_table.data());
    for (float& x : sin_table) x *= kSinusoidalScale;
    sin_rows = T_;
  }
  if (cfg.encoding == Encoding::T5 && T_ > t5_rows) {
    t5_bucket_by_distance.resize(T_);
    const T5BucketOptions bo{false, cfg.t5_num_buckets, cfg.t5_max_distance};
    for (int d = 0; d < T_; ++d) t5_bucket_by_distance[d] = t5_bucket(-d, bo);  // relative = key - query = -d
    t5_rows = T_;
  }
  if (cfg.encoding == Encoding::Rope) {
    const std::size_t half = static_cast<std::size_t>(rd / 2);
    rope_cos.resize(static_cast<std::size_t>(T_) * half);
    rope_sin.resize(static_cast<std::size_t>(T_) * half);
    RopeApplyOptions ro;
    ro.length = T_;
    ro.dim = hd;
    ro.rotary_dim = rd;
    ro.layout = cfg.rope_layout;
    if (opt.rope_scaling) {
      RopeFrequencies f = rope_frequencies(rd, cfg.rope_base, *opt.rope_scaling, T_);
      rope_inv_freq_override = std::move(f.inv_freq);
      ro.inv_freq = rope_inv_freq_override.data();
      ro.attention_scale = f.attention_scale;
    } else {
      ro.inv_freq = inv_freq.data();
      ro.attention_scale = rope_attention_scale;
    }
    rope_tables(ro, rope_cos.data(), rope_sin.data());
  }
}

namespace {

// ===========================================================================
// Embedding: x0[b,t,:] = wte[tokens[b,t]] + position(t)      x0 [N, C]
//   position: Sinusoidal -> kSinusoidalScale * PE[t];  Learned -> wpe[t] (past the
//   table: Clamp -> wpe[maxLength-1], Zero -> nothing; Error was refused up front).

int learned_row(int t, const ModelConfig& cfg) {
  if (t < cfg.max_length) return t;
  return cfg.learned_policy == OutOfRange::Clamp ? cfg.max_length - 1 : -1;
}

void embedding_forward(Model::Impl& m, const int32_t* tokens) {
  const int C = m.C;
  for (int b = 0; b < m.B; ++b)
    for (int t = 0; t < m.T; ++t) {
      const idx n = static_cast<idx>(b) * m.T + t;
      float* x = m.acts.x0 + n * C;
      const float* e = m.P(m.wte) + static_cast<idx>(tokens[n]) * C;
      const float* pos = nullptr;
      if (m.cfg.encoding == Encoding::Sinusoidal) pos = m.sin_table.data() + static_cast<idx>(t) * C;
      if (m.cfg.encoding == Encoding::Learned) {
        const int r = learned_row(t, m.cfg);
        if (r >= 0) pos = m.P(m.wpe) + static_cast<idx>(r) * C;
      }
      if (pos)
        for (int i = 0; i < C; ++i) x[i] = e[i] + pos[i];
      else
        std::memcpy(x, e, sizeof(float) * C);
    }
}

// dwte[tokens[n]] += dx0[n];  Learned: dwpe[row(t)] += dx0[n]
void embedding_backward(Model::Impl& m, const int32_t* tokens, const float* dx0) {
  const int C = m.C;
  for (int b = 0; b < m.B; ++b)
    for (int t = 0; t < m.T; ++t) {
      const idx n = static_cast<idx>(b) * m.T + t;
      const float* d = dx0 + n * C;
      float* ge = m.G(m.wte) + static_cast<idx>(tokens[n]) * C;
      for (int i = 0; i < C; ++i) ge[i] += d[i];
      if (m.cfg.encoding == Encoding::Learned) {
        const int r = learned_row(t, m.cfg);
        if (r >= 0) {
          float* gp = m.G(m.wpe) + static_cast<idx>(r) * C;
          for (int i = 0; i < C; ++i) gp[i] += d[i];
        }
      }
    }
}

// ===========================================================================
// Heads: split qkv [N, 3C] into q, k, v [B, H, T, hd] and merge back.

void split_heads(const Model::Impl& m, const float* qkv, float* q, float* k, float* v) {
  const int C = m.C, hd = m.hd, H = m.H, T = m.T;
  for (int b = 0; b < m.B; ++b)
    for (int t = 0; t < T; ++t) {
      const float* row = qkv + (static_cast<idx>(b) * T + t) * 3 * C;
      for (int h = 0; h < H; ++h) {
        const idx dst = ((static_cast<idx>(b) * H + h) * T + t) * hd;
        std::memcpy(q + dst, row + h * hd, sizeof(float) * hd);
        std::memcpy(k + dst, row + C + h * hd, sizeof(float) * hd);
        std::memcpy(v + dst, row + 2 * C + h * hd, sizeof(float) * hd);
      }
    }
}

// y [T, hd] of head (b, h) -> columns h*hd.. of out [N, C] rows b*T..
void merge_head(const Model::Impl& m, const float* y, int b, int h, float* out) {
  for (int t = 0; t < m.T; ++t)
    std::memcpy(out + (static_cast<idx>(b) * m.T + t) * m.C + h * m.hd, y + static_cast<idx>(t) * m.hd,
                sizeof(float) * m.hd);
}
// the reverse: columns h*hd.. of in [N, C] rows b*T.. -> y [T, hd]
void gather_head(const Model::Impl& m, const float* in, int b, int h, float* y) {
  for (int t = 0; t < m.T; ++t)
    std::memcpy(y + static_cast<idx>(t) * m.hd, in + (static_cast<idx>(b) * m.T + t) * m.C + h * m.hd,
                sizeof(float) * m.hd);
}
// dq, dk, dv [T, hd] of head (b, h) -> their columns of dqkv [N, 3C]
void scatter_dqkv(const Model::Impl& m, const float* dq, const float* dk, const float* dv, int b, int h, float* dqkv) {
  const int C = m.C, hd = m.hd;
  for (int t = 0; t < m.T; ++t) {
    float* row = dqkv + (static_cast<idx>(b) * m.T + t) * 3 * C;
    const idx s = static_cast<idx>(t) * hd;
    std::memcpy(row + h * hd, dq + s, sizeof(float) * hd);
    std::memcpy(row + C + h * hd, dk + s, sizeof(float) * hd);
    std::memcpy(row + 2 * C + h * hd, dv + s, sizeof(float) * hd);
  }
}

// ===========================================================================
// RoPE on q or k of one head: x [T, hd], rows rotated by position t.

void rope_forward(const Model::Impl& m, float* x) {
  if (m.cfg.rope_layout == RopeLayout::Half)
    kernels::rope_rotate_half(x, x, m.rope_cos.data(), m.rope_sin.data(), m.T, m.hd, m.rd);
  else
    kernels::rope_rotate_interleaved(x, x, m.rope_cos.data(), m.rope_sin.data(), m.T, m.hd, m.rd);
}
void rope_backward(const Model::Impl& m, float* dx) {
  if (m.cfg.rope_layout == RopeLayout::Half)
    kernels::rope_rotate_half_backward(dx, dx, m.rope_cos.data(), m.rope_sin.data(), m.T, m.hd, m.rd);
  else
    kernels::rope_rotate_interleaved_backward(dx, dx, m.rope_cos.data(), m.rope_sin.data(), m.T, m.hd, m.rd);
}

// ===========================================================================
// Score biases (causal: only j <= i is ever read).
//   T5:   bias[i,j] = t5[h, bucket(j - i)]                        bias [T, T]
//   Shaw: bias[i,j] = scale * q_i . a_{k - min(i-j, k)}             rel = q @ A^T  [T, 2k+1]

void t5_bias_forward(const Model::Impl& m, int h, float* bias) {
  const float* table = m.params.data() + m.t5 + static_cast<idx>(h) * m.cfg.t5_num_buckets;
  const int32_t* bkt = m.t5_bucket_by_distance.data();
  for (int i = 0; i < m.T; ++i) {
    float* row = bias + static_cast<idx>(i) * m.T;
    for (int j = 0; j <= i; ++j) row[j] = table[bkt[i - j]];
  }
}
// dt5[h, bucket(j - i)] += dS[i, j]
void t5_bias_backward(Model::Impl& m, int h, const float* dS) {
  float* dtable = m.grads.data() + m.t5 + static_cast<idx>(h) * m.cfg.t5_num_buckets;
  const int32_t* bkt = m.t5_bucket_by_distance.data();
  for (int i = 0; i < m.T; ++i) {
    const float* row = dS + static_cast<idx>(i) * m.T;
    for (int j = 0; j <= i; ++j) dtable[bkt[i - j]] += row[j];
  }
}

void shaw_bias_forward(const Model::Impl& m, const float* A, const float* q, float* rel, float* bias) {
  const int k = m.cfg.shaw_k, nr = m.nrel, T = m.T;
  kernels::matmul_bt(q, A, rel, T, m.hd, nr, false);  // [T, hd] @ [2k+1, hd]^T -> [T, 2k+1]
  for (int i = 0; i < T; ++i) {
    const float* r = rel + static_cast<idx>(i) * nr;
    float* row = bias + static_cast<idx>(i) * T;
    for (int j = 0; j <= i; ++j) row[j] = m.scale * r[k - std::min(i - j, k)];
  }
}
// dS_scaled = scale * dS:  drel[i, k - min(i-j, k)] = sum_j dS_scaled[i, j];
// dq += drel @ A;  dA += drel^T @ q
void shaw_bias_backward(const Model::Impl& m, const float* A, const float* q, const float* dS_scaled, float* drel,
                        float* dq, float* dA) {
  const int k = m.cfg.shaw_k, nr = m.nrel, T = m.T;
  std::fill(drel, drel + static_cast<idx>(T) * nr, 0.0f);
  for (int i = 0; i < T; ++i) {
    const float* row = dS_scaled + static_cast<idx>(i) * T;
    float* d = drel + static_cast<idx>(i) * nr;
    for (int j = 0; j <= i; ++j) d[k - std::min(i - j, k)] += row[j];
  }
  kernels::matmul(drel, A, dq, T, nr, m.hd, true);     // [T, 2k+1] @ [2k+1, hd]
  kernels::matmul_at(drel, q, dA, T, nr, m.hd, true);  // [T, 2k+1]^T @ [T, hd] -> [2k+1, hd]
}

// ===========================================================================
// Causal multi-head attention of one layer.
//   forward:  q, k, v [B,H,T,hd] (q, k rotated for RoPE)
//             P[b,h] = softmax(scale q k^T - alibi_h (i - j) + bias, causal)   [T, T]
//             atty[b, t, h*hd..] = (P v)[t]                                  [N, C]

void attention_forward(Model::Impl& m, int l, bool want_attention) {
  LayerActs& la = m.acts.layer[l];
  const int T = m.T, H = m.H, hd = m.hd;
  const idx TT = static_cast<idx>(T) * T, head = static_cast<idx>(T) * hd;
  const Encoding enc = m.cfg.encoding;
  if (enc == Encoding::Rope)
    for (int bh = 0; bh < m.B * H; ++bh) {
      rope_forward(m, la.q + bh * head);
      rope_forward(m, la.k + bh * head);
    }
  for (int h = 0; h < H; ++h) {
    const float slope = enc == Encoding::Alibi ? m.alibi[h] : 0.0f;
    const float* bias = nullptr;
    if (enc == Encoding::T5) {
      t5_bias_forward(m, h, m.acts.bias);
      bias = m.acts.bias;
    }
    for (int b = 0; b < m.B; ++b) {
      const idx bh = static_cast<idx>(b) * H + h;
      const float* q = la.q + bh * head;
      const float* k = la.k + bh * head;
      const float* v = la.v + bh * head;
      float* S = m.training ? la.att + bh * TT : la.att;
      if (enc == Encoding::Shaw) {
        shaw_bias_forward(m, m.P(m.layer[l].shaw), q, m.acts.rel, m.acts.bias);
        bias = m.acts.bias;
      }
      kernels::attention_scores_softmax(q, k, S, T, T, hd, m.scale, true, slope, bias);
      if (want_attention && b == 0)
        std::memcpy(m.att_maps.data() + (static_cast<idx>(l) * H + h) * TT, S, sizeof(float) * TT);
      kernels::matmul(S, v, m.acts.yh, T, T, hd, false);  // [T, T] @ [T, hd]
      merge_head(m, m.acts.yh, b, h, la.atty);
    }
  }
}

//   backward, per head, from datty [N, C]:
//     dy = datty[b, :, h]                       [T, hd]
//     dP = dy v^T;  dv = P^T dy                 [T, T], [T, hd]
//     dS = softmax_backward(P, dP)              (T5: dt5 += dS by bucket)
//     dS *= scale;  dq = dS k;  dk = dS^T q     (Shaw: + its terms; RoPE: rotate back)
void attention_backward(Model::Impl& m, int l) {
  LayerActs& la = m.acts.layer[l];
  Acts& a = m.acts;
  const int T = m.T, H = m.H, hd = m.hd;
  const idx TT = static_cast<idx>(T) * T, head = static_cast<idx>(T) * hd;
  const Encoding enc = m.cfg.encoding;
  for (int h = 0; h < H; ++h)
    for (int b = 0; b < m.B; ++b) {
      const idx bh = static_cast<idx>(b) * H + h;
      const float* q = la.q + bh * head;
      const float* k = la.k + bh * head;
      const float* v = la.v + bh * head;
      const float* P = la.att + bh * TT;
      gather_head(m, a.datty, b, h, a.dy);
      kernels::matmul_bt(a.dy, v, a.dP, T, hd, T, false);  // dP = dy v^T      [T, T]
      kernels::matmul_at(P, a.dy, a.dv, T, T, hd, false);  // dv = P^T dy      [T, hd]
      kernels::softmax_rows_backward(P, a.dP, a.dP, T, T);  // dS (in place)
      if (enc == Encoding::T5) t5_bias_backward(m, h, a.dP);
      for (idx i = 0; i < TT; ++i) a.dP[i] *= m.scale;
      kernels::matmul(a.dP, k, a.dq, T, T, hd, false);     // dq = dS k        [T, hd]
      kernels::matmul_at(a.dP, q, a.dk, T, T, hd, false);  // dk = dS^T q      [T, hd]
      if (enc == Encoding::Shaw)
        shaw_bias_backward(m, m.P(m.layer[l].shaw), q, a.dP, a.drel, a.dq, m.G(m.layer[l].shaw));
      if (enc == Encoding::Rope) {
        rope_backward(m, a.dq);
        rope_backward(m, a.dk);
      }
      scatter_dqkv(m, a.dq, a.dk, a.dv, b, h, a.dqkv);
    }
}

}  // namespace

// ===========================================================================
// The whole model

void Model::Impl::forward(const int32_t* tokens, const ForwardOptions& opt) {
  const int N = B * T;
  const bool want = opt.want_attention;
  embedding_forward(*this, tokens);
  const float* x = acts.x0;
  for (int l = 0; l < L; ++l) {
    const LayerOffsets& o = layer[l];
    LayerActs& la = acts.layer[l];
    // attention sub-block: res2 = x + proj(attn(LN1(x)))
    layers::layernorm_forward(la.ln1, la.ln1_mean, la.ln1_rstd, x, P(o.ln1_w), P(o.ln1_b), N, C);
    layers::linear_forward(la.qkv, la.ln1, P(o.qkv_w), P(o.qkv_b), N, C, 3 * C);
    split_heads(*this, la.qkv, la.q, la.k, la.v);
    attention_forward(*this, l, want);
    layers::linear_forward(la.res2, la.atty, P(o.proj_w), P(o.proj_b), N, C, C);
    layers::residual_forward(la.res2, la.res2, x, static_cast<std::size_t>(N) * C);
    // MLP sub-block: res3 = res2 + W2 GELU(W1 LN2(res2))
    layers::layernorm_forward(la.ln2, la.ln2_mean, la.ln2_rstd, la.res2, P(o.ln2_w), P(o.ln2_b), N, C);
    layers::linear_forward(la.fch, la.ln2, P(o.fc_w), P(o.fc_b), N, C, F);
    layers::gelu_forward(la.fcg, la.fch, static_cast<std::size_t>(N) * F);
    layers::linear_forward(la.res3, la.fcg, P(o.fcp_w), P(o.fcp_b), N, F, C);
    layers::residual_forward(la.res3, la.res3, la.res2, static_cast<std::size_t>(N) * C);
    x = la.res3;
  }
  layers::layernorm_forward(acts.lnf, acts.lnf_mean, acts.lnf_rstd, x, P(lnf_w), P(lnf_b), N, C);
  layers::linear_forward(acts.logits, acts.lnf, P(lm_head), nullptr, N, C, V);
}

// Backward from dlogits (in acts.probs) to every parameter gradient (accumulated).
void Model::Impl::backward(const int32_t* tokens) {
  const int N = B * T;
  const std::size_t NC = static_cast<std::size_t>(N) * C;
  // logits = lnf @ lm_head
  layers::linear_backward(acts.dln, G(lm_head), nullptr, acts.probs, acts.lnf, P(lm_head), N, C, V);
  std::fill(acts.dres, acts.dres + NC, 0.0f);
  const float* x_last = acts.layer[L - 1].res3;
  layers::layernorm_backward(acts.dres, G(lnf_w), G(lnf_b), acts.dln, x_last, P(lnf_w), acts.lnf_mean,
                             acts.lnf_rstd, N, C);
  for (int l = L - 1; l >= 0; --l) {
    const LayerOffsets& o = layer[l];
    LayerActs& la = acts.layer[l];
    const float* x = l == 0 ? acts.x0 : acts.layer[l - 1].res3;
    // MLP: dres holds d(res3); the residual passes it to res2 unchanged.
    layers::linear_backward(acts.dbuf, G(o.fcp_w), G(o.fcp_b), acts.dres, la.fcg, P(o.fcp_w), N, F, C);
    layers::gelu_backward(acts.dbuf, la.fch, acts.dbuf, static_cast<std::size_t>(N) * F);
    layers::linear_backward(acts.dln, G(o.fc_w), G(o.fc_b), acts.dbuf, la.ln2, P(o.fc_w), N, C, F);
    layers::layernorm_backward(acts.dres, G(o.ln2_w), G(o.ln2_b), acts.dln, la.res2, P(o.ln2_w), la.ln2_mean,
                               la.ln2_rstd, N, C);
    // attention: dres now holds d(res2); the residual passes it to x unchanged.
    layers::linear_backward(acts.datty, G(o.proj_w), G(o.proj_b), acts.dres, la.atty, P(o.proj_w), N, C, C);
    attention_backward(*this, l);
    layers::linear_backward(acts.dln, G(o.qkv_w), G(o.qkv_b), acts.dqkv, la.ln1, P(o.qkv_w), N, C, 3 * C);
    layers::layernorm_backward(acts.dres, G(o.ln1_w), G(o.ln1_b), acts.dln, x, P(o.ln1_w), la.ln1_mean,
                               la.ln1_rstd, N, C);
  }
  embedding_backward(*this, tokens, acts.dres);
}

// ===========================================================================
// Public API

Model::Model(const ModelConfig& config) : impl_(std::make_unique<Impl>(config)) {}
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

const ModelConfig& Model::config() const { return impl_->cfg; }
std::size_t Model::num_parameters() const { return impl_->nparams; }
const std::vector<TensorInfo>& Model::tensors() const { return impl_->tensors; }
const TensorInfo* Model::find_tensor(const std::string& name) const {
  for (const TensorInfo& t : impl_->tensors)
    if (t.name == name) return &t;
  return nullptr;
}
float* Model::parameters() { return impl_->params.data(); }
const float* Model::parameters() const { return impl_->params.data(); }
float* Model::gradients() { return impl_->grads.data(); }
const float* Model::gradients() const { return impl_->grads.data(); }

const float* Model::forward(const int32_t* tokens, int B, int T, const ForwardOptions& options) {
  Impl& m = *impl_;
  m.check_inputs(tokens, nullptr, B, T);
  m.prepare(B, T, false, options.want_attention);
  m.prepare_position_tables(T, options);
  m.forward(tokens, options);
  return m.acts.logits;
}

LossResult Model::evaluate(const int32_t* tokens, const int32_t* targets, int B, int T,
                           const ForwardOptions& options) {
  Impl& m = *impl_;
  if (!targets) throw Error(ErrorKind::Type, "targets must be an array of B*T integers (got null)");
  m.check_inputs(tokens, targets, B, T);
  m.prepare(B, T, false, options.want_attention);
  m.prepare_position_tables(T, options);
  m.forward(tokens, options);
  const layers::CrossEntropySums s = layers::crossentropy_forward(m.acts.probs, m.acts.logits, targets, B * T, m.V);
  LossResult r;
  r.scored = s.scored;
  r.correct = s.correct;
  if (s.scored > 0) {
    r.loss = static_cast<float>(s.loss / s.scored);
    r.accuracy = static_cast<float>(s.correct) / static_cast<float>(s.scored);
  }
  return r;
}

const std::vector<float>& Model::attention_maps() const { return impl_->att_maps; }
int Model::last_length() const { return impl_->T; }

LossResult Model::forward_backward(const int32_t* tokens, const int32_t* targets, int B, int T) {
  Impl& m = *impl_;
  if (!targets) throw Error(ErrorKind::Type, "targets must be an array of B*T integers (got null)");
  m.check_inputs(tokens, targets, B, T);
  m.prepare(B, T, true, false);
  m.prepare_position_tables(T, ForwardOptions{});
  std::fill(m.grads.begin(), m.grads.end(), 0.0f);
  m.forward(tokens, ForwardOptions{});
  const int N = B * T;
  const layers::CrossEntropySums s = layers::crossentropy_forward(m.acts.probs, m.acts.logits, targets, N, m.V);
  LossResult r;
  r.scored = s.scored;
  r.correct = s.correct;
  if (s.scored > 0) {
    r.loss = static_cast<float>(s.loss / s.scored);
    r.accuracy = static_cast<float>(s.correct) / static_cast<float>(s.scored);
  }
  const float inv = s.scored > 0 ? 1.0f / static_cast<float>(s.scored) : 0.0f;
  layers::crossentropy_backward(m.acts.probs, m.acts.probs, targets, N, m.V, inv);
  m.backward(tokens);
  m.trained_length = std::max(m.trained_length, T);
  return r;
}

LossResult Model::train_step(const int32_t* tokens, const int32_t* targets, int B, int T, float lr) {
  require_finite("lr", lr);
  if (lr < 0) range_error("lr", "a finite number >= 0", format_number(lr));
  LossResult r = forward_backward(tokens, targets, B, T);
  const float clip = impl_->opt.grad_clip;
  r.grad_norm = clip > 0 ? clip_gradients(clip) : gradient_norm();
  adamw_update(lr);
  return r;
}

AdamWOptions& Model::optimizer_options() { return impl_->opt; }
const AdamWOptions& Model::optimizer_options() const { return impl_->opt; }
long long Model::step() const { return impl_->step; }
void Model::reset_optimizer() {
  std::fill(impl_->adam_m.begin(), impl_->adam_m.end(), 0.0f);
  std::fill(impl_->adam_v.begin(), impl_->adam_v.end(), 0.0f);
  impl_->step = 0;
}

int Model::trained_length() const { return impl_->trained_length; }
void Model::set_trained_length(int t) {
  require_int_range("trainedLength", t, 0, kMaxSequenceLength);
  impl_->trained_length = t;
}

std::vector<PositionStatus> Model::position_status(int T) const {
  require_int_range("T", T, 0, kMaxSequenceLength);
  const ModelConfig& c = impl_->cfg;
  std::vector<PositionStatus> s(static_cast<std::size_t>(T));
  for (int p = 0; p < T; ++p) {
    if (c.encoding == Encoding::Learned && p >= c.max_length)
      s[p] = PositionStatus::OutOfTable;
    else
      s[p] = p < impl_->trained_length ? PositionStatus::Trained : PositionStatus::Untrained;
  }
  return s;
}

std::vector<int32_t> Model::untrained_positions(int T) const {
  std::vector<int32_t> out;
  const std::vector<PositionStatus> s = position_status(T);
  for (int p = 0; p < T; ++p)
    if (s[p] != PositionStatus::Trained) out.push_back(p);
  return out;
}

}  // namespace posenc
