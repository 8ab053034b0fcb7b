// The weight formats' matrix product against float32: lm's matmul(out, x, W, T) for W of `rows` x `cols` in
// each format (random blocks, finite scales), x [T, cols]: GFLOP/s (2 T rows cols per call) and the ratio to the
// float32 matrix of the same shape; for each block format, its kernel (blocks unpacked in registers) and its
// decoded panels (the float kernel on panels decoded to float32), each forced, and the one matmul chooses.
// Built natively (posenc_bench_quant) and for wasm SIMD (the same target in build/wasm-simd, run with node:
// V8's code, as in Chromium). Prints one JSON line per (format, T): medians of 7 samples (CPU time).
//
//   posenc_bench_quant [--T 1,16,64,512] [--rows 2048] [--cols 2048] [--formats Q4_K,Q8_0,...]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../cpp/src/lm/lm_internal.hpp"  // internal: Format, make_weight, matmul
#include "cli.hpp"
#include "posenc/simd.hpp"
#include "timing.hpp"

namespace {

using namespace posenc::lm;

// Random bytes below 0x3c: every f16 scale is finite (exponent at most 14) and the quantised values still vary;
// float32 and bfloat16 values get a normal exponent.
Weight random_weight(DType t, int rows, int cols, std::mt19937& rng) {
  const Format& f = format(t);
  std::vector<uint8_t> bytes(static_cast<std::size_t>(rows) * (cols / f.block) * f.block_bytes);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng() % 0x3c);
  if (t == DType::F32)  // floats near 0.01
    for (std::size_t i = 0; i < bytes.size(); i += 4) bytes[i + 3] = 0x3c;
  if (t == DType::BF16)  // the same exponent: a high byte below 0x3c would make subnormal floats, slow to multiply
    for (std::size_t i = 0; i < bytes.size(); i += 2) bytes[i + 1] = 0x3c;
  TensorBytes tb{format(t).name, t, {rows, cols}, bytes.data(), bytes.size()};
  return make_weight(tb);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> lengths = {1, 16, 64, 512};
  int rows = 2048, cols = 2048;
  std::string only;
  posenc::bench::Cli cli(argc, argv);
  for (std::string flag; cli.next(flag);) {
    if (flag == "--T") lengths = posenc::bench::parse_ints(cli.value());
    else if (flag == "--rows") rows = std::atoi(cli.value());
    else if (flag == "--cols") cols = std::atoi(cli.value());
    else if (flag == "--formats") only = "," + std::string(cli.value()) + ",";
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (int T : lengths) {
    std::vector<float> x(static_cast<std::size_t>(T) * cols), out(static_cast<std::size_t>(T) * rows);
    for (float& v : x) v = nd(rng);
    double f32_gflops = 0;
    for (int i = 0; i <= static_cast<int>(DType::Q6_K); ++i) {
      const DType t = static_cast<DType>(i);
      if (t != DType::F32 && !only.empty() && only.find("," + std::string(dtype_name(t)) + ",") == std::string::npos) continue;
      const Weight w = random_weight(t, rows, cols, rng);
      const auto time = [&](BlockPath path) {
        const double ms = posenc::bench::median_ms([&] { matmul(out.data(), x.data(), w, T, false, path); }, posenc::bench::cpu_ms,
                                                   200.0, 50.0);
        return 2.0 * T * rows * cols / (ms * 1e6);
      };
      const double gflops = time(BlockPath::Auto);
      if (t == DType::F32) {
        f32_gflops = gflops;
        std::printf("{\"arch\":\"%s\",\"format\":\"F32\",\"T\":%d,\"rows\":%d,\"cols\":%d,\"gflops\":%.2f}\n",
                    posenc::simd::arch_name(), T, rows, cols, gflops);
      } else {  // the block format's kernel, its decoded panels (the old path), and what matmul chooses
        const double kernel = time(BlockPath::Kernel), panel = time(BlockPath::Panel);
        std::printf("{\"arch\":\"%s\",\"format\":\"%s\",\"T\":%d,\"rows\":%d,\"cols\":%d,\"weight_bytes\":%zu,"
                    "\"gflops\":%.2f,\"kernel_gflops\":%.2f,\"panel_gflops\":%.2f,\"vs_f32\":%.2f,\"kernel_vs_f32\":%.2f,"
                    "\"panel_vs_f32\":%.2f,\"kernel_vs_panel\":%.2f}\n",
                    posenc::simd::arch_name(), dtype_name(t), T, rows, cols, w.bytes(), gflops, kernel, panel,
                    gflops / f32_gflops, kernel / f32_gflops, panel / f32_gflops, kernel / panel);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
