// The C++ side of `npm run bench`: the same kernels, shapes and inputs as the
// JS suite (bench/lib/cases.js), run natively (AVX2+FMA: the ceiling the wasm
// builds are measured against). Built by bench/run.js as the CMake target
// posenc_bench_kernels (EXCLUDE_FROM_ALL); it also compiles to wasm with
// emcmake for profiling under Node.
//
//   posenc_bench_kernels [--out DIR] [--only a,b] [--reps N] [--min-ms MS] [--sweep T1,T2,...] [--cpu-time]
//
// Prints one JSON object per line: {"kernel", "ms" (median), "runs", "flops"?,
// "peakBytes"?}. With --out, writes each kernel's output as raw float32
// (DIR/<kernel>.f32) so bench/run.js can check it against the wasm build.
// Inputs come from the generator of bench/lib/inputs.js (xorshift32, exact in
// float32), so both sides compute on the same numbers.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#elif defined(__linux__)
#include <time.h>
#endif

#include "cli.hpp"
#include "posenc/kernels.hpp"
#include "posenc/model.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/simd.hpp"
#include "posenc/t5.hpp"
#include "posenc/tasks.hpp"

using namespace posenc;
using Clock = std::chrono::steady_clock;

namespace {

// ---- inputs: the same stream as bench/lib/inputs.js
uint32_t xorshift(uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}
uint32_t seed_state(uint32_t seed) { return seed * 2654435761u + 1u; }
std::vector<float> uniform(std::size_t n, uint32_t seed) {  // values in [-1, 1), exact in float32
  std::vector<float> v(n);
  uint32_t s = seed_state(seed);
  for (float& x : v) x = static_cast<float>(xorshift(s) >> 8) * (2.0f / 16777216.0f) - 1.0f;
  return v;
}
std::vector<int32_t> tokens(std::size_t n, int vocab, uint32_t seed) {
  std::vector<int32_t> v(n);
  uint32_t s = seed_state(seed);
  for (int32_t& x : v) x = static_cast<int32_t>(xorshift(s) % static_cast<uint32_t>(vocab));
  return v;
}

// ---- options
struct Args {
  std::string out, only;
  int reps = 7;
  double min_ms = 20;  // each timed sample repeats the kernel until it lasts this long
  std::vector<int> sweep;
};

bool wanted(const Args& a, const std::string& name) {
  if (a.only.empty()) return true;
  std::string list = "," + a.only + ",";
  return list.find("," + name + ",") != std::string::npos;
}

// Wall time, or with --cpu-time this thread's CPU time (steadier for A/B comparisons on a busy machine).
bool g_cpu_time = false;
double now_ms() {
#if defined(__EMSCRIPTEN__)
  if (g_cpu_time) return EM_ASM_DOUBLE({ const u = process.cpuUsage(); return (u.user + u.system) / 1000; });
#elif defined(__linux__)
  if (g_cpu_time) {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
  }
#endif
  return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count();
}

// Median of `reps` samples after a warm-up; each sample averages `inner` calls.
double median_ms(const std::function<void()>& fn, const Args& a, int* inner_out) {
  fn();  // warm-up (and page faults)
  double t0 = now_ms();
  fn();
  const double once = std::max(1e-4, now_ms() - t0);
  const int inner = std::max(1, static_cast<int>(a.min_ms / once));
  std::vector<double> times;
  for (int r = 0; r < a.reps; ++r) {
    t0 = now_ms();
    for (int i = 0; i < inner; ++i) fn();
    times.push_back((now_ms() - t0) / inner);
  }
  std::sort(times.begin(), times.end());
  *inner_out = inner;
  return times[times.size() / 2];
}

// Peak resident memory of this process: VmHWM (getrusage's ru_maxrss would include the
// parent's resident set at fork when run from Node, which is how bench/run.js starts it).
long peak_rss_bytes() {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  long kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  std::fclose(f);
  return kb * 1024L;
#else
  return 0;
#endif
}

void write_output(const Args& a, const std::string& name, const float* data, std::size_t n) {
  if (a.out.empty()) return;
  const std::string path = a.out + "/" + name + ".f32";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fwrite(data, sizeof(float), n, f);
  std::fclose(f);
}

void report(const std::string& name, double ms, int inner, const Args& a, double flops = 0, long peak = 0) {
  std::printf("{\"kernel\":\"%s\",\"ms\":%.6g,\"runs\":%d,\"inner\":%d", name.c_str(), ms, a.reps, inner);
  if (flops > 0) std::printf(",\"flops\":%.6g", flops);
  if (peak > 0) std::printf(",\"peakBytes\":%ld", peak);
  std::printf("}\n");
  std::fflush(stdout);
}

// ---- the cases (shapes: bench/lib/cases.js)
constexpr int kT = 1024, kD = 64;
constexpr uint32_t kSeedQ = 1, kSeedK = 2, kSeedV = 3, kSeedX = 4, kSeedBias = 5, kSeedA = 6, kSeedB = 7,
                   kSeedTokens = 8;
constexpr float kAlibiSlope = 0.0625f;  // head 4 of 8 (2^-4)

void bench_rope(const Args& a) {
  const auto x = uniform(std::size_t(kT) * kD, kSeedX);
  std::vector<float> out(x.size());
  const RopeFrequencies f = rope_frequencies(kD, 10000.0, RopeScaling{}, std::nullopt);
  RopeApplyOptions o;
  o.length = kT;
  o.dim = kD;
  o.rotary_dim = kD;
  o.layout = RopeLayout::Half;
  o.inv_freq = f.inv_freq.data();
  o.attention_scale = f.attention_scale;
  int inner = 0;
  const double ms = median_ms([&] { apply_rope(o, x.data(), out.data()); }, a, &inner);
  write_output(a, "rope", out.data(), out.size());
  report("rope", ms, inner, a);
}

// T5 bias [T, T]: a random per-bucket table through the causal (unidirectional) buckets.
std::vector<float> t5_bias() {
  const auto table = uniform(32, kSeedBias);
  const T5BucketOptions bo{false, 32, 128};
  std::vector<float> bias(std::size_t(kT) * kT);
  for (int i = 0; i < kT; ++i)
    for (int j = 0; j < kT; ++j) bias[std::size_t(i) * kT + j] = table[t5_bucket(j - i, bo)];
  return bias;
}

void bench_probs(const Args& a, bool t5) {
  const std::string name = t5 ? "t5_softmax" : "alibi_softmax";
  const auto q = uniform(std::size_t(kT) * kD, kSeedQ), k = uniform(std::size_t(kT) * kD, kSeedK);
  const std::vector<float> bias = t5 ? t5_bias() : std::vector<float>();
  std::vector<float> s(std::size_t(kT) * kT);
  const float scale = 1.0f / std::sqrt(float(kD));
  int inner = 0;
  const double ms = median_ms(
      [&] {
        kernels::attention_scores_softmax(q.data(), k.data(), s.data(), kT, kT, kD, scale, true,
                                          t5 ? 0.0f : kAlibiSlope, t5 ? bias.data() : nullptr);
      },
      a, &inner);
  write_output(a, name, s.data(), s.size());
  report(name, ms, inner, a);
}

void bench_qkt(const Args& a) {
  const auto q = uniform(std::size_t(kT) * kD, kSeedQ), k = uniform(std::size_t(kT) * kD, kSeedK);
  std::vector<float> s(std::size_t(kT) * kT);
  int inner = 0;
  const double ms = median_ms([&] { kernels::matmul_bt(q.data(), k.data(), s.data(), kT, kD, kT, false); }, a, &inner);
  write_output(a, "qkt", s.data(), s.size());
  report("qkt", ms, inner, a, 2.0 * kT * kT * kD);
}

void bench_matmul(const Args& a, int M, int K, int N) {
  const std::string name = "matmul_" + std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N);
  const auto A = uniform(std::size_t(M) * K, kSeedA), B = uniform(std::size_t(K) * N, kSeedB);
  std::vector<float> C(std::size_t(M) * N);
  int inner = 0;
  const double ms = median_ms([&] { kernels::matmul(A.data(), B.data(), C.data(), M, K, N, false); }, a, &inner);
  write_output(a, name, C.data(), C.size());
  report(name, ms, inner, a, 2.0 * M * K * N);
}

// Full causal attention O = softmax(scale Q K^T, causal) V: streamed (the model's inference path),
// or materialised (probabilities [T, T], then P V).
void bench_attention(const Args& a, bool materialised) {
  const std::string name = materialised ? "attention_materialised" : "attention";
  const auto q = uniform(std::size_t(kT) * kD, kSeedQ), k = uniform(std::size_t(kT) * kD, kSeedK),
             v = uniform(std::size_t(kT) * kD, kSeedV);
  std::vector<float> o(std::size_t(kT) * kD), p(materialised ? std::size_t(kT) * kT : 0);
  const float scale = 1.0f / std::sqrt(float(kD));
  int inner = 0;
  const double ms = median_ms(
      [&] {
        if (materialised) {
          kernels::attention_scores_softmax(q.data(), k.data(), p.data(), kT, kT, kD, scale, true, 0.0f, nullptr);
          kernels::matmul(p.data(), v.data(), o.data(), kT, kT, kD, false);
        } else {
          kernels::attention_forward(q.data(), k.data(), v.data(), o.data(), kT, kT, kD, kD, kD, scale, true, 0.0f,
                                     nullptr);
        }
      },
      a, &inner);
  write_output(a, name, o.data(), o.size());
  // causal: the T(T+1)/2 visible pairs, 2d flops each for QK^T and for PV
  report(name, ms, inner, a, 4.0 * kD * (double(kT) * (kT + 1) / 2));
}

// ---- the tiny model (bench/lib/cases.js: MODEL 2 layers, TRAIN 3 layers): RoPE, 4 heads, seed 1
ModelConfig tiny_config(int layers, int d_model, int mlp_ratio, int vocab_size, int max_length) {
  ModelConfig c;
  c.encoding = posenc::parse_encoding("rope");
  c.layers = layers;
  c.heads = 4;
  c.d_model = d_model;
  c.mlp_ratio = mlp_ratio;
  c.vocab_size = vocab_size;
  c.max_length = max_length;
  c.seed = 1;
  return c;
}

void bench_forward(const Args& a, int T, const std::string& name) {
  Model m(tiny_config(2, 64, 4, 16, 64));
  const auto tok = tokens(T, m.config().vocab_size, kSeedTokens);
  const float* logits = nullptr;
  int inner = 0;
  const double ms = median_ms([&] { logits = m.forward(tok.data(), 1, T); }, a, &inner);
  write_output(a, name, logits, std::size_t(T) * m.config().vocab_size);
  report(name, ms, inner, a, 0, peak_rss_bytes());
}

// One training step at the explorer's defaults (web/app/shared/experiment.js, web/app/shared/state.js):
// copy task, 8 symbols, variable length, T = 32, batch 32, L = 2, H = 4, d = 32, mlpRatio 3, lr 6e-3.
void bench_train(const Args& a) {
  TaskOptions to;
  to.kind = TaskKind::Copy;
  to.symbols = 8;
  to.variable_length = true;
  const ModelConfig c = tiny_config(3, 32, 3, task_vocab_size(to), 32);
  const int B = 32, T = 32;
  std::vector<int32_t> tok(std::size_t(B) * T), tgt(tok.size());
  TaskGenerator(to, 1).sample(B, T, tok.data(), tgt.data());
  // Correctness figures from a fresh model: loss, gradient norm, and the loss after the step.
  Model fresh(c);
  const LossResult r = fresh.train_step(tok.data(), tgt.data(), B, T, 6e-3f);
  const LossResult after = fresh.evaluate(tok.data(), tgt.data(), B, T);
  const float check[3] = {r.loss, r.grad_norm, after.loss};
  write_output(a, "train", check, 3);
  Model m(c);
  int inner = 0;
  const double ms = median_ms([&] { m.train_step(tok.data(), tgt.data(), B, T, 6e-3f); }, a, &inner);
  report("train", ms, inner, a);
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  posenc::bench::Cli cli(argc, argv);
  auto next = [&] { return cli.value(); };
  for (std::string k; cli.next(k);) {
    if (k == "--out") a.out = next();
    else if (k == "--only") a.only = next();
    else if (k == "--reps") a.reps = std::max(1, std::atoi(next()));
    else if (k == "--min-ms") a.min_ms = std::atof(next());
    else if (k == "--sweep") a.sweep = parse_list(next());
    else if (k == "--cpu-time") g_cpu_time = true;
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::printf("{\"arch\":\"%s\"}\n", simd::arch_name());
  if (wanted(a, "rope")) bench_rope(a);
  if (wanted(a, "alibi_softmax")) bench_probs(a, false);
  if (wanted(a, "t5_softmax")) bench_probs(a, true);
  if (wanted(a, "qkt")) bench_qkt(a);
  if (wanted(a, "matmul_256x256x64")) bench_matmul(a, 256, 256, 64);
  if (wanted(a, "matmul_1024x64x256")) bench_matmul(a, 1024, 64, 256);
  if (wanted(a, "attention")) bench_attention(a, false);
  if (wanted(a, "attention_materialised")) bench_attention(a, true);
  for (int T : {128, 512, 1024, 4096}) {
    const std::string name = "forward_" + std::to_string(T);
    if (wanted(a, name)) bench_forward(a, T, name);
  }
  for (int T : a.sweep) bench_forward(a, T, "sweep_" + std::to_string(T));
  if (wanted(a, "train")) bench_train(a);
  return 0;
}
