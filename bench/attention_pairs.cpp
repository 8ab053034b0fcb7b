// The streamed attention's cost per (query, key) pair: kernels::attention_forward over one causal
// head of T queries and T keys (T (T + 1) / 2 visible pairs), for head sizes 8 (stories260K) and
// 64 (a typical LLM), with and without the per-row statistics (entropy, first-key mass).
// Built natively (posenc_bench_attention) and for wasm SIMD (the same target in build/wasm-simd,
// run with node: V8's code, as in Chromium). Prints one JSON line per (d, T, stats): the median of
// 7 samples of ns per pair (CPU time), and the cycles per pair at --ghz (default 2.6, this machine's
// clock).
//
//   posenc_bench_attention [--T 1024,4096] [--d 8,64] [--ghz 2.6]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cli.hpp"
#include "timing.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"

int main(int argc, char** argv) {
  std::vector<int> lengths = {1024, 4096}, dims = {8, 64};
  double ghz = 2.6;
  posenc::bench::Cli cli(argc, argv);
  for (std::string flag; cli.next(flag);) {
    if (flag == "--T") lengths = posenc::bench::parse_ints(cli.value());
    else if (flag == "--d") dims = posenc::bench::parse_ints(cli.value());
    else if (flag == "--ghz") ghz = std::atof(cli.value());
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::mt19937 rng(7);
  // Scores of a trained model's spread (about N(0, 3) after scaling), so that the lazy rescale is
  // exercised as in the model, not never.
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (int d : dims)
    for (int T : lengths) {
      const std::size_t n = static_cast<std::size_t>(T) * d;
      std::vector<float> q(n), k(n), v(n), o(n), ent(T), first(T);
      for (float& x : q) x = nd(rng) * 1.7f;
      for (float& x : k) x = nd(rng) * 1.7f;
      for (float& x : v) x = nd(rng);
      const float scale = 1.0f / std::sqrt(static_cast<float>(d));
      const double pairs = static_cast<double>(T) * (T + 1) / 2;
      for (int with_stats = 0; with_stats < 2; ++with_stats) {
        posenc::kernels::RowStats st{ent.data(), first.data()};
        const double ms = posenc::bench::median_ms([&] {
          posenc::kernels::attention_forward(q.data(), k.data(), v.data(), o.data(), T, T, d, d, d, scale, true, 0.0f,
                                             nullptr, with_stats ? &st : nullptr);
        }, posenc::bench::cpu_ms, 200.0, 50.0);
        const double ns = ms * 1e6 / pairs;
        std::printf("{\"arch\":\"%s\",\"d\":%d,\"T\":%d,\"stats\":%s,\"ms\":%.3f,\"ns_per_pair\":%.3f,"
                    "\"cycles_per_pair\":%.2f}\n",
                    posenc::simd::arch_name(), d, T, with_stats ? "true" : "false", ms, ns, ns * ghz);
        std::fflush(stdout);
      }
    }
  return 0;
}
