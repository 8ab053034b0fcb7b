// Where the tiny model's forward pass spends its time (docs/performance.md, "Where the
// forward pass goes"). Built natively (posenc_profile_forward) and for wasm SIMD
// (the same target in build/wasm-simd, run with node); prints one JSON line per T.
//
// The whole forward is posenc::Model::forward (the library's path, no JS). Each stage is
// then run alone on buffers of the same shapes (L=2, H=4, C=64, hd=16, F=256, V=16), and
// attention is cut into its parts: the two block products (S = Q K^T and O += P V, the
// same matmul_strided calls the streamed kernel makes), exp over the same number of
// scores, and the rest (row max, rescaling, masking: the whole kernel minus those).
// A figure is the median of 7 samples, each averaging enough calls to last 20 ms.
//
//   posenc_profile_forward [--T 128,512,1024] [--loop SECONDS]
// --loop runs only Model::forward for that long (for a sampling profiler: perf natively,
// node --cpu-prof in wasm; the wasm build keeps function names).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../cpp/src/kernels/matmul_strided.hpp"
#include "../cpp/src/model/model_layers.hpp"
#include "../cpp/src/kernels/softmax_row.hpp"
#include "cli.hpp"
#include "timing.hpp"
#include "posenc/kernels.hpp"
#include "posenc/model.hpp"
#include "posenc/simd.hpp"
#if defined(__FMA__)
#include <immintrin.h>
#endif

namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// median over 7 samples of the mean time per call (ms), after 100 ms of warm-up
double time_ms(const std::function<void()>& f) { return posenc::bench::median_ms(f, now_ms, 100.0, 20.0); }

std::vector<float> randn(std::size_t n, unsigned seed, float scale = 1.0f) {
  std::vector<float> v(n);
  unsigned x = seed * 2654435761u + 1;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = scale * (static_cast<float>(x >> 8) / 16777216.0f - 0.5f);
  }
  return v;
}

posenc::ModelConfig tiny_config() {
  posenc::ModelConfig cfg;
  cfg.encoding = posenc::parse_encoding("rope");
  cfg.layers = 2;
  cfg.heads = 4;
  cfg.d_model = 64;
  cfg.mlp_ratio = 4;
  cfg.vocab_size = 16;
  cfg.max_length = 64;
  cfg.seed = 1;
  return cfg;
}

#if defined(__FMA__)
// Would a fused multiply-add help 4-lane SIMD? The matmul micro-kernel's shape (a 4 x 8 tile of
// 128-bit accumulators, one broadcast per row, kc = 256) natively, with mul + add (what wasm
// SIMD128 has) and with a 128-bit FMA (what relaxed SIMD would give). Prints GFLOP/s of each.
template <bool Fused>
__attribute__((noinline)) void tile_4x8(int kc, const float* A, const float* B, float* C) {
  __m128 c[4][2];
  for (auto& r : c) r[0] = r[1] = _mm_setzero_ps();
  for (int p = 0; p < kc; ++p) {
    const __m128 b0 = _mm_loadu_ps(B + p * 8), b1 = _mm_loadu_ps(B + p * 8 + 4);
    for (int r = 0; r < 4; ++r) {
      const __m128 a = _mm_broadcast_ss(A + p * 4 + r);
      if constexpr (Fused) {
        c[r][0] = _mm_fmadd_ps(a, b0, c[r][0]);
        c[r][1] = _mm_fmadd_ps(a, b1, c[r][1]);
      } else {
        c[r][0] = _mm_add_ps(_mm_mul_ps(a, b0), c[r][0]);
        c[r][1] = _mm_add_ps(_mm_mul_ps(a, b1), c[r][1]);
      }
    }
  }
  for (int r = 0; r < 4; ++r) {
    _mm_storeu_ps(C + r * 8, c[r][0]);
    _mm_storeu_ps(C + r * 8 + 4, c[r][1]);
  }
}
void fma_probe() {
  const int kc = 256;
  std::vector<float> A(kc * 4, 0.5f), B(kc * 8, 0.25f), C(32);
  const double flops = 2.0 * 4 * 8 * kc;
  // throughput: the fastest of 9 interleaved samples (load on a shared machine only adds time)
  double mul_add = 1e30, fused = 1e30;
  for (int k = 0; k < 9; ++k) {
    mul_add = std::min(mul_add, time_ms([&] { tile_4x8<false>(kc, A.data(), B.data(), C.data()); }));
    fused = std::min(fused, time_ms([&] { tile_4x8<true>(kc, A.data(), B.data(), C.data()); }));
  }
  std::printf("{\"fma_probe\":{\"mul_add_gflops\":%.2f,\"fma_gflops\":%.2f}}\n", flops / mul_add / 1e6, flops / fused / 1e6);
}
#else
void fma_probe() {}
#endif

void loop_forward(int T, double seconds) {
  posenc::Model model(tiny_config());
  std::vector<int32_t> tok(T);
  for (int t = 0; t < T; ++t) tok[t] = (t * 7 + 3) % 16;
  const double t0 = now_ms();
  int n = 0;
  while (now_ms() - t0 < seconds * 1000) {
    model.forward(tok.data(), 1, T);
    ++n;
  }
  std::printf("{\"T\":%d,\"loop_calls\":%d,\"ms_per_call\":%.3f}\n", T, n, (now_ms() - t0) / n);
}

void profile(int T) {
  using namespace posenc;
  constexpr int L = 2, H = 4, C = 64, hd = C / H, F = 4 * C, V = 16, kB = 64;
  Model model(tiny_config());
  std::vector<int32_t> tok(T);
  for (int t = 0; t < T; ++t) tok[t] = (t * 7 + 3) % V;
  const double whole = time_ms([&] { model.forward(tok.data(), 1, T); });

  std::vector<float> x = randn(static_cast<std::size_t>(T) * C, 1), y(x), mean(T), rstd(T);
  auto w64 = randn(C, 2), b64 = randn(C, 3);
  auto wqkv = randn(C * 3 * C, 4, 0.2f), wproj = randn(C * C, 5, 0.2f), wfc = randn(C * F, 6, 0.2f),
       wfp = randn(F * C, 7, 0.2f), whead = randn(C * V, 8, 0.2f), bias = randn(4 * C, 9);
  std::vector<float> qkv(static_cast<std::size_t>(T) * 3 * C), h(static_cast<std::size_t>(T) * F), th(h),
      g(h), out(static_cast<std::size_t>(T) * C), logits(static_cast<std::size_t>(T) * V);
  auto q = randn(static_cast<std::size_t>(H) * T * hd, 10), k = randn(q.size(), 11), v = randn(q.size(), 12);
  std::vector<float> cosv(static_cast<std::size_t>(H) * T * hd / 2, 0.6f), sinv(cosv.size(), 0.8f), qr(q.size());
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));

  struct Stage {
    const char* name;
    double ms;
  };
  std::vector<Stage> st;
  auto stage = [&](const char* name, int times, const std::function<void()>& f) { st.push_back({name, times * time_ms(f)}); };

  stage("layernorm (3 per forward)", 2 * L + 1, [&] { layers::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w64.data(), b64.data(), T, C); });
  stage("qkv projection [T,64]x[64,192]", L, [&] { layers::linear_forward(qkv.data(), x.data(), wqkv.data(), bias.data(), T, C, 3 * C); });
  stage("split heads (copies)", L, [&] {
    for (int t = 0; t < T; ++t)
      for (int hh = 0; hh < H; ++hh)
        for (int part = 0; part < 3; ++part)
          std::memcpy((part == 0 ? q : part == 1 ? k : v).data() + (static_cast<std::size_t>(hh) * T + t) * hd,
                      qkv.data() + static_cast<std::size_t>(t) * 3 * C + part * C + hh * hd, sizeof(float) * hd);
  });
  stage("RoPE on q and k", L, [&] {
    kernels::rope_rotate_half(q.data(), qr.data(), cosv.data(), sinv.data(), H * T, hd, hd);
    kernels::rope_rotate_half(k.data(), qr.data(), cosv.data(), sinv.data(), H * T, hd, hd);
  });
  const double att = L * time_ms([&] {
    for (int hh = 0; hh < H; ++hh)
      kernels::attention_forward(q.data() + static_cast<std::size_t>(hh) * T * hd, k.data() + static_cast<std::size_t>(hh) * T * hd,
                                 v.data() + static_cast<std::size_t>(hh) * T * hd, out.data() + hh * hd, T, T, hd, hd, C, scale,
                                 true, 0.0f, nullptr);
  });
  // the block products of the streamed kernel, alone: per head, per 64-query block, per visible key block
  std::vector<float> S(kB * kB), kt(static_cast<std::size_t>(hd) * T), O(static_cast<std::size_t>(kB) * hd);
  auto blocks = [&](const std::function<void(int, int, int)>& f) {
    for (int hh = 0; hh < H; ++hh)
      for (int r0 = 0; r0 < T; r0 += kB)
        for (int c0 = 0; c0 < std::min(T, r0 + kB); c0 += kB) f(hh, r0, c0);
  };
  const double qk = L * time_ms([&] {
    blocks([&](int, int, int c0) { kernels::detail::matmul_strided(q.data(), hd, kt.data() + c0, T, S.data(), kB, kB, hd, kB, false); });
  });
  const double pv = L * time_ms([&] {
    blocks([&](int, int, int c0) { kernels::detail::matmul_strided(S.data(), kB, v.data() + c0 * hd, hd, O.data(), hd, kB, kB, hd, c0 > 0); });
  });
  auto sc = randn(kB * kB, 13);
  const simd::ExpConstants ek = simd::exp_constants();
  const double ex = L * time_ms([&] {
    blocks([&](int, int r0, int c0) {
      for (int r = 0; r < kB; ++r) {
        const int n = std::min(kB, r0 + r - c0 + 1);
        std::memcpy(S.data() + r * kB, sc.data() + r * kB, sizeof(float) * kB);
        kernels::detail::exp_shift_sum(S.data() + r * kB, n, 0.5f, ek);
      }
    });
  });
  const kernels::detail::ExpNonposConstants ek2 = kernels::detail::exp_nonpositive_constants();
  const double ex2 = L * time_ms([&] {  // what the streamed kernel runs: exp of x <= 0
    blocks([&](int, int r0, int c0) {
      for (int r = 0; r < kB; ++r) {
        const int n = std::min(kB, r0 + r - c0 + 1);
        std::memcpy(S.data() + r * kB, sc.data() + r * kB, sizeof(float) * kB);
        kernels::detail::exp_nonpositive_shift_sum(S.data() + r * kB, n, 0.5f, ek2);
      }
    });
  });
  const double copy = L * time_ms([&] {  // the memcpy the exp stage needs, to subtract
    blocks([&](int, int, int) { std::memcpy(S.data(), sc.data(), sizeof(float) * kB * kB); });
  });
  st.push_back({"attention: S = Q K^T blocks", qk});
  st.push_back({"attention: O += P V blocks", pv});
  st.push_back({"attention: exp (exp_nonpositive, as run)", ex2 - copy});
  st.push_back({"attention: the rest (max, rescale, mask, K^T)", att - qk - pv - (ex2 - copy)});
  stage("attention output projection [T,64]x[64,64]", L, [&] { layers::linear_forward(out.data(), x.data(), wproj.data(), bias.data(), T, C, C); });
  stage("MLP fc [T,64]x[64,256]", L, [&] { layers::linear_forward(h.data(), x.data(), wfc.data(), bias.data(), T, C, F); });
  stage("GELU [T,256]", L, [&] { layers::gelu_forward(g.data(), th.data(), h.data(), h.size()); });
  stage("MLP proj [T,256]x[256,64]", L, [&] { layers::linear_forward(out.data(), g.data(), wfp.data(), bias.data(), T, F, C); });
  stage("residual adds", 2 * L, [&] { layers::residual_forward(y.data(), y.data(), x.data(), y.size()); });
  stage("lm head [T,64]x[64,16]", 1, [&] { layers::linear_forward(logits.data(), x.data(), whead.data(), nullptr, T, C, V); });

  double sum = 0;
  std::printf("{\"T\":%d,\"arch\":\"%s\",\"forward_ms\":%.4f,\"stages\":[", T, simd::arch_name(), whole);
  for (std::size_t i = 0; i < st.size(); ++i) {
    sum += st[i].ms;
    std::printf("%s{\"stage\":\"%s\",\"ms\":%.4f}", i ? "," : "", st[i].name, st[i].ms);
  }
  std::printf("],\"stages_sum_ms\":%.4f,\"attention_ms\":%.4f,\"exp_natural_ms\":%.4f,\"exp_nonpositive_ms\":%.4f}\n", sum, att,
              ex - copy, ex2 - copy);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> lengths = {128, 512, 1024};
  double loop_s = 0;
  posenc::bench::Cli cli(argc, argv);
  std::string flag;
  while (cli.next(flag)) {
    if (flag == "--T") {
      lengths.clear();
      std::string s = cli.value();
      for (std::size_t p = 0; p < s.size();) {
        const std::size_t e = s.find(',', p);
        lengths.push_back(std::atoi(s.substr(p, e - p).c_str()));
        p = e == std::string::npos ? s.size() : e + 1;
      }
    } else if (flag == "--loop") {
      loop_s = std::atof(cli.value());
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (loop_s > 0) {
    for (int T : lengths) loop_forward(T, loop_s);
    return 0;
  }
  for (int T : lengths) profile(T);
  fma_probe();
  return 0;
}
