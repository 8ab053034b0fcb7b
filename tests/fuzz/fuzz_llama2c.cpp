// libFuzzer target: llama2.c's legacy .bin checkpoint (posenc::lm::load_llama2c).
//
// Contract: the load throws posenc::Error or returns a model, which runs a forward pass of a few
// tokens (fuzz_lm.hpp), is detected as a .bin by detect_format, and describe() agrees with it. Input: byte 0 is a mode, the rest is the file. A mutated header nearly
// always disagrees with the file size, which would keep the fuzzer at that check, so:
//   bit 0  resize the file to the size its header implies (at most 256 KB and 16 layers)
//   bit 1  pass a null pointer with the size (must be refused)
// fuzz-max-len: 16384 (tiny models: 1-11 KB)
// fuzz-runs: 30000 (npm test's seeded run: about 5 s here)
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "fuzz_lm.hpp"

namespace {

using namespace posenc;

std::vector<uint8_t> repaired(const uint8_t* data, std::size_t size, uint8_t mode) {
  std::vector<uint8_t> b(data, data + size);
  if (!(mode & 1) || b.size() < 28) return b;
  int32_t h[7];
  std::memcpy(h, b.data(), sizeof h);
  for (int i = 0; i < 7; ++i)
    if (h[i] == INT32_MIN || h[i] == 0 || (i != 5 && h[i] < 0) || h[i] > (1 << 16)) return b;
  if (h[3] <= 0 || h[0] % h[3] != 0 || h[2] > 16) return b;  // many layers: thousands of tensors, slow, nothing new
  const uint64_t D = h[0], F = h[1], L = h[2], hd = D / h[3], KV = uint64_t(h[4]) * hd, V = h[5] < 0 ? -int64_t(h[5]) : h[5];
  const uint64_t floats = V * D + L * (2 * D + 2 * D * D + 2 * KV * D + 3 * F * D) + D + uint64_t(h[6]) * hd + (h[5] < 0 ? V * D : 0);
  if (floats > (1u << 16)) return b;  // 256 KB: keeps the fuzzer fast
  b.resize(28 + 4 * floats, 0);
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::vector<uint8_t> bytes = repaired(data + 1, size - 1, mode);
  const uint8_t* p = (mode & 2) ? nullptr : bytes.data();
  std::optional<lm::Model> model;
  if (!fuzz::call([&] { model.emplace(lm::load_llama2c(p, bytes.size())); })) return 0;
  FUZZ_CHECK(p != nullptr, "loaded a checkpoint from a null pointer");
  FUZZ_CHECK(lm::detect_format(p, bytes.size(), bytes.size()) == lm::format_index("llama2c"), "a .bin that loads is not detected as one");
  FUZZ_CHECK(lm::describe(*model).parameters == model->parameter_count(), "describe() disagrees with the model");
  FUZZ_CHECK(model->config().context >= 1 && model->config().context_source == lm::ContextSource::TrainedHeader,
             "a .bin's context is its header's seq_len");
  fuzz::check_forward(*model, mode >> 2);
  return 0;
}
