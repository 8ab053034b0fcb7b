// posenc_train's training loop: one run (training with the early stop on a held-out batch, then the length
// sweeps, the RoPE scalings and the fine-tunes), and every run on a pool of threads.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "posenc/t5.hpp"
#include "train.hpp"

namespace posenc::train {
namespace {

// The full-length held-out batch of the early stop (seed 6000 + seed): met when its accuracy
// reaches the target + kStopMargin (Markov: its loss is within kMarkovMargin - kStopMargin / 2
// of the oracle's on it).
struct TargetCheck {
  TaskOptions task;
  int B = 0, T = 0;
  std::vector<int32_t> tokens, targets;
  double oracle_loss = 0;
  double last = NAN;  // the latest check's number: accuracy (markov: loss)
  TargetCheck(const TaskOptions& to, int T_, int seed) : task(to), T(T_) {
    task.variable_length = false;
    // The retrievals score one token per sequence. With 256 check sequences (one answer: 0.39 points),
    // 7 of the 19 kth_retrieval runs that stopped on the check then scored 0.871-0.898 on the evaluation's
    // 256, below the 0.9 target: runs that hover near it meet target + margin on one of many checks by
    // sampling noise. 1024 halves that noise (sd 0.9 points at 0.9).
    B = (to.kind == TaskKind::Retrieval || to.kind == TaskKind::KthRetrieval) ? 1024 : 64;
    tokens.resize(static_cast<std::size_t>(B) * T);
    targets.resize(tokens.size());
    TaskGenerator g(task, 6000 + static_cast<uint64_t>(seed));
    g.sample(B, T, tokens.data(), targets.data());
    oracle_loss = g.oracle(tokens.data(), targets.data(), B, T).loss;
  }
  // Scored 64 sequences at a time (a 1024-sequence evaluate is ~1.5x slower than 16 of 64: its
  // activations leave the cache); the accuracy is correct / scored over the whole batch.
  bool met(Model& model) {
    constexpr int kChunk = 64;
    if (task.kind == TaskKind::Markov) {  // (64 sequences: one chunk)
      const LossResult e = model.evaluate(tokens.data(), targets.data(), B, T);
      last = e.loss;
      return e.loss <= oracle_loss + kMarkovMargin - kStopMargin / 2;
    }
    long correct = 0, scored = 0;
    for (int b = 0; b < B; b += kChunk) {
      const std::size_t at = static_cast<std::size_t>(b) * T;
      const LossResult e = model.evaluate(tokens.data() + at, targets.data() + at, std::min(kChunk, B - b), T);
      correct += e.correct;
      scored += e.scored;
    }
    last = scored > 0 ? static_cast<double>(correct) / static_cast<double>(scored) : NAN;
    return scored > 0 && last >= std::min(1.0, accuracy_target(task.kind) + kStopMargin);
  }
};

// Per evaluation length: the T5 buckets / learned rows the model uses there that training
// never reached (by causality training reaches positions and distances < scored_length).
std::vector<int> untrained_parameters(const Model& model, int L) {
  const ModelConfig& mc = model.config();
  const int S = model.scored_length();
  std::vector<int> out;
  if (mc.encoding == parse_encoding("t5")) {
    const T5BucketOptions o{false, mc.t5_num_buckets, mc.t5_max_distance};
    std::vector<bool> trained(mc.t5_num_buckets, false), used(mc.t5_num_buckets, false);
    for (int n = 0; n < S; ++n) trained[t5_bucket(-n, o)] = true;
    for (int n = 0; n < L; ++n) used[t5_bucket(-n, o)] = true;
    for (int b = 0; b < mc.t5_num_buckets; ++b)
      if (used[b] && !trained[b]) out.push_back(b);
  } else if (mc.encoding == parse_encoding("learned")) {
    const int rows = std::min(L, mc.max_length);  // rows past the table clamp to max_length - 2
    for (int r = S; r < rows; ++r) out.push_back(r);
  }
  return out;
}

Row make_row(const Model& model, SweepResult s, std::string variant) {
  Row row;
  row.sweep = std::move(s);
  row.variant = std::move(variant);
  for (const LengthResult& l : row.sweep.lengths) row.untrained.push_back(untrained_parameters(model, l.length));
  return row;
}

// A copy of `trained` fine-tuned with the RoPE override `scaling` at finetune_factor x length.
// Unset `scaling`: the plain fine-tune (no interpolation), Chen et al.'s control.
Model finetune(const Config& c, const Model& trained, const TaskOptions& to, int seed,
               const std::optional<RopeScaling>& scaling) {
  SaveOptions exact;
  exact.weights = WeightFormat::Float32;  // a copy of the float32 weights, not the shipped float16 ones
  const std::vector<uint8_t> bytes = save_checkpoint(trained, exact);
  Model m = load_checkpoint(bytes.data(), bytes.size());
  m.optimizer_options().beta2 = c.beta2;
  m.reset_optimizer();
  const int L = c.finetune_factor * c.length, B = std::max(1, c.batch / c.finetune_factor);
  TaskGenerator data(to, 300 + static_cast<uint64_t>(seed));
  std::vector<int32_t> tokens(static_cast<std::size_t>(B) * L), targets(tokens.size());
  ForwardOptions fo;
  fo.rope_scaling = scaling;
  const int warm = std::max(1, c.finetune_steps / 10);
  for (int step = 0; step < c.finetune_steps; ++step) {
    data.sample(B, L, tokens.data(), targets.data());
    m.train_step(tokens.data(), targets.data(), B, L,
                 lr_at(step, c.finetune_steps, warm, c.finetune_lr, c.finetune_lr / 10), fo);
  }
  return m;
}

double accuracy_at(const SweepResult& s, int length) {
  for (const LengthResult& l : s.lengths)
    if (l.length == length) return l.accuracy;
  return NAN;
}

}  // namespace

RunResult run_one(const Config& c, const RunSpec& spec) {
  RunResult r;
  r.spec = spec;
  const TaskOptions to = task_options(c, spec.task);
  Model model(model_config(c, spec.encoding, to, spec.seed, spec.rope_base));
  model.optimizer_options().beta2 = c.beta2;
  r.parameters = model.num_parameters();
  TaskGenerator data(to, 100 + static_cast<uint64_t>(spec.seed));
  const int B = c.batch, T = c.length;
  std::vector<int32_t> tokens(static_cast<std::size_t>(B) * T), targets(tokens.size()), lengths(B);
  ForwardOptions fo;
  fo.lengths = lengths.data();  // each example's own length (randomized positions are drawn for it)
  TargetCheck check(to, T, spec.seed);
  r.curve.every = std::max(1, (c.steps + kCurvePoints - 1) / kCurvePoints);
  const auto t0 = Clock::now();
  int step = 0;
  while (step < c.steps && (c.fingerprint_steps == 0 || step < c.fingerprint_steps)) {
    data.sample(B, T, tokens.data(), targets.data());
    sequence_lengths(tokens.data(), B, T, lengths.data());
    const LossResult e =
        model.train_step(tokens.data(), targets.data(), B, T, lr_at(step, c.steps, c.warmup, c.lr, c.min_lr), fo);
    ++step;
    const bool checked = step % c.check_every == 0, met = checked && check.met(model);
    if (checked) r.curve.held_out.push_back(check.last);
    r.curve.add(e.loss, step, met || step == c.steps);
    if (met) {
      r.steps_to_target = step;
      break;
    }
  }
  r.train_seconds = seconds_since(t0);
  r.steps = step;
  if (c.fingerprint_steps) {
    uint64_t h = 1469598103934665603ull;
    const auto* bytes = reinterpret_cast<const unsigned char*>(model.parameters());
    for (std::size_t i = 0; i < model.num_parameters() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
    r.fingerprint = h;
    return r;
  }
  r.trained_length = model.trained_length();
  r.scored_length = model.scored_length();

  const auto t1 = Clock::now();
  {  // held-out accuracy on the training distribution
    const int EB = 256;
    TaskGenerator held(to, 5000 + static_cast<uint64_t>(spec.seed));
    std::vector<int32_t> et(static_cast<std::size_t>(EB) * T), ey(et.size());
    held.sample(EB, T, et.data(), ey.data());
    const LossResult e = model.evaluate(et.data(), ey.data(), EB, T);
    r.final_accuracy = e.accuracy;
    r.final_loss = e.loss;
  }
  SweepOptions so;
  so.lengths = eval_lengths(c);
  so.train_length = c.length;
  so.sequences = spec.task == TaskKind::Retrieval || spec.task == TaskKind::KthRetrieval ? 4 * c.eval_sequences
                                                                                          : c.eval_sequences;
  so.grid_sequences = c.grid_sequences;
  so.attention_sequences = std::min(c.attention_sequences, so.sequences);
  so.seed = c.eval_seed;
  so.dynamic_factor = c.dynamic_factor;
  r.rows.push_back(make_row(model, sweep(model, to, so), spec.variant));
  {  // learned: the task's target at 1x on the evaluation sequences
    const LengthResult* one = nullptr;
    for (const LengthResult& l : r.rows[0].sweep.lengths)
      if (l.length == T) one = &l;
    if (one)
      r.learned = spec.task == TaskKind::Markov ? one->loss <= one->oracle_loss + kMarkovMargin
                                                : one->accuracy >= accuracy_target(spec.task);
  }
  if (spec.encoding == parse_encoding("rope") && c.scalings && spec.variant.empty()) {  // the variant: unscaled only
    for (SweepScaling s : {SweepScaling::Linear, SweepScaling::Ntk, SweepScaling::Dynamic, SweepScaling::Yarn}) {
      so.scaling = s;
      r.rows.push_back(make_row(model, sweep(model, to, so), spec.variant));
    }
    if (c.finetune_steps > 0) {  // PI and YaRN fine-tuned at finetune_factor x T, then the plain fine-tune (no scaling)
      for (SweepScaling s : {SweepScaling::Linear, SweepScaling::Yarn, SweepScaling::None}) {
        std::optional<RopeScaling> rs;
        if (s != SweepScaling::None) {
          rs.emplace();
          rs->factor = static_cast<double>(c.finetune_factor);
          if (s == SweepScaling::Linear) {
            rs->type = parse_rope_type("linear");
          } else {
            rs->type = parse_rope_type("yarn");
            rs->original_max_position_embeddings = T;
          }
        }
        Model ft = finetune(c, model, to, spec.seed, rs);
        SweepOptions fso = so;
        fso.scaling = s;
        fso.fixed_rope_scaling = rs;
        Row row = make_row(ft, sweep(ft, to, fso), "finetuned");
        row.finetune_length = c.finetune_factor * T;
        row.finetune_steps = c.finetune_steps;
        r.rows.push_back(std::move(row));
      }
    }
  }
  r.eval_seconds = seconds_since(t1);
  if (spec.seed == 0 && spec.variant.empty()) r.checkpoint = save_checkpoint(model, SaveOptions{kShippedWeights});
  return r;
}

std::string clock_string(double s) {
  char buf[32];
  const int t = static_cast<int>(std::lround(s));
  std::snprintf(buf, sizeof buf, "%d:%02d", t / 60, t % 60);
  return buf;
}

std::string checkpoint_name(const RunSpec& s) {
  return std::string("web/checkpoints/") + task_name(s.task) + "-" + encoding_name(s.encoding) + ".ckpt";
}

std::vector<RunSpec> run_specs(const Config& c) {
  std::vector<RunSpec> specs;
  for (TaskKind t : c.tasks)
    for (Encoding e : c.encodings) {
      for (int s = c.first_seed; s < c.first_seed + c.seeds; ++s)
        specs.push_back({t, e, s, "", e == parse_encoding("rope_random") ? c.rope_base_random : c.rope_base});
      if (e == parse_encoding("rope") && c.variants)
        for (int s = c.first_seed; s < c.first_seed + c.seeds; ++s)
          specs.push_back({t, e, s, "base10000", c.rope_base_variant});
    }
  return specs;
}

std::vector<RunResult> run_parallel(const Config& c, double& seconds) {
  const std::vector<RunSpec> specs = run_specs(c);
  std::vector<RunResult> results(specs.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex io;
  std::size_t done = 0;
  const auto t0 = Clock::now();
  const std::vector<int> lengths = eval_lengths(c);
  std::fprintf(stderr,
               "posenc_train: %zu runs (%zu tasks x %zu encodings x %d seeds + variants), budget %d steps each, %d "
               "job%s\n",
               specs.size(), c.tasks.size(), c.encodings.size(), c.seeds, c.steps, c.jobs, c.jobs == 1 ? "" : "s");
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= specs.size() || failed) return;
      try {
        results[i] = run_one(c, specs[i]);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(io);
        std::fprintf(stderr, "posenc_train: %s/%s seed %d failed: %s\n", task_name(specs[i].task),
                     encoding_name(specs[i].encoding), specs[i].seed, e.what());
        failed = true;
        return;
      }
      std::lock_guard<std::mutex> lock(io);
      ++done;
      const double el = seconds_since(t0);
      const RunResult& r = results[i];
      std::fprintf(stderr,
                   "[%3zu/%zu] %-13s %-14s seed %d  %s steps %5d  held-out acc %.3f  acc@%d %.3f  acc@%d %.3f  "
                   "(%.1fs + %.1fs)  elapsed %s  ETA %s\n",
                   done, specs.size(), task_name(r.spec.task),
                   (std::string(encoding_name(r.spec.encoding)) + (r.spec.variant.empty() ? "" : "/" + r.spec.variant)).c_str(),
                   r.spec.seed, r.learned ? "learned" : "NOT learned", r.steps, r.final_accuracy, c.length,
                   accuracy_at(r.rows[0].sweep, c.length), lengths.back(),
                   accuracy_at(r.rows[0].sweep, lengths.back()), r.train_seconds, r.eval_seconds,
                   clock_string(el).c_str(), clock_string(el / done * (specs.size() - done)).c_str());
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, c.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (failed) return {};
  seconds = seconds_since(t0);
  return results;
}

}  // namespace posenc::train
