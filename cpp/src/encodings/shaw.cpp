// Shaw, Uszkoreit & Vaswani (2018) relative position index:
// index(i, j) = clip(j - i_pos, -k, k) + k, in [0, 2k], with i_pos = i + (Tk - Tq).
#include "posenc/shaw.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();

void validate(int query_length, int key_length, int max_distance, const int32_t* out) {
  require_int_range("key_length", key_length, 0, kMaxInt);
  if (query_length < 0 || query_length > key_length)
    range_error("query_length", "an integer in [0, key_length=" + std::to_string(key_length) + "]",
                std::to_string(query_length));
  // 2k + 1 indices must fit in int32.
  require_int_range("max_distance", max_distance, 1, (kMaxInt - 1) / 2);
  if (query_length > 0 && key_length > 0 && !out) type_error("out", "a non-null buffer of Tq*Tk ints", "null");
}

}  // namespace

void shaw_index(int query_length, int key_length, int max_distance, int32_t* out) {
  validate(query_length, key_length, max_distance, out);
  const long long offset = static_cast<long long>(key_length) - query_length;
  const long long k = max_distance;
  for (int i = 0; i < query_length; ++i) {
    const long long i_pos = i + offset;
    int32_t* row = out + static_cast<std::size_t>(i) * key_length;
    for (int j = 0; j < key_length; ++j) row[j] = static_cast<int32_t>(std::clamp(j - i_pos, -k, k) + k);
  }
}

}  // namespace posenc

// ===========================================================================
// Model hooks (encoding_model.hpp): one table A [2k+1, hd] per layer, shared by the heads:
//   score(i, j) += scale * q_i . A[idx(p, j)],  idx = clip(j - p, -k, k) + k  (shaw_index; causal:
//   only rows 0..k are read). rel = q A^T [T, 2k+1] per head, then
//   forward:  bias[i, j] = scale * rel[i, idx]      materialised [T, T]; streaming: the rel rows
//   backward: drel[i, idx(p, j)] += dS_scaled[i, j];  dq += drel A;  dA += drel^T q

#include <vector>

#include "../model/encoding_model.hpp"
#include "../model/model_impl.hpp"

namespace posenc {
namespace {

class ShawModel : public EncodingModel {
 public:
  const char* causal_only() const override { return "its bias rows are filled for keys j <= i only"; }
  using EncodingModel::EncodingModel;
  uint64_t layer_parameters() const override { return (2 * uint64_t(cfg.shaw_k) + 1) * (cfg.d_model / cfg.heads); }
  void add_layer_tensors(const AddTensor& add, int, const std::string& prefix) override {
    tables.push_back(add(prefix + "attn.shaw", {nrel(), cfg.head_dim()}, false, 0.02f));
  }
  uint64_t bias_floats(int T, bool streaming) const override { return streaming ? 0 : uint64_t(T) * T; }
  uint64_t rel_floats(int T) const override { return uint64_t(T) * nrel(); }
  void prepare(ModelImpl&, int T, const ForwardOptions&) override {
    if (T <= index_rows) return;
    // idx(p, j) = index_by_distance[j - p + T - 1]: the indices of the last query of a length-T window.
    index_by_distance.assign(T, 0);
    if (cfg.shaw_k > 0) shaw_index(1, T, cfg.shaw_k, index_by_distance.data());
    index_rows = T;
  }
  const float* bias(ModelImpl& m, int l, int, int, int q0, const float* q) override {
    const int T = m.T, nr = nrel();
    const float* A = m.P(tables[l]);
    kernels::matmul_bt(q, A, m.acts.rel, T, m.hd, nr, false);  // [T, hd] @ [2k+1, hd]^T -> [T, 2k+1]
    const int32_t* idx = index_by_distance.data() + (index_rows - T);
    for (int i = 0; i < T; ++i) {
      const float* r = m.acts.rel + static_cast<std::ptrdiff_t>(i) * nr;
      float* row = m.acts.bias + static_cast<std::ptrdiff_t>(i) * T;
      for (int j = 0; j <= i; ++j) row[j] = m.scale * r[idx[j - i + T - 1]];
    }
    return m.acts.bias + static_cast<std::ptrdiff_t>(q0) * T;
  }
  const kernels::RelativeBias* stream_bias(ModelImpl& m, int l, int, int, int q0, const float* q) override {
    const int Tq = m.T - q0, nr = nrel();
    kernels::matmul_bt(q, m.P(tables[l]), m.acts.rel, Tq, m.hd, nr, false);  // [Tq, 2k+1]
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(Tq) * nr; ++i) m.acts.rel[i] *= m.scale;
    rb = {m.acts.rel, nr, cfg.shaw_k, cfg.shaw_k + 1};
    return &rb;
  }
  void bias_backward_scaled(ModelImpl& m, int l, int, int, int q0, const float* q, const float* dS_scaled,
                            float* dq) override {
    const int T = m.T, Tq = T - q0, nr = nrel();
    const int32_t* idx = index_by_distance.data() + (index_rows - T);
    float* drel = m.acts.drel;
    std::fill(drel, drel + static_cast<std::ptrdiff_t>(Tq) * nr, 0.0f);
    for (int i = 0; i < Tq; ++i) {
      const int p = i + q0;
      const float* row = dS_scaled + static_cast<std::ptrdiff_t>(i) * T;
      float* d = drel + static_cast<std::ptrdiff_t>(i) * nr;
      for (int j = 0; j <= p; ++j) d[idx[j - p + T - 1]] += row[j];
    }
    const float* A = m.P(tables[l]);
    kernels::matmul(drel, A, dq, Tq, nr, m.hd, true);               // [Tq, 2k+1] @ [2k+1, hd]
    kernels::matmul_at(drel, q, m.G(tables[l]), Tq, nr, m.hd, true);  // [Tq, 2k+1]^T @ [Tq, hd] -> [2k+1, hd]
  }

 private:
  int nrel() const { return 2 * cfg.shaw_k + 1; }
  std::vector<std::size_t> tables;  // per layer
  int index_rows = 0;
  std::vector<int32_t> index_by_distance;
  kernels::RelativeBias rb;
};

}  // namespace

EncodingModel* make_shaw_model(const ModelConfig& c) { return new ShawModel(c); }

}  // namespace posenc
