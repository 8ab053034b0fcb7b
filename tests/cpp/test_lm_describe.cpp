// posenc::lm: the file-format list, a file's format from its content (detect_format), the context suggested for a
// converter's default (suggest_context) and describe(), on configs and bytes written here.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/lm.hpp"

namespace posenc::lm {
namespace {

std::vector<uint8_t> llama2c_header(std::vector<int32_t> h) {
  std::vector<uint8_t> b(4 * h.size());
  std::memcpy(b.data(), h.data(), b.size());
  return b;
}

std::string refusal(const std::vector<uint8_t>& b, uint64_t size) {
  try {
    detect_format(b.data(), b.size(), size);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The id of the format detect_format finds.
std::string detected(const uint8_t* head, std::size_t n, uint64_t size) { return file_formats()[detect_format(head, n, size)].id; }

TEST(LmFormats, OneListInSourceOrder) {
  const auto& f = file_formats();
  ASSERT_EQ(f.size(), 3u);
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_EQ(format_index(f[i].id), i);
  EXPECT_STREQ(f[format_index("gguf")].id, "gguf");
}

TEST(LmFormats, DetectedByContent) {
  const std::vector<uint8_t> gguf = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
  EXPECT_EQ(detected(gguf.data(), gguf.size(), 1000), "gguf");
  std::vector<uint8_t> st(16, ' ');
  st[0] = 6, st[1] = st[2] = st[3] = st[4] = st[5] = st[6] = st[7] = 0;
  st[8] = '{';
  EXPECT_EQ(detected(st.data(), st.size(), 100), "safetensors");
  EXPECT_EQ(detected(st.data(), st.size(), 10), "safetensors");  // truncated: the reader says so
  st[5] = 1;                                                                   // a header of 1 TB: no safetensors
  EXPECT_NE(refusal(st, 100), "");
  // stories260K's header (dim 64, hidden 172, 5 layers, 8 heads, 4 kv heads, vocab 512, seq_len 512); untied: vocab < 0
  EXPECT_EQ(detected(llama2c_header({64, 172, 5, 8, 4, 512, 512}).data(), 28, 1056540), "llama2c");
  EXPECT_EQ(detected(llama2c_header({64, 172, 5, 8, 4, -512, 512}).data(), 28, 10), "llama2c");
  EXPECT_EQ(detected(llama2c_header({0x616b3432, 2, 0, 0, 0, 0, 0}).data(), 28, 10), "llama2c");  // ak42
  // heads that do not divide dim, a zero vocabulary, too few bytes: not a header
  EXPECT_NE(refusal(llama2c_header({64, 172, 5, 7, 7, 512, 512}), 28), "");
  EXPECT_NE(refusal(llama2c_header({64, 172, 5, 8, 4, 0, 512}), 28), "");
  EXPECT_NE(refusal(llama2c_header({64, 172, 5, 8, 4, 512}), 24), "");
}

TEST(LmFormats, RefusalNamesTheFormatsAndWhatWasFound) {
  const std::vector<uint8_t> noise = {0x3f, 0x9a, 0x00, 0x12, 0x41, 0x42, 0x0a, 0xff, 1, 2, 3};
  EXPECT_EQ(refusal(noise, noise.size()),
            "this file is not a llama2.c .bin, a GGUF or a safetensors file: it starts with the bytes 3f 9a 00 12 41 42 0a ff (\"?...AB..\")");
  const std::string html = "\n<!DOCTYPE html>";
  EXPECT_NE(refusal({html.begin(), html.end()}, html.size()).find("as a web page does"), std::string::npos);
  EXPECT_NE(refusal({}, 0).find("it is empty"), std::string::npos);
  EXPECT_THROW(detect_format(nullptr, 4, 4), Error);
}

TEST(LmFormats, ContextSuggestedOnlyForAConverterDefaultAndOnlyFromEvidence) {
  Config c;
  c.dim = 64, c.hidden_dim = 172, c.n_layers = 5, c.n_heads = 8, c.n_kv_heads = 4, c.vocab_size = 512, c.context = 2048;
  c.context_source = ContextSource::ConverterDefault;
  const ContextSuggestion s = suggest_context(c);
  EXPECT_EQ(s.context, 512);
  EXPECT_NE(s.reason.find("stories260K"), std::string::npos);
  c.vocab_size = 32000, c.dim = 288, c.n_layers = 6, c.n_heads = 6, c.n_kv_heads = 6;
  EXPECT_EQ(suggest_context(c).context, 256);  // stories15M
  c.dim = 320;                                 // no published checkpoint of these shapes
  EXPECT_EQ(suggest_context(c).context, 0);
  EXPECT_NE(suggest_context(c).reason.find("nothing in this file says"), std::string::npos);
  c.dim = 288;
  c.context_source = ContextSource::FileMetadata;  // a file's own context is not second-guessed
  EXPECT_EQ(suggest_context(c).context, 0);
  EXPECT_EQ(suggest_context(c).reason, "");
}

}  // namespace
}  // namespace posenc::lm
