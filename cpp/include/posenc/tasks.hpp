// Synthetic sequence tasks for training the tiny model: seeded, deterministic,
// with their own RNG (posenc::Rng), so a seed gives the same batches natively
// and in wasm. Every task fills any length T >= task_min_length, so a model
// trained at one length can be evaluated on the same task at 8x that length.
//
// Vocabulary layout (shared by every task):
//   0            PAD   filler after the end of a sequence (never scored)
//   1            BOS   start of sequence
//   2            SEP   separator between the parts of a sequence
//   3 .. 3+n-1   the n task symbols (s_0 .. s_{n-1} below)
//   3+n ..       packed Retrieval and KthRetrieval: one token per (key, value) pair
//   then         KthRetrieval only: 2m query tokens, one per (key, ordinal)
// so a task with n symbols needs vocab_size = n + 3 (task_vocab_size; more for packed
// Retrieval and KthRetrieval).
//
// Targets are next-token ids, or -1 where the next token is not predictable
// from the sequence so far (those positions are not scored by the loss or
// the accuracy). A scored position is "correct" when argmax(logits) equals its
// target. For Copy, Reverse and Retrieval every target is determined by the
// prefix (an ideal model scores loss 0, accuracy 1); Markov targets are random
// draws, so its ideal loss and accuracy are below that (TaskGenerator::oracle).
//
// Tasks (h, p: sizes chosen to fill T; "variable" = TaskOptions::variable_length):
//   Copy:      [BOS, x1 .. xh, SEP, x1 .. xh, PAD ...]   x_i uniform over the n symbols.
//              h = (T - 2) / 2, or with variable uniform in [1, (T - 2) / 2] per sequence.
//              Scored: the h predictions of the copy (positions SEP .. second-to-last
//              copied symbol). Needs T >= 4, n >= 1.
//   Reverse:   [BOS, x1 .. xh, SEP, xh .. x1, PAD ...]   same draws and sizes as Copy
//              (the same seed gives Copy's sequences with the second half reversed).
//              Scored: the h predictions of the reversed half. Needs T >= 4, n >= 1.
//              Strings (Copy and Reverse, TaskOptions::strings; the default draws above are unchanged):
//     distinct: x1 .. xh has no repeated k-gram (k = TaskOptions::kgram in [2, 4]): every window of k
//              symbols occurs once, so matching the last k tokens by content finds the one place to read
//              from, without position (the induction baseline below solves it). Drawn symbol by symbol,
//              uniform over the symbols that keep every window new, restarting a sequence that gets stuck
//              (at most 64 tries). Needs h - k + 1 <= n^k / 2 (RangeError naming `T` otherwise).
//     repeats: adversarial repeats: two of the n symbols are drawn per sequence and the string is uniform
//              over those two, so once h is well past 2^4 every context of up to 4 tokens recurs with both
//              successors: matching the last few tokens by content is a coin flip at most positions, and
//              which occurrence comes next is a question of position. (kgram is not used.)
//   Retrieval: a key-value lookup, a "passkey" / needle in a haystack: p key-value pairs,
//              then SEP, a query key q and its answer a. Keys and values use separate
//              symbol ranges: keys are s_0 .. s_{m-1} with m = ceil(n / 2), values
//              s_m .. s_{n-1} (nv = n - m of them).
//              Each sequence has its own dictionary: a key always carries the same value
//              within a sequence (drawn uniformly at its first occurrence). One pair, the
//              needle (k*, v*), holds the query key, which appears nowhere else in the
//              context: q = k*, a = v*. The p - 1 distractor pairs have keys drawn uniformly
//              from the other m - 1 keys (they may repeat among themselves). The needle is
//              pair number round(depth * (p - 1)) counting from 0 (depth 0 = first pair,
//              right after BOS and farthest from the query; depth 1 = last pair, just
//              before SEP), or uniform over the p pairs when depth is unset. Two layouts:
//     packed (default): [BOS, P1 .. Pp, SEP, q, a, PAD ...] where pair i is ONE token
//              P_i = pair(k_i, v_i), an extra vocabulary entry after the n symbols: token
//              3 + n + k * nv + (v - m) for key index k and value index v, so the vocabulary
//              is n + 3 + m * nv. p = T - 4, or with variable uniform in [1, T - 4]. A
//              single attention step (match q against the pairs' keys, read the value)
//              solves it, which tiny models learn in a few hundred steps. Needs T >= 5.
//     two tokens (packed = false): [BOS, k1 v1, ..., kp vp, SEP, q, a, PAD ...],
//              vocabulary n + 3. p = (T - 4) / 2 (odd T ends with one PAD), or with
//              variable uniform in [1, (T - 4) / 2]. Needs an induction circuit (a
//              previous-token head feeding a matching head), which tiny models learn only
//              with far more data. Needs T >= 6.
//              Scored: the position of q, whose target is a. With score_repeats (two-token
//              layout only) also the key of every distractor pair whose key already
//              appeared (its target is the value seen then), a denser training signal for
//              the same lookup; the tokens do not depend on score_repeats. Needs n >= 4.
//   KthRetrieval ("kth_retrieval"): a lookup whose answer depends on WHERE things are, not
//              only on which tokens occur. Packed pairs as in Retrieval (same key and value
//              ranges, same pair tokens), but the query key q occurs exactly twice, with two
//              different values, and the query asks for its first or its second occurrence:
//              [BOS, P1 .. Pp, SEP, Q, a, PAD ...], Q = one query token for (q, ordinal): token
//              kth_query_token(o, q, ordinal) (ordinal 0 = first, 1 = second; the 2m tokens after
//              the pair tokens), a = the value of that occurrence of q. p = T - 4, or with
//              variable uniform in [2, T - 4]. The asked occurrence (the needle) is pair number
//              round(depth * (p - 1)) (depth unset: uniform over the p pairs); the other
//              occurrence of q is uniform over the other p - 1 pairs, and the ordinal says which
//              of the two comes first. The p - 2 distractor pairs have keys uniform over the
//              other m - 1 keys and values uniform over the nv values, drawn afresh per pair
//              (keys repeat with other values, so no dictionary is consistent). Swapping the two
//              occurrences of q keeps the multiset of tokens and changes the answer, so content
//              alone scores at most 1/2 (it finds q's two values, not their order); the order of
//              the pairs is needed. Scored: the position of Q, whose target is a. A shorter
//              sequence (variable) fills the room after a with further queries [Q', a', ...]:
//              each asks for the first or second occurrence of another key that occurs at least
//              twice, no query twice, until no room or no query is left (then PAD); each Q' is
//              scored too. It is a denser training signal for the same lookup: a causal model's
//              prediction at Q does not see them, and full-length sequences (the evaluation's)
//              have no room for them. Packed only. Needs T >= 6, n >= 4.
//   Markov:    [BOS, x1, x2, ..., x_{T-1}]: a fixed, sparse, random Markov chain of order
//              o over the n symbols. x1 .. xo are uniform; after that each next symbol is
//              drawn from the row of the transition table for the previous o symbols.
//              Each row allows `branching` distinct next symbols with integer weights in
//              [1, 8] (probability = weight / row total). The table is a pure function of
//              (n, order, branching, table_seed), NOT of the generator seed: every seed,
//              natively and in wasm, samples the same language, so a model trained on
//              one seed is evaluated on sequences of another. Scored: every position t
//              with o <= t <= T - 2 (the prediction of x_{t+1} once o symbols of context
//              exist). Needs T >= o + 2, n^o <= 2^20 contexts, 1 <= branching <= min(n, 16).
//              Only nearby context (the last o symbols) matters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "posenc/rng.hpp"

namespace posenc {

inline constexpr int32_t kTokenPad = 0;
inline constexpr int32_t kTokenBos = 1;
inline constexpr int32_t kTokenSep = 2;
inline constexpr int32_t kFirstSymbol = 3;

// Values are stable (the wasm layer and the JS TASKS list use them): new tasks go at the end.
enum class TaskKind { Copy, Reverse, Retrieval, Markov, KthRetrieval };
inline constexpr int kTaskCount = 5;
const char* task_name(TaskKind k);             // "copy", "reverse", "retrieval", "markov", "kth_retrieval"
TaskKind parse_task(const std::string& name);  // RangeError naming `task`

// Copy and Reverse: how the copied string is drawn (see "Strings" above). Values are stable: new ones go at the end.
enum class CopyStrings { Uniform, Distinct, Repeats };

struct TaskOptions {
  TaskKind kind = TaskKind::Copy;
  int symbols = 8;               // n, in [1, 65000] (Retrieval: >= 4)
  bool variable_length = false;  // Copy, Reverse, Retrieval: random size per sequence
  // Retrieval, KthRetrieval: where the needle pair sits, as a fraction of the context in [0, 1];
  // unset = uniform over the pairs, per sequence.
  std::optional<double> depth;
  bool packed = true;          // Retrieval: one token per key-value pair (else two tokens)
  bool score_repeats = false;  // Retrieval, two-token layout: also score the values of repeated keys
  int order = 2;               // Markov: context length o, in [1, 4]
  int branching = 3;           // Markov: next symbols allowed per context, in [1, min(n, 16)]
  uint64_t table_seed = 1;     // Markov: which chain (independent of the generator seed)
  CopyStrings strings = CopyStrings::Uniform;  // Copy, Reverse: uniform, no repeated k-gram, or adversarial repeats
  int kgram = 3;               // Copy, Reverse with strings distinct: k, in [2, 4]
  void validate() const;       // throws posenc::Error naming the field (JS spelling)
};

int task_vocab_size(const TaskOptions& o);  // symbols + 3 (packed Retrieval: + the pair tokens)
int task_min_length(const TaskOptions& o);  // shortest T a sequence fits in
// KthRetrieval: the query token asking for occurrence `ordinal` (0 = first, 1 = second) of
// key index `key` (0 .. m-1): task_vocab_size - 2m + 2 key + ordinal.
int32_t kth_query_token(const TaskOptions& o, int key, int ordinal);

// Expected loss and accuracy of the ideal predictor (it knows the task, and for
// Markov the table) on the scored positions of a batch.
struct TaskOracle {
  double loss = 0.0;      // mean over scored positions of the entropy of the true next-token distribution (nats)
  double accuracy = 1.0;  // mean over scored positions of its largest probability
  int scored = 0;
};

// The induction baseline of Copy and Reverse: content matching with no positions, an algorithm (no training).
// At a scored position t it takes the last c tokens (c = max_context down to 1, the longest that matches)
// and looks them up in the input part of the sequence, found by content (the tokens before SEP, with BOS
// standing for SEP so the first answer matches too): Copy predicts the token after each match, Reverse
// matches the c tokens reversed and predicts the token before each match. Among the matches of the longest
// c, the most frequent prediction wins (the smallest token id of equal counts). It uses only which tokens
// are adjacent, never where they are. Returns its accuracy over the scored positions (targets >= 0) of
// tokens/targets [B, T]; max_context in [1, 16].
double induction_accuracy(TaskKind kind, const int32_t* tokens, const int32_t* targets, int B, int T, int max_context);

// The length of each of B task sequences [B, T]: its tokens before the trailing PAD filler
// (1 + the last non-PAD position; 1 for an all-PAD row). lengths [B]. For ForwardOptions::lengths.
void sequence_lengths(const int32_t* tokens, int B, int T, int32_t* lengths);

class TaskGenerator {
 public:
  TaskGenerator(const TaskOptions& options, uint64_t seed);
  // Fills tokens[B*T] and targets[B*T] (row-major [B, T]) with B fresh sequences.
  // The stream of batches is a pure function of (options, seed, call sequence).
  void sample(int B, int T, int32_t* tokens, int32_t* targets);
  const TaskOptions& options() const { return options_; }

  // True next-token distribution at scored position t of one sequence (tokens[0..t] are
  // read): probs[vocab_size]. Copy/Reverse/Retrieval: one-hot on target; Markov: the
  // table row (target is only used by the deterministic tasks).
  void next_distribution(const int32_t* sequence, int t, int32_t target, double* probs) const;
  // The ideal predictor on a batch (targets -1 are skipped).
  TaskOracle oracle(const int32_t* tokens, const int32_t* targets, int B, int T) const;

 private:
  void sample_copy(int T, int32_t* tokens, int32_t* targets, bool reverse);
  void sample_copy_string(int h, int32_t* x);
  void sample_retrieval(int T, int32_t* tokens, int32_t* targets);
  void sample_kth_retrieval(int T, int32_t* tokens, int32_t* targets);
  void sample_markov(int T, int32_t* tokens, int32_t* targets);
  void build_markov_table();
  std::size_t markov_context(const int32_t* sequence, int t) const;  // row of the symbols ending at t

  struct Transition {
    int32_t symbol;  // 0-based symbol index
    uint32_t weight;
  };
  TaskOptions options_;
  Rng rng_;
  std::vector<Transition> table_;     // Markov: contexts x branching
  std::vector<uint32_t> row_total_;   // Markov: sum of the weights of each row
  std::vector<int32_t> key_value_;    // Retrieval: value of each key in the current sequence (-1: unseen)
  std::vector<int32_t> used_keys_;    // Retrieval: keys given a value in the current sequence
  std::vector<int32_t> kth_first_two_;  // KthRetrieval: first two occurrences (pair index) of each key
  std::vector<int32_t> kth_candidates_; // KthRetrieval: tail queries not yet asked, as 2 key + ordinal
};

}  // namespace posenc
