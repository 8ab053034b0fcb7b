// Length-generalisation sweep (see sweep.hpp).
#include "../model/model_layers.hpp"
#include "posenc/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "../kind_table.hpp"
#include "posenc/error.hpp"
#include "posenc/rng.hpp"

namespace posenc {
namespace {

// The sweep's length-extension methods: another kind than rope_types, each a row naming the rope type it applies at
// L > train_length and where its factor comes from (s = L / train_length). The trained length reaches the type through
// the scaling table's context key (context_field), so no row restates which key a type reads.
enum class SweepFactor { LengthRatio, One, DynamicFactor };
struct SweepMethod {
  SweepScaling id;
  const char* name;
  const char* type;  // the rope type's name (rope_types()); "default": no override
  SweepFactor factor;
};
constexpr SweepMethod kMethods[] = {
    {SweepScaling::None, "none", "default", SweepFactor::One},
    {SweepScaling::Linear, "linear", "linear", SweepFactor::LengthRatio},
    // base * s^(d/(d-2)) == HF dynamic with factor 1 at seq_len = length
    {SweepScaling::Ntk, "ntk", "dynamic", SweepFactor::One},
    {SweepScaling::Dynamic, "dynamic", "dynamic", SweepFactor::DynamicFactor},
    {SweepScaling::Yarn, "yarn", "yarn", SweepFactor::LengthRatio},
};
static_assert(std::size(kMethods) == kSweepScalingCount);
static_assert(rows_in_enum_order(kMethods), "kMethods' rows must be in SweepScaling's order");

// Per-length accumulation over scored positions.
struct Tally {
  double loss = 0.0;
  long long scored = 0, correct = 0;
  std::vector<long long> bin_scored, bin_correct;
};

void score_batch(const float* logits, const int32_t* targets, int B, int T, int V, int bins, Tally& t) {
  for (int b = 0; b < B; ++b)
    for (int p = 0; p < T; ++p) {
      const std::size_t n = static_cast<std::size_t>(b) * T + p;
      const ScoredPosition s = score_position(logits + n * V, V, targets[n]);
      if (!s.scored) continue;
      t.loss += s.loss;
      t.scored += 1;
      t.correct += s.correct ? 1 : 0;
      if (bins > 0) {
        const int bin = static_cast<int>(static_cast<long long>(p) * bins / T);
        t.bin_scored[bin] += 1;
        t.bin_correct[bin] += s.correct ? 1 : 0;
      }
    }
}

// Dynamic NTK as HF applies it when each next token is predicted from the sequence so far
// (no cache): the logits at position t come from a forward of tokens[0 .. t] alone, whose
// frequencies are rope_frequencies(dynamic, seq_len = t + 1); so the base grows with t and
// positions t < train_length keep the trained base (HF: seq_len = max(seq_len, max_pos)).
// out: [B, T, V]; rows of positions no sequence scores are left as the plain forward's.
void dynamic_logits(Model& model, const int32_t* tokens, const int32_t* targets, int B, int T, int train_length,
                    double factor, std::vector<float>& out) {
  const int V = model.config().vocab_size;
  const int T0 = std::min(T, train_length);
  out.assign(static_cast<std::size_t>(B) * T * V, 0.0f);
  std::vector<int32_t> prefix;
  auto prefix_forward = [&](int len, const ForwardOptions& fo) {
    prefix.resize(static_cast<std::size_t>(B) * len);
    for (int b = 0; b < B; ++b)
      std::copy(tokens + static_cast<std::size_t>(b) * T, tokens + static_cast<std::size_t>(b) * T + len,
                prefix.begin() + static_cast<std::ptrdiff_t>(b) * len);
    return model.forward(prefix.data(), B, len, fo);
  };
  {  // positions 0 .. T0-1: the trained frequencies (one forward of the first T0 tokens)
    const float* l = prefix_forward(T0, ForwardOptions{});
    for (int b = 0; b < B; ++b)
      std::copy(l + static_cast<std::size_t>(b) * T0 * V, l + static_cast<std::size_t>(b + 1) * T0 * V,
                out.begin() + static_cast<std::ptrdiff_t>(b) * T * V);
  }
  ForwardOptions fo;
  fo.rope_scaling = sweep_rope_scaling(SweepScaling::Dynamic, T, train_length, factor);  // (its block is the same at any T)
  for (int t = T0; t < T; ++t) {
    bool any = false;
    for (int b = 0; b < B && !any; ++b) any = targets[static_cast<std::size_t>(b) * T + t] >= 0;
    if (!any) continue;
    const float* l = prefix_forward(t + 1, fo);  // seq_len = t + 1
    for (int b = 0; b < B; ++b)
      std::copy(l + (static_cast<std::size_t>(b) * (t + 1) + t) * V, l + (static_cast<std::size_t>(b) * (t + 1) + t + 1) * V,
                out.begin() + (static_cast<std::ptrdiff_t>(b) * T + t) * V);
  }
}

// Runs `count` sequences of length T through the model in chunks; the first
// `attention` of them one at a time with attention maps, accumulated into heads.
// dynamic_train_length > 0: the logits are dynamic_logits' (the attention maps stay
// those of one forward at seq_len T).
void run_sequences(Model& model, const int32_t* tokens, const int32_t* targets, int count, int T,
                   const SweepOptions& o, const ForwardOptions& base, int attention, Tally& tally,
                   std::vector<HeadStats>* heads, int dynamic_train_length = 0) {
  const ModelConfig& c = model.config();
  const int V = c.vocab_size;
  const int chunk = std::max(1, std::min(count, o.max_batch_tokens / T));
  std::vector<float> dyn;
  int done = 0;
  while (done < count) {
    const bool with_attention = heads && done < attention;
    const int b = with_attention ? 1 : std::min(chunk, count - done);
    ForwardOptions fo = base;
    fo.want_attention = with_attention;
    fo.first_example = static_cast<uint64_t>(done);  // random positions: the same draws however it is chunked
    const std::size_t off = static_cast<std::size_t>(done) * T;
    const float* logits = model.forward(tokens + off, b, T, fo);
    if (with_attention) {  // read before dynamic_logits' prefix forwards replace the maps
      const std::vector<float>& maps = model.attention_maps();
      const std::size_t TT = static_cast<std::size_t>(T) * T;
      for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
          const HeadStats s = attention_head_stats(maps.data() + (static_cast<std::size_t>(l) * c.heads + h) * TT, T);
          HeadStats& acc = (*heads)[static_cast<std::size_t>(l) * c.heads + h];
          acc.entropy += s.entropy;
          acc.distance += s.distance;
          acc.sink += s.sink;
        }
    }
    if (dynamic_train_length > 0) {
      dynamic_logits(model, tokens + off, targets + off, b, T, dynamic_train_length, o.dynamic_factor, dyn);
      logits = dyn.data();
    }
    score_batch(logits, targets + off, b, T, V, tally.bin_scored.empty() ? 0 : o.position_bins, tally);
    done += b;
  }
}

}  // namespace

// Independent of the other lengths in the list, so adding a length never changes the
// numbers of the others.
uint64_t sweep_seed(uint64_t seed, int length, int row) {
  uint64_t s = seed ^ (static_cast<uint64_t>(static_cast<uint32_t>(length)) << 20) ^
               (static_cast<uint64_t>(static_cast<uint32_t>(row + 1)) << 44);
  splitmix64(s);
  return splitmix64(s);
}

const char* sweep_scaling_name(SweepScaling s) {
  const int i = static_cast<int>(s);
  return i >= 0 && i < kSweepScalingCount ? kMethods[i].name : "?";
}

SweepScaling parse_sweep_scaling(const std::string& name) {
  for (int i = 0; i < kSweepScalingCount; ++i)
    if (name == kMethods[i].name) return static_cast<SweepScaling>(i);
  range_error("scaling", one_of(kMethods), "'" + name + "'");
}

std::optional<RopeScaling> sweep_rope_scaling(SweepScaling method, int length, int train_length,
                                              double dynamic_factor) {
  require_int_range("trainLength", train_length, 1, kMaxSequenceLength);
  require_int_range("length", length, 1, kMaxSequenceLength);
  const int i = static_cast<int>(method);
  if (i < 0 || i >= kSweepScalingCount) range_error("scaling", one_of(kMethods), std::to_string(i));
  const SweepMethod& m = kMethods[i];
  const RopeType type = parse_rope_type(m.type);
  if (type == RopeType{} || length <= train_length) return std::nullopt;
  if (m.factor == SweepFactor::DynamicFactor) require_positive("dynamicFactor", dynamic_factor);
  RopeScaling r;
  r.type = type;
  r.factor = m.factor == SweepFactor::LengthRatio ? static_cast<double>(length) / train_length
             : m.factor == SweepFactor::One       ? 1.0
                                                  : dynamic_factor;
  if (const ScalingField* f = context_field(type)) f->set(r, train_length);
  return r;
}

void SweepOptions::validate() const {
  if (lengths.empty()) range_error("lengths", "a non-empty list of lengths", "[]");
  for (int L : lengths) require_int_range("lengths[i]", L, 1, kMaxSequenceLength);
  require_int_range("trainLength", train_length, 0, kMaxSequenceLength);
  require_int_range("sequences", sequences, 1, 1 << 20);
  require_int_range("maxBatchTokens", max_batch_tokens, 1, 1 << 24);
  require_int_range("positionBins", position_bins, 0, 4096);
  require_int_range("attentionSequences", attention_sequences, 0, sequences);
  require_int_range("gridSequences", grid_sequences, 1, 1 << 20);
  for (double d : grid_depths)
    if (!(d >= 0.0 && d <= 1.0)) range_error("gridDepths[i]", "a number in [0, 1]", format_number(d));
  const int s = static_cast<int>(scaling);
  if (s < 0 || s >= kSweepScalingCount)
    range_error("scaling", one_of(kMethods), std::to_string(s));
  if (scaling == SweepScaling::Dynamic) require_positive("dynamicFactor", dynamic_factor);
  if (log_length_scaling && scaling == SweepScaling::Dynamic)
    range_error("logLengthScaling", "false with scaling 'dynamic' (its per-position forwards do not take it)", "true");
}

HeadStats attention_head_stats(const float* map, int T) {
  HeadStats r;
  if (T <= 0) return r;
  double entropy = 0.0, distance = 0.0, sink = 0.0;
  for (int i = 0; i < T; ++i) {
    const float* row = map + static_cast<std::size_t>(i) * T;
    double e = 0.0, d = 0.0;
    for (int j = 0; j <= i; ++j) {
      const double p = row[j];
      if (p > 0.0) e -= p * std::log(p);
      d += p * (i - j);
    }
    entropy += e;
    distance += d;
    if (i > 0) sink += row[0];
  }
  r.entropy = entropy / T;
  r.distance = distance / T;
  r.sink = T > 1 ? sink / (T - 1) : 0.0;
  return r;
}

ScoredPosition score_position(const float* l, int V, int32_t target) {
  ScoredPosition s;
  if (target < 0) return s;
  const int arg = layers::argmax(l, V);  // the model's own prediction rule (model_layers.hpp)
  const float mx = l[arg];
  double z = 0.0;
  for (int v = 0; v < V; ++v) z += std::exp(static_cast<double>(l[v]) - mx);
  s.scored = true;
  s.correct = arg == target;
  s.loss = std::log(z) - (static_cast<double>(l[target]) - mx);
  return s;
}

SweepResult sweep(Model& model, const TaskOptions& task, const SweepOptions& options) {
  options.validate();
  task.validate();
  const ModelConfig& c = model.config();
  if (task_vocab_size(task) != c.vocab_size)
    range_error("task vocabulary", "the model's vocabSize " + std::to_string(c.vocab_size),
                std::to_string(task_vocab_size(task)));
  if (options.scaling != SweepScaling::None && c.encoding != parse_encoding("rope"))
    range_error("scaling", std::string("'none' for encoding '") + encoding_name(c.encoding) + "'",
                std::string("'") + sweep_scaling_name(options.scaling) + "'");
  const int min_length = task_min_length(task);
  for (int L : options.lengths)
    if (L < min_length)
      range_error("lengths[i]", "at least the task's minimum length " + std::to_string(min_length),
                  std::to_string(L));
  const int train_length = options.train_length > 0 ? options.train_length : model.trained_length();
  if (options.scaling != SweepScaling::None && train_length < 1)
    range_error("trainLength", "set (or a trained model) for a RoPE scaling", "0");
  if (options.log_length_scaling && train_length < 2)
    range_error("trainLength", "at least 2 (or a trained model) for logLengthScaling", std::to_string(train_length));

  TaskOptions eval_task = task;
  eval_task.variable_length = false;
  eval_task.depth.reset();
  eval_task.score_repeats = false;  // Retrieval: the answer position only

  // The override at length L: the fixed one of a fine-tuned row, else the method's.
  auto scaling_at = [&](int L) -> std::optional<RopeScaling> {
    if (options.fixed_rope_scaling) return options.fixed_rope_scaling;
    return sweep_rope_scaling(options.scaling, L, std::max(train_length, 1), options.dynamic_factor);
  };
  // The forward options at length L: the RoPE override, and the log-length logit scale past train_length.
  auto forward_options_at = [&](int L) {
    ForwardOptions fo;
    fo.rope_scaling = scaling_at(L);
    if (options.log_length_scaling && L > train_length)
      fo.attention_logit_scale =
          static_cast<float>(std::log(static_cast<double>(L)) / std::log(static_cast<double>(train_length)));
    return fo;
  };
  auto per_position_dynamic = [&](int L) {
    return !options.fixed_rope_scaling && options.scaling == SweepScaling::Dynamic && L > train_length;
  };
  SweepResult result;
  result.scaling = sweep_scaling_name(options.scaling);
  const int L_layers = c.layers, H = c.heads, bins = options.position_bins;
  for (int L : options.lengths) {
    const ForwardOptions fo = forward_options_at(L);
    const int dynamic_T = per_position_dynamic(L) ? train_length : 0;
    TaskGenerator gen(eval_task, sweep_seed(options.seed, L, -1));
    const int S = options.sequences;
    std::vector<int32_t> tokens(static_cast<std::size_t>(S) * L), targets(tokens.size());
    gen.sample(S, L, tokens.data(), targets.data());

    Tally tally;
    tally.bin_scored.assign(bins, 0);
    tally.bin_correct.assign(bins, 0);
    std::vector<HeadStats> heads(static_cast<std::size_t>(L_layers) * H);
    for (int l = 0; l < L_layers; ++l)
      for (int h = 0; h < H; ++h) {
        heads[static_cast<std::size_t>(l) * H + h].layer = l;
        heads[static_cast<std::size_t>(l) * H + h].head = h;
      }
    run_sequences(model, tokens.data(), targets.data(), S, L, options, fo, options.attention_sequences, tally,
                  &heads, dynamic_T);

    LengthResult r;
    r.length = L;
    r.scored = static_cast<int>(tally.scored);
    r.correct = static_cast<int>(tally.correct);
    if (tally.scored > 0) {
      r.loss = tally.loss / tally.scored;
      r.accuracy = static_cast<double>(tally.correct) / tally.scored;
    }
    const TaskOracle oracle = gen.oracle(tokens.data(), targets.data(), S, L);
    r.oracle_loss = oracle.loss;
    r.oracle_accuracy = oracle.accuracy;
    r.accuracy_by_position.resize(bins);
    r.scored_by_position.resize(bins);
    for (int b = 0; b < bins; ++b) {
      r.scored_by_position[b] = static_cast<int>(tally.bin_scored[b]);
      r.accuracy_by_position[b] = tally.bin_scored[b] > 0
                                      ? static_cast<double>(tally.bin_correct[b]) / tally.bin_scored[b]
                                      : std::numeric_limits<double>::quiet_NaN();
    }
    if (options.attention_sequences > 0) {
      for (HeadStats& h : heads) {
        h.entropy /= options.attention_sequences;
        h.distance /= options.attention_sequences;
        h.sink /= options.attention_sequences;
      }
      r.heads = std::move(heads);
    }
    for (PositionStatus p : model.position_status(L)) r.untrained_positions += p != PositionStatus::Trained ? 1 : 0;
    result.lengths.push_back(std::move(r));
  }

  if ((task.kind == TaskKind::Retrieval || task.kind == TaskKind::KthRetrieval) && !options.grid_depths.empty()) {
    result.grid_depths = options.grid_depths;
    result.grid_lengths = options.lengths;
    const int S = options.grid_sequences;
    for (std::size_t d = 0; d < options.grid_depths.size(); ++d) {
      std::vector<double> row;
      TaskOptions t = eval_task;
      t.depth = options.grid_depths[d];
      for (int L : options.lengths) {
        const ForwardOptions fo = forward_options_at(L);
        TaskGenerator gen(t, sweep_seed(options.seed, L, static_cast<int>(d)));
        std::vector<int32_t> tokens(static_cast<std::size_t>(S) * L), targets(tokens.size());
        gen.sample(S, L, tokens.data(), targets.data());
        // Accuracy only: Model::evaluate (which skips the last layer's work before the answer).
        long long scored = 0, correct = 0;
        const int chunk = std::max(1, std::min(S, options.max_batch_tokens / L));
        for (int done = 0; done < S; done += chunk) {
          const int b = std::min(chunk, S - done);
          const std::size_t off = static_cast<std::size_t>(done) * L;
          if (per_position_dynamic(L)) {
            std::vector<float> dyn;
            dynamic_logits(model, tokens.data() + off, targets.data() + off, b, L, train_length, options.dynamic_factor,
                           dyn);
            for (std::size_t i = 0; i < static_cast<std::size_t>(b) * L; ++i) {
              const ScoredPosition sp = score_position(dyn.data() + i * c.vocab_size, c.vocab_size, targets[off + i]);
              scored += sp.scored ? 1 : 0;
              correct += sp.correct ? 1 : 0;
            }
            continue;
          }
          ForwardOptions chunk_fo = fo;
          chunk_fo.first_example = static_cast<uint64_t>(done);
          const LossResult e = model.evaluate(tokens.data() + off, targets.data() + off, b, L, chunk_fo);
          scored += e.scored;
          correct += e.correct;
        }
        row.push_back(scored > 0 ? static_cast<double>(correct) / scored : 0.0);
      }
      result.grid_accuracy.push_back(std::move(row));
    }
  }
  return result;
}

}  // namespace posenc
