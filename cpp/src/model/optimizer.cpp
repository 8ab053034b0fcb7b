// AdamW (decoupled weight decay, Loshchilov & Hutter), global-norm gradient
// clipping, and the learning-rate schedule (linear warmup, cosine decay).
#include <cmath>
#include <limits>
#include <string>

#include "model_impl.hpp"
#include "posenc/error.hpp"

namespace posenc {

float lr_at(long long step, long long total_steps, long long warmup, float max_lr, float min_lr) {
  if (step < 0) range_error("step", "an integer >= 0", std::to_string(step));
  if (total_steps < 1) range_error("totalSteps", "an integer >= 1", std::to_string(total_steps));
  if (warmup < 0) range_error("warmup", "an integer >= 0", std::to_string(warmup));
  require_finite("maxLr", max_lr);
  require_finite("minLr", min_lr);
  if (max_lr < 0) range_error("maxLr", "a finite number >= 0", format_number(max_lr));
  if (min_lr < 0 || min_lr > max_lr) range_error("minLr", "a finite number in [0, maxLr]", format_number(min_lr));
  if (step < warmup) return max_lr * static_cast<float>(step + 1) / static_cast<float>(warmup);
  if (step >= total_steps || total_steps <= warmup) return min_lr;
  const double ratio = static_cast<double>(step - warmup) / static_cast<double>(total_steps - warmup);
  const double coeff = 0.5 * (1.0 + std::cos(3.14159265358979323846 * ratio));  // 1 -> 0
  return static_cast<float>(min_lr + coeff * (static_cast<double>(max_lr) - min_lr));
}

float Model::gradient_norm() const {
  double s = 0.0;
  for (float g : impl_->grads) s += static_cast<double>(g) * g;
  return static_cast<float>(std::sqrt(s));
}

float Model::clip_gradients(float max_norm) {
  const float norm = gradient_norm();
  if (max_norm > 0 && norm > max_norm && std::isfinite(norm)) {
    const float k = max_norm / norm;
    for (float& g : impl_->grads) g *= k;
  }
  return norm;
}

namespace {
// p -= lr * (mhat / (sqrt(vhat) + eps) + wd * p), with bias-corrected moments.
void adamw_tensor(float* p, const float* g, float* m, float* v, std::size_t n, float lr, float b1, float b2, float eps,
                  float wd, float bc1, float bc2) {
  for (std::size_t i = 0; i < n; ++i) {
    const float gi = g[i];
    const float mi = b1 * m[i] + (1.0f - b1) * gi;
    const float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    const float mhat = mi / bc1, vhat = vi / bc2;
    p[i] -= lr * (mhat / (std::sqrt(vhat) + eps) + wd * p[i]);
  }
}
}  // namespace

namespace {
constexpr double kFloatMax = std::numeric_limits<float>::max();
constexpr OptimizerField kOptimizerFields[] = {
    {"beta1", 0, 1, false, true, &AdamWOptions::beta1},
    {"beta2", 0, 1, false, true, &AdamWOptions::beta2},
    {"eps", 0, kFloatMax, true, false, &AdamWOptions::eps},
    {"weightDecay", 0, kFloatMax, false, false, &AdamWOptions::weight_decay},
    {"gradClip", -kFloatMax, kFloatMax, false, false, &AdamWOptions::grad_clip},  // <= 0: no clipping
};
}  // namespace

std::span<const OptimizerField> optimizer_fields() { return kOptimizerFields; }

void validate_adamw(const AdamWOptions& o) {
  for (const OptimizerField& f : kOptimizerFields) {
    const double v = o.*f.member;
    if (!std::isfinite(v) || v < f.min || v > f.max || (f.min_exclusive && v == f.min) || (f.max_exclusive && v == f.max))
      range_error(f.name,
                  std::string("a finite number ") + (f.min_exclusive ? "> " : ">= ") + format_number(f.min) +
                      (f.max_exclusive ? " and < " : " and <= ") + format_number(f.max),
                  format_number(v));
  }
}

void Model::adamw_update(float lr) {
  Impl& m = *impl_;
  const AdamWOptions& o = m.opt;
  validate_adamw(o);
  require_finite("lr", lr);
  if (lr < 0 || lr > kMaxLearningRate) range_error("lr", "a finite number in [0, 10]", format_number(lr));
  m.step += 1;
  const float bc1 = static_cast<float>(1.0 - std::pow(static_cast<double>(o.beta1), static_cast<double>(m.step)));
  const float bc2 = static_cast<float>(1.0 - std::pow(static_cast<double>(o.beta2), static_cast<double>(m.step)));
  for (const TensorInfo& t : m.tensors)
    adamw_tensor(m.params.data() + t.offset, m.grads.data() + t.offset, m.adam_m.data() + t.offset,
                 m.adam_v.data() + t.offset, t.size, lr, o.beta1, o.beta2, o.eps, t.decay ? o.weight_decay : 0.0f,
                 bc1, bc2);
}

}  // namespace posenc
