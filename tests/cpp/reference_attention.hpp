// An independent float64 reference of layer 0's attention probabilities, for the tests of
// encodings written from their papers' code (test_rotary_variants.cpp, test_fire.cpp): LN1 and
// the qkv projection recomputed from a Model's weights, the encoding's transform of q and k
// and its score bias supplied by the test.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "posenc/model.hpp"

namespace reference {

// q, k [T, C] of layer 0 (before any position transform), in double.
inline void layer0_qk(const posenc::Model& m, const std::vector<int32_t>& tok, std::vector<double>& q,
                      std::vector<double>& k) {
  const int C = m.config().d_model, T = static_cast<int>(tok.size());
  auto P = [&](const char* name) { return m.parameters() + m.find_tensor(name)->offset; };
  const float *wte = P("wte"), *g = P("h0.ln1.weight"), *bln = P("h0.ln1.bias"), *W = P("h0.attn.qkv.weight"),
              *bq = P("h0.attn.qkv.bias");
  q.assign(static_cast<size_t>(T) * C, 0.0);
  k.assign(q.size(), 0.0);
  for (int t = 0; t < T; ++t) {
    const float* x = wte + static_cast<size_t>(tok[t]) * C;
    double mean = 0, var = 0;
    for (int i = 0; i < C; ++i) mean += x[i];
    mean /= C;
    for (int i = 0; i < C; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= C;
    std::vector<double> ln(C);
    for (int i = 0; i < C; ++i) ln[i] = (x[i] - mean) / std::sqrt(var + 1e-5) * g[i] + bln[i];
    for (int o = 0; o < C; ++o) {
      double sq = bq[o], sk = bq[C + o];
      for (int i = 0; i < C; ++i) {
        sq += ln[i] * W[static_cast<size_t>(i) * 3 * C + o];
        sk += ln[i] * W[static_cast<size_t>(i) * 3 * C + C + o];
      }
      q[static_cast<size_t>(t) * C + o] = sq;
      k[static_cast<size_t>(t) * C + o] = sk;
    }
  }
}

// RoPE in double, in place on x [T, C] (H heads of hd = C / H, every pair rotating): pair i of position t turns by
// t * base^(-2i / hd); pairs (2i, 2i + 1) interleaved, else (i, i + hd/2).
inline void rope_rotate(std::vector<double>& x, int T, int H, int C, double base, bool interleaved) {
  const int hd = C / H, half = hd / 2;
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < half; ++i) {
        double* row = x.data() + static_cast<size_t>(t) * C + h * hd;
        const int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + half;
        const double angle = t * std::pow(base, -2.0 * i / hd);
        const double x0 = row[a], x1 = row[b];
        row[a] = x0 * std::cos(angle) - x1 * std::sin(angle);
        row[b] = x1 * std::cos(angle) + x0 * std::sin(angle);
      }
}

// Causal softmax(q k^T / sqrt(hd) + bias(h, i, j)) per head: [H, T, T].
inline std::vector<double> maps(const std::vector<double>& q, const std::vector<double>& k, int T, int H, int C,
                                const std::function<double(int, int, int)>& bias) {
  const int hd = C / H;
  std::vector<double> p(static_cast<size_t>(H) * T * T, 0.0);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < T; ++i) {
      std::vector<double> s(i + 1);
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j <= i; ++j) {
        double d = 0;
        for (int e = 0; e < hd; ++e)
          d += q[static_cast<size_t>(i) * C + h * hd + e] * k[static_cast<size_t>(j) * C + h * hd + e];
        s[j] = d / std::sqrt(static_cast<double>(hd)) + (bias ? bias(h, i, j) : 0.0);
        mx = std::max(mx, s[j]);
      }
      for (int j = 0; j <= i; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (int j = 0; j <= i; ++j) p[(static_cast<size_t>(h) * T + i) * T + j] = s[j] / sum;
    }
  return p;
}

// Largest |model - reference| and the number of clearly intermediate probabilities (the test
// would not see positions if attention were flat or one-hot).
struct Compare {
  double worst = 0;
  int spread = 0;
};
inline Compare compare(const std::vector<float>& got, const std::vector<double>& want) {
  Compare c;
  for (size_t i = 0; i < want.size(); ++i) {
    c.worst = std::max(c.worst, std::abs(got[i] - want[i]));
    c.spread += want[i] > 0.05 && want[i] < 0.9;
  }
  return c;
}

}  // namespace reference
