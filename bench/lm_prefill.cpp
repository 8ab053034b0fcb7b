// Prefill speed of posenc::lm's forward on a real model (stories260K by default): tokens per
// second of one forward over T tokens (NLL of every row, no statistics), for each scaling.
// Prints one JSON line per (scaling, T): the best and the median of `--runs` timed runs, after
// one warm-up run. Built natively (posenc_bench_lm) and, for wasm, the same source.
//
//   posenc_bench_lm [--model FILE.bin] [--tokenizer FILE] [--text FILE] [--T 512,2048] [--runs 5] [--stats]
// --stats: each forward also gives every head's attention entropy and first-token mass.
// The text is tokenised and repeated to reach T tokens.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
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

}  // namespace

int main(int argc, char** argv) {
  std::string model_path = "../shared/models/stories260K/stories260K.bin", tok_path = "../shared/models/stories260K/tok512.bin",
              text_path = "web/app/lm-passage.txt";
  std::vector<int> lengths = {512, 2048};
  int runs = 5;
  bool stats = false;
  posenc::bench::Cli cli(argc, argv);
  for (std::string flag; cli.next(flag);) {
    if (flag == "--model") model_path = cli.value();
    else if (flag == "--tokenizer") tok_path = cli.value();
    else if (flag == "--text") text_path = cli.value();
    else if (flag == "--T") lengths = posenc::bench::parse_ints(cli.value());
    else if (flag == "--runs") runs = std::max(1, std::atoi(cli.value()));
    else if (flag == "--stats") stats = true;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    const std::vector<uint8_t> bin = read_file(model_path), tok = read_file(tok_path), text = read_file(text_path);
    const posenc::lm::Model model = posenc::lm::load_llama2c(bin.data(), bin.size());
    const posenc::lm::Tokenizer tokenizer = posenc::lm::load_llama2c_tokenizer(tok.data(), tok.size(), model.config().vocab_size);
    const std::vector<int32_t> ids = tokenizer.encode(std::string(text.begin(), text.end()));
    for (const char* scaling : {"none", "yarn"}) {
      posenc::lm::ForwardOptions o;
      o.head_stats = stats;
      if (std::string(scaling) == "yarn") {
        o.scaling.type = posenc::RopeType::Yarn;
        o.scaling.factor = 4;
      }
      for (int T : lengths) {
        std::vector<int32_t> t(T);
        for (int i = 0; i < T; ++i) t[i] = ids[i % ids.size()];
        posenc::lm::forward(model, t.data(), T, o);  // warm-up
        std::vector<double> ms;
        for (int r = 0; r < runs; ++r) {
          const double t0 = now_ms();
          posenc::lm::forward(model, t.data(), T, o);
          ms.push_back(now_ms() - t0);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("{\"model\":\"%s\",\"arch\":\"%s\",\"scaling\":\"%s\",\"T\":%d,\"best_ms\":%.2f,\"median_ms\":%.2f,"
                    "\"tokens_per_s\":%.0f,\"stats\":%s}\n",
                    model_path.substr(model_path.rfind('/') + 1).c_str(), posenc::simd::arch_name(), scaling, T, ms[0],
                    ms[ms.size() / 2], T / ms[0] * 1000, stats ? "true" : "false");
      }
    }
  } catch (const posenc::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
