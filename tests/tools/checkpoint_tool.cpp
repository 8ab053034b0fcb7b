// Native side of the native <-> wasm checkpoint test (tests/js/checkpoint-interop.test.js).
//
//   posenc_checkpoint_tool save <encoding> <out.ckpt>
//       trains a small model natively for 20 steps on the copy task and writes its checkpoint
//   posenc_checkpoint_tool logits <in.ckpt> <T> <token>...
//       loads a checkpoint (from either side) and prints the logits of one sequence as JSON
//   posenc_checkpoint_tool sweep <in.ckpt> <task> <symbols> <variableLength> <packed> <order> <branching>
//                                <tableSeed> <sequences> <seed> <trainLength> <length>...
//       the accuracy and loss at each length of posenc::sweep (as npm run train measures docs/results.json),
//       as JSON {accuracy: [...], loss: [...]}
//       (tests/js/checkpoint-precision.test.js: a shipped int8 + float16 checkpoint against its float32 model's recorded numbers)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "posenc/checkpoint.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "posenc/sweep.hpp"
#include "posenc/tasks.hpp"

namespace {

int save(const std::string& encoding, const std::string& path) {
  posenc::ModelConfig c;
  c.encoding = posenc::parse_encoding(encoding);
  c.layers = 2;
  c.heads = 2;
  c.d_model = 32;
  c.vocab_size = 11;
  c.max_length = 16;
  c.seed = 3;
  posenc::Model m(c);
  posenc::TaskGenerator task({}, 1);
  std::vector<int32_t> tokens(8 * 16), targets(8 * 16);
  for (int step = 0; step < 20; ++step) {
    task.sample(8, 16, tokens.data(), targets.data());
    m.train_step(tokens.data(), targets.data(), 8, 16, 3e-3f);
  }
  const auto bytes = posenc::save_checkpoint(m);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return 0;
}

int logits(const std::string& path, int T, char** tokens_arg) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  posenc::Model m = posenc::load_checkpoint(bytes.data(), bytes.size());
  std::vector<int32_t> tokens(T);
  for (int t = 0; t < T; ++t) tokens[t] = std::atoi(tokens_arg[t]);
  const float* out = m.forward(tokens.data(), 1, T);
  const std::size_t n = static_cast<std::size_t>(T) * m.config().vocab_size;
  std::printf("[");
  for (std::size_t i = 0; i < n; ++i) std::printf(i ? ",%.9g" : "%.9g", out[i]);
  std::printf("]\n");
  return 0;
}

int sweep_accuracy(int argc, char** argv) {
  std::ifstream in(argv[2], std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  posenc::Model m = posenc::load_checkpoint(bytes.data(), bytes.size());
  posenc::TaskOptions t;
  t.kind = posenc::parse_task(argv[3]);
  t.symbols = std::atoi(argv[4]);
  t.variable_length = std::atoi(argv[5]) != 0;
  t.packed = std::atoi(argv[6]) != 0;
  t.order = std::atoi(argv[7]);
  t.branching = std::atoi(argv[8]);
  t.table_seed = std::strtoull(argv[9], nullptr, 10);
  posenc::SweepOptions o;
  o.sequences = std::atoi(argv[10]);
  o.seed = std::strtoull(argv[11], nullptr, 10);
  o.train_length = std::atoi(argv[12]);
  for (int i = 13; i < argc; ++i) o.lengths.push_back(std::atoi(argv[i]));
  o.grid_depths.clear();      // (the needle grid: not compared)
  o.attention_sequences = 0;  // (head statistics: not compared; accuracy is the same batch either way)
  const posenc::SweepResult r = posenc::sweep(m, t, o);
  std::printf("{\"accuracy\":[");
  for (std::size_t i = 0; i < r.lengths.size(); ++i) std::printf(i ? ",%.17g" : "%.17g", r.lengths[i].accuracy);
  std::printf("],\"loss\":[");
  for (std::size_t i = 0; i < r.lengths.size(); ++i) std::printf(i ? ",%.17g" : "%.17g", r.lengths[i].loss);
  std::printf("]}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "save" && argc == 4) return save(argv[2], argv[3]);
    if (cmd == "logits" && argc >= 4 && argc == 4 + std::atoi(argv[3])) return logits(argv[2], std::atoi(argv[3]), argv + 4);
    if (cmd == "sweep" && argc >= 14) return sweep_accuracy(argc, argv);
    std::fprintf(stderr, "usage: posenc_checkpoint_tool save <encoding> <out> | logits <in> <T> <tokens...>\n");
    return 2;
  } catch (const posenc::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
