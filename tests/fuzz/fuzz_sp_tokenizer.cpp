// libFuzzer target: the SentencePiece-style BPE tokenizer (posenc::lm::Tokenizer) and tokenizer.bin.
//
// Input: byte 0 = the vocabulary size claimed to load_llama2c_tokenizer (1 + its low 7 bits; its top
// bit turns SentencePiece's dummy-prefix space off), u16 = the length
// n of the tokenizer.bin part, then n bytes of it, then the text.
// Contract: load_llama2c_tokenizer throws posenc::Error or returns. A vocabulary read leniently
// from the same bytes (tokens until the bytes run out) builds a Tokenizer or throws posenc::Error;
// its encode of the text throws posenc::Error (a byte with no <0xXX> piece) or equals, id for id,
// llama2.c's encode written out here (rescan every pair for the best score after each merge).
// fuzz-runs: 60000 (npm test's seeded run: about 9 s here)
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fuzz_input.hpp"
#include "posenc/lm.hpp"

namespace {

using namespace posenc;

struct Vocab {
  std::vector<std::string> pieces;
  std::vector<float> scores;
};

Vocab lenient(const uint8_t* p, std::size_t n) {
  Vocab v;
  std::size_t at = 4;
  while (at + 8 <= n && v.pieces.size() < 512) {
    float score;
    int32_t len;
    std::memcpy(&score, p + at, 4);
    std::memcpy(&len, p + at + 4, 4);
    at += 8;
    if (len < 0 || static_cast<std::size_t>(len) > n - at) break;
    v.pieces.emplace_back(reinterpret_cast<const char*>(p + at), static_cast<std::size_t>(len));
    v.scores.push_back(score);
    at += static_cast<std::size_t>(len);
  }
  return v;
}

// llama2.c's encode, literally (but with the <0xXX> pieces looked up rather than assumed at 3 + byte).
std::vector<int32_t> naive(const Vocab& v, const lm::Tokenizer& t, const std::string& text, bool dummy_prefix) {
  std::unordered_map<std::string, int> ids;
  for (std::size_t i = 0; i < v.pieces.size(); ++i) ids.emplace(v.pieces[i], static_cast<int>(i));
  auto lookup = [&](const std::string& s) { auto it = ids.find(s); return it == ids.end() ? -1 : it->second; };
  std::vector<int32_t> seq;
  auto group = [&](const std::string& g) {
    if (int id = lookup(g); id >= 0) return seq.push_back(id);
    for (unsigned char ch : g) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", ch);
      seq.push_back(lookup(name));
    }
  };
  if (dummy_prefix && !text.empty()) group(" ");
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = 1;
    while (i + n < text.size() && n < 4 && (static_cast<uint8_t>(text[i + n]) & 0xC0) == 0x80) ++n;
    group(text.substr(i, n));
    i += n;
  }
  while (true) {
    float best = -1e10f;
    int at = -1, best_id = -1;
    for (std::size_t i = 0; i + 1 < seq.size(); ++i) {
      const int id = lookup(v.pieces[seq[i]] + v.pieces[seq[i + 1]]);
      if (id >= 0 && v.scores[id] > best) best = v.scores[id], at = static_cast<int>(i), best_id = id;
    }
    if (at < 0) break;
    seq[at] = best_id;
    seq.erase(seq.begin() + at + 1);
  }
  if (t.bos() >= 0) seq.insert(seq.begin(), t.bos());
  return seq;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int vocab = (data[0] & 0x7f) + 1;
  const bool dummy_prefix = !(data[0] & 0x80);
  const std::size_t n = std::min<std::size_t>(size - 3, data[1] | (data[2] << 8));
  const uint8_t* tok = data + 3;
  const std::string text(reinterpret_cast<const char*>(tok + n), size - 3 - n);
  fuzz::call([&] { (void)lm::load_llama2c_tokenizer(tok, n, vocab); });

  const Vocab v = lenient(tok, n);
  std::optional<lm::Tokenizer> t;
  const int bos = v.pieces.size() > 1 ? 1 : -1;
  if (!fuzz::call([&] { t.emplace(v.pieces, v.scores, bos, -1, dummy_prefix); })) return 0;
  std::vector<int32_t> ids;
  if (!fuzz::call([&] { ids = t->encode(text); })) return 0;
  FUZZ_CHECK(ids == naive(v, *t, text, dummy_prefix), "encode differs from llama2.c's algorithm");
  return 0;
}
