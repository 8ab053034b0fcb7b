// libFuzzer target: GGUF files (posenc::lm::parse_gguf and load_gguf).
//
// Contract: each throws posenc::Error or returns; a file load_gguf accepts, parse_gguf accepts
// too; a loaded model runs a forward pass of a few tokens (fuzz_lm.hpp) and its tokenizer, if
// any, encodes a short text to ids within the vocabulary (or refuses a byte it has no piece for); a byte-level BPE
// vocabulary comes out as a JSON object with a label. Every input also goes
// through detect_format (a format or one clean error, whatever the bytes); a file that loads is detected as a GGUF, and
// describe() agrees with the model.
// Input: byte 0 is a mode (bit 0: a null pointer with the size, to be refused), the rest the file.
// fuzz-max-len: 16384 (tiny models: 1-11 KB)
// fuzz-runs: 60000 (npm test's seeded run: about 9 s here)
#include <cstdint>
#include <optional>
#include <vector>

#include "fuzz_lm.hpp"

using namespace posenc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::vector<uint8_t> bytes(data + 1, data + size);
  const uint8_t* p = (mode & 1) ? nullptr : bytes.data();
  std::optional<std::size_t> format;
  fuzz::call([&] { format = lm::detect_format(p, bytes.size(), bytes.size()); });
  const bool parsed = fuzz::call([&] { (void)lm::parse_gguf(p, bytes.size()); });
  std::optional<lm::Loaded> loaded;
  if (!fuzz::call([&] { loaded.emplace(lm::load_gguf(p, bytes.size())); })) return 0;
  FUZZ_CHECK(parsed, "load_gguf accepted a file parse_gguf refuses");
  FUZZ_CHECK(format == lm::format_index("gguf"), "a GGUF that loads is not detected as one");
  const lm::ModelInfo info = lm::describe(loaded->model);
  FUZZ_CHECK(info.parameters == loaded->model.parameter_count() && info.weight_bytes > 0 && !info.dtypes.empty(), "describe() disagrees with the model");
  fuzz::check_forward(loaded->model, mode >> 1, loaded->scaling);
  if (loaded->tokenizer) {
    std::vector<int32_t> ids;
    if (fuzz::call([&] { ids = loaded->tokenizer->encode("Once upon a time, \xC3\xA9"); }))
      for (int32_t id : ids) FUZZ_CHECK(id >= 0 && id < loaded->tokenizer->size(), "a token id outside the vocabulary");
  } else if (!loaded->tokenizer_json.empty()) {  // a byte-level BPE vocabulary, as tokenizer.json for the JS library
    FUZZ_CHECK(loaded->tokenizer_json.front() == '{' && loaded->tokenizer_json.back() == '}' && !loaded->tokenizer_label.empty() &&
                   loaded->tokenizer_config_json.front() == '{' && loaded->tokenizer_note.empty(),
               "a byte-level tokenizer that is not a JSON object, or has no label");
  } else {
    FUZZ_CHECK(!loaded->tokenizer_note.empty(), "no tokenizer and no note saying why");
  }
  return 0;
}
