// Prefill speed of posenc::lm's forward on a real model (stories260K by default): tokens per
// second of one forward over T tokens (NLL of every row, no statistics), for each scaling and thread count.
// Prints one JSON line per (scaling, T, threads): the best and the median of `--runs` timed runs, after
// one warm-up run. Built natively (posenc_bench_lm) and, for wasm, the same source.
//
//   posenc_bench_lm [--model FILE.bin | --smollm2-135m] [--tokenizer FILE] [--text FILE] [--T 512,2048] [--runs 5]
//                   [--threads 1,2] [--scalings none,yarn] [--stats]
// --stats: each forward also gives every head's attention entropy and first-token mass.
// --smollm2-135m: random BF16 weights in SmolLM2-135M's shapes (576 wide, 30 layers, 9/3 heads of 64, MLP 1536,
// vocabulary 49152, tied), built in memory; the tokens are then (i * 7919) mod vocabulary.
// The text is tokenised and repeated to reach T tokens. Runs of different thread counts are interleaved
// per round, so a load that comes and goes weighs on each count alike.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "posenc/error.hpp"
#include "posenc/lm.hpp"
#include "posenc/simd.hpp"

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// SmolLM2-135M's shapes with random BF16 weights (magnitudes 2^-7 .. 2^-4), norms 1.
posenc::lm::Model random_smollm2_135m(std::vector<std::vector<uint8_t>>& bytes) {
  using namespace posenc::lm;
  const Config c{.arch = Arch::Llama, .dim = 576, .hidden_dim = 1536, .n_layers = 30, .n_heads = 9, .n_kv_heads = 3,
                 .vocab_size = 49152, .rope_theta = 100000, .context = 8192};
  std::mt19937 rng(1);
  std::vector<TensorBytes> t;
  bytes.reserve(2 + 9 * 30);
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    const bool vec = shape.size() == 1;
    const std::size_t n = vec ? shape[0] : shape[0] * shape[1];
    std::vector<uint8_t> b(n * (vec ? 4 : 2));
    for (std::size_t i = 0; i < n; ++i) {
      if (vec) {
        const float one = 1.0f;
        std::memcpy(b.data() + 4 * i, &one, 4);
      } else {
        const uint32_t r = rng();
        const uint16_t h = static_cast<uint16_t>(((r & 1u) << 15) | ((120u + (r >> 1) % 4) << 7) | ((r >> 8) & 0x7f));
        std::memcpy(b.data() + 2 * i, &h, 2);
      }
    }
    bytes.push_back(std::move(b));
    t.push_back({name, vec ? DType::F32 : DType::BF16, shape, bytes.back().data(), bytes.back().size()});
  };
  add("token_embd.weight", {c.vocab_size, c.dim});
  add("output_norm.weight", {c.dim});
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* n : {"attn_norm", "ffn_norm"}) add(p + n + ".weight", {c.dim});
    for (const char* n : {"attn_q", "attn_output"}) add(p + n + ".weight", {c.dim, c.dim});
    for (const char* n : {"attn_k", "attn_v"}) add(p + n + ".weight", {3 * 64, c.dim});
    for (const char* n : {"ffn_gate", "ffn_up"}) add(p + n + ".weight", {c.hidden_dim, c.dim});
    add(p + "ffn_down.weight", {c.dim, c.hidden_dim});
  }
  return from_tensors(c, t);
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path = "../shared/models/stories260K/stories260K.bin", tok_path = "../shared/models/stories260K/tok512.bin",
              text_path = "web/app/lm/passage.txt";
  std::vector<int> lengths = {512, 2048}, thread_counts = {1};
  std::vector<std::string> scalings = {"none", "yarn"};
  int runs = 5;
  bool stats = false, smollm = false;
  posenc::bench::Cli cli(argc, argv);
  for (std::string flag; cli.next(flag);) {
    if (flag == "--model") model_path = cli.value();
    else if (flag == "--smollm2-135m") smollm = true;
    else if (flag == "--tokenizer") tok_path = cli.value();
    else if (flag == "--text") text_path = cli.value();
    else if (flag == "--T") lengths = posenc::bench::parse_ints(cli.value());
    else if (flag == "--threads") thread_counts = posenc::bench::parse_ints(cli.value());
    else if (flag == "--scalings") {
      scalings.clear();
      std::stringstream in(cli.value());
      for (std::string x; std::getline(in, x, ',');) scalings.push_back(x);
    } else if (flag == "--runs") runs = std::max(1, std::atoi(cli.value()));
    else if (flag == "--stats") stats = true;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<int32_t> ids;
    std::string name = "smollm2-135m-shaped-bf16";
    std::optional<posenc::lm::Model> loaded;
    if (smollm) {
      loaded.emplace(random_smollm2_135m(bytes));
      for (int i = 0; i < 4096; ++i) ids.push_back(static_cast<int32_t>((i * 7919L) % 49152));
    } else {
      const std::vector<uint8_t> bin = read_file(model_path), tok = read_file(tok_path), text = read_file(text_path);
      loaded.emplace(posenc::lm::load_llama2c(bin.data(), bin.size()));
      const posenc::lm::Tokenizer tokenizer = posenc::lm::load_llama2c_tokenizer(tok.data(), tok.size(), loaded->config().vocab_size);
      ids = tokenizer.encode(std::string(text.begin(), text.end()));
      name = model_path.substr(model_path.rfind('/') + 1);
    }
    const posenc::lm::Model& model = *loaded;
    for (const std::string& scaling : scalings) {
      posenc::lm::ForwardOptions o;
      o.head_stats = stats;
      if (scaling == "yarn") {
        o.scaling.type = posenc::parse_rope_type("yarn");
        o.scaling.factor = 4;
      }
      for (int T : lengths) {
        std::vector<int32_t> t(T);
        for (int i = 0; i < T; ++i) t[i] = ids[i % ids.size()];
        std::vector<std::vector<double>> ms(thread_counts.size());
        for (std::size_t k = 0; k < thread_counts.size(); ++k) {  // warm-up (and the pool's threads started)
          o.threads = thread_counts[k];
          posenc::lm::forward(model, t.data(), T, o);
        }
        for (int r = 0; r < runs; ++r)
          for (std::size_t k = 0; k < thread_counts.size(); ++k) {
            o.threads = thread_counts[k];
            const double t0 = now_ms();
            posenc::lm::forward(model, t.data(), T, o);
            ms[k].push_back(now_ms() - t0);
          }
        for (std::size_t k = 0; k < thread_counts.size(); ++k) {
          std::sort(ms[k].begin(), ms[k].end());
          std::printf("{\"model\":\"%s\",\"arch\":\"%s\",\"scaling\":\"%s\",\"T\":%d,\"threads\":%d,\"best_ms\":%.2f,"
                      "\"median_ms\":%.2f,\"tokens_per_s\":%.0f,\"stats\":%s}\n",
                      name.c_str(), posenc::simd::arch_name(), scaling.c_str(), T, thread_counts[k], ms[k][0], ms[k][ms[k].size() / 2],
                      T / ms[k][0] * 1000, stats ? "true" : "false");
          std::fflush(stdout);
        }
      }
    }
  } catch (const posenc::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
