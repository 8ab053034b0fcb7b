// posenc_lm_sample: a language model's own samples, longer than its context, for the multi-passage results
// (scripts/lm-zero-shot.js reads them; docs/results.md says how they are made).
//
//   node build/wasm-simd/posenc_lm_sample.cjs --model FILE --seeds LIST --tokens N [--window W] [--start ID]
//
// For each seed: the tokens start with `start` (default 1, llama2.c's BOS) and each next token is drawn from the
// model's softmax at temperature 1 (no top-k, no top-p), by inverse CDF over the vocabulary in id order with one
// uniform draw of posenc's PCG32 (rng.hpp: Rng(seed, kStream)). The model sees a sliding window inside its
// context: its keys and values are cached, and when the cache holds W rows (default: the model's context), the
// window restarts from the last W / 2 tokens, recomputed at positions 0 .. W / 2 - 1 (as llama.cpp's context shift
// drops half, but recomputed, so every token is predicted at a position the model was trained at).
// A BOS the model draws stays in the stream: training sequences are windows cut from stories joined by BOS.
// Prints one JSON line per seed: {"seed": s, "tokens": [ids]}. Built for wasm (run with node), so every machine
// draws the same tokens from the same seeds: the forward's floats are the module's, not the CPU's.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "flags.hpp"
#include "posenc/error.hpp"
#include "posenc/lm.hpp"
#include "posenc/rng.hpp"

using namespace posenc;
using namespace posenc::tools;

namespace {

constexpr uint64_t kStream = 0x5a4d504c;  // the sampler's PCG32 stream (any fixed value; stated in docs/results.md)

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorKind::Range, "--model: cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// The next token from one row of logits: softmax at temperature 1 in double, inverse CDF at u in [0, 1).
int draw(const float* logits, int V, double u) {
  double top = logits[0];
  for (int i = 1; i < V; ++i) top = std::max(top, static_cast<double>(logits[i]));
  std::vector<double> p(V);
  double sum = 0;
  for (int i = 0; i < V; ++i) sum += p[i] = std::exp(static_cast<double>(logits[i]) - top);
  double acc = 0;
  const double target = u * sum;
  for (int i = 0; i < V; ++i)
    if ((acc += p[i]) > target) return i;
  return V - 1;  // (rounding: u * sum at the very top)
}

std::vector<int32_t> sample(const lm::Model& m, uint64_t seed, int tokens, int window, int start) {
  const int V = m.config().vocab_size;
  Rng rng(seed, kStream);
  std::vector<int32_t> ids{start};
  lm::KvCache cache;
  std::size_t from = 0;  // ids[from] sits at the window's position 0
  while (static_cast<int>(ids.size()) < tokens) {
    lm::ForwardOptions o;
    lm::ForwardResult r;
    if (cache.rows == 0) {  // (re)start: the window's tokens at positions 0 .. n - 1
      const int n = static_cast<int>(ids.size() - from);
      o.keep = n;
      o.logits_rows = {n - 1};
      r = lm::forward(m, ids.data() + from, n, o);
    } else {  // the last token, after the cached rows
      o.past = &cache;
      o.keep = 1;
      o.logits_rows = {0};
      r = lm::forward(m, &ids.back(), 1, o);
    }
    cache = std::move(r.cache);
    ids.push_back(draw(r.logits.data(), V, rng.uniform()));
    if (cache.rows >= window) {  // the new token would sit at position W: slide
      from = ids.size() - window / 2;
      cache = {};
    }
  }
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  return run_tool("posenc_lm_sample", [&] {
    std::string model;
    std::vector<uint64_t> seeds;
    int tokens = 0, window = 0, start = 1;
    Args args(argc, argv);
    while (args.next()) {
      const std::string& f = args.flag();
      if (f == "--model") model = args.value();
      else if (f == "--seeds") seeds = args.list<uint64_t>([](const std::string& s) { return static_cast<uint64_t>(parse_int("--seeds", s, 0, 1 << 30)); });
      else if (f == "--tokens") tokens = args.integer(2, lm::kMaxLength);
      else if (f == "--window") window = args.integer(2, lm::kMaxLength);
      else if (f == "--start") start = args.integer(0, 1 << 30);
      else if (f == "--help") {
        std::puts("usage: posenc_lm_sample --model FILE (llama2.c .bin) --seeds LIST --tokens N [--window W] [--start ID]");
        return 0;
      } else args.unknown();
    }
    if (model.empty() || seeds.empty() || !tokens) throw Error(ErrorKind::Range, "--model, --seeds and --tokens are required (see --help)");
    const std::vector<uint8_t> bytes = read_file(model);
    const lm::Model m = lm::load_llama2c(bytes.data(), bytes.size());
    if (!window) window = m.config().context;
    require_int_range("--start", start, 0, m.config().vocab_size - 1);
    for (uint64_t seed : seeds) {
      const std::vector<int32_t> ids = sample(m, seed, tokens, window, start);
      std::string line = "{\"seed\":" + std::to_string(seed) + ",\"tokens\":[";
      for (std::size_t i = 0; i < ids.size(); ++i) line += (i ? "," : "") + std::to_string(ids[i]);
      std::printf("%s]}\n", line.c_str());
      std::fflush(stdout);
    }
    return 0;
  });
}
