// The tiny decoder-only transformer: parameters, forward and backward.
// Read top to bottom like llm.c's train_gpt2.c: each forward is followed by its
// backward; tensor shapes are in the comments. N = B*T rows, C = d_model,
// H heads of hd = C/H channels, F = mlp_ratio*C, V = vocab_size.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>

#include "../kind_table.hpp"
#include "encoding_model.hpp"
#include "model_impl.hpp"
#include "../kernels/matmul_strided.hpp"
#include "model_layers.hpp"
#include "posenc/error.hpp"
#include "posenc/kernels.hpp"
#include "posenc/rng.hpp"

namespace posenc {

using idx = std::ptrdiff_t;

// ===========================================================================
// Names and config validation

namespace {
struct PolicyRow {
  OutOfRange id;
  const char* name;
};
constexpr PolicyRow kPolicies[] = {{OutOfRange::Error, "error"}, {OutOfRange::Clamp, "clamp"}, {OutOfRange::Zero, "zero"}};
static_assert(rows_in_enum_order(kPolicies), "kPolicies' rows must be in OutOfRange's order");
}  // namespace

const char* out_of_range_name(OutOfRange p) {
  const auto i = static_cast<std::size_t>(p);
  return i < std::size(kPolicies) ? kPolicies[i].name : "?";
}

OutOfRange parse_out_of_range(const std::string& name) {
  for (const PolicyRow& p : kPolicies)
    if (name == p.name) return p.id;
  range_error("learnedPolicy", one_of(kPolicies), "'" + name + "'");
}

namespace {
uint64_t count_parameters_u64(const ModelConfig& c, const EncodingModel& enc) {
  const uint64_t C = c.d_model, L = c.layers, V = c.vocab_size, F = uint64_t(c.mlp_ratio) * C;
  const uint64_t per_layer = 4 * C + C * 3 * C + 3 * C + C * C + C + C * F + F + F * C + C + enc.layer_parameters();
  return V * C + enc.global_parameters() + L * per_layer + 2 * C + C * V;  // wte, (encoding), blocks, lnf, lm_head
}
}  // namespace

void ModelConfig::validate() const {
  if (!find_encoding(encoding)) range_error("encoding", encoding_choices(), std::to_string(static_cast<uint32_t>(encoding)));
  validate_config_fields(*this);
  if (d_model % heads != 0)
    throw Error(ErrorKind::Range, "dModel must be divisible by heads (got dModel " + std::to_string(d_model) +
                                      ", heads " + std::to_string(heads) + ")");
  const std::unique_ptr<EncodingModel> enc = make_encoding_model(*this);
  enc->validate();
  if (!causal && enc->causal_only())
    throw Error(ErrorKind::Range, std::string("causal = false (bidirectional attention) does not apply to encoding '") +
                                      encoding_name(encoding) + "': " + enc->causal_only());
  const uint64_t n = count_parameters_u64(*this, *enc);
  if (n > kMaxParameters)
    throw Error(ErrorKind::Range, "model too large: " + std::to_string(n) + " parameters (limit " +
                                      std::to_string(kMaxParameters) + ")");
}

std::size_t count_parameters(const ModelConfig& config) {
  config.validate();
  return static_cast<std::size_t>(count_parameters_u64(config, *make_encoding_model(config)));
}

// ===========================================================================
// Parameters: layout and initialisation

ModelImpl::ModelImpl(const ModelConfig& c, LayoutOnly) : cfg(c) {
  cfg.validate();
  L = cfg.layers;
  H = cfg.heads;
  C = cfg.d_model;
  hd = cfg.head_dim();
  F = cfg.mlp_ratio * C;
  V = cfg.vocab_size;
  enc = make_encoding_model(cfg);
  can_stream = find_encoding(cfg.encoding)->streaming;
  scale = 1.0f / std::sqrt(static_cast<float>(hd));
  build_layout();
}

ModelImpl::ModelImpl(const ModelConfig& c) : ModelImpl(c, LayoutOnly{}) {
  params.assign(nparams, 0.0f);
  grads.assign(nparams, 0.0f);
  adam_m.assign(nparams, 0.0f);
  adam_v.assign(nparams, 0.0f);
  init_weights();
}

ModelImpl::~ModelImpl() = default;

std::vector<TensorInfo> tensor_table(const ModelConfig& config) {
  return ModelImpl(config, ModelImpl::LayoutOnly{}).tensors;  // (an xvalue: moved)
}

void ModelImpl::build_layout() {
  tensors.clear();
  init_std.clear();
  std::size_t off = 0;
  auto add_init = [&](const std::string& name, std::vector<int> shape, bool decay, float std) {
    std::size_t n = 1;
    for (int s : shape) n *= static_cast<std::size_t>(s);
    tensors.push_back(TensorInfo{name, off, std::move(shape), n, decay});
    init_std.push_back(std);
    off += n;
    return tensors.back().offset;
  };
  // The model's own tensors: initialised by name (init_weights).
  auto add = [&](const std::string& name, std::vector<int> shape, bool decay) {
    return add_init(name, std::move(shape), decay, std::numeric_limits<float>::quiet_NaN());
  };
  wte = add("wte", {V, C}, false);
  enc->add_tensors(add_init);  // e.g. "wpe", "t5.bias"
  layer.resize(L);
  for (int l = 0; l < L; ++l) {
    std::string p = std::to_string(l);  // "h<l>." (built this way to dodge a GCC 12 -Wrestrict false positive)
    p.insert(0, 1, 'h');
    p += '.';
    LayerOffsets& o = layer[l];
    o.ln1_w = add(p + "ln1.weight", {C}, false);
    o.ln1_b = add(p + "ln1.bias", {C}, false);
    o.qkv_w = add(p + "attn.qkv.weight", {C, 3 * C}, true);
    o.qkv_b = add(p + "attn.qkv.bias", {3 * C}, false);
    o.proj_w = add(p + "attn.proj.weight", {C, C}, true);
    o.proj_b = add(p + "attn.proj.bias", {C}, false);
    enc->add_layer_tensors(add_init, l, p);  // e.g. "h<l>.attn.shaw"
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
void ModelImpl::init_weights() {
  Rng rng(cfg.seed, /*stream=*/1);
  const float residual_std = 0.02f / std::sqrt(2.0f * static_cast<float>(L));
  for (std::size_t ti = 0; ti < tensors.size(); ++ti) {
    const TensorInfo& t = tensors[ti];
    float* p = params.data() + t.offset;
    const std::string& n = t.name;
    if (!std::isnan(init_std[ti])) {  // an encoding's tensor: N(0, std), or zeros for std 0
      if (init_std[ti] == 0.0f)
        std::fill(p, p + t.size, 0.0f);
      else
        for (std::size_t i = 0; i < t.size; ++i) p[i] = static_cast<float>(rng.normal() * init_std[ti]);
      continue;
    }
    auto ends_with = [&](const char* s) {
      const std::size_t k = std::strlen(s);
      return n.size() >= k && n.compare(n.size() - k, k, s) == 0;
    };
    if (ends_with("ln1.weight") || ends_with("ln2.weight") || n == "lnf.weight") {
      std::fill(p, p + t.size, 1.0f);
    } else if (ends_with(".bias")) {
      std::fill(p, p + t.size, 0.0f);
    } else {
      const float std = (ends_with("attn.proj.weight") || ends_with("mlp.proj.weight")) ? residual_std : 0.02f;
      for (std::size_t i = 0; i < t.size; ++i) p[i] = static_cast<float>(rng.normal() * std);
    }
  }
  enc->init_tensors(*this);
}

// ===========================================================================
// Activations: one arena, laid out per (B, T); grows, never shrinks.

void ModelImpl::check_inputs(const int32_t* tokens, const int32_t* targets, int B_, int T_) const {
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
  enc->check_length(T_);
}

ModelImpl::MapLayers ModelImpl::map_layers(const ForwardOptions& opt) const {
  if (opt.attention_layer != -1 && (opt.attention_layer < 0 || opt.attention_layer >= L))
    range_error("attentionLayer", "-1 (every layer) or an integer in [0, " + std::to_string(L - 1) + "]",
                std::to_string(opt.attention_layer));
  if (!opt.want_attention) return {};
  if (opt.attention_layer < 0) return {0, L - 1};
  return {opt.attention_layer, opt.attention_layer};
}

void ModelImpl::prepare(int B_, int T_, bool train, bool want_attention, int map_count) {
  require_int_range("T", T_, 1, kMaxSequenceLength);
  require_int_range("B", B_, 1, 1 << 20);
  const uint64_t N = uint64_t(B_) * uint64_t(T_), TT = uint64_t(T_) * uint64_t(T_);
  const uint64_t c = C, f = F, v = V, h = H, hdim = hd;
  // Inference without maps streams attention (kernels::attention_forward): no [T, T] buffer at
  // all; a distance bias needs one value per distance (the encoding says how much scratch).
  // An encoding the streaming kernel cannot express (registry: streaming false) materialises.
  const bool stream = !train && !want_attention && find_encoding(cfg.encoding)->streaming;
  const uint64_t nbias = enc->bias_floats(T_, stream), nrel = enc->rel_floats(T_);
  // Inference keeps no activations for a backward pass, so every layer reuses one set
  // (layer l reads x = res3 of layer l-1 before it writes its own res3).
  const uint64_t layer_sets = train ? uint64_t(L) : 1;
  // Sizes in floats, in the order they are carved below.
  uint64_t per_layer = N * c * 8 + N * 3 * c + N * f * 3 + N * 4;  // ln1 q k v atty res2 ln2 res3, qkv, fch fcg fct, stats
  uint64_t total = N * c + layer_sets * per_layer + N * c + N * 2 + N * v * 2;
  total += train ? uint64_t(L) * B_ * h * TT : (stream ? 0 : TT);  // attention probabilities
  total += nbias + nrel + uint64_t(T_) * hdim;  // bias, rel, yh
  if (train) total += N * c * 3 + N * f + N * 3 * c + N * c * 3 + 2 * uint64_t(T_) * hdim + TT + nrel;
  const uint64_t maps = want_attention ? uint64_t(map_count) * h * TT : 0;
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
  if (!train && !stream) shared_att = take(TT);
  for (int l = 0; l < L; ++l) {
    LayerActs& la = a.layer[l];
    if (static_cast<uint64_t>(l) >= layer_sets) {
      la = a.layer[0];
      continue;
    }
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
    la.fct = take(N * f);
    la.res3 = take(N * c);
  }
  a.lnf = take(N * c);
  a.lnf_mean = take(N);
  a.lnf_rstd = take(N);
  a.logits = take(N * v);
  a.probs = take(N * v);
  a.bias = take(nbias);
  a.rel = take(nrel);
  a.yh = take(uint64_t(T_) * hdim);
  if (train) {
    a.dres = take(N * c);
    a.dln = take(N * c);
    a.datty = take(N * c);
    a.dbuf = take(N * f);
    a.dqkv = take(N * 3 * c);
    a.dq = take(N * c);
    a.dk = take(N * c);
    a.dv = take(N * c);
    a.dy = take(uint64_t(T_) * hdim);
    a.vt = take(uint64_t(T_) * hdim);
    a.dP = take(TT);
    a.drel = take(nrel);
  }
  B = B_;
  T = T_;
  training = train;
  streaming = stream;
  if (want_attention)
    att_maps.resize(static_cast<std::size_t>(maps));
  else
    att_maps.clear();
}

// ===========================================================================
// Position tables: the encoding's, per forward (an eval-time RopeScaling override never
// leaks into training).

void ModelImpl::check_position_options(const ForwardOptions& opt) const {
  if (opt.rope_scaling && !enc->accepts_rope_scaling())
    throw Error(ErrorKind::Range, std::string("ropeScaling applies only to encoding 'rope' (got '") +
                                      encoding_name(cfg.encoding) + "')");
}

void ModelImpl::prepare_position_tables(int T_, const ForwardOptions& opt) {
  check_position_options(opt);
  const float a = opt.attention_logit_scale;
  if (!(std::isfinite(a) && a > 0.0f)) range_error("attentionLogitScale", "a finite number > 0", format_number(a));
  scale = a / std::sqrt(static_cast<float>(hd));  // the q.k scale of this forward (and its backward)
  enc->prepare(*this, T_, opt);
}

void ModelImpl::check_lengths(const ForwardOptions& opt, int B_, int T_) const {
  if (!opt.lengths) return;
  for (int b = 0; b < B_; ++b)
    if (opt.lengths[b] < 1 || opt.lengths[b] > T_)
      range_error("lengths[" + std::to_string(b) + "]", "an integer in [1, T = " + std::to_string(T_) + "]",
                  std::to_string(opt.lengths[b]));
}

void ModelImpl::set_examples(const ForwardOptions& opt, int B_, int T_caller, const std::pair<int, int>* order) {
  example_index.resize(B_);
  example_length.resize(B_);
  for (int b = 0; b < B_; ++b) {
    const int e = order ? order[b].second : b;
    example_index[b] = static_cast<uint64_t>(e) + (training ? 0 : opt.first_example);
    example_length[b] = opt.lengths ? opt.lengths[e] : T_caller;
  }
  position_draw = training ? static_cast<uint64_t>(step) : opt.position_draw;
}

namespace {

// ===========================================================================
// Embedding: x0[b,t,:] = wte[tokens[b,t]] (+ the encoding's position vector)    x0 [N, C]

void embedding_forward(ModelImpl& m, const int32_t* tokens) {
  const int C = m.C;
  const bool pos = m.enc->adds_position();
  for (int b = 0; b < m.B; ++b)
    for (int t = 0; t < m.T; ++t) {
      const idx n = static_cast<idx>(b) * m.T + t;
      float* x = m.acts.x0 + n * C;
      std::memcpy(x, m.P(m.wte) + static_cast<idx>(tokens[n]) * C, sizeof(float) * C);
      if (pos) m.enc->embed_forward(m, b, t, x);
    }
}

// dwte[tokens[n]] += dx0[n]; the encoding takes dx0[n] for its position vector
void embedding_backward(ModelImpl& m, const int32_t* tokens, const float* dx0) {
  const int C = m.C;
  const bool pos = m.enc->adds_position();
  for (int b = 0; b < m.B; ++b)
    for (int t = 0; t < m.T; ++t) {
      const idx n = static_cast<idx>(b) * m.T + t;
      const float* d = dx0 + n * C;
      float* ge = m.G(m.wte) + static_cast<idx>(tokens[n]) * C;
      for (int i = 0; i < C; ++i) ge[i] += d[i];
      if (pos) m.enc->embed_backward(m, b, t, d);
    }
}

// ===========================================================================
// Heads: split qkv [N, 3C] into q, k, v [B, H, T, hd] and merge back.

void split_heads(const ModelImpl& m, const float* qkv, float* q, float* k, float* v) {
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

// y [Tq, hd] of head (b, h) -> columns h*hd.. of out [B, Tq, C] rows b*Tq..
void merge_head(const ModelImpl& m, const float* y, int b, int h, int Tq, float* out) {
  for (int t = 0; t < Tq; ++t)
    std::memcpy(out + (static_cast<idx>(b) * Tq + t) * m.C + h * m.hd, y + static_cast<idx>(t) * m.hd,
                sizeof(float) * m.hd);
}
// the reverse: columns h*hd.. of in [B, Tq, C] rows b*Tq.. -> y [Tq, hd]
void gather_head(const ModelImpl& m, const float* in, int b, int h, int Tq, float* y) {
  for (int t = 0; t < Tq; ++t)
    std::memcpy(y + static_cast<idx>(t) * m.hd, in + (static_cast<idx>(b) * Tq + t) * m.C + h * m.hd,
                sizeof(float) * m.hd);
}

// Rows of the last layer after its attention are kept only for queries t >= q0, packed
// as [B, Tq, C]. res[b, i] += x[b, q0 + i]  (x in the full [B, T, C] layout)
void residual_add_suffix(float* res, const float* x, int B, int T, int q0, int C) {
  const int Tq = T - q0;
  for (int b = 0; b < B; ++b)
    layers::residual_forward(res + static_cast<idx>(b) * Tq * C, res + static_cast<idx>(b) * Tq * C,
                             x + (static_cast<idx>(b) * T + q0) * C, static_cast<std::size_t>(Tq) * C);
}
// In place [B, Tq, C] -> [B, T, C] with zero rows t < q0 (moving from the end: never overwrites unread rows).
void expand_suffix_rows(float* x, int B, int T, int q0, int C) {
  const int Tq = T - q0;
  for (int b = B - 1; b >= 0; --b) {
    for (int i = Tq - 1; i >= 0; --i)
      std::memmove(x + (static_cast<idx>(b) * T + q0 + i) * C, x + (static_cast<idx>(b) * Tq + i) * C,
                   sizeof(float) * C);
    std::memset(x + static_cast<idx>(b) * T * C, 0, sizeof(float) * q0 * C);
  }
}
// the reverse of split_heads: dq, dk, dv [B, H, T, hd] -> dqkv [N, 3C]
void merge_dqkv(const ModelImpl& m, const float* dq, const float* dk, const float* dv, float* dqkv) {
  const int C = m.C, hd = m.hd, H = m.H, T = m.T;
  for (int b = 0; b < m.B; ++b)
    for (int t = 0; t < T; ++t) {
      float* row = dqkv + (static_cast<idx>(b) * T + t) * 3 * C;
      for (int h = 0; h < H; ++h) {
        const idx src = ((static_cast<idx>(b) * H + h) * T + t) * hd;
        std::memcpy(row + h * hd, dq + src, sizeof(float) * hd);
        std::memcpy(row + C + h * hd, dk + src, sizeof(float) * hd);
        std::memcpy(row + 2 * C + h * hd, dv + src, sizeof(float) * hd);
      }
    }
}

// ===========================================================================
// Attention products. Queries i in [0, Tq) sit at positions i + q0 (q0 = Tk - Tq:
// training skips the last layer's queries before the first scored position). Causal: query i
// sees keys j <= i + q0, so P and dS are lower triangular (P is exactly 0 past i + q0), and
// products with them run over row blocks of kCausalBlock queries that stop at the block's last
// visible key: about 5/8 of the full work at T = 64. Bidirectional (ModelConfig::causal false):
// every query sees every key, the same blocks run to Tk.

constexpr int kCausalBlock = 16;

// Last key (exclusive) a block of queries ending at r1 reads.
inline int block_end(int r1, int q0, int Tk, bool causal) { return causal ? r1 + q0 : Tk; }

// y[Tq, d] = P[Tq, Tk] @ v[Tk, d]
void attention_pv(const float* P, const float* v, float* y, int Tq, int Tk, int d, bool causal) {
  const int q0 = Tk - Tq;
  for (int r0 = 0; r0 < Tq; r0 += kCausalBlock) {
    const int r1 = std::min(Tq, r0 + kCausalBlock);
    kernels::detail::matmul_strided(P + static_cast<idx>(r0) * Tk, Tk, v, d, y + static_cast<idx>(r0) * d, d,
                                    r1 - r0, block_end(r1, q0, Tk, causal), d, false);
  }
}
// out[Tk, d] = P[Tq, Tk]^T @ dy[Tq, d]. Causal: keys [0, q0) gather every query; key block
// [r0 + q0, r1 + q0) gathers the queries i >= r0 (whose rows are computed that far).
// Bidirectional: every key gathers every query.
void attention_ptv(const float* P, const float* dy, float* out, int Tq, int Tk, int d, bool causal) {
  if (!causal) {
    kernels::detail::matmul_at_strided(P, Tk, dy, d, out, d, Tq, Tk, d, false);
    return;
  }
  const int q0 = Tk - Tq;
  if (q0 > 0) kernels::detail::matmul_at_strided(P, Tk, dy, d, out, d, Tq, q0, d, false);
  for (int r0 = 0; r0 < Tq; r0 += kCausalBlock) {
    const int r1 = std::min(Tq, r0 + kCausalBlock), c0 = r0 + q0;
    kernels::detail::matmul_at_strided(P + static_cast<idx>(r0) * Tk + c0, Tk, dy + static_cast<idx>(r0) * d, d,
                                       out + static_cast<idx>(c0) * d, d, Tq - r0, r1 - r0, d, false);
  }
}
// dP[i, j] = dy[i] . v[j] for j < block_end (the rest is never read); vt = v^T [d, Tk]
void attention_dyvt(const float* dy, const float* vt, float* dP, int Tq, int Tk, int d, bool causal) {
  const int q0 = Tk - Tq;
  for (int r0 = 0; r0 < Tq; r0 += kCausalBlock) {
    const int r1 = std::min(Tq, r0 + kCausalBlock);
    kernels::detail::matmul_strided(dy + static_cast<idx>(r0) * d, d, vt, Tk, dP + static_cast<idx>(r0) * Tk, Tk,
                                    r1 - r0, d, block_end(r1, q0, Tk, causal), false);
  }
}
// Softmax backward on the same blocks: dS[i, j] = P (dP - sum_j P dP) for j < block_end
// (exactly 0 where P is 0); in place over dP. Then dS *= scale.
void attention_softmax_backward(const float* P, float* dP, int Tq, int Tk, bool causal) {
  const int q0 = Tk - Tq;
  for (int r0 = 0; r0 < Tq; r0 += kCausalBlock) {
    const int r1 = std::min(Tq, r0 + kCausalBlock), n = block_end(r1, q0, Tk, causal);
    for (int i = r0; i < r1; ++i) {
      float* row = dP + static_cast<idx>(i) * Tk;
      kernels::softmax_rows_backward(P + static_cast<idx>(i) * Tk, row, row, 1, n);
    }
  }
}
void attention_scale_ds(float* dS, int Tq, int Tk, float scale, bool causal) {
  const int q0 = Tk - Tq;
  for (int r0 = 0; r0 < Tq; r0 += kCausalBlock) {
    const int r1 = std::min(Tq, r0 + kCausalBlock), n = block_end(r1, q0, Tk, causal);
    for (int i = r0; i < r1; ++i) {
      float* row = dS + static_cast<idx>(i) * Tk;
      for (int j = 0; j < n; ++j) row[j] *= scale;
    }
  }
}
void transpose(const float* x, float* xt, int rows, int cols) {  // x [rows, cols] -> xt [cols, rows]
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) xt[static_cast<idx>(c) * rows + r] = x[static_cast<idx>(r) * cols + c];
}

// ===========================================================================
// Multi-head attention of one layer (causal, or bidirectional with ModelConfig::causal false), for
// the queries t >= q0 (q0 = 0 except in the last layer of training and evaluate, see Impl::q0). Tq = T - q0.
//   forward:  q, k, v [B,H,T,hd] (q, k rotated for RoPE)
//             P[b,h] = softmax(scale q k^T - alibi_h |p - j| + bias, mask)  [Tq, T], query i at p = i + q0,
//             (with a sink z_lh: exp(z_lh) joins each row's denominator, so rows sum to less than 1)
//             mask: causal keys j <= p; bidirectional: none
//             atty[b, i, h*hd..] = (P v)[i]                                  [B, Tq, C]

// One head (b, h) through kernels::attention_forward, which never forms [Tq, T]; the
// encoding's bias, if any, is a function of distance (kernels::RelativeBias). The output goes
// straight into the head's columns of atty.
void stream_head(ModelImpl& m, const LayerActs& la, int l, int b, int h, int q0, float slope, float sink) {
  const int T = m.T, hd = m.hd, Tq = T - q0;
  const idx bh = static_cast<idx>(b) * m.H + h, head = static_cast<idx>(T) * hd;
  const float* q = la.q + bh * head + static_cast<idx>(q0) * hd;  // the Tq queries kept
  const kernels::RelativeBias* bias = m.enc->stream_bias(m, l, h, b, q0, q);
  kernels::attention_forward(q, la.k + bh * head, la.v + bh * head,
                             la.atty + static_cast<idx>(b) * Tq * m.C + static_cast<idx>(h) * hd, Tq, T, hd, hd, m.C,
                             m.scale, m.cfg.causal, slope, bias, nullptr, 0, nullptr, sink);
}

// Inference materialises only what it returns (the maps of sequence 0) and streams every
// other head (if the encoding can stream); training keeps every [Tq, T] probability matrix
// for the backward pass.
// first_whole: sequence 0 materialises its [T, T] probabilities (as when it has maps);
// maps: where they go ([H, T, T]), or null.
void attention_forward(ModelImpl& m, int l, int q0, bool first_whole, float* maps) {
  LayerActs& la = m.acts.layer[l];
  const int T = m.T, H = m.H, hd = m.hd, Tq = T - q0;
  const idx TT = static_cast<idx>(T) * T, head = static_cast<idx>(T) * hd;
  m.enc->qk_forward(m, l, la.q, la.k);  // e.g. RoPE rotates q and k
  for (int h = 0; h < H; ++h) {
    const float slope = m.enc->alibi_slope(h), sink = m.enc->sink(m, l, h);
    for (int b = 0; b < m.B; ++b) {
      if (!m.training && !(first_whole && b == 0) && m.can_stream) {
        stream_head(m, la, l, b, h, q0, slope, sink);
        continue;
      }
      const idx bh = static_cast<idx>(b) * H + h;
      const float* q = la.q + bh * head;
      const float* k = la.k + bh * head;
      const float* v = la.v + bh * head;
      float* S = m.training ? la.att + bh * TT : la.att;  // [Tq, T]
      const float* bias = m.enc->bias(m, l, h, b, q0, q);  // [Tq, T] or none
      kernels::attention_scores_softmax(q + static_cast<idx>(q0) * hd, k, S, Tq, T, hd, m.scale, m.cfg.causal, slope,
                                        bias, sink);
      if (maps && b == 0)  // (inference only: q0 = 0)
        std::memcpy(maps + static_cast<idx>(h) * TT, S, sizeof(float) * TT);
      attention_pv(S, v, m.acts.yh, Tq, T, hd, m.cfg.causal);  // [Tq, T] @ [T, hd]
      merge_head(m, m.acts.yh, b, h, Tq, la.atty);
    }
  }
}

//   backward, per head, from datty [B, Tq, C]:
//     dy = datty[b, :, h]                       [Tq, hd]
//     dP = dy v^T;  dv = P^T dy                 [Tq, T], [T, hd]
//     dS = softmax_backward(P, dP)              (a bias table or a sink: its gradient from dS)
//     dS *= scale;  dq = dS k;  dk = dS^T q     (a q-dependent bias: + its terms; q/k transform: back)
//   dq of the queries t < q0 is 0.
void attention_backward(ModelImpl& m, int l, int q0) {
  LayerActs& la = m.acts.layer[l];
  Acts& a = m.acts;
  const int T = m.T, H = m.H, hd = m.hd, Tq = T - q0;
  const idx TT = static_cast<idx>(T) * T, head = static_cast<idx>(T) * hd, skip = static_cast<idx>(q0) * hd;
  for (int h = 0; h < H; ++h)
    for (int b = 0; b < m.B; ++b) {
      const idx bh = static_cast<idx>(b) * H + h;
      const float* q = la.q + bh * head + skip;  // the Tq queries kept
      const float* k = la.k + bh * head;
      const float* v = la.v + bh * head;
      const float* P = la.att + bh * TT;
      float* dq = a.dq + bh * head;
      float* dk = a.dk + bh * head;
      float* dv = a.dv + bh * head;
      std::fill(dq, dq + skip, 0.0f);
      dq += skip;
      gather_head(m, a.datty, b, h, Tq, a.dy);
      transpose(v, a.vt, T, hd);
      const bool c = m.cfg.causal;                    // (bidirectional: full [Tq, T] products)
      attention_dyvt(a.dy, a.vt, a.dP, Tq, T, hd, c);  // dP = dy v^T      [Tq, T]
      attention_ptv(P, a.dy, dv, Tq, T, hd, c);        // dv = P^T dy      [T, hd]
      attention_softmax_backward(P, a.dP, Tq, T, c);   // dS (in place)
      m.enc->bias_backward(m, l, h, b, q0, q, a.dP, dq);
      attention_scale_ds(a.dP, Tq, T, m.scale, c);     // dS *= scale
      attention_pv(a.dP, k, dq, Tq, T, hd, c);         // dq = dS k        [Tq, hd]
      attention_ptv(a.dP, q, dk, Tq, T, hd, c);        // dk = dS^T q      [T, hd]
      m.enc->bias_backward_scaled(m, l, h, b, q0, q, a.dP, dq);
    }
  m.enc->bias_backward_end(m, l);
  m.enc->qk_backward(m, l, a.dq, a.dk);  // e.g. RoPE rotates the gradients back
  merge_dqkv(m, a.dq, a.dk, a.dv, a.dqkv);
}

}  // namespace

// ===========================================================================
// The whole model

void ModelImpl::forward(const int32_t* tokens, MapLayers kept) {
  const int N = B * T;
  // Maps of every layer, or of attention_layer's only. So that one layer's maps are those of the
  // all-layer forward bit for bit, sequence 0 materialises its attention in the layers up to the
  // last one with maps, as there; the layers after it stream.
  embedding_forward(*this, tokens);
  const float* x = acts.x0;
  for (int l = 0; l < L; ++l) {
    const LayerOffsets& o = layer[l];
    LayerActs& la = acts.layer[l];
    const int lq0 = l == L - 1 ? q0 : 0;  // rows after the attention: [B, T - lq0]
    const int Nq = B * (T - lq0);
    // attention sub-block: res2 = x + proj(attn(LN1(x)))
    layers::layernorm_forward(la.ln1, la.ln1_mean, la.ln1_rstd, x, P(o.ln1_w), P(o.ln1_b), N, C);
    layers::linear_forward(la.qkv, la.ln1, P(o.qkv_w), P(o.qkv_b), N, C, 3 * C);
    split_heads(*this, la.qkv, la.q, la.k, la.v);
    float* maps = l >= kept.first && l <= kept.last  // this layer's [H, T, T] in att_maps, if it keeps maps
                      ? att_maps.data() + static_cast<std::size_t>(l - kept.first) * H * T * T
                      : nullptr;
    attention_forward(*this, l, lq0, l <= kept.last, maps);
    layers::linear_forward(la.res2, la.atty, P(o.proj_w), P(o.proj_b), Nq, C, C);
    if (lq0 == 0)
      layers::residual_forward(la.res2, la.res2, x, static_cast<std::size_t>(N) * C);
    else
      residual_add_suffix(la.res2, x, B, T, lq0, C);
    // MLP sub-block: res3 = res2 + W2 GELU(W1 LN2(res2))
    layers::layernorm_forward(la.ln2, la.ln2_mean, la.ln2_rstd, la.res2, P(o.ln2_w), P(o.ln2_b), Nq, C);
    layers::linear_forward(la.fch, la.ln2, P(o.fc_w), P(o.fc_b), Nq, C, F);
    layers::gelu_forward(la.fcg, la.fct, la.fch, static_cast<std::size_t>(Nq) * F);
    layers::linear_forward(la.res3, la.fcg, P(o.fcp_w), P(o.fcp_b), Nq, F, C);
    layers::residual_forward(la.res3, la.res3, la.res2, static_cast<std::size_t>(Nq) * C);
    x = la.res3;
  }
  const int Nq = B * (T - q0);
  layers::layernorm_forward(acts.lnf, acts.lnf_mean, acts.lnf_rstd, x, P(lnf_w), P(lnf_b), Nq, C);
  layers::linear_forward(acts.logits, acts.lnf, P(lm_head), nullptr, Nq, C, V);
}

// Backward from dlogits (in acts.probs, [B, T - q0, V]) to every parameter gradient (accumulated).
void ModelImpl::backward(const int32_t* tokens) {
  const int N = B * T;
  const int Nq = B * (T - q0);
  // logits = lnf @ lm_head
  layers::linear_backward(acts.dln, G(lm_head), nullptr, acts.probs, acts.lnf, P(lm_head), Nq, C, V);
  std::fill(acts.dres, acts.dres + static_cast<std::size_t>(N) * C, 0.0f);
  const float* x_last = acts.layer[L - 1].res3;
  layers::layernorm_backward(acts.dres, G(lnf_w), G(lnf_b), acts.dln, x_last, P(lnf_w), acts.lnf_mean,
                             acts.lnf_rstd, Nq, C);
  for (int l = L - 1; l >= 0; --l) {
    const LayerOffsets& o = layer[l];
    LayerActs& la = acts.layer[l];
    const float* x = l == 0 ? acts.x0 : acts.layer[l - 1].res3;
    const int lq0 = l == L - 1 ? q0 : 0;
    const int Nl = B * (T - lq0);
    // MLP: dres holds d(res3); the residual passes it to res2 unchanged.
    layers::linear_backward(acts.dbuf, G(o.fcp_w), G(o.fcp_b), acts.dres, la.fcg, P(o.fcp_w), Nl, F, C);
    layers::gelu_backward(acts.dbuf, la.fch, la.fct, acts.dbuf, static_cast<std::size_t>(Nl) * F);
    layers::linear_backward(acts.dln, G(o.fc_w), G(o.fc_b), acts.dbuf, la.ln2, P(o.fc_w), Nl, C, F);
    layers::layernorm_backward(acts.dres, G(o.ln2_w), G(o.ln2_b), acts.dln, la.res2, P(o.ln2_w), la.ln2_mean,
                               la.ln2_rstd, Nl, C);
    // attention: dres now holds d(res2); the residual passes it to x unchanged.
    layers::linear_backward(acts.datty, G(o.proj_w), G(o.proj_b), acts.dres, la.atty, P(o.proj_w), Nl, C, C);
    attention_backward(*this, l, lq0);
    layers::linear_backward(acts.dln, G(o.qkv_w), G(o.qkv_b), acts.dqkv, la.ln1, P(o.qkv_w), N, C, 3 * C);
    if (lq0 > 0) expand_suffix_rows(acts.dres, B, T, lq0, C);  // back to [B, T, C]; rows t < q0 get 0
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
  const Impl::MapLayers kept = m.map_layers(options);
  m.prepare(B, T, false, options.want_attention, kept.count());  // sizes first: refuses absurd B, T before reading tokens
  m.check_inputs(tokens, nullptr, B, T);
  m.check_lengths(options, B, T);
  m.set_examples(options, B, T, nullptr);
  m.prepare_position_tables(T, options);
  m.q0 = 0;
  m.forward(tokens, kept);
  return m.acts.logits;
}

namespace {
// Only positions with a target need logits: the last layer runs its queries, MLP
// and head for t >= q0, the first scored position of any sequence (T - 1 if none).
// Sets m.q0 and m.targets_q (targets of those rows, [B, T - q0]).
void select_scored_suffix(ModelImpl& m, const int32_t* targets, int B, int T) {
  int q0 = T - 1;
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < q0; ++t)
      if (targets[static_cast<std::size_t>(b) * T + t] >= 0) {
        q0 = t;
        break;
      }
  m.q0 = q0;
  const int Tq = T - q0;
  m.targets_q.resize(static_cast<std::size_t>(B) * Tq);
  for (int b = 0; b < B; ++b)
    std::memcpy(m.targets_q.data() + static_cast<std::size_t>(b) * Tq, targets + static_cast<std::size_t>(b) * T + q0,
                sizeof(int32_t) * Tq);
}

LossResult loss_result(const layers::CrossEntropySums& s) {
  LossResult r;
  r.scored = s.scored;
  r.correct = s.correct;
  if (s.scored > 0) {
    r.loss = static_cast<float>(s.loss / s.scored);
    r.accuracy = static_cast<float>(s.correct) / static_cast<float>(s.scored);
  }
  return r;
}
}  // namespace

LossResult Model::evaluate(const int32_t* tokens, const int32_t* targets, int B, int T,
                           const ForwardOptions& options) {
  Impl& m = *impl_;
  if (!targets) throw Error(ErrorKind::Type, "targets must be an array of B*T integers (got null)");
  const Impl::MapLayers kept = m.map_layers(options);
  m.prepare(B, T, false, options.want_attention, kept.count());
  m.check_inputs(tokens, targets, B, T);
  m.check_lengths(options, B, T);
  m.set_examples(options, B, T, nullptr);
  m.prepare_position_tables(T, options);
  if (kept.last == m.L - 1) {  // maps of the last layer need its every query
    m.q0 = 0;
    m.targets_q.assign(targets, targets + static_cast<std::size_t>(B) * T);
  } else {
    select_scored_suffix(m, targets, B, T);
  }
  m.forward(tokens, kept);
  return loss_result(layers::crossentropy_forward(m.acts.probs, m.acts.logits, m.targets_q.data(),
                                                  B * (T - m.q0), m.V));
}

const std::vector<float>& Model::attention_maps() const { return impl_->att_maps; }
int Model::last_length() const { return impl_->T; }

// Training runs the batch as micro-batches of up to kMicroBatch sequences, sorted by how far each
// one's targets reach: sequence b needs only its positions 0 .. u_b - 1 (u_b = 1 + its last scored
// position; by causality no later position reaches the loss), so a micro-batch runs at T = the
// largest u_b in it, and a sequence with no target not at all. Each micro-batch adds its share of
// d(mean loss over the whole batch) to the gradients, so they are those of the whole batch (up to
// the order of float sums). Padded variable-length batches cost about half, and the small
// micro-batch's activations stay in cache (a full-length batch of 32 at T = 32: ~15% less).
namespace {
constexpr int kMicroBatch = 8;
}

LossResult Model::forward_backward(const int32_t* tokens, const int32_t* targets, int B, int T,
                                   const ForwardOptions& options) {
  Impl& m = *impl_;
  if (!targets) throw Error(ErrorKind::Type, "targets must be an array of B*T integers (got null)");
  if (options.want_attention) range_error("wantAttention", "false for training", "true");
  m.prepare(B, T, true, false, 0);  // the whole batch's sizes first: refuses absurd B, T before reading tokens
  m.check_inputs(tokens, targets, B, T);
  m.check_lengths(options, B, T);
  m.check_position_options(options);  // before any micro-batch (one with no target runs none)
  std::fill(m.grads.begin(), m.grads.end(), 0.0f);
  // u_b, the scored count, and scored_length: positions 0 .. (last scored) get a gradient, the ones after it none.
  m.mb_order.clear();
  int scored = 0;
  for (int b = 0; b < B; ++b) {
    const int32_t* y = targets + static_cast<std::size_t>(b) * T;
    int u = 0;
    for (int t = 0; t < T; ++t)
      if (y[t] >= 0) {
        ++scored;
        u = t + 1;
      }
    if (u > 0 && !m.cfg.causal) u = T;  // bidirectional: every position reaches the loss
    m.scored_length = std::max(m.scored_length, u);
    if (u > 0) m.mb_order.push_back({u, b});
  }
  std::stable_sort(m.mb_order.begin(), m.mb_order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const float inv = scored > 0 ? 1.0f / static_cast<float>(scored) : 0.0f;
  layers::CrossEntropySums sums;
  for (std::size_t g0 = 0; g0 < m.mb_order.size(); g0 += kMicroBatch) {
    const int Bg = static_cast<int>(std::min<std::size_t>(kMicroBatch, m.mb_order.size() - g0));
    const int Tg = m.mb_order[g0 + Bg - 1].first;  // sorted: the last is the longest
    m.mb_tokens.resize(static_cast<std::size_t>(Bg) * Tg);
    m.mb_targets.resize(m.mb_tokens.size());
    for (int i = 0; i < Bg; ++i) {
      const std::size_t src = static_cast<std::size_t>(m.mb_order[g0 + i].second) * T, dst = static_cast<std::size_t>(i) * Tg;
      std::memcpy(m.mb_tokens.data() + dst, tokens + src, sizeof(int32_t) * Tg);
      std::memcpy(m.mb_targets.data() + dst, targets + src, sizeof(int32_t) * Tg);
    }
    m.prepare(Bg, Tg, true, false, 0);
    // Random positions are drawn per example of the caller's batch (its index and length), whatever
    // micro-batch it runs in and however short that runs.
    m.set_examples(options, Bg, T, m.mb_order.data() + g0);
    m.prepare_position_tables(Tg, options);
    select_scored_suffix(m, m.mb_targets.data(), Bg, Tg);
    m.forward(m.mb_tokens.data(), Impl::MapLayers{});  // (training keeps no maps)
    const int Nq = Bg * (Tg - m.q0);
    const layers::CrossEntropySums s =
        layers::crossentropy_forward(m.acts.probs, m.acts.logits, m.targets_q.data(), Nq, m.V);
    sums.loss += s.loss;
    sums.scored += s.scored;
    sums.correct += s.correct;
    layers::crossentropy_backward(m.acts.probs, m.acts.probs, m.targets_q.data(), Nq, m.V, inv);
    m.backward(m.mb_tokens.data());  // accumulates into the gradients
  }
  m.trained_length = std::max(m.trained_length, T);
  return loss_result(sums);
}

LossResult Model::train_step(const int32_t* tokens, const int32_t* targets, int B, int T, float lr,
                             const ForwardOptions& options) {
  require_finite("lr", lr);
  if (lr < 0 || lr > kMaxLearningRate) range_error("lr", "a finite number in [0, 10]", format_number(lr));
  validate_adamw(impl_->opt);
  LossResult r = forward_backward(tokens, targets, B, T, options);
  const float clip = impl_->opt.grad_clip;
  r.grad_norm = clip > 0 ? clip_gradients(clip) : gradient_norm();
  // A diverged model (too large an lr) overflows its gradients to inf/NaN; the update would
  // silently turn every weight into NaN (found by fuzz_model). Refuse it, weights untouched.
  if (!std::isfinite(r.grad_norm))
    throw Error(ErrorKind::Range, "training diverged: the gradient norm is " + format_number(r.grad_norm) +
                                      " (loss " + format_number(r.loss) +
                                      "); the weights were left unchanged: use a smaller lr");
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
  // A checkpoint keeps the length only: next-token training at length t scores at most
  // positions 0 .. t-2 (the next token of position t-1 lies outside the window).
  impl_->scored_length = std::max(0, t - 1);
}
int Model::scored_length() const { return impl_->scored_length; }

std::vector<PositionStatus> Model::position_status(int T) const {
  require_int_range("T", T, 0, kMaxSequenceLength);
  std::vector<PositionStatus> s(static_cast<std::size_t>(T));
  for (int p = 0; p < T; ++p) {
    if (impl_->enc->out_of_table(p))
      s[p] = PositionStatus::OutOfTable;
    else
      s[p] = p < impl_->scored_length ? PositionStatus::Trained : PositionStatus::Untrained;
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
