// Learned absolute position table (BERT, GPT-2): row lookup with an explicit
// policy for positions at or past the table's end.
#include "posenc/learned.hpp"

#include <cstddef>
#include <cstring>
#include <limits>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();

void validate_shape(const float* table, int rows, int dim, const int32_t* positions, int count, OutOfRange policy,
                    const float* out) {
  require_int_range("rows", rows, 1, kMaxInt);
  require_int_range("dim", dim, 1, kMaxInt);
  require_int_range("count", count, 0, kMaxInt);
  if (policy != OutOfRange::Error && policy != OutOfRange::Clamp && policy != OutOfRange::Zero)
    range_error("outOfRange", "'error', 'clamp' or 'zero'", std::to_string(static_cast<int>(policy)));
  if (!table) type_error("table", "a non-null buffer of rows*dim floats", "null");
  if (count > 0 && !positions) type_error("positions", "a non-null buffer of count ints", "null");
  if (count > 0 && !out) type_error("out", "a non-null buffer of count*dim floats", "null");
}

// Checks every position before writing anything, so a throw leaves `out` untouched.
void validate_positions(int rows, const int32_t* positions, int count, OutOfRange policy) {
  for (int k = 0; k < count; ++k) {
    const int32_t p = positions[k];
    if (p < 0) range_error("positions[" + std::to_string(k) + "]", "an integer >= 0", std::to_string(p));
    if (p >= rows && policy == OutOfRange::Error)
      throw Error(ErrorKind::Range, "position " + std::to_string(p) + " is past the learned table (rows " +
                                        std::to_string(rows) + "): allowed 0.." + std::to_string(rows - 1) +
                                        ", or choose outOfRange 'clamp' or 'zero'");
  }
}

}  // namespace

void learned_lookup(const float* table, int rows, int dim, const int32_t* positions, int count, OutOfRange policy,
                    float* out) {
  validate_shape(table, rows, dim, positions, count, policy, out);
  validate_positions(rows, positions, count, policy);
  const std::size_t row_bytes = sizeof(float) * static_cast<std::size_t>(dim);
  for (int k = 0; k < count; ++k) {
    float* dst = out + static_cast<std::size_t>(k) * dim;
    int32_t p = positions[k];
    if (p >= rows) {
      if (policy == OutOfRange::Zero) {
        std::memset(dst, 0, row_bytes);
        continue;
      }
      p = rows - 1;  // Clamp: reuse the last trained row
    }
    std::memmove(dst, table + static_cast<std::size_t>(p) * dim, row_bytes);
  }
}

}  // namespace posenc

// ===========================================================================
// Model hooks (encoding_model.hpp): x0[b, t] += wpe[row(t)]   wpe [maxLength, C]
//   row(t) = t inside the table; past it learnedPolicy: Clamp -> maxLength-2, Zero -> nothing,
//   Error -> refused before the forward (check_length).
//   Clamp reuses row maxLength-2, not maxLength-1: next-token training at T = maxLength never
//   scores position T-1 (its next token lies outside the window), so by causality row T-1 never
//   gets a gradient and keeps its initial value; row T-2 is the last one training reaches
//   (Model::position_status reports T-1 as Untrained). maxLength 1: row 0.
//   forward:  rows [T, C] = learned_lookup(wpe, 0..T-1) once per forward, x0[b, t] += rows[t]
//   backward: dwpe[row(t)] += dx0[b, t]

#include <algorithm>
#include <vector>

#include "../model/encoding_model.hpp"
#include "../model/model_impl.hpp"

namespace posenc {
namespace {

class LearnedModel : public EncodingModel {
 public:
  using EncodingModel::EncodingModel;
  uint64_t global_parameters() const override { return uint64_t(cfg.max_length) * cfg.d_model; }
  void add_tensors(const AddTensor& add) override { wpe = add("wpe", {cfg.max_length, cfg.d_model}, false, 0.02f); }
  void check_length(int T) const override {
    if (cfg.learned_policy == OutOfRange::Error && T > cfg.max_length)
      throw Error(ErrorKind::Range,
                  "sequence length T = " + std::to_string(T) + " exceeds maxLength = " + std::to_string(cfg.max_length) +
                      " of the learned position table (learnedPolicy 'error'): positions >= " +
                      std::to_string(cfg.max_length) + " have no trained row; use learnedPolicy 'clamp' or 'zero' to run past it");
  }
  void prepare(ModelImpl& m, int T, const ForwardOptions&) override {
    positions.resize(T);
    for (int t = 0; t < T; ++t) positions[t] = std::max(row(t), 0);  // Zero: row(t) < 0 rows are skipped below
    rows.resize(static_cast<std::size_t>(T) * m.C);
    learned_lookup(m.P(wpe), cfg.max_length, m.C, positions.data(), T, cfg.learned_policy, rows.data());
  }
  bool adds_position() const override { return true; }
  void embed_forward(ModelImpl& m, int, int t, float* x) override {
    if (row(t) < 0) return;
    const float* r = rows.data() + static_cast<std::size_t>(t) * m.C;
    for (int i = 0; i < m.C; ++i) x[i] += r[i];
  }
  void embed_backward(ModelImpl& m, int, int t, const float* d) override {
    const int r = row(t);
    if (r < 0) return;
    float* g = m.G(wpe) + static_cast<std::size_t>(r) * m.C;
    for (int i = 0; i < m.C; ++i) g[i] += d[i];
  }
  bool out_of_table(int p) const override { return p >= cfg.max_length; }

 private:
  int row(int t) const {
    if (t < cfg.max_length) return t;
    return cfg.learned_policy == OutOfRange::Clamp ? std::max(0, cfg.max_length - 2) : -1;
  }
  std::size_t wpe = 0;
  std::vector<int32_t> positions;
  std::vector<float> rows;  // [T, C]
};

}  // namespace

EncodingModel* make_learned_model(const ModelConfig& c) { return new LearnedModel(c); }

}  // namespace posenc
