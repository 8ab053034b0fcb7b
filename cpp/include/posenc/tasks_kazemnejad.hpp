// The copy tasks of Kazemnejad et al. 2023 ("The Impact of Positional Encoding on Length Generalization
// in Transformers", McGill-NLP/length-generalization): cmc, rsc and rdc, with their train / validation /
// test splits, as their dataset builder makes them (its make_copy_dataset.py), in posenc's own token ids.
// A generator of its own, not a TaskKind: these are fixed datasets of variable-length examples with a
// prompt, not sequences that fill a length T.
//
// Their examples are text for the T5 tokenizer ("Copy: a b c [sep]a b c</s>", where a word may be several
// sentencepiece pieces; their symbols are chosen to be one piece each); here every word is one token id, and
// the prompt "Copy:" is two ("Copy", ":"). Vocabulary:
//   0 PAD, 1 EOS (T5's ids for both), 2 SEP (their input/output separator), 3 "Copy", 4 ":",
//   5 "Replace", 6 "with", 7 "in", 8 .. 8+U-1 the symbols s_0 .. s_{U-1} (U = KzSplitOptions::symbols,
//   their list of single-token strings, of which each task uses a prefix).
// Examples (n = the example's length, their "cat"; the answer ends with EOS):
//   cmc  copy_multi_char:     [Copy, :, x1 .. xn, SEP, x1 .. xn, EOS]         x_i uniform over s_0 .. s_{min(100,U)-1}
//   rsc  repeat_single_char:  [Copy, :, t .. t, SEP, t .. t, EOS]             t repeated n times; a length bin holds
//                             each of s_0 .. s_{c-1} once, c = min(per_bin, U)
//   rdc  repeat_double_char:  [Replace, a, with, b, in, a .. a, SEP, b .. b, EOS]   a != b; a length bin holds
//                             every ordered pair of s_0 .. s_{k-1}, k = min(U, floor((1 + sqrt(1 + 4 per_bin)) / 2))
// Splits: per_bin = 1.15 num_train / (train_max - train_min + 1) (as a double; bins use floor(per_bin)
// examples, rsc and rdc their whole bin). Train and validation: every length in [train_min, train_max],
// shuffled together, the first num_train are train, the rest validation. Test: every length in
// [test_min, test_max], min(floor(num_test / bins), bin size) examples per length, drawn without
// replacement from the bin (cmc: drawn afresh, the same distribution), then shuffled.
// Their settings: train 4-20, test 21-40, num_train 100000, num_test 10000. Their results table agrees on
// 100000 train and 10000 test examples; its validation counts (14980 for cmc and rsc, 14000 for rdc; this
// reading of their builder gives 14988 and 12914) suggest their released data were trimmed or built otherwise.
//
// Training and scoring: the loss is on the answer only (their decoder_only_mask_inputs): targets are the
// next token at the n + 1 positions SEP .. last answer symbol (predicting the answer's n symbols and
// EOS), -1 elsewhere. An example is correct when every one of those n + 1 predictions is right
// (exact match of the whole answer, end included).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "posenc/rng.hpp"

namespace posenc {

enum class KzTask { Cmc, Rsc, Rdc };
inline constexpr int kKzTaskCount = 3;
const char* kz_task_name(KzTask t);             // "cmc", "rsc", "rdc"
KzTask parse_kz_task(const std::string& name);  // RangeError naming `task`

namespace kz {
inline constexpr int32_t kPad = 0;
inline constexpr int32_t kEos = 1;
inline constexpr int32_t kSep = 2;
inline constexpr int32_t kCopy = 3;
inline constexpr int32_t kColon = 4;
inline constexpr int32_t kReplace = 5;
inline constexpr int32_t kWith = 6;
inline constexpr int32_t kIn = 7;
inline constexpr int32_t kFirstSymbol = 8;
inline constexpr int kCmcSymbols = 100;  // cmc draws from the first 100 symbols of their list
}  // namespace kz

struct KzExample {
  std::vector<int32_t> tokens;  // prompt, SEP, answer, EOS
  int length = 0;               // n: symbols in the source (and in the answer)
  int answer_start = 0;         // index of the first answer token (right after SEP)
  int scored() const { return length + 1; }  // answer symbols + EOS
};

struct KzSplitOptions {
  KzTask task = KzTask::Cmc;
  int train_min = 4, train_max = 20;  // [1, 1000], train_min <= train_max
  int test_min = 21, test_max = 40;   // [1, 1000], test_min <= test_max
  int num_train = 100000;             // [1, 10^7]
  int num_test = 10000;               // [0, 10^7]
  int symbols = 100;                  // U, the size of the symbol list: [2, 60000]
  uint64_t seed = 9842497;            // their builder's seed (the streams differ: numpy's vs posenc's)
  void validate() const;              // RangeError naming the field
};

struct KzSplits {
  std::vector<KzExample> train, validation, test;
  int symbols_used = 0;  // how many of the U symbols occur (cmc min(100, U); rsc c; rdc k)
};

// The three splits, a pure function of the options.
KzSplits make_kz_splits(const KzSplitOptions& o);
int kz_vocab_size(const KzSplitOptions& o);  // kFirstSymbol + symbols
int kz_max_tokens(KzTask t, int length);     // tokens of an example of length n (cmc, rsc: 2n + 4; rdc: 2n + 7)

// Rows [B, T] of tokens and targets for B examples (T >= each one's token count): PAD and target -1 after
// an example's end; targets as above.
void kz_fill_batch(const KzExample* const* examples, int B, int T, int32_t* tokens, int32_t* targets);

class Model;

// Exact match and per-token accuracy of a model on examples, one forward per group of examples of equal length
// (at most max_batch a forward). Under teacher forcing, an example whose every scored position predicts the right
// next token is exactly one that greedy decoding from its prompt reproduces, end token included: greedy decoding
// first goes wrong where teacher forcing first does. So `exact` is greedy decoding's exact match.
struct KzScore {
  int examples = 0, exact = 0;
  long long tokens = 0, correct = 0;  // scored positions, and those whose argmax is the target
  void add(const KzScore& o);
  double exact_rate() const;  // NaN without examples
  double token_rate() const;  // NaN without tokens
};
KzScore kz_score(Model& model, const std::vector<const KzExample*>& examples, int max_batch = 64);

// Example indices 0 .. n-1 in epochs, each a fresh shuffle (a trainer's random sampler over a split).
class KzSampler {
 public:
  KzSampler(int n, uint64_t seed);  // n >= 1
  int next();

 private:
  std::vector<int> order_;
  std::size_t pos_ = 0;
  Rng rng_;
};

}  // namespace posenc
