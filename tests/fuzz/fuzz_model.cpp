// libFuzzer target: the model API. A ModelConfig decoded from the fuzzer's
// bytes (every field, valid or not) goes through validation; a small valid one
// becomes a Model, which then runs a few fuzzed operations: forward (with
// attention maps and eval-time RoPE scaling), evaluate, a training step with
// fuzzed AdamW options, checkpoint round trip, position status, the synthetic
// tasks and a small length sweep. See fuzz_input.hpp for the contract.
//
// Caps keep one input fast under ASan: models up to kMaxParams parameters,
// batches up to kMaxTokens tokens; a request over a cap is made with null
// buffers and must be refused.
// fuzz-runs: 10000 (npm test's seeded run: about 19 s here)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "fuzz_input.hpp"
#include "posenc/checkpoint.hpp"
#include "posenc/model.hpp"
#include "posenc/sweep.hpp"
#include "posenc/tasks.hpp"

namespace {

using namespace posenc;
using fuzz::call;
using fuzz::Input;
using fuzz::Tame;

constexpr std::size_t kMaxParams = 1 << 16;
constexpr int kMaxTokens = 160;
constexpr int kMaxT = 64;

// Mostly a small valid value from `usual`, sometimes any int.
int small_or_any(Input& in, int lo, int hi) { return in.byte() < 224 ? in.range(lo, hi) : in.any_int(); }

ModelConfig config(Input& in) {
  ModelConfig c;
  // every registered id, and two past the last (invalid)
  c.encoding = static_cast<Encoding>(in.byte() % (posenc::encodings().size() + 2));
  c.layers = small_or_any(in, 1, 2);
  c.heads = in.byte() < 224 ? in.pick({1, 2, 4, 8, 1, 2}) : in.any_int();
  c.d_model = in.byte() < 224 ? in.pick({2, 4, 8, 16, 24, 32, 6, 12}) : in.any_int();
  c.mlp_ratio = small_or_any(in, 1, 2);
  c.vocab_size = small_or_any(in, 2, 40);
  c.max_length = small_or_any(in, 1, 40);
  c.seed = in.u64();
  c.rope_layout = static_cast<RopeLayout>(in.byte() % 3);
  c.rope_base = in.flag() ? 10000.0 : in.any_double();
  c.rotary_dim = in.flag() ? 0 : small_or_any(in, 0, 16);
  c.t5_num_buckets = small_or_any(in, 1, 40);
  c.t5_max_distance = small_or_any(in, 1, 200);
  c.shaw_k = small_or_any(in, 0, 40);
  c.learned_policy = static_cast<OutOfRange>(in.byte() % 4);
  return c;
}

// B, T and tokens (+ targets): mostly valid, sometimes out of range, sometimes over the cap (null).
struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> tokens, targets;
  bool big = false;
  const int32_t* tok() const { return big ? nullptr : tokens.data(); }
  const int32_t* tgt() const { return big ? nullptr : targets.data(); }
};

Batch batch(Input& in, int vocab, int max_length) {
  Batch b;
  b.B = in.byte() < 240 ? in.range(1, 3) : in.size(4);
  b.T = in.byte() < 230 ? in.range(1, std::min(kMaxT, 2 * max_length + 1)) : in.size(kMaxT);
  if (b.B <= 0 || b.T <= 0 || static_cast<long long>(b.B) * b.T > kMaxTokens) {
    b.big = b.B > 0 && b.T > 0;
    return b;
  }
  const std::size_t n = static_cast<std::size_t>(b.B) * b.T;
  b.tokens.resize(n);
  b.targets.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    b.tokens[i] = in.byte() < 250 ? in.range(0, vocab - 1) : in.any_int();
    b.targets[i] = in.byte() < 250 ? in.range(-1, vocab - 1) : in.any_int();
  }
  return b;
}

bool params_tame(const Model& m) {
  const float* p = m.parameters();
  for (std::size_t i = 0; i < m.num_parameters(); ++i)
    if (!(std::fabs(p[i]) <= 1e6f)) return false;
  return true;
}

// An eval-time RoPE scaling (any block) and whether its numbers are tame.
std::optional<RopeScaling> maybe_scaling(Input& in, const Model& m, Tame& tame) {
  if (in.byte() < 200) return std::nullopt;
  RopeScaling s = fuzz::scaling(in, m.config().effective_rotary_dim());
  for (const std::optional<double>* v : {&s.factor, &s.attention_factor, &s.beta_fast, &s.beta_slow, &s.mscale,
                                         &s.mscale_all_dim, &s.low_freq_factor, &s.high_freq_factor})
    if (*v) tame.note(**v);
  for (double f : s.long_factor) tame.note(f);
  for (double f : s.short_factor) tame.note(f);
  return s;
}

void check_attention_maps(const Model& m, int T) {
  const std::vector<float>& maps = m.attention_maps();
  const ModelConfig& c = m.config();
  FUZZ_CHECK(maps.size() == static_cast<std::size_t>(c.layers) * c.heads * T * T, "attention maps have the wrong size");
  for (std::size_t r = 0; r < maps.size() / T; ++r) {
    const int i = static_cast<int>(r % T);
    double sum = 0;
    for (int j = 0; j < T; ++j) {
      const float p = maps[r * T + j];
      FUZZ_CHECK(std::isfinite(p) && p >= 0.0f, "attention probability not finite and >= 0");
      FUZZ_CHECK(j <= i || p == 0.0f, "attention to a future position");
      sum += p;
    }
    // a learned sink logit (the registry's `sink` column) takes the rest of the row's mass
    if (const EncodingInfo* e = find_encoding(c.encoding); e && e->sink)
      FUZZ_CHECK(sum <= 1.0 + 1e-3, "attention row sums past 1");
    else
      FUZZ_CHECK(std::fabs(sum - 1.0) <= 1e-3, "attention row does not sum to 1");
  }
}

// A batch with forward options (attention maps, an eval-time RoPE scaling), and whether those are tame.
struct Request {
  Batch b;
  ForwardOptions o;
  Tame tame;
};

Request request(Input& in, const Model& m) {
  Request r;
  r.b = batch(in, m.config().vocab_size, m.config().max_length);
  r.o.want_attention = in.flag();
  r.o.rope_scaling = maybe_scaling(in, m, r.tame);
  return r;
}

void forward_op(Input& in, Model& m) {
  const ModelConfig& c = m.config();
  Request req = request(in, m);
  const Batch& b = req.b;
  const ForwardOptions& o = req.o;
  const float* logits = nullptr;
  const bool ok = call([&] { logits = m.forward(b.tok(), b.B, b.T, o); });
  FUZZ_CHECK(!(b.big && ok), "forward accepted null tokens");
  if (!ok || !req.tame.ok || !params_tame(m)) return;
  FUZZ_CHECK(fuzz::all_finite(logits, static_cast<std::size_t>(b.B) * b.T * c.vocab_size),
             "logits not finite for a tame model and input");
  FUZZ_CHECK(m.last_length() == b.T, "last_length is not T");
  if (o.want_attention) check_attention_maps(m, b.T);
}

void evaluate_op(Input& in, Model& m) {
  Request req = request(in, m);
  const Batch& b = req.b;
  const ForwardOptions& o = req.o;
  LossResult r;
  const bool ok = call([&] { r = m.evaluate(b.tok(), b.tgt(), b.B, b.T, o); });
  FUZZ_CHECK(!(b.big && ok), "evaluate accepted null tokens");
  if (!ok) return;
  int scored = 0;
  for (int32_t t : b.targets) scored += t >= 0;
  FUZZ_CHECK(r.scored == scored, "evaluate scored a different number of positions");
  FUZZ_CHECK(r.correct >= 0 && r.correct <= r.scored, "evaluate: correct outside [0, scored]");
  if (req.tame.ok && params_tame(m)) {
    FUZZ_CHECK(std::isfinite(r.loss) && r.loss >= 0, "loss not finite and >= 0 for a tame model");
    FUZZ_CHECK(r.accuracy >= 0 && r.accuracy <= 1, "accuracy outside [0, 1]");
    if (o.want_attention) check_attention_maps(m, b.T);
  }
}

void train_op(Input& in, Model& m) {
  const ModelConfig& c = m.config();
  Batch b = batch(in, c.vocab_size, c.max_length);
  if (in.flag()) {  // fuzzed AdamW options
    AdamWOptions& o = m.optimizer_options();
    o.beta1 = in.flag() ? 0.9f : in.any_float();
    o.beta2 = in.flag() ? 0.999f : in.any_float();
    o.eps = in.flag() ? 1e-8f : in.any_float();
    o.weight_decay = in.flag() ? 0.1f : in.any_float();
    o.grad_clip = in.flag() ? 1.0f : in.any_float();
    const bool valid = call([&] { validate_adamw(o); });
    if (!valid) {  // adamw_update must refuse them too; then restore defaults
      FUZZ_CHECK(!call([&] { m.adamw_update(0.0f); }), "adamw_update accepted options validate_adamw refused");
      o = AdamWOptions{};
    }
  }
  const float lr = in.flag() ? 1e-3f : in.any_float();
  const bool was_tame = params_tame(m);  // the loss and gradient are computed before the update
  LossResult r;
  const bool ok = call([&] { r = m.train_step(b.tok(), b.tgt(), b.B, b.T, lr); });
  FUZZ_CHECK(!(b.big && ok), "train_step accepted null tokens");
  if (!ok) return;
  FUZZ_CHECK(m.trained_length() >= b.T, "train_step did not record T as trained");
  // A step whose gradients overflowed must be refused (diverged), never applied.
  FUZZ_CHECK(std::isfinite(r.grad_norm), "train_step applied a non-finite gradient");
  if (was_tame) FUZZ_CHECK(std::isfinite(r.loss) && r.loss >= 0, "training loss not finite for a tame model");
}

void checkpoint_op(Input& in, Model& m) {
  if (in.flag()) call([&] { m.set_trained_length(in.flag() ? in.range(0, 100) : in.any_int()); });
  const std::vector<uint8_t> bytes = save_checkpoint(m);
  Model again = load_checkpoint(bytes.data(), bytes.size());  // must not throw: it is our own file
  FUZZ_CHECK(save_checkpoint(again) == bytes, "checkpoint round trip changed the bytes");
  FUZZ_CHECK(again.trained_length() == m.trained_length(), "checkpoint lost the trained length");
}

void position_op(Input& in, Model& m) {
  const int T = in.flag() ? in.range(0, 200) : in.any_int();
  std::vector<PositionStatus> s;
  if (!call([&] { s = m.position_status(T); })) return;
  FUZZ_CHECK(static_cast<int>(s.size()) == T, "position_status has the wrong size");
  const ModelConfig& c = m.config();
  for (int p = 0; p < T; ++p) {
    const PositionStatus want = c.encoding == posenc::parse_encoding("learned") && p >= c.max_length ? PositionStatus::OutOfTable
                                : p < m.scored_length()                              ? PositionStatus::Trained
                                                                                     : PositionStatus::Untrained;
    FUZZ_CHECK(s[p] == want, "position_status disagrees with scored_length / maxLength");
  }
  FUZZ_CHECK(m.untrained_positions(T).size() ==
                 static_cast<std::size_t>(std::count_if(s.begin(), s.end(),
                                                        [](PositionStatus x) { return x != PositionStatus::Trained; })),
             "untrained_positions disagrees with position_status");
}

TaskOptions task_options(Input& in, int vocab) {
  TaskOptions t;
  t.kind = static_cast<TaskKind>(in.byte() % 5);  // 4: invalid
  t.symbols = in.byte() < 200 ? vocab - kFirstSymbol : small_or_any(in, 1, 40);
  t.variable_length = in.flag();
  if (in.flag()) t.depth = in.flag() ? in.range(0, 4) / 4.0 : in.any_double();
  t.packed = in.flag();
  t.score_repeats = in.flag();
  t.order = small_or_any(in, 1, 4);
  t.branching = small_or_any(in, 1, 6);
  t.table_seed = in.u64();
  return t;
}

void task_op(Input& in, Model& m) {
  const TaskOptions t = task_options(in, m.config().vocab_size);
  int vocab = 0, min_length = 0;
  if (!call([&] { vocab = task_vocab_size(t); min_length = task_min_length(t); })) {
    FUZZ_CHECK(!call([&] { TaskGenerator(t, 1); }), "TaskGenerator accepted options validate() refused");
    return;
  }
  TaskGenerator gen(t, in.u64());
  const int B = in.range(1, 3), T = in.flag() ? in.range(0, 40) : in.size(40);
  const bool big = T > 40;
  const std::size_t n = T > 0 && !big ? static_cast<std::size_t>(B) * T : 0;
  std::vector<int32_t> tokens(n), targets(n);
  const bool ok = call([&] { gen.sample(B, T, big ? nullptr : tokens.data(), big ? nullptr : targets.data()); });
  FUZZ_CHECK(!(big && ok), "sample accepted null buffers");
  if (!ok) return;
  FUZZ_CHECK(T >= min_length, "sample accepted T below task_min_length");
  for (std::size_t i = 0; i < n; ++i) {
    FUZZ_CHECK(tokens[i] >= 0 && tokens[i] < vocab, "task token outside the vocabulary");
    FUZZ_CHECK(targets[i] >= -1 && targets[i] < vocab, "task target outside [-1, vocab)");
  }
  const TaskOracle o = gen.oracle(tokens.data(), targets.data(), B, T);
  FUZZ_CHECK(std::isfinite(o.loss) && o.loss >= 0 && o.accuracy >= 0 && o.accuracy <= 1 + 1e-12,
             "task oracle loss/accuracy out of range");
  if (vocab == m.config().vocab_size) {  // the model scores the task's own batches
    LossResult r;
    if (call([&] { r = m.evaluate(tokens.data(), targets.data(), B, T); }))
      FUZZ_CHECK(r.scored == o.scored, "model and oracle scored different positions");
  }
}

void sweep_op(Input& in, Model& m) {
  const TaskOptions t = task_options(in, m.config().vocab_size);
  SweepOptions o;
  o.lengths.clear();
  for (int k = in.range(0, 2); k > 0; --k) o.lengths.push_back(in.flag() ? in.range(1, 24) : in.any_int());
  o.train_length = in.flag() ? in.range(0, 24) : in.any_int();
  o.sequences = in.range(1, 3);
  o.max_batch_tokens = in.flag() ? 2048 : in.any_int();
  o.seed = in.u64();
  o.scaling = static_cast<SweepScaling>(in.byte() % 6);
  o.dynamic_factor = in.flag() ? 2.0 : in.any_double();
  o.position_bins = in.flag() ? in.range(0, 8) : in.any_int();
  o.attention_sequences = in.range(0, 3);
  o.grid_depths.clear();
  for (int k = in.range(0, 2); k > 0; --k) o.grid_depths.push_back(in.flag() ? in.range(0, 4) / 4.0 : in.any_double());
  o.grid_sequences = in.range(1, 2);
  for (int L : o.lengths)
    if (L > 24) return;  // over the cap (the sweep itself accepts up to kMaxSequenceLength)
  SweepResult r;
  if (!call([&] { r = sweep(m, t, o); })) return;
  FUZZ_CHECK(r.lengths.size() == o.lengths.size(), "sweep returned a different number of lengths");
  for (const LengthResult& l : r.lengths) {
    FUZZ_CHECK(l.correct >= 0 && l.correct <= l.scored, "sweep: correct outside [0, scored]");
    if (!params_tame(m)) continue;
    FUZZ_CHECK(std::isfinite(l.loss), "sweep loss not finite for a tame model");
    for (const HeadStats& h : l.heads)
      FUZZ_CHECK(std::isfinite(h.entropy) && std::isfinite(h.distance), "sweep head statistics not finite");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Input in(data, size);
  const ModelConfig c = config(in);
  std::size_t params = 0;
  if (!call([&] { params = count_parameters(c); })) {
    FUZZ_CHECK(!call([&] { Model{c}; }), "Model accepted a config count_parameters refused");
    return 0;
  }
  if (params > kMaxParams) return 0;
  std::optional<Model> model;
  FUZZ_CHECK(call([&] { model.emplace(c); }), "Model refused a config count_parameters accepted");
  FUZZ_CHECK(model->num_parameters() == params, "num_parameters differs from count_parameters");
  for (int op = 0; op < 4 && in.remaining() > 0; ++op) {
    switch (in.byte() % 7) {
      case 0: forward_op(in, *model); break;
      case 1: evaluate_op(in, *model); break;
      case 2: train_op(in, *model); break;
      case 3: checkpoint_op(in, *model); break;
      case 4: position_op(in, *model); break;
      case 5: task_op(in, *model); break;
      default: sweep_op(in, *model); break;
    }
  }
  return 0;
}
