// libFuzzer target: the checkpoint parser (posenc::load_checkpoint and
// read_checkpoint_config) on arbitrary bytes.
//
// Contract: a load either throws posenc::Error or succeeds; both functions
// agree on which; a loaded model re-saves to exactly the bytes it came from,
// and runs a forward pass without crashing.
//
// Input: byte 0 is a mode, the rest is the file. A random mutation nearly
// always breaks the trailing FNV-1a checksum, which would keep the fuzzer at
// the first check, so the mode can repair what the mutation broke:
//   bit 0  rewrite the checksum (reach the config and size checks)
//   bit 1  also set the parameter count to what the size implies (reach
//          config validation and model creation)
//   bit 2  pass a null pointer with the size (must be refused)
// fuzz-max-len: 8192 (real checkpoints of small models are 1-3 KB)
// fuzz-runs: 40000 (npm test's seeded run: about 10 s here)
#include <cstdint>
#include <optional>
#include <vector>

#include "fuzz_input.hpp"
#include "posenc/checkpoint.hpp"
#include "posenc/model.hpp"

namespace {

using namespace posenc;
using fuzz::call;

constexpr std::size_t kHeaderBytes = 92;  // through the parameter count (checkpoint.hpp)
constexpr std::size_t kCountAt = 84;

void put_u64(std::vector<uint8_t>& b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

std::vector<uint8_t> repaired(const uint8_t* data, std::size_t size, uint8_t mode) {
  std::vector<uint8_t> b(data, data + size);
  if ((mode & 2) && b.size() >= kHeaderBytes + 8) {
    const uint64_t count = (b.size() - kHeaderBytes - 8) / 4;
    b.resize(kHeaderBytes + 4 * count + 8);
    put_u64(b, kCountAt, count);
  }
  if ((mode & 3) && b.size() >= 8) put_u64(b, b.size() - 8, fnv1a64(b.data(), b.size() - 8));
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::vector<uint8_t> bytes = repaired(data + 1, size - 1, mode);
  const uint8_t* p = (mode & 4) ? nullptr : bytes.data();
  const std::size_t n = bytes.size();

  ModelConfig config;
  const bool config_ok = call([&] { config = read_checkpoint_config(p, n); });
  std::optional<Model> model;
  const bool ok = call([&] { model.emplace(load_checkpoint(p, n)); });
  FUZZ_CHECK(ok == config_ok, "load_checkpoint and read_checkpoint_config disagree");
  if (!ok) return 0;
  FUZZ_CHECK(p != nullptr, "loaded a checkpoint from a null pointer");

  const WeightFormat format = read_checkpoint_info(p, n).weights;
  const std::vector<uint8_t> again = save_checkpoint(*model, {format});
  if (format == WeightFormat::Int8) {
    // int8 re-codes each column from its decoded values (a fuzzed scale need not be the one its column
    // gives): the file it writes must load and have the same layout, not the same bytes.
    FUZZ_CHECK(again.size() == bytes.size(), "an int8 checkpoint re-saves to another size");
    FUZZ_CHECK(call([&] { (void)load_checkpoint(again.data(), again.size()); }), "a re-saved int8 checkpoint does not load");
  } else {
    FUZZ_CHECK(again == bytes, "a loaded checkpoint does not re-save to the same bytes");
  }

  // The loaded model is usable (weights may be anything, so no finiteness check).
  const ModelConfig& c = model->config();
  const int T = c.max_length < 6 ? c.max_length : 6;
  std::vector<int32_t> tokens(T);
  for (int t = 0; t < T; ++t) tokens[t] = t % c.vocab_size;
  FUZZ_CHECK(call([&] { model->forward(tokens.data(), 1, T); }), "a loaded model refused a forward pass within maxLength");
  return 0;
}
