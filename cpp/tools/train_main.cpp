// posenc_train: trains every position encoding on every task natively, evaluates
// each trained model at lengths up to 8x its training length (posenc::sweep), and
// writes the checkpoints the page loads plus a results JSON.
//
//   posenc_train [--out DIR] [--quick] [--seeds N] [--tasks copy,reverse,retrieval,markov]
//                [--encodings LIST (the registry's names)] [--jobs N]
//                [--steps N] [--batch N] [--length N] [--lr X] [--warmup N] [--beta2 X]
//                [--layers N] [--heads N] [--d-model N] [--mlp-ratio N]
//                [--eval-sequences N] [--grid-sequences N] [--no-scalings] [--check-reproducible]
//
// Defaults (the full run): 4 tasks x every registered encoding x seeds 0,1,2; d_model 32, 2 layers,
// 4 heads, MLP ratio 3 (~22k parameters, ~88 KB per checkpoint); 4000 AdamW steps of
// batch 32 at length 32 (lr 6e-3 -> 6e-4 cosine, warmup 250, beta2 0.95); evaluation
// at 0.5, 1, 1.5, 2, 3, 4, 6 and 8 x 32 = 16 .. 256, RoPE also with each scaling.
// Seeds of run `seed`: model init 1000 + seed, training data 100 + seed, held-out batch
// 5000 + seed; the evaluation sequences are the same for every run (posenc::sweep_seed).
// Training uses variable-length Copy/Reverse/Retrieval (sizes up to the length), the
// evaluation fills every length.
//
// Writes DIR/web/checkpoints/<task>-<encoding>.ckpt (seed 0 of each pair) and
// DIR/docs/results.json (schema below). Progress lines with an ETA go to stderr.
//
// Determinism: runs are independent (each has its own Model and generators, and
// the kernels keep their scratch thread_local), their results are gathered by run
// index, and every number is a pure function of the flags except the timings, so
// the same flags give byte-identical checkpoints and identical results for any
// --jobs. --check-reproducible runs this binary twice (--jobs 1 and --jobs 2) into
// DIR/a and DIR/b and compares the two outputs (registered with CTest on --quick).
//
// results.json:
//   { "version": 1,
//     "config": { trainLength, evalLengths, seeds, model: {layers, heads, dModel, mlpRatio, ...},
//                 steps, batch, lr, minLr, warmup, tasks, encodings, taskOptions: {<task>: {...}},
//                 evaluation: {...}, ropeScalings: {...}, jobs, seconds (total wall time) },
//     "runs": [ { task, encoding, seed, scaling ("none" | "linear" | "ntk" | "dynamic" | "yarn"),
//                 trainSeconds, evalSeconds, steps, parameters, trainedLength,
//                 finalTrainAccuracy, finalTrainLoss,
//                 lengths: [ { length, accuracy, loss, scored, oracleAccuracy, oracleLoss,
//                              untrainedPositions, accuracyByPosition: [16 numbers or null],
//                              heads: [ {layer, head, entropy, distance} ... ] } ... ],
//                 grid: { depths, lengths, accuracy: [[per depth, per length]] }   (retrieval only)
//                 checkpoint: "web/checkpoints/<task>-<encoding>.ckpt"  (seed 0, scaling "none") } ] }
//   Rows with scaling != "none" reuse the trained RoPE model of the same seed (no retraining).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "posenc/checkpoint.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "posenc/sweep.hpp"
#include "posenc/tasks.hpp"

namespace fs = std::filesystem;
using namespace posenc;
using Clock = std::chrono::steady_clock;

namespace {

// Every encoding of the registry (posenc/encoding.hpp), and their names for --help.
std::vector<Encoding> registered_encodings() {
  std::vector<Encoding> out;
  for (const EncodingInfo& e : encodings()) out.push_back(e.id);
  return out;
}
std::string registered_names() {
  std::string s;
  for (const EncodingInfo& e : encodings()) s += (s.empty() ? "" : ",") + std::string(e.name);
  return s;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---------------------------------------------------------------------------
// Configuration

struct Config {
  std::string out = ".";
  bool quick = false;
  bool check_reproducible = false;
  int seeds = 3;
  std::vector<TaskKind> tasks = {TaskKind::Copy, TaskKind::Reverse, TaskKind::Retrieval, TaskKind::Markov};
  std::vector<Encoding> encodings = registered_encodings();
  int jobs = 2;
  // model
  int layers = 2, heads = 4, d_model = 32, mlp_ratio = 3;  // ~22k parameters: 88 KB checkpoints
  // training
  int length = 32, steps = 4000, batch = 32, warmup = 250;
  float lr = 6e-3f, min_lr = 6e-4f;
  float beta2 = AdamWOptions{}.beta2;  // the experiment's AdamW beta2 (posenc/model.hpp)
  // evaluation
  std::vector<double> eval_factors = {0.5, 1, 1.5, 2, 3, 4, 6, 8};
  int eval_sequences = 64, grid_sequences = 64, attention_sequences = 4;
  uint64_t eval_seed = 20240601;
  bool scalings = true;
  double dynamic_factor = 2.0;
};

// The task variants trained here (see tasks.hpp for what each one is).
TaskOptions task_options(TaskKind k) {
  TaskOptions o;
  o.kind = k;
  switch (k) {
    case TaskKind::Copy:
    case TaskKind::Reverse:
      o.symbols = 8;
      o.variable_length = true;
      break;
    case TaskKind::Retrieval:
      o.symbols = 16;  // 8 keys, 8 values, 64 pair tokens (packed layout)
      o.variable_length = true;
      break;
    case TaskKind::Markov:
      o.symbols = 8;
      o.order = 2;
      o.branching = 3;
      o.table_seed = 1;
      break;
  }
  return o;
}

ModelConfig model_config(const Config& c, Encoding e, const TaskOptions& t, int seed) {
  ModelConfig m;
  m.encoding = e;
  m.layers = c.layers;
  m.heads = c.heads;
  m.d_model = c.d_model;
  m.mlp_ratio = c.mlp_ratio;
  m.vocab_size = task_vocab_size(t);
  m.max_length = c.length;
  m.seed = 1000 + static_cast<uint64_t>(seed);
  // Learned tables are evaluated past their end by reusing the last trained row
  // (the untrained positions are counted in each length's untrainedPositions).
  m.learned_policy = OutOfRange::Clamp;
  return m;
}

std::vector<int> eval_lengths(const Config& c) {
  std::vector<int> out;
  for (double f : c.eval_factors) {
    const int L = static_cast<int>(std::lround(f * c.length));
    if (L >= 6 && (out.empty() || L != out.back())) out.push_back(L);
  }
  return out;
}

// ---------------------------------------------------------------------------
// One run: train, then sweep (plus the RoPE scalings)

struct RunSpec {
  TaskKind task;
  Encoding encoding;
  int seed;
};

struct RunResult {
  RunSpec spec;
  double train_seconds = 0, eval_seconds = 0;
  int steps = 0;
  std::size_t parameters = 0;
  int trained_length = 0;
  double final_accuracy = 0, final_loss = 0;
  std::vector<SweepResult> sweeps;
  std::vector<uint8_t> checkpoint;  // seed 0 only
};

RunResult run_one(const Config& c, const RunSpec& spec) {
  RunResult r;
  r.spec = spec;
  const TaskOptions to = task_options(spec.task);
  Model model(model_config(c, spec.encoding, to, spec.seed));
  model.optimizer_options().beta2 = c.beta2;
  r.parameters = model.num_parameters();
  TaskGenerator data(to, 100 + static_cast<uint64_t>(spec.seed));
  const int B = c.batch, T = c.length;
  std::vector<int32_t> tokens(static_cast<std::size_t>(B) * T), targets(tokens.size());
  const auto t0 = Clock::now();
  for (int step = 0; step < c.steps; ++step) {
    data.sample(B, T, tokens.data(), targets.data());
    model.train_step(tokens.data(), targets.data(), B, T, lr_at(step, c.steps, c.warmup, c.lr, c.min_lr));
  }
  r.train_seconds = seconds_since(t0);
  r.steps = c.steps;
  r.trained_length = model.trained_length();

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
  so.sequences = spec.task == TaskKind::Retrieval ? 4 * c.eval_sequences : c.eval_sequences;
  so.grid_sequences = c.grid_sequences;
  so.attention_sequences = std::min(c.attention_sequences, so.sequences);
  so.seed = c.eval_seed;
  so.dynamic_factor = c.dynamic_factor;
  r.sweeps.push_back(sweep(model, to, so));
  if (spec.encoding == Encoding::Rope && c.scalings)
    for (SweepScaling s : {SweepScaling::Linear, SweepScaling::Ntk, SweepScaling::Dynamic, SweepScaling::Yarn}) {
      so.scaling = s;
      r.sweeps.push_back(sweep(model, to, so));
    }
  r.eval_seconds = seconds_since(t1);
  if (spec.seed == 0) r.checkpoint = save_checkpoint(model);
  return r;
}

// ---------------------------------------------------------------------------
// JSON (written by hand: numbers with 4 significant digits, NaN as null; the page ships
// this file, and 4 digits are plenty for accuracies over <= 256 sequences)

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
std::string num_exact(double v) {  // configuration values (10000, 0.006; float settings hold 7 digits)
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}
std::string str(const std::string& s) { return "\"" + s + "\""; }
template <class T, class F>
std::string list(const std::vector<T>& v, F&& f) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + f(v[i]);
  return s + "]";
}
std::string nums(const std::vector<double>& v) { return list(v, [](double x) { return num(x); }); }
std::string ints(const std::vector<int>& v) { return list(v, [](int x) { return std::to_string(x); }); }

std::string checkpoint_name(const RunSpec& s) {
  return std::string("web/checkpoints/") + task_name(s.task) + "-" + encoding_name(s.encoding) + ".ckpt";
}

std::string task_json(const TaskOptions& o) {
  std::string s = "{\"symbols\":" + std::to_string(o.symbols) + ",\"vocabSize\":" + std::to_string(task_vocab_size(o));
  if (o.kind == TaskKind::Markov)
    s += ",\"order\":" + std::to_string(o.order) + ",\"branching\":" + std::to_string(o.branching) +
         ",\"tableSeed\":" + std::to_string(o.table_seed);
  else
    s += std::string(",\"variableLength\":") + (o.variable_length ? "true" : "false");
  if (o.kind == TaskKind::Retrieval) s += std::string(",\"packed\":") + (o.packed ? "true" : "false");
  return s + "}";
}

std::string results_json(const Config& c, const std::vector<RunResult>& runs, double seconds) {
  std::ostringstream j;
  std::vector<int> seeds(c.seeds);
  for (int i = 0; i < c.seeds; ++i) seeds[i] = i;
  j << "{\n\"version\":1,\n\"config\":{";
  j << "\"trainLength\":" << c.length << ",\"evalLengths\":" << ints(eval_lengths(c)) << ",\"seeds\":" << ints(seeds);
  ModelConfig probe = model_config(c, Encoding::Rope, task_options(TaskKind::Copy), 0);
  j << ",\"model\":{\"layers\":" << c.layers << ",\"heads\":" << c.heads << ",\"dModel\":" << c.d_model
    << ",\"mlpRatio\":" << c.mlp_ratio << ",\"ropeBase\":" << num_exact(probe.rope_base) << ",\"ropeLayout\":\"half\""
    << ",\"t5NumBuckets\":" << probe.t5_num_buckets << ",\"t5MaxDistance\":" << probe.t5_max_distance
    << ",\"shawK\":" << probe.shaw_k << ",\"learnedPolicy\":\"clamp\"}";
  j << ",\"steps\":" << c.steps << ",\"batch\":" << c.batch << ",\"lr\":" << num_exact(c.lr) << ",\"minLr\":" << num_exact(c.min_lr)
    << ",\"warmup\":" << c.warmup << ",\"beta2\":" << num_exact(c.beta2)
    << ",\"weightDecay\":" << num_exact(AdamWOptions{}.weight_decay);
  j << ",\"tasks\":" << list(c.tasks, [](TaskKind k) { return str(task_name(k)); });
  j << ",\"encodings\":" << list(c.encodings, [](Encoding e) { return str(encoding_name(e)); });
  j << ",\"taskOptions\":{";
  for (std::size_t i = 0; i < c.tasks.size(); ++i)
    j << (i ? "," : "") << str(task_name(c.tasks[i])) << ":" << task_json(task_options(c.tasks[i]));
  j << "}";
  j << ",\"evaluation\":{\"sequences\":" << c.eval_sequences << ",\"retrievalSequences\":" << 4 * c.eval_sequences
    << ",\"gridSequences\":" << c.grid_sequences << ",\"attentionSequences\":" << c.attention_sequences
    << ",\"positionBins\":16,\"seed\":" << c.eval_seed << "}";
  j << ",\"ropeScalings\":{\"linear\":{\"rope_type\":\"linear\",\"factor\":\"L/trainLength\"}"
    << ",\"ntk\":{\"rope_type\":\"default\",\"base\":\"base*(L/trainLength)^(d/(d-2))\"}"
    << ",\"dynamic\":{\"rope_type\":\"dynamic\",\"factor\":" << num_exact(c.dynamic_factor)
    << ",\"max_position_embeddings\":" << c.length << "}"
    << ",\"yarn\":{\"rope_type\":\"yarn\",\"factor\":\"L/trainLength\",\"original_max_position_embeddings\":"
    << c.length << "},\"appliedWhen\":\"L > trainLength\"}";
  j << ",\"jobs\":" << c.jobs << ",\"seconds\":" << num(seconds) << "},\n\"runs\":[\n";
  bool first = true;
  for (const RunResult& r : runs)
    for (const SweepResult& s : r.sweeps) {
      j << (first ? "" : ",\n");
      first = false;
      j << "{\"task\":" << str(task_name(r.spec.task)) << ",\"encoding\":" << str(encoding_name(r.spec.encoding))
        << ",\"seed\":" << r.spec.seed << ",\"scaling\":" << str(s.scaling) << ",\"trainSeconds\":"
        << num(r.train_seconds) << ",\"evalSeconds\":" << num(r.eval_seconds) << ",\"steps\":" << r.steps
        << ",\"parameters\":" << r.parameters << ",\"trainedLength\":" << r.trained_length
        << ",\"finalTrainAccuracy\":" << num(r.final_accuracy) << ",\"finalTrainLoss\":" << num(r.final_loss);
      j << ",\"lengths\":[";
      for (std::size_t i = 0; i < s.lengths.size(); ++i) {
        const LengthResult& l = s.lengths[i];
        j << (i ? "," : "") << "\n {\"length\":" << l.length << ",\"accuracy\":" << num(l.accuracy)
          << ",\"loss\":" << num(l.loss) << ",\"scored\":" << l.scored << ",\"oracleAccuracy\":"
          << num(l.oracle_accuracy) << ",\"oracleLoss\":" << num(l.oracle_loss)
          << ",\"untrainedPositions\":" << l.untrained_positions
          << ",\"accuracyByPosition\":" << nums(l.accuracy_by_position) << ",\"heads\":"
          << list(l.heads, [](const HeadStats& h) {
               return "{\"layer\":" + std::to_string(h.layer) + ",\"head\":" + std::to_string(h.head) +
                      ",\"entropy\":" + num(h.entropy) + ",\"distance\":" + num(h.distance) + "}";
             })
          << "}";
      }
      j << "]";
      if (!s.grid_accuracy.empty())
        j << ",\n \"grid\":{\"depths\":" << nums(s.grid_depths) << ",\"lengths\":" << ints(s.grid_lengths)
          << ",\"accuracy\":" << list(s.grid_accuracy, [](const std::vector<double>& row) { return nums(row); })
          << "}";
      if (r.spec.seed == 0 && s.scaling == "none") j << ",\"checkpoint\":" << str(checkpoint_name(r.spec));
      j << "}";
    }
  j << "\n]\n}\n";
  return j.str();
}

// ---------------------------------------------------------------------------
// Driver

std::string clock_string(double s) {
  char buf[32];
  const int t = static_cast<int>(std::lround(s));
  std::snprintf(buf, sizeof buf, "%d:%02d", t / 60, t % 60);
  return buf;
}

double accuracy_at(const SweepResult& s, int length) {
  for (const LengthResult& l : s.lengths)
    if (l.length == length) return l.accuracy;
  return NAN;
}

int run_all(const Config& c) {
  std::vector<RunSpec> specs;
  for (TaskKind t : c.tasks)
    for (Encoding e : c.encodings)
      for (int s = 0; s < c.seeds; ++s) specs.push_back({t, e, s});
  std::vector<RunResult> results(specs.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex io;
  std::size_t done = 0;
  const auto t0 = Clock::now();
  const std::vector<int> lengths = eval_lengths(c);
  std::fprintf(stderr, "posenc_train: %zu runs (%zu tasks x %zu encodings x %d seeds), %d steps each, %d job%s\n",
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
                   "[%3zu/%zu] %-9s %-10s seed %d  train acc %.3f  acc@%d %.3f  acc@%d %.3f  (%.1fs + %.1fs)  "
                   "elapsed %s  ETA %s\n",
                   done, specs.size(), task_name(r.spec.task), encoding_name(r.spec.encoding), r.spec.seed,
                   r.final_accuracy, c.length, accuracy_at(r.sweeps[0], c.length), lengths.back(),
                   accuracy_at(r.sweeps[0], lengths.back()), r.train_seconds, r.eval_seconds,
                   clock_string(el).c_str(), clock_string(el / done * (specs.size() - done)).c_str());
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, c.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (failed) return 1;
  const double seconds = seconds_since(t0);

  const fs::path out(c.out);
  fs::create_directories(out / "web" / "checkpoints");
  fs::create_directories(out / "docs");
  std::size_t ckpt_bytes = 0, ckpt_files = 0;
  for (const RunResult& r : results)
    if (!r.checkpoint.empty()) {
      std::ofstream f(out / checkpoint_name(r.spec), std::ios::binary);
      f.write(reinterpret_cast<const char*>(r.checkpoint.data()), static_cast<std::streamsize>(r.checkpoint.size()));
      if (!f) {
        std::fprintf(stderr, "posenc_train: cannot write %s\n", (out / checkpoint_name(r.spec)).c_str());
        return 1;
      }
      ckpt_bytes += r.checkpoint.size();
      ++ckpt_files;
    }
  {
    std::ofstream f(out / "docs" / "results.json", std::ios::binary);
    f << results_json(c, results, seconds);
    if (!f) {
      std::fprintf(stderr, "posenc_train: cannot write %s\n", (out / "docs" / "results.json").c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "posenc_train: done in %s; %zu checkpoints (%zu bytes) in %s, results in %s\n",
               clock_string(seconds).c_str(), ckpt_files, ckpt_bytes, (out / "web" / "checkpoints").c_str(),
               (out / "docs" / "results.json").c_str());
  return 0;
}

// ---------------------------------------------------------------------------
// --check-reproducible: run twice in child processes, compare the outputs.

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string without_timings(const std::string& json) {
  static const std::regex timing("\"(seconds|trainSeconds|evalSeconds|jobs)\":[-+0-9.eE]+");
  return std::regex_replace(json, timing, "\"$1\":0");
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

int check_reproducible(const Config& c, const std::vector<std::string>& pass_through) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const fs::path base(c.out);
  std::string args;
  for (const std::string& a : pass_through) args += " " + shell_quote(a);
  for (const char* name : {"a", "b"}) {
    fs::remove_all(base / name);
    const std::string cmd = shell_quote(self.string()) + args + " --jobs " + (name[0] == 'a' ? "1" : "2") +
                            " --out " + shell_quote((base / name).string());
    std::fprintf(stderr, "posenc_train: %s\n", cmd.c_str());
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "posenc_train: the run into %s failed\n", (base / name).c_str());
      return 1;
    }
  }
  int files = 0;
  for (const auto& e : fs::directory_iterator(base / "a" / "web" / "checkpoints")) {
    const fs::path other = base / "b" / "web" / "checkpoints" / e.path().filename();
    if (!fs::exists(other) || read_file(e.path()) != read_file(other)) {
      std::fprintf(stderr, "posenc_train: %s differs between the two runs\n", e.path().filename().c_str());
      return 1;
    }
    ++files;
  }
  if (files == 0) {
    std::fprintf(stderr, "posenc_train: no checkpoints were written\n");
    return 1;
  }
  if (without_timings(read_file(base / "a" / "docs" / "results.json")) !=
      without_timings(read_file(base / "b" / "docs" / "results.json"))) {
    std::fprintf(stderr, "posenc_train: results.json differs between the two runs (timings aside)\n");
    return 1;
  }
  std::fprintf(stderr, "posenc_train: reproducible: %d checkpoints byte-identical, results identical\n", files);
  return 0;
}

// ---------------------------------------------------------------------------
// Flags

template <class T, class F>
std::vector<T> parse_list(const std::string& s, F&& parse) {
  std::vector<T> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(parse(item));
  return out;
}

void usage(FILE* f) {
  std::fprintf(f,
               "usage: posenc_train [--out DIR] [--quick] [--seeds N] [--tasks LIST] [--encodings LIST] [--jobs N]\n"
               "                    [--steps N] [--batch N] [--length N] [--lr X] [--warmup N] [--beta2 X]\n"
               "                    [--layers N] [--heads N] [--d-model N] [--mlp-ratio N]\n"
               "                    [--eval-sequences N] [--grid-sequences N]\n"
               "                    [--no-scalings] [--check-reproducible]\n"
               "  --out DIR            writes DIR/web/checkpoints/<task>-<encoding>.ckpt and DIR/docs/results.json (.)\n"
               "  --quick              a short configuration for tests (copy; rope, alibi; 1 seed; 60 steps)\n"
               "  --seeds N            seeds 0..N-1 per task and encoding (3)\n"
               "  --tasks LIST         comma-separated: copy,reverse,retrieval,markov (all)\n"
               "  --encodings LIST     comma-separated: %s (all)\n"
               "  --jobs N             runs trained in parallel (2); results do not depend on it\n"
               "  --no-scalings        skip the RoPE linear/ntk/dynamic/yarn evaluation sweeps\n"
               "  --check-reproducible run twice (--jobs 1, --jobs 2) into DIR/a and DIR/b and compare\n",
               registered_names().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  std::vector<std::string> pass_through;  // flags forwarded by --check-reproducible
  try {
    // --quick first, so explicit flags override its values whatever their order.
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == "--quick") {
        c.quick = true;
        c.seeds = 1;
        c.tasks = {TaskKind::Copy};
        c.encodings = {Encoding::Rope, Encoding::Alibi};
        c.steps = 60;
        c.warmup = 10;
        c.batch = 8;
        c.length = 16;
        c.eval_factors = {1, 2};
        c.eval_sequences = 8;
        c.grid_sequences = 8;
      }
    for (int i = 1; i < argc; ++i) {
      const std::string k = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(ErrorKind::Range, k + " needs a value");
        pass_through.push_back(k);
        pass_through.push_back(argv[i + 1]);
        return argv[++i];
      };
      auto integer = [&](int lo, int hi) {
        const std::string v = next();
        char* end = nullptr;
        const long x = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || x < lo || x > hi)
          range_error(k.c_str(), "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", v);
        return static_cast<int>(x);
      };
      if (k == "--help" || k == "-h") {
        usage(stdout);
        return 0;
      } else if (k == "--quick") {
        pass_through.push_back(k);
      } else if (k == "--out") {
        c.out = next();
        pass_through.pop_back();
        pass_through.pop_back();
      } else if (k == "--check-reproducible") {
        c.check_reproducible = true;
      } else if (k == "--no-scalings") {
        c.scalings = false;
        pass_through.push_back(k);
      } else if (k == "--seeds") {
        c.seeds = integer(1, 1000);
      } else if (k == "--jobs") {
        c.jobs = integer(1, 64);
        pass_through.pop_back();
        pass_through.pop_back();
      } else if (k == "--tasks") {
        c.tasks = parse_list<TaskKind>(next(), parse_task);
      } else if (k == "--encodings") {
        c.encodings = parse_list<Encoding>(next(), parse_encoding);
      } else if (k == "--steps") {
        c.steps = integer(1, 10000000);
      } else if (k == "--batch") {
        c.batch = integer(1, 4096);
      } else if (k == "--length") {
        c.length = integer(6, 4096);
      } else if (k == "--layers") {
        c.layers = integer(1, 64);
      } else if (k == "--heads") {
        c.heads = integer(1, 64);
      } else if (k == "--d-model") {
        c.d_model = integer(2, 4096);
      } else if (k == "--mlp-ratio") {
        c.mlp_ratio = integer(1, 16);
      } else if (k == "--eval-sequences") {
        c.eval_sequences = integer(1, 100000);
      } else if (k == "--grid-sequences") {
        c.grid_sequences = integer(1, 100000);
      } else if (k == "--warmup") {
        c.warmup = integer(0, 10000000);
      } else if (k == "--beta2") {
        const std::string v = next();
        c.beta2 = std::strtof(v.c_str(), nullptr);
        if (!(c.beta2 >= 0 && c.beta2 < 1)) range_error("--beta2", "a number in [0, 1)", v);
      } else if (k == "--lr") {
        const std::string v = next();
        c.lr = std::strtof(v.c_str(), nullptr);
        if (!(c.lr > 0 && c.lr < 10)) range_error("--lr", "a number in (0, 10)", v);
        c.min_lr = c.lr / 10;
      } else {
        usage(stderr);
        range_error("option", "one of the options above", k);
      }
    }
    if (c.tasks.empty() || c.encodings.empty()) range_error("--tasks/--encodings", "non-empty lists", "[]");
    if (c.warmup > c.steps) c.warmup = c.steps / 10;
    if (c.check_reproducible) return check_reproducible(c, pass_through);
    return run_all(c);
  } catch (const Error& e) {
    std::fprintf(stderr, "posenc_train: %s\n", e.what());
    return 2;
  }
}
