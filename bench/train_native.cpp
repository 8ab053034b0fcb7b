// Native benchmark: matmul GFLOP/s, training tokens/s, and steps to 95% copy
// accuracy for each encoding. Single thread.
//
//   posenc_bench_train [--encoding all|<a registered encoding>|rope_interleaved]
//                      [--steps 2400] [--batch 16] [--length 64] [--symbols 16]
//                      [--lr 6e-3] [--min-lr 6e-4] [--warmup 250] [--wd 0.1] [--beta2 0.999]
//                      [--eval-every 25] [--target 0.95] [--seed 1] [--matmul] [--no-train]
//                      [--variable] [--time-limit SECONDS]
// The learning rate follows lr_at(step, steps, warmup, lr, min_lr); a run stops at the
// first evaluation with accuracy >= target. Accuracy is measured on a fixed held-out
// batch of 128 copy sequences every eval-every steps. tokens/s counts train_step time only.
//
// The same program runs in wasm (Node), e.g.:
//   NODE_PATH=/usr/share/nodejs em++ -std=c++20 -O3 -msimd128 -msse4.1 -fexceptions \
//     -sDISABLE_EXCEPTION_CATCHING=0 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 \
//     -Icpp/include -I<dir with an xsimd symlink> cpp/src/*.cpp cpp/src/*/*.cpp bench/train_native.cpp -o bench.js
//   node bench.js --encoding all
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.hpp"
#include "posenc/error.hpp"
#include "posenc/kernels.hpp"
#include "posenc/model.hpp"
#include "posenc/simd.hpp"
#include "posenc/tasks.hpp"

using namespace posenc;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void bench_matmul() {
  struct Shape {
    int M, K, N;
  } shapes[] = {{256, 256, 64}, {256, 64, 256}, {1024, 64, 192}, {1024, 64, 256}, {1024, 256, 64}, {64, 16, 64}};
  for (const Shape s : shapes)
    for (int op = 0; op < 3; ++op) {
      const std::size_t n = static_cast<std::size_t>(std::max(s.M, s.K)) * std::max(s.K, s.N) + 64;
      std::vector<float> A(n, 0.5f), B(n, 0.25f), C(n);
      const double flops = 2.0 * s.M * s.K * s.N;
      const int reps = std::max(1, static_cast<int>(2e8 / flops));
      double best = 1e30;
      for (int t = 0; t < 5; ++t) {
        const auto t0 = Clock::now();
        for (int r = 0; r < reps; ++r) {
          if (op == 0) kernels::matmul(A.data(), B.data(), C.data(), s.M, s.K, s.N, false);
          if (op == 1) kernels::matmul_at(A.data(), B.data(), C.data(), s.M, s.K, s.N, false);
          if (op == 2) kernels::matmul_bt(A.data(), B.data(), C.data(), s.M, s.K, s.N, false);
        }
        best = std::min(best, seconds_since(t0) / reps);
      }
      std::printf("matmul %-9s M=%4d K=%4d N=%4d  %6.1f GFLOP/s\n", op == 0 ? "AB" : op == 1 ? "A^T B" : "A B^T", s.M,
                  s.K, s.N, flops / best / 1e9);
    }
}

struct Args {
  std::string encoding = "all";
  int steps = 2400, batch = 16, length = 64, symbols = 16, eval_every = 25;
  float lr = 6e-3f, min_lr = 6e-4f, wd = 0.1f, beta2 = 0.999f, target = 0.95f;
  int warmup = 250;
  uint64_t seed = 1;
  bool matmul = false, train = true, variable = false;
  double time_limit = 0;
};

struct Run {
  std::string name;
  int steps_to_target = -1;
  double seconds_to_target = -1;
  double tokens_per_s = 0;
  float final_acc = 0, final_loss = 0;
};

Run train_one(const std::string& name, const Args& a) {
  ModelConfig cfg;
  if (name == "rope_interleaved") {
    cfg.encoding = posenc::parse_encoding("rope");
    cfg.rope_layout = RopeLayout::Interleaved;
  } else {
    cfg.encoding = parse_encoding(name);
  }
  TaskOptions to;
  to.symbols = a.symbols;
  to.variable_length = a.variable;
  cfg.vocab_size = task_vocab_size(to);
  cfg.max_length = a.length;
  cfg.seed = a.seed;
  Model model(cfg);
  model.optimizer_options().weight_decay = a.wd;
  model.optimizer_options().beta2 = a.beta2;
  TaskGenerator train(to, a.seed + 100), held(to, a.seed + 200);
  const int B = a.batch, T = a.length, EB = 128;
  std::vector<int32_t> tok(static_cast<std::size_t>(B) * T), tgt(tok.size());
  std::vector<int32_t> etok(static_cast<std::size_t>(EB) * T), etgt(etok.size());
  held.sample(EB, T, etok.data(), etgt.data());
  Run run;
  run.name = name;
  double train_s = 0;
  long long tokens = 0;
  LossResult last;
  for (int step = 0; step < a.steps; ++step) {
    train.sample(B, T, tok.data(), tgt.data());
    const float lr = lr_at(step, a.steps, a.warmup, a.lr, a.min_lr);
    const auto t0 = Clock::now();
    last = model.train_step(tok.data(), tgt.data(), B, T, lr);
    train_s += seconds_since(t0);
    tokens += static_cast<long long>(B) * T;
    if ((step + 1) % a.eval_every == 0 || step + 1 == a.steps) {
      const LossResult e = model.evaluate(etok.data(), etgt.data(), EB, T);
      run.final_acc = e.accuracy;
      run.final_loss = e.loss;
      if (run.steps_to_target < 0 && e.accuracy >= a.target) {
        run.steps_to_target = step + 1;
        run.seconds_to_target = train_s;
        break;
      }
      if (a.time_limit > 0 && train_s > a.time_limit) break;
    }
  }
  run.tokens_per_s = tokens / train_s;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  posenc::bench::Cli cli(argc, argv);
  auto next = [&] { return cli.value(); };
  for (std::string k; cli.next(k);) {
    if (k == "--encoding") a.encoding = next();
    else if (k == "--steps") a.steps = std::atoi(next());
    else if (k == "--batch") a.batch = std::atoi(next());
    else if (k == "--length") a.length = std::atoi(next());
    else if (k == "--symbols") a.symbols = std::atoi(next());
    else if (k == "--lr") a.lr = std::strtof(next(), nullptr);
    else if (k == "--min-lr") a.min_lr = std::strtof(next(), nullptr);
    else if (k == "--warmup") a.warmup = std::atoi(next());
    else if (k == "--wd") a.wd = std::strtof(next(), nullptr);
    else if (k == "--beta2") a.beta2 = std::strtof(next(), nullptr);
    else if (k == "--eval-every") a.eval_every = std::atoi(next());
    else if (k == "--target") a.target = std::strtof(next(), nullptr);
    else if (k == "--seed") a.seed = std::strtoull(next(), nullptr, 10);
    else if (k == "--time-limit") a.time_limit = std::strtod(next(), nullptr);
    else if (k == "--matmul") a.matmul = true;
    else if (k == "--no-train") a.train = false;
    else if (k == "--variable") a.variable = true;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::printf("arch %s\n", simd::arch_name());
  if (a.matmul) bench_matmul();
  if (!a.train) return 0;
  std::vector<std::string> names;
  if (a.encoding == "all")
    for (const EncodingInfo& e : encodings()) {  // the registry, plus RoPE's other layout
      names.emplace_back(e.name);
      if (e.id == posenc::parse_encoding("rope")) names.emplace_back("rope_interleaved");
    }
  else
    names = {a.encoding};
  std::printf("copy task: T=%d batch=%d symbols=%d lr=%g min_lr=%g warmup=%d wd=%g beta2=%g steps<=%d\n", a.length,
              a.batch, a.symbols, a.lr, a.min_lr, a.warmup, a.wd, a.beta2, a.steps);
  std::printf("%-17s %10s %12s %10s %9s %9s\n", "encoding", "tokens/s", "steps->target", "seconds", "final acc",
              "loss");
  for (const std::string& n : names) {
    try {
      const Run r = train_one(n, a);
      std::printf("%-17s %10.0f %12d %10.2f %9.3f %9.4f\n", r.name.c_str(), r.tokens_per_s, r.steps_to_target,
                  r.seconds_to_target, r.final_acc, r.final_loss);
      std::fflush(stdout);
    } catch (const Error& e) {
      std::printf("%-17s error: %s\n", n.c_str(), e.what());
    }
  }
}
