// The model's layers (see model_layers.hpp): LayerNorm, linear, GELU, residual,
// cross-entropy. Each forward is followed by its backward. Inner loops over
// channels use posenc::simd so the wasm build gets SIMD128 too.
#include "model_layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"

namespace posenc::layers {
namespace {
using simd::fbatch;
constexpr int W = static_cast<int>(simd::width);
using idx = std::ptrdiff_t;

}  // namespace

float sum(const float* x, std::size_t n) {
  std::size_t i = 0;
  fbatch acc = simd::splat(0.0f);
  for (; i + W <= n; i += W) acc += simd::load(x + i);
  float s = simd::reduce_add(acc);
  for (; i < n; ++i) s += x[i];
  return s;
}

float dot(const float* x, const float* y, std::size_t n) {
  std::size_t i = 0;
  fbatch acc = simd::splat(0.0f);
  for (; i + W <= n; i += W) acc = simd::fma(simd::load(x + i), simd::load(y + i), acc);
  float s = simd::reduce_add(acc);
  for (; i < n; ++i) s += x[i] * y[i];
  return s;
}

void affine(float* out, const float* x, float a, float b, std::size_t n) {
  const fbatch va = simd::splat(a), vb = simd::splat(b);
  std::size_t i = 0;
  for (; i + W <= n; i += W) simd::store(out + i, simd::fma(va, simd::load(x + i), vb));
  for (; i < n; ++i) out[i] = a * x[i] + b;
}

void axpy(float* y, const float* x, float a, std::size_t n) {
  const fbatch va = simd::splat(a);
  std::size_t i = 0;
  for (; i + W <= n; i += W) simd::store(y + i, simd::fma(va, simd::load(x + i), simd::load(y + i)));
  for (; i < n; ++i) y[i] += a * x[i];
}

// ---------------------------------------------------------------------------
// LayerNorm (eps 1e-5, biased variance, as torch.nn.LayerNorm)
// inp, out [N,C]; w, b [C]; mean, rstd [N]

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* w, const float* b, int N,
                       int C) {
  const float eps = 1e-5f;
  for (int n = 0; n < N; ++n) {
    const float* x = inp + static_cast<idx>(n) * C;
    float* o = out + static_cast<idx>(n) * C;
    const float m = sum(x, C) / C;
    const fbatch vm = simd::splat(m);
    int i = 0;
    fbatch acc = simd::splat(0.0f);
    for (; i + W <= C; i += W) {
      const fbatch d = simd::load(x + i) - vm;
      acc = simd::fma(d, d, acc);
    }
    float v = simd::reduce_add(acc);
    for (; i < C; ++i) v += (x[i] - m) * (x[i] - m);
    v /= C;
    const float s = 1.0f / std::sqrt(v + eps);
    const fbatch vs = simd::splat(s);
    for (i = 0; i + W <= C; i += W)
      simd::store(o + i, simd::fma((simd::load(x + i) - vm) * vs, simd::load(w + i), simd::load(b + i)));
    for (; i < C; ++i) o[i] = (x[i] - m) * s * w[i] + b[i];
    mean[n] = m;
    rstd[n] = s;
  }
}

// With xhat = (x - mean) * rstd and g = w * dout:
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  dw += dout * xhat,  db += dout
void layernorm_backward(float* dinp, float* dw, float* db, const float* dout, const float* inp, const float* w,
                        const float* mean, const float* rstd, int N, int C) {
  for (int n = 0; n < N; ++n) {
    const float* x = inp + static_cast<idx>(n) * C;
    const float* dy = dout + static_cast<idx>(n) * C;
    float* dx = dinp + static_cast<idx>(n) * C;
    const float m = mean[n], s = rstd[n];
    const fbatch vm = simd::splat(m), vs = simd::splat(s);
    // pass 1: the two means
    fbatch ag = simd::splat(0.0f), agx = simd::splat(0.0f);
    int i = 0;
    for (; i + W <= C; i += W) {
      const fbatch xhat = (simd::load(x + i) - vm) * vs;
      const fbatch g = simd::load(w + i) * simd::load(dy + i);
      ag += g;
      agx = simd::fma(g, xhat, agx);
    }
    float g_mean = simd::reduce_add(ag), gx_mean = simd::reduce_add(agx);
    for (; i < C; ++i) {
      const float xhat = (x[i] - m) * s;
      const float g = w[i] * dy[i];
      g_mean += g;
      gx_mean += g * xhat;
    }
    g_mean /= C;
    gx_mean /= C;
    // pass 2: accumulate gradients
    const fbatch vg = simd::splat(g_mean), vgx = simd::splat(gx_mean);
    for (i = 0; i + W <= C; i += W) {
      const fbatch xhat = (simd::load(x + i) - vm) * vs;
      const fbatch d = simd::load(dy + i);
      simd::store(db + i, simd::load(db + i) + d);
      simd::store(dw + i, simd::fma(d, xhat, simd::load(dw + i)));
      const fbatch g = simd::load(w + i) * d;
      simd::store(dx + i, simd::fma(vs, g - vg - xhat * vgx, simd::load(dx + i)));
    }
    for (; i < C; ++i) {
      const float xhat = (x[i] - m) * s;
      db[i] += dy[i];
      dw[i] += dy[i] * xhat;
      dx[i] += s * (w[i] * dy[i] - g_mean - xhat * gx_mean);
    }
  }
}

// ---------------------------------------------------------------------------
// Linear: out[N,OC] = inp[N,C] @ W[C,OC] + bias[OC]

void linear_forward(float* out, const float* inp, const float* W_, const float* bias, int N, int C, int OC) {
  kernels::matmul(inp, W_, out, N, C, OC, false);
  if (!bias) return;
  for (int n = 0; n < N; ++n) {
    float* o = out + static_cast<idx>(n) * OC;
    for (int j = 0; j < OC; ++j) o[j] += bias[j];
  }
}

void linear_backward(float* dinp, float* dW, float* dbias, const float* dout, const float* inp, const float* W_, int N,
                     int C, int OC) {
  if (dinp) kernels::matmul_bt(dout, W_, dinp, N, OC, C, false);  // [N,OC] @ [C,OC]^T -> [N,C]
  kernels::matmul_at(inp, dout, dW, N, C, OC, true);              // [N,C]^T @ [N,OC] -> [C,OC]
  if (dbias)
    for (int n = 0; n < N; ++n) {
      const float* d = dout + static_cast<idx>(n) * OC;
      for (int j = 0; j < OC; ++j) dbias[j] += d[j];
    }
}

// ---------------------------------------------------------------------------
// GELU (tanh approximation). tanh is Eigen's rational approximation
// (generic_fast_tanh_float: x P(x^2) / Q(x^2) on [-7.9, 7.9], saturated outside):
// max abs error 3.3e-7, and about twice as fast as going through exp in wasm.

namespace detail {
// GELU's constants and Eigen's tanh coefficients, in a mutable table (why: simd::Constants):
// sqrt(2/pi), 0.044715, 3 * 0.044715, 0.5, 1, the tanh clamp, P (7, in x^2, highest degree
// first; times x), Q (4).
float gelu_table[17] = {
    0.7978845608028654f, 0.044715f, 3.0f * 0.044715f, 0.5f, 1.0f, 7.90531110763549805f,
    -2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f, 5.12229709037114e-08f,
    1.48572235717979e-05f, 6.37261928875436e-04f, 4.89352455891786e-03f,
    1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f, 4.89352518554385e-03f,
};
}  // namespace detail

namespace {
using GeluConstants = simd::Constants<17>;
enum GeluConstant { kS, kC, kC3, kHalf, kOne, kClamp, kP0 = 6, kQ0 = 13 };
constexpr int kPTerms = 7, kQTerms = 4;

inline fbatch tanh_batch(fbatch x, const GeluConstants& k) {
  x = simd::min(simd::max(x, -k[kClamp]), k[kClamp]);
  const fbatch x2 = x * x;
  fbatch p = k[kP0];
  for (int i = 1; i < kPTerms; ++i) p = simd::fma(p, x2, k[kP0 + i]);
  fbatch q = k[kQ0];
  for (int i = 1; i < kQTerms; ++i) q = simd::fma(q, x2, k[kQ0 + i]);
  return p * x / q;
}
inline float tanh_scalar(float x) {
  const float* t = detail::gelu_table;
  x = x > t[kClamp] ? t[kClamp] : (x < -t[kClamp] ? -t[kClamp] : x);
  const float x2 = x * x;
  float p = t[kP0];
  for (int i = 1; i < kPTerms; ++i) p = p * x2 + t[kP0 + i];
  float q = t[kQ0];
  for (int i = 1; i < kQTerms; ++i) q = q * x2 + t[kQ0 + i];
  return p * x / q;
}
// GELU of one batch; t: its tanh (kept for the backward).
inline fbatch gelu_batch(const fbatch& x, fbatch& t, const GeluConstants& k) {
  t = tanh_batch(k[kS] * simd::fma(k[kC] * x, x * x, x), k);
  return k[kHalf] * x * (k[kOne] + t);
}

}  // namespace

void gelu_forward(float* out, float* th, const float* inp, std::size_t n) {
  const GeluConstants k(detail::gelu_table);
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    fbatch t;
    const fbatch g = gelu_batch(simd::load(inp + i), t, k);
    simd::store(th + i, t);
    simd::store(out + i, g);
  }
  const float* c = detail::gelu_table;
  for (; i < n; ++i) {
    const float x = inp[i];
    th[i] = tanh_scalar(c[kS] * (x + c[kC] * x * x * x));
    out[i] = 0.5f * x * (1.0f + th[i]);
  }
}

// A 1 -> hidden -> H GELU MLP (no output bias) on each of x[0..n), SIMD over x, in registers: per
// W inputs and up to kHeadsPerPass heads, the hidden units' pre-activation, GELU and share of each
// head's output. (Through gelu_forward and axpy on whole rows, the rows' loads and stores cost as
// much as the arithmetic.) The last partial block runs on a zero-padded copy.
void mlp_scalar_forward(float* out, std::size_t stride, const float* x, std::size_t n, const float* w1, const float* b1,
                        const float* w2, int hidden, int H) {
  constexpr int kHeadsPerPass = 4;
  const GeluConstants k(detail::gelu_table);
  alignas(64) float xin[W], res[kHeadsPerPass][W];
  for (std::size_t j = 0; j < n; j += W) {
    const std::size_t m = std::min<std::size_t>(W, n - j);
    fbatch xv;
    if (m == W) {
      xv = simd::load(x + j);
    } else {
      std::fill_n(xin, W, 0.0f);
      std::copy_n(x + j, m, xin);
      xv = simd::load(xin);
    }
    for (int h0 = 0; h0 < H; h0 += kHeadsPerPass) {
      const int hn = std::min(kHeadsPerPass, H - h0);
      fbatch acc[kHeadsPerPass];
      for (int h = 0; h < kHeadsPerPass; ++h) acc[h] = simd::splat(0.0f);
      for (int u = 0; u < hidden; ++u) {
        fbatch t;
        const fbatch g = gelu_batch(simd::fma(simd::splat(w1[u]), xv, simd::splat(b1[u])), t, k);
        const float* w = w2 + static_cast<std::size_t>(u) * H + h0;
        for (int h = 0; h < hn; ++h) acc[h] = simd::fma(simd::splat(w[h]), g, acc[h]);
      }
      for (int h = 0; h < hn; ++h) {
        float* o = out + static_cast<std::size_t>(h0 + h) * stride + j;
        if (m == W) {
          simd::store(o, acc[h]);
        } else {
          simd::store(res[h], acc[h]);
          std::copy_n(res[h], m, o);
        }
      }
    }
  }
}

// d/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) s (1 + 3 c x^2),  t = tanh(s (x + c x^3)) kept from forward
void gelu_backward(float* dinp, const float* inp, const float* th, const float* dout, std::size_t n) {
  const GeluConstants k(detail::gelu_table);
  const fbatch half = k[kHalf], one = k[kOne];
  std::size_t i = 0;
  for (; i + W <= n; i += W) {
    const fbatch x = simd::load(inp + i);
    const fbatch t = simd::load(th + i);
    const fbatch local = half * (one + t) + half * x * (one - t * t) * k[kS] * simd::fma(k[kC3], x * x, one);
    simd::store(dinp + i, local * simd::load(dout + i));
  }
  const float* c = detail::gelu_table;
  for (; i < n; ++i) {
    const float x = inp[i], t = th[i];
    const float local = 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * c[kS] * (1.0f + c[kC3] * x * x);
    dinp[i] = local * dout[i];
  }
}

// ---------------------------------------------------------------------------
// Residual

void residual_forward(float* out, const float* a, const float* b, std::size_t n) {
  std::size_t i = 0;
  for (; i + W <= n; i += W) simd::store(out + i, simd::load(a + i) + simd::load(b + i));
  for (; i < n; ++i) out[i] = a[i] + b[i];
}

// ---------------------------------------------------------------------------
// Cross-entropy: loss_n = -log softmax(logits_n)[target_n] on scored rows.

int argmax(const float* x, int n) {
  int arg = 0;
  for (int v = 1; v < n; ++v)
    if (x[v] > x[arg]) arg = v;
  return arg;
}

CrossEntropySums crossentropy_forward(float* probs, const float* logits, const int32_t* targets, int N, int V) {
  CrossEntropySums r;
  for (int n = 0; n < N; ++n) {
    const int32_t t = targets[n];
    if (t < 0) continue;
    const float* l = logits + static_cast<idx>(n) * V;
    float* p = probs + static_cast<idx>(n) * V;
    const int arg = argmax(l, V);
    const float mx = l[arg];
    double z = 0.0;
    for (int v = 0; v < V; ++v) {
      p[v] = std::exp(l[v] - mx);
      z += p[v];
    }
    const float inv = static_cast<float>(1.0 / z);
    for (int v = 0; v < V; ++v) p[v] *= inv;
    r.loss += std::log(z) - static_cast<double>(l[t] - mx);
    r.scored += 1;
    r.correct += (arg == t) ? 1 : 0;
  }
  return r;
}

void crossentropy_backward(float* dlogits, const float* probs, const int32_t* targets, int N, int V, float scale) {
  for (int n = 0; n < N; ++n) {
    const int32_t t = targets[n];
    float* d = dlogits + static_cast<idx>(n) * V;
    if (t < 0) {
      std::memset(d, 0, sizeof(float) * V);
      continue;
    }
    const float* p = probs + static_cast<idx>(n) * V;
    for (int v = 0; v < V; ++v) d[v] = p[v] * scale;
    d[t] -= scale;
  }
}

}  // namespace posenc::layers
