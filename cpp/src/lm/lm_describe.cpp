// posenc::lm: the file formats posenc reads (the one table of rows defined beside their readers), loading any of them,
// a file's format from its content, the context to suggest
// when a file's is its converter's default, and what a loaded model is (lm.hpp).
#include <cstdio>
#include <cstring>
#include <string>

#include "lm_internal.hpp"

namespace posenc::lm {

// The formats, one row each, defined beside their readers. Their order here is the API's (the JS library's indices).
extern const FileFormat kLlama2cFormat, kGgufFormat, kSafetensorsFormat;

const std::vector<FileFormat>& file_formats() {
  static const std::vector<FileFormat> formats = {kLlama2cFormat, kGgufFormat, kSafetensorsFormat};
  return formats;
}

std::size_t format_index(std::string_view id) {
  const auto& f = file_formats();
  std::string ids;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (id == f[i].id) return i;
    ids += (i ? ", " : "") + std::string(f[i].id);
  }
  throw Error(ErrorKind::Range, "format must be one of " + ids + " (got '" + std::string(id.substr(0, 32)) + "')");
}

Loaded load(std::size_t format, LoadInput&& in) {
  const auto& f = file_formats();
  if (format >= f.size()) throw Error(ErrorKind::Range, "format must be an index in [0, " + std::to_string(f.size() - 1) + "] (got " + std::to_string(format) + ")");
  return f[format].load(std::move(in));
}

namespace {

bool starts_with(const uint8_t* p, std::size_t n, const char* s) {
  const std::size_t k = std::strlen(s);
  return n >= k && std::memcmp(p, s, k) == 0;
}

// What a file that is none of the formats looks like, in words.
std::string found(const uint8_t* p, std::size_t n, uint64_t size) {
  if (size == 0) return "it is empty";
  std::size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  if (starts_with(p + i, n - i, "<")) return "it starts with '<', as a web page does: the address may lead to a page about the file, not to the file itself";
  if (starts_with(p, n, "version https://git-lfs"))
    return "it is a Git LFS pointer (a few lines naming the real file), not the file itself: use the address that downloads it";
  if (starts_with(p, n, "PK\x03\x04"))
    return "it is a zip archive (PyTorch's .pt and .pth checkpoints are): convert it to GGUF or safetensors first";
  if (n >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5) return "it is a Python pickle (an older PyTorch checkpoint?): convert it to GGUF or safetensors first";
  if (starts_with(p, n, "lmgg") || starts_with(p, n, "tjgg") || starts_with(p, n, "fmgg") || starts_with(p, n, "algg"))
    return "it is an older GGML file, from before GGUF: convert it to GGUF first";
  if (starts_with(p + i, n - i, "{")) return "it is JSON text (a config or tokenizer file?), not the model's weights";
  std::string hex, text;
  const std::size_t k = n < 8 ? n : 8;
  for (std::size_t j = 0; j < k; ++j) {
    char b[4];
    std::snprintf(b, sizeof b, "%s%02x", j ? " " : "", p[j]);
    hex += b;
    text += p[j] >= 0x20 && p[j] < 0x7f ? static_cast<char>(p[j]) : '.';
  }
  return "it starts with the bytes " + hex + " (\"" + text + "\")";
}

// llama2.c's published tinyllamas checkpoints (llama2.c's README: dim, n_layers, n_heads, n_kv_heads, max context
// length; vocabulary 512 for stories260K, 32,000 for the others, which use Llama 2's tokenizer).
struct KnownCheckpoint {
  const char* name;
  int dim, layers, heads, kv_heads, vocab, context;
};
constexpr KnownCheckpoint kLlama2cCheckpoints[] = {
    {"stories260K", 64, 5, 8, 4, 512, 512},
    {"stories15M", 288, 6, 6, 6, 32000, 256},
    {"stories42M", 512, 8, 8, 8, 32000, 1024},
    {"stories110M", 768, 12, 12, 12, 32000, 1024},
};

std::string grouped(long long n) {
  std::string d = std::to_string(n), out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}


}  // namespace

std::size_t detect_format(const uint8_t* head, std::size_t head_size, uint64_t file_size) {
  if (!head && head_size) throw Error(ErrorKind::Type, "the file's first bytes are missing (null pointer)");
  const std::size_t n = head_size < kFormatHeadBytes ? head_size : kFormatHeadBytes;
  const auto& f = file_formats();
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i].detect(head, n)) return i;
  std::string names;
  for (std::size_t i = 0; i < f.size(); ++i) names += std::string(i == 0 ? "a " : i + 1 == f.size() ? " or a " : ", a ") + f[i].short_name;
  throw Error(ErrorKind::Range, "this file is not " + names + " file: " + found(head, n, file_size));
}

ContextSuggestion suggest_context(const Config& c) {
  if (c.context_source != ContextSource::ConverterDefault) return {};
  for (const KnownCheckpoint& k : kLlama2cCheckpoints)
    if (c.dim == k.dim && c.n_layers == k.layers && c.n_heads == k.heads && c.n_kv_heads == k.kv_heads && c.vocab_size == k.vocab)
      return {k.context, "its shapes (width " + std::to_string(k.dim) + ", " + std::to_string(k.layers) + " layers, " +
                             std::to_string(k.heads) + " heads sharing " + std::to_string(k.kv_heads) + " key-value heads, a vocabulary of " +
                             grouped(k.vocab) + " tokens) are those of llama2.c's " + k.name +
                             ", which its author trained with a context of " + grouped(k.context) + " tokens"};
  return {0, "nothing in this file says what context the model was trained at (it was converted from a llama2.c checkpoint, "
             "whose header said it, but the converter wrote its own setting instead)"};
}

ModelInfo describe(const Model& m) {
  const Config& c = m.config();
  ModelInfo i;
  i.family = arch_name(c.arch);
  i.family_label = family(c.arch).label;
  i.format = &file_formats()[format_index(c.source)];
  i.dtypes = m.file_dtypes();
  i.parameters = m.parameter_count();
  i.weight_bytes = m.weight_bytes();
  i.context = c.context;
  i.context_source = c.context_source;
  i.suggestion = suggest_context(c);
  return i;
}

}  // namespace posenc::lm
