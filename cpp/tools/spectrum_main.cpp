// posenc_spectrum: RoPE context extension in an LLM-like rotary spectrum (issue 28, item 5).
//
// The main experiment's RoPE (head_dim 8, base 16, T = 32) has 4 rotary pairs and almost no
// under-trained low-frequency band, so PI, NTK and YaRN have little to fix there. Here the model has
// head_dim 32 (16 pairs) at T = 512, where base 1500 gives 3 pairs with >= 32 turns within T and a
// slowest period of ~11.7 T (Llama 2: 21 such pairs, 13.3 T); bases 500 and 10000 on either side.
// Per base and seed:
//   1. pretrain plain RoPE on variable-length copy (every length <= T is seen): the first 1000 of 1600 steps at
//      128, the rest at T (a length warmup: trained at T = 512 from the start, seed 0 at base 1500 had not begun
//      to learn after 600 steps, its loss still ln 64; at T = 128 it learned within 2000);
//   2. zero shot at 1x, 2x, 4x T with none / linear (PI) / ntk / yarn, factor = L / T
//      (posenc::sweep; "ntk" is HF's dynamic-NTK base at seq_len L, applied to one forward over
//      the whole sequence: what dynamic gives without a per-token cache; see sweep.hpp);
//   3. fine-tune copies of the model at factor x T on ~2% of the pretraining tokens (steps x batch x
//      length, padded) with PI, with YaRN (both factor = the extension), and plain (no
//      interpolation: Chen et al.'s control); each evaluated with its own frequencies at every length.
// Floors: chance (1 / symbols) and the bag-of-tokens floor (the most frequent input symbol,
// predicted at every answer position) measured on the evaluation's own sequences at each length.
// A seed "learned" when its 1x accuracy beats the best floor by more than kLearnedMargin.
//
//   posenc_spectrum [--out DIR] [--quick] [--bases LIST] [--seeds N] [--steps N] [--short-steps N]
//                   [--short-length N] [--batch N] [--length N] [--factor N] [--symbols N] [--layers N]
//                   [--heads N] [--d-model N] [--lr X] [--eval-sequences N] [--check-deterministic]
//
// Writes DIR/docs/experiments/spectrum.json (scripts/results-load.js attaches it to the results as
// results.experiments.spectrum). Single thread; every number but the timings is a pure function of
// the flags (--check-deterministic runs the configuration twice in this process and compares).
// Seeds of run `seed`: model init 1000 + seed, pretraining data 100 + seed, fine-tune data 300 +
// seed; the evaluation sequences are the same for every run (posenc::sweep_seed(evalSeed, L, -1)).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_time.hpp"
#include "flags.hpp"
#include "floors.hpp"
#include "json_out.hpp"
#include "posenc/checkpoint.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "posenc/sweep.hpp"
#include "posenc/tasks.hpp"

namespace fs = std::filesystem;
using namespace posenc;
using namespace posenc::tools;

namespace {

// A 1x accuracy this far above the best floor counts as learned (results-words.js RULES.floorMargin).
constexpr double kLearnedMargin = 0.1;

struct Config {
  std::string out = ".";
  bool quick = false, check = false;
  std::vector<double> bases = {500, 1500, 10000};
  int seeds = 3;
  // model: head_dim 32 = 16 rotary pairs
  int layers = 2, heads = 2, d_model = 64, mlp_ratio = 4;
  int symbols = 64;  // copy over 64 symbols: a 255-symbol input repeats each about 4 times
  // pretraining
  // The first short_steps of the steps train at short_length (a length warmup: at T = 512 copy did not
  // start to learn within 600 steps, at 128 it learned within 2000), the rest at length; one lr schedule.
  int length = 512, steps = 1600, batch = 16, warmup = 100, short_steps = 1000, short_length = 128;
  float lr = 3e-3f, min_lr = 3e-4f, beta2 = AdamWOptions{}.beta2;
  // extension: evaluation at 1x, 2x .. factor x length; fine-tunes at factor x length
  int factor = 4;
  double finetune_share = 0.02;  // of the pretraining tokens (pretrain_tokens())
  int finetune_batch = 2;
  float finetune_lr = 1e-3f;
  int eval_sequences = 16;
  uint64_t eval_seed = 20240601;

  int head_dim() const { return d_model / heads; }
  int finetune_length() const { return factor * length; }
  // Token slots of pretraining (padded sequences: steps x batch x their length).
  long long pretrain_tokens() const {
    const int s = std::min(short_steps, steps);
    return static_cast<long long>(batch) * (static_cast<long long>(s) * short_length + static_cast<long long>(steps - s) * length);
  }
  int finetune_steps() const {
    const double tokens = finetune_share * static_cast<double>(pretrain_tokens());
    return std::max(1, static_cast<int>(std::lround(tokens / (static_cast<double>(finetune_batch) * finetune_length()))));
  }
  std::vector<int> eval_lengths() const {
    std::vector<int> out;
    for (int m = 1; m <= factor; m *= 2) out.push_back(m * length);
    if (out.back() != factor * length) out.push_back(factor * length);
    return out;
  }
};

TaskOptions task_options(const Config& c) {
  TaskOptions o;
  o.kind = TaskKind::Copy;
  o.symbols = c.symbols;
  o.variable_length = true;
  return o;
}

ModelConfig model_config(const Config& c, double base, int seed) {
  ModelConfig m;
  m.encoding = parse_encoding("rope");
  m.rope_base = base;
  m.layers = c.layers;
  m.heads = c.heads;
  m.d_model = c.d_model;
  m.mlp_ratio = c.mlp_ratio;
  m.vocab_size = task_vocab_size(task_options(c));
  m.max_length = c.length;
  m.seed = 1000 + static_cast<uint64_t>(seed);
  return m;
}

// CPU seconds of this thread (the tool runs on one: tools::thread_cpu_seconds), and wall seconds.
struct Timer {
  double cpu0 = thread_cpu_seconds();
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  double cpu() const { return thread_cpu_seconds() - cpu0; }
  double wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); }
};
struct Cost {
  double cpu = 0, wall = 0;
  void add(const Timer& t) { cpu += t.cpu(), wall += t.wall(); }
};
std::string cost_json(const Cost& c) { return "{\"cpuSeconds\":" + num(c.cpu) + ",\"wallSeconds\":" + num(c.wall) + "}"; }

using Score = FloorScore;
std::string score_json(const Score& s) { return "{\"accuracy\":" + num(s.accuracy) + ",\"loss\":" + num(s.loss) + "}"; }

// ---------------------------------------------------------------------------
// Runs

struct Row {
  std::string kind;     // "zeroShot" | "finetuned"
  std::string scaling;  // "none" | "linear" | "ntk" | "yarn"
  std::vector<LengthResult> lengths;
  Cost finetune, eval;
};

struct Run {
  double base = 0;
  int seed = 0;
  std::size_t parameters = 0;
  double final_loss = 0;  // mean training loss of the last 10% of the steps
  Cost pretrain;
  std::vector<Row> rows;
};

// The RoPE override a fine-tune trains and evaluates with: PI or YaRN at factor `factor` over
// trainLength T (unset: the plain fine-tune).
std::optional<RopeScaling> finetune_scaling(SweepScaling s, int factor, int T) {
  if (s == SweepScaling::None) return std::nullopt;
  RopeScaling r;
  r.factor = static_cast<double>(factor);
  if (s == SweepScaling::Linear) {
    r.type = parse_rope_type("linear");
  } else {
    r.type = parse_rope_type("yarn");
    r.original_max_position_embeddings = T;
  }
  return r;
}

// A float32 copy of `trained`, trained finetune_steps() steps at finetune_length() on the same task
// (variable-length), with the override `scaling` (lr: warmup 10%, cosine to a tenth).
Model finetune(const Config& c, const Model& trained, int seed, const std::optional<RopeScaling>& scaling) {
  SaveOptions exact;
  exact.weights = WeightFormat::Float32;
  const std::vector<uint8_t> bytes = save_checkpoint(trained, exact);
  Model m = load_checkpoint(bytes.data(), bytes.size());
  m.optimizer_options().beta2 = c.beta2;
  m.reset_optimizer();
  const int L = c.finetune_length(), B = c.finetune_batch, steps = c.finetune_steps();
  TaskGenerator data(task_options(c), 300 + static_cast<uint64_t>(seed));
  std::vector<int32_t> tokens(static_cast<std::size_t>(B) * L), targets(tokens.size());
  ForwardOptions fo;
  fo.rope_scaling = scaling;
  for (int step = 0; step < steps; ++step) {
    data.sample(B, L, tokens.data(), targets.data());
    m.train_step(tokens.data(), targets.data(), B, L,
                 lr_at(step, steps, std::max(1, steps / 10), c.finetune_lr, c.finetune_lr / 10), fo);
  }
  return m;
}

SweepOptions sweep_options(const Config& c, std::vector<int> lengths) {
  SweepOptions so;
  so.lengths = std::move(lengths);
  so.train_length = c.length;
  so.sequences = c.eval_sequences;
  so.seed = c.eval_seed;
  so.attention_sequences = 0;  // accuracy and loss only: attention maps at 4x T cost more than the forward
  so.grid_depths.clear();
  return so;
}

Run run_one(const Config& c, double base, int seed) {
  Run r;
  r.base = base;
  r.seed = seed;
  const TaskOptions task = task_options(c);
  const int T = c.length, B = c.batch;
  Model model(model_config(c, base, seed));
  model.optimizer_options().beta2 = c.beta2;
  r.parameters = model.num_parameters();
  {
    Timer t;
    TaskGenerator data(task, 100 + static_cast<uint64_t>(seed));
    std::vector<int32_t> tokens(static_cast<std::size_t>(B) * T), targets(tokens.size());
    const int tail = std::max(1, c.steps / 10);
    double tail_loss = 0;
    for (int step = 0; step < c.steps; ++step) {
      const int L = step < c.short_steps ? c.short_length : T;
      data.sample(B, L, tokens.data(), targets.data());
      const LossResult e = model.train_step(tokens.data(), targets.data(), B, L, lr_at(step, c.steps, c.warmup, c.lr, c.min_lr));
      if (step >= c.steps - tail) tail_loss += e.loss;
    }
    r.final_loss = tail_loss / tail;
    r.pretrain.add(t);
  }
  const std::vector<int> all = c.eval_lengths(), longer(all.begin() + 1, all.end());
  // Zero shot: at L <= T every scaling is the plain model (sweep.hpp), so the scalings run past T only.
  for (SweepScaling s : {SweepScaling::None, SweepScaling::Linear, SweepScaling::Ntk, SweepScaling::Yarn}) {
    Timer t;
    SweepOptions so = sweep_options(c, s == SweepScaling::None ? all : longer);
    so.scaling = s;
    Row row{"zeroShot", sweep_scaling_name(s), sweep(model, task, so).lengths, {}, {}};
    row.eval.add(t);
    r.rows.push_back(std::move(row));
  }
  for (SweepScaling s : {SweepScaling::Linear, SweepScaling::Yarn, SweepScaling::None}) {
    Row row{"finetuned", sweep_scaling_name(s), {}, {}, {}};
    const std::optional<RopeScaling> rs = finetune_scaling(s, c.factor, T);
    Timer tf;
    Model tuned = finetune(c, model, seed, rs);
    row.finetune.add(tf);
    Timer te;
    SweepOptions so = sweep_options(c, all);
    so.scaling = s;
    so.fixed_rope_scaling = rs;  // the fine-tuned model keeps its frequencies at every length, 1x included
    row.lengths = sweep(tuned, task, so).lengths;
    row.eval.add(te);
    r.rows.push_back(std::move(row));
  }
  return r;
}

// ---------------------------------------------------------------------------
// JSON

double accuracy_at(const Row& row, int L) {
  for (const LengthResult& l : row.lengths)
    if (l.length == L) return l.accuracy;
  return NAN;
}

std::string experiment_json(const Config& c, const std::vector<Run>& runs, const Cost& total) {
  const TaskOptions task = task_options(c);
  const std::vector<int> lengths = c.eval_lengths();
  std::vector<Score> bag;
  for (int L : lengths) bag.push_back(bag_floor(task, L, c.eval_sequences, c.eval_seed));
  const Score chance{1.0 / c.symbols, std::log(static_cast<double>(c.symbols))};
  std::ostringstream j;
  j << "{\n\"version\":1,\n\"about\":" << str("RoPE context extension in an LLM-like rotary spectrum (issue 28, item 5): "
                                              "plain RoPE pretrained at trainLength on variable-length copy, evaluated "
                                              "zero shot with each scaling, and fine-tuned at the extended length with PI, "
                                              "YaRN and no interpolation");
  j << ",\n\"config\":{\"task\":\"copy\",\"symbols\":" << c.symbols << ",\"vocabSize\":" << task_vocab_size(task)
    << ",\"variableLength\":true,\"trainLength\":" << c.length << ",\"model\":{\"layers\":" << c.layers
    << ",\"heads\":" << c.heads << ",\"dModel\":" << c.d_model << ",\"mlpRatio\":" << c.mlp_ratio
    << ",\"headDim\":" << c.head_dim() << ",\"ropeLayout\":\"half\"},\"bases\":" << list(c.bases, num_exact);
  std::vector<int> seeds(c.seeds);
  for (int s = 0; s < c.seeds; ++s) seeds[s] = s;
  j << ",\"seeds\":" << ints(seeds) << ",\"steps\":" << c.steps << ",\"batch\":" << c.batch
    << ",\"lr\":" << num_exact(c.lr) << ",\"minLr\":" << num_exact(c.min_lr) << ",\"warmup\":" << c.warmup
    << ",\"beta2\":" << num_exact(c.beta2) << ",\"weightDecay\":" << num_exact(AdamWOptions{}.weight_decay)
    << ",\"shortSteps\":" << std::min(c.short_steps, c.steps) << ",\"shortLength\":" << c.short_length
    << ",\"pretrainTokens\":" << c.pretrain_tokens();
  const long long ft_tokens = static_cast<long long>(c.finetune_steps()) * c.finetune_batch * c.finetune_length();
  j << ",\"factor\":" << c.factor << ",\"evalLengths\":" << ints(lengths) << ",\"evalSequences\":" << c.eval_sequences
    << ",\"evalSeed\":" << c.eval_seed << ",\"finetune\":{\"length\":" << c.finetune_length()
    << ",\"steps\":" << c.finetune_steps() << ",\"batch\":" << c.finetune_batch << ",\"lr\":" << num_exact(c.finetune_lr)
    << ",\"minLr\":" << num_exact(c.finetune_lr / 10) << ",\"warmup\":" << std::max(1, c.finetune_steps() / 10)
    << ",\"tokens\":" << ft_tokens << ",\"share\":"
    << num(static_cast<double>(ft_tokens) / static_cast<double>(c.pretrain_tokens())) << "}";
  j << ",\"scalings\":{\"none\":\"plain RoPE\",\"linear\":\"position interpolation, HF rope_type linear, factor L / trainLength\""
    << ",\"ntk\":\"NTK-aware base base*(L/trainLength)^(d/(d-2)): HF rope_type dynamic at seq_len L, one forward over "
       "the whole sequence\",\"yarn\":\"HF rope_type yarn, factor L / trainLength, original_max_position_embeddings "
       "trainLength, beta_fast 32, beta_slow 1\",\"appliedWhen\":\"L > trainLength (zero shot); fine-tuned: factor "
    << c.factor << " at every length\"}";
  j << ",\"learnedMargin\":" << num_exact(kLearnedMargin) << "},\n\"floors\":[";
  for (std::size_t i = 0; i < lengths.size(); ++i)
    j << (i ? "," : "") << "{\"length\":" << lengths[i] << ",\"uniform\":" << score_json(chance)
      << ",\"bag\":" << score_json(bag[i]) << "}";
  j << "],\n\"runs\":[";
  Cost pretrain, zero, tune, tuned_eval;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    const double one = accuracy_at(r.rows[0], c.length);
    const bool learned = one > std::max(chance.accuracy, bag[0].accuracy) + kLearnedMargin;
    pretrain.cpu += r.pretrain.cpu, pretrain.wall += r.pretrain.wall;
    j << (k ? ",\n" : "\n") << "{\"base\":" << num_exact(r.base) << ",\"seed\":" << r.seed << ",\"parameters\":"
      << r.parameters << ",\"finalTrainLoss\":" << num(r.final_loss) << ",\"learned\":" << (learned ? "true" : "false")
      << ",\"pretrain\":" << cost_json(r.pretrain) << ",\"rows\":[";
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      const Row& row = r.rows[i];
      Cost& e = row.kind == "zeroShot" ? zero : tuned_eval;
      e.cpu += row.eval.cpu, e.wall += row.eval.wall;
      tune.cpu += row.finetune.cpu, tune.wall += row.finetune.wall;
      j << (i ? "," : "") << "\n {\"kind\":" << str(row.kind) << ",\"scaling\":" << str(row.scaling);
      if (row.kind == "finetuned") j << ",\"finetune\":" << cost_json(row.finetune);
      j << ",\"eval\":" << cost_json(row.eval) << ",\"lengths\":"
        << list(row.lengths, [](const LengthResult& l) {
             return "{\"length\":" + std::to_string(l.length) + ",\"accuracy\":" + num(l.accuracy) +
                    ",\"loss\":" + num(l.loss) + ",\"scored\":" + std::to_string(l.scored) + "}";
           })
        << "}";
    }
    j << "]}";
  }
  j << "\n],\n\"cost\":{\"pretrain\":" << cost_json(pretrain) << ",\"zeroShot\":" << cost_json(zero)
    << ",\"finetune\":" << cost_json(tune) << ",\"finetunedEval\":" << cost_json(tuned_eval)
    << ",\"total\":" << cost_json(total) << "}\n}\n";
  return j.str();
}

std::string run_all(const Config& c) {
  Timer t;
  std::vector<Run> runs;
  for (double base : c.bases)
    for (int seed = 0; seed < c.seeds; ++seed) {
      Timer one;
      runs.push_back(run_one(c, base, seed));
      const Run& r = runs.back();
      std::fprintf(stderr, "posenc_spectrum: base %g seed %d: final train loss %.3f, 1x accuracy %.3f (%.0f CPU s)\n",
                   base, seed, r.final_loss, accuracy_at(r.rows[0], c.length), one.cpu());
    }
  Cost total;
  total.add(t);
  return experiment_json(c, runs, total);
}

// The members that hold timings: two runs of one configuration differ there only.
constexpr const char* kTimings = "cpuSeconds|wallSeconds";

void usage(FILE* f) {
  std::fprintf(f,
               "usage: posenc_spectrum [--out DIR] [--quick] [--bases LIST] [--seeds N] [--steps N] [--short-steps N]\n"
               "                       [--short-length N] [--batch N] [--length N] [--factor N] [--symbols N] [--layers N]\n"
               "                       [--heads N] [--d-model N] [--lr X] [--eval-sequences N] [--check-deterministic]\n"
               "  --out DIR              writes DIR/docs/experiments/spectrum.json (.)\n"
               "  --quick                a few seconds: T 32, head_dim 8, 1 base, 1 seed, 30 steps (for tests)\n"
               "  --bases LIST           RoPE bases, comma-separated (500,1500,10000)\n"
               "  --seeds N              seeds 0..N-1 per base (3)\n"
               "  --steps N              pretraining steps (1600; the first --short-steps (1000) at --short-length (128));\n"
               "                         the fine-tunes get 2%% of its tokens\n"
               "  --factor N             the extension: evaluation at 1x, 2x, .. N x length, fine-tunes at N x length (4)\n"
               "  --length N             the pretraining length T (512); --batch N its batch (16)\n"
               "  --symbols N            copy's symbols (64); --layers, --heads, --d-model: the model (2, 2, 64)\n"
               "  --lr X                 peak pretraining learning rate (0.003; cosine to a tenth)\n"
               "  --eval-sequences N     full-length sequences per evaluation length (16)\n"
               "  --check-deterministic  run the configuration twice and compare the JSON (timings aside); writes nothing\n");
}

// --quick: a few seconds, for tests.
void apply_quick(Config& c) {
  c.quick = true;
  c.bases = {100};
  c.seeds = 1;
  c.layers = 1;
  c.d_model = 16;
  c.heads = 2;
  c.symbols = 8;
  c.length = 32;
  c.steps = 30;
  c.short_steps = 10;
  c.short_length = 16;
  c.batch = 8;
  c.warmup = 3;
  c.finetune_share = 0.1;
  c.eval_sequences = 4;
}

}  // namespace

int main(int argc, char** argv) {
  return run_tool("posenc_spectrum", [&] {
    Config c;
    Args args(argc, argv);
    if (args.has("--quick")) apply_quick(c);  // first, so explicit flags override its values whatever their order
    while (args.next()) {
      const std::string& k = args.flag();
      if (k == "--help" || k == "-h") {
        usage(stdout);
        return 0;
      } else if (k == "--quick") {
      } else if (k == "--check-deterministic") {
        c.check = true;
      } else if (k == "--out") {
        c.out = args.value();
      } else if (k == "--bases") {
        c.bases = args.list<double>([&](const std::string& b) { return parse_number(k, b, 1, 1e9); });
        if (c.bases.empty()) range_error(k, "a comma-separated list of numbers in (1, 1e9)", args.taken().back());
      } else if (k == "--seeds") {
        c.seeds = args.integer(1, 100);
      } else if (k == "--steps") {
        c.steps = args.integer(1, 1000000);
        c.warmup = std::min(c.warmup, c.steps / 10);
      } else if (k == "--batch") {
        c.batch = args.integer(1, 1024);
      } else if (k == "--length") {
        c.length = args.integer(8, 4096);
      } else if (k == "--factor") {
        c.factor = args.integer(2, 16);
      } else if (k == "--short-steps") {
        c.short_steps = args.integer(0, 1000000);
      } else if (k == "--short-length") {
        c.short_length = args.integer(8, 4096);
      } else if (k == "--symbols") {
        c.symbols = args.integer(2, 4096);
      } else if (k == "--layers") {
        c.layers = args.integer(1, 16);
      } else if (k == "--heads") {
        c.heads = args.integer(1, 64);
      } else if (k == "--d-model") {
        c.d_model = args.integer(2, 1024);
      } else if (k == "--lr") {
        c.lr = args.number<float>(0, 1);
        c.min_lr = c.lr / 10;
      } else if (k == "--eval-sequences") {
        c.eval_sequences = args.integer(1, 4096);
      } else {
        args.unknown();
      }
    }
    if (c.short_length > c.length)
      range_error("--short-length", "a length <= --length (" + std::to_string(c.length) + ")",
                  std::to_string(c.short_length));
    if (c.factor * c.length > kMaxSequenceLength)
      range_error("--factor", "a factor with factor x length <= " + std::to_string(kMaxSequenceLength),
                  std::to_string(c.factor));
    if (c.check) {
      const std::string a = without_timings(run_all(c), kTimings), b = without_timings(run_all(c), kTimings);
      if (a != b) {
        std::fprintf(stderr, "posenc_spectrum: two runs of the same configuration differ\n");
        return 1;
      }
      std::fprintf(stderr, "posenc_spectrum: deterministic (%zu bytes of JSON identical, timings aside)\n", a.size());
      return 0;
    }
    const std::string json = run_all(c);
    const fs::path dir = fs::path(c.out) / "docs" / "experiments";
    fs::create_directories(dir);
    std::ofstream f(dir / "spectrum.json", std::ios::binary);
    f << json;
    if (!f) {
      std::fprintf(stderr, "posenc_spectrum: cannot write %s\n", (dir / "spectrum.json").c_str());
      return 1;
    }
    std::fprintf(stderr, "posenc_spectrum: wrote %s\n", (dir / "spectrum.json").c_str());
    return 0;
  });
}
