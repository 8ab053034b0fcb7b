// posenc::lm: SentencePiece-style BPE with byte fallback, as llama2.c's encode (lm.hpp).
//
// llama2.c rescans every adjacent pair for the best score after each merge (O(n^2)); here the
// pairs sit in a max-heap keyed (score, leftmost first) over a linked list of symbols, with stale
// entries skipped, which merges the same pairs in the same order in O(n log n).
#include <cmath>
#include <cstdio>
#include <queue>

#include "lm_internal.hpp"

namespace posenc::lm {
namespace {

// llama2.c starts its best score at -1e10: pairs scoring no higher are never merged.
constexpr float kNoMerge = -1e10f;

struct Symbol {
  std::string text;
  int id;
  int prev, next;  // -1 at the ends
  int version = 0;
};
struct Pair {
  float score;
  int left, right, left_version, right_version, id;
  bool operator<(const Pair& o) const { return score < o.score || (score == o.score && left > o.left); }
};

// UTF-8 groups as llama2.c forms them: any byte, then up to 3 continuation bytes.
template <class F>
void for_each_group(std::string_view text, F&& f) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t n = 1;
    while (i + n < text.size() && n < 4 && (static_cast<uint8_t>(text[i + n]) & 0xC0) == 0x80) ++n;
    f(text.substr(i, n));
    i += n;
  }
}

}  // namespace

Tokenizer::Tokenizer(std::vector<std::string> pieces, std::vector<float> scores, int bos, int eos, bool dummy_prefix)
    : pieces_(std::move(pieces)), scores_(std::move(scores)), bos_(bos), eos_(eos), dummy_prefix_(dummy_prefix) {
  if (pieces_.empty() || pieces_.size() != scores_.size() || pieces_.size() > static_cast<std::size_t>(kMaxVocab))
    throw Error(ErrorKind::Range, "a tokenizer needs 1 to " + std::to_string(kMaxVocab) + " pieces, each with a score (got " +
                                      std::to_string(pieces_.size()) + " pieces, " + std::to_string(scores_.size()) + " scores)");
  const int n = size();
  if (bos_ < -1 || bos_ >= n) range_error("bos", "-1 or a token id in [0, " + std::to_string(n - 1) + "]", std::to_string(bos_));
  if (eos_ < -1 || eos_ >= n) range_error("eos", "-1 or a token id in [0, " + std::to_string(n - 1) + "]", std::to_string(eos_));
  for (int i = 0; i < n; ++i) {
    if (std::isnan(scores_[i])) throw Error(ErrorKind::Range, "tokenizer token " + std::to_string(i) + " has a NaN score");
    ids_.emplace(pieces_[i], i);
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = id_of(name);
  }
}

int Tokenizer::id_of(std::string_view s) const {
  const auto it = ids_.find(std::string(s));
  return it == ids_.end() ? -1 : it->second;
}

const std::string& Tokenizer::piece(int id) const {
  if (id < 0 || id >= size()) range_error("token id", "an integer in [0, " + std::to_string(size() - 1) + "]", std::to_string(id));
  return pieces_[id];
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<Symbol> sym;
  auto push = [&](std::string_view s, int id) {
    const int at = static_cast<int>(sym.size());
    sym.push_back({std::string(s), id, at - 1, -1});
    if (at > 0) sym[at - 1].next = at;
  };
  auto push_group = [&](std::string_view g) {
    if (const int id = id_of(g); id >= 0) return push(g, id);
    for (char ch : g) {
      const int id = byte_ids_[static_cast<uint8_t>(ch)];
      if (id < 0) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<uint8_t>(ch));
        throw Error(ErrorKind::Range, std::string("the text has byte ") + hex + ", which the vocabulary can't encode (no <" + hex + "> piece)");
      }
      push(pieces_[id], id);
    }
  };
  if (dummy_prefix_ && !text.empty()) push_group(" ");
  for_each_group(text, push_group);

  std::priority_queue<Pair> heap;
  auto consider = [&](int l) {
    const int r = l >= 0 ? sym[l].next : -1;
    if (r < 0) return;
    const int id = id_of(sym[l].text + sym[r].text);
    if (id >= 0 && scores_[id] > kNoMerge) heap.push({scores_[id], l, r, sym[l].version, sym[r].version, id});
  };
  for (int i = 0; i + 1 < static_cast<int>(sym.size()); ++i) consider(i);
  while (!heap.empty()) {
    const Pair p = heap.top();
    heap.pop();
    Symbol &L = sym[p.left], &R = sym[p.right];
    if (L.next != p.right || L.version != p.left_version || R.version != p.right_version) continue;
    L.text += R.text;  // merge R into L
    L.id = p.id;
    ++L.version;
    R.id = -1;  // gone: every pair entry naming R is now stale
    ++R.version;
    L.next = R.next;
    if (R.next >= 0) sym[R.next].prev = p.left;
    consider(L.prev);
    consider(p.left);
  }
  std::vector<int32_t> ids;
  if (add_bos && bos_ >= 0) ids.push_back(bos_);
  for (int i = sym.empty() ? -1 : 0; i >= 0; i = sym[i].next) ids.push_back(sym[i].id);
  return ids;
}

}  // namespace posenc::lm
