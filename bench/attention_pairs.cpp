// The streamed attention's cost per (query, key) pair: kernels::attention_forward over one causal
// head of T queries and T keys (T (T + 1) / 2 visible pairs), for head sizes 8 (stories260K) and
// 64 (a typical LLM), with and without the per-row statistics (entropy, first-key mass).
// Built natively (posenc_bench_attention) and for wasm SIMD (the same target in build/wasm-simd,
// run with node: V8's code, as in Chromium). Prints one JSON line per (d, T, stats): the median of
// 7 samples of ns per pair (CPU time), and the cycles per pair at --ghz (default 2.6, this machine's clock).
//
//   posenc_bench_attention [--T 1024,4096] [--d 8,64] [--ghz 2.6]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#endif

#include "cli.hpp"
#include "posenc/kernels.hpp"
#include "posenc/simd.hpp"

namespace {

// The CPU time of the process, not wall time: the machine is shared, and CPU time does not count the
// time slices other processes take. Under Emscripten (node), process.cpuUsage(): std::clock is wall
// time there.
double now_ms() {
#if defined(__EMSCRIPTEN__)
  return EM_ASM_DOUBLE({
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  });
#else
  return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
#endif
}

// median over 7 samples of the mean time per call (ms), after 200 ms of warm-up (V8 tiers up)
double time_ms(const std::function<void()>& f) {
  for (const double t0 = now_ms(); now_ms() - t0 < 200.0;) f();
  int reps = 1;
  for (;;) {
    const double t0 = now_ms();
    for (int i = 0; i < reps; ++i) f();
    if (now_ms() - t0 > 50.0 || reps > (1 << 20)) break;
    reps *= 2;
  }
  std::vector<double> s;
  for (int k = 0; k < 7; ++k) {
    const double t0 = now_ms();
    for (int i = 0; i < reps; ++i) f();
    s.push_back((now_ms() - t0) / reps);
  }
  std::sort(s.begin(), s.end());
  return s[3];
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> lengths = {1024, 4096}, dims = {8, 64};
  double ghz = 2.6;
  posenc::bench::Cli cli(argc, argv);
  for (std::string flag; cli.next(flag);) {
    if (flag == "--T") lengths = parse_list(cli.value());
    else if (flag == "--d") dims = parse_list(cli.value());
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
        const double ms = time_ms([&] {
          posenc::kernels::attention_forward(q.data(), k.data(), v.data(), o.data(), T, T, d, d, d, scale, true, 0.0f,
                                             nullptr, with_stats ? &st : nullptr);
        });
        const double ns = ms * 1e6 / pairs;
        std::printf("{\"arch\":\"%s\",\"d\":%d,\"T\":%d,\"stats\":%s,\"ms\":%.3f,\"ns_per_pair\":%.3f,\"cycles_per_pair\":%.2f}\n",
                    posenc::simd::arch_name(), d, T, with_stats ? "true" : "false", ms, ns, ns * ghz);
        std::fflush(stdout);
      }
    }
  return 0;
}
