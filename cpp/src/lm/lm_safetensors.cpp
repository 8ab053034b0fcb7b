// posenc::lm: Hugging Face safetensors (lm.hpp). The file is JSON where it describes: config.json gives the
// architecture and the header a table of tensors, both read by the JS library (as it reads every JSON file), which
// hands the core the Config and the named tensors (LoadInput) with their bytes in one buffer; from_tensors checks
// and keeps them.
#include "lm_internal.hpp"

namespace posenc::lm {
extern const FileFormat kSafetensorsFormat;
namespace {

// A u64 header length under 4 GB, then the header's '{' (a length past the file is the reader's to name: the file is
// truncated).
bool detect(const uint8_t* head, std::size_t n) {
  return n >= 9 && head[8] == '{' && !(head[4] | head[5] | head[6] | head[7]) && (head[0] | head[1] | head[2] | head[3]);
}

Loaded load_file(LoadInput&& in) {
  if (!in.config) throw Error(ErrorKind::Type, "a safetensors model needs its config.json: safetensors files carry no architecture");
  Config c = *in.config;
  c.source = kSafetensorsFormat.id;
  return Loaded{.model = from_tensors(c, in.tensors, std::move(in.storage)), .tokenizer_note = "no tokenizer.json was given"};
}

}  // namespace

extern const FileFormat kSafetensorsFormat = {
    "safetensors", "Hugging Face safetensors", "safetensors", ".safetensors",
    "the length of its JSON header (eight bytes), then the header's '{'",
    "config,tokenizer,tokenizerConfig,index,shards", true, true, false, RopeLayout::Half, detect, load_file};

}  // namespace posenc::lm
