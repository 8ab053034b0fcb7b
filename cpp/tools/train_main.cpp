// posenc_train: trains every position encoding on every task natively, evaluates
// each trained model at lengths up to 8x its training length (posenc::sweep), and
// writes the checkpoints the page loads plus a results JSON.
//
//   posenc_train [--out DIR] [--quick] [--seeds N] [--tasks copy,reverse,retrieval,kth_retrieval,markov]
//                [--encodings LIST (the registry's names)] [--jobs N]
//                [--steps N] [--batch N] [--length N] [--lr X] [--warmup N] [--beta2 X] [--check-every N]
//                [--layers N] [--heads N] [--d-model N] [--mlp-ratio N] [--finetune-steps N]
//                [--random-length N] [--rope-base X] [--strings uniform|distinct|repeats] [--kgram K]
//                [--eval-sequences N] [--grid-sequences N] [--no-scalings] [--no-variants]
//                [--check-reproducible] [--print-tasks] [--probe-checkpoints]
//
// Defaults (the full run): 5 tasks x every registered encoding x seeds 0,1,2, plus RoPE at base
// 10000 (variant "base10000"); d_model 32, 3 layers, 4 heads, MLP ratio 3 (~35k parameters);
// RoPE-family base 16 (rope_random: 10000, see Config::rope_base_random), T5 16 buckets /
// max_distance 32, learned clamp. AdamW, batch 32 at
// length 32, a budget of 5000 steps (lr 6e-3 -> 6e-4 cosine over the budget, warmup 100,
// beta2 0.95) with an early stop: every 100 steps a held-out batch of full-length sequences
// (seed 6000 + seed) is scored, and training stops once it meets the task's target plus a
// margin of 0.03 (accuracy 0.95, kth_retrieval 0.9; markov: loss within 0.05 - 0.015 nats of the
// oracle's on that batch).
// "learned" = the target met at 1x on the evaluation sequences. Evaluation at 0.5, 1, 1.5, 2, 3,
// 4, 6 and 8 x 32 = 16 .. 256; RoPE also with each scaling, and PI / YaRN fine-tuned 200 steps
// at 4 x 32 (batch 8, lr 6e-4 -> 6e-5) with factor 4.
// Seeds of run `seed`: model init 1000 + seed, training data 100 + seed, held-out batch
// 5000 + seed, early-stop batch 6000 + seed, fine-tune data 300 + seed; the evaluation
// sequences are the same for every run (posenc::sweep_seed).
// Training uses variable-length Copy/Reverse/Retrieval/KthRetrieval (sizes up to the length),
// the evaluation fills every length.
//
// Writes DIR/web/checkpoints/<task>-<encoding>.ckpt (seed 0 of each pair), their training curves in
// DIR/web/checkpoints/curves.json (see curves_json) and DIR/docs/results.json (schema below). Progress
// lines with an ETA go to stderr.
//
// Determinism: runs are independent (each has its own Model and generators, and
// the kernels keep their scratch thread_local), their results are gathered by run
// index, and every number is a pure function of the flags except the timings, so
// the same flags give byte-identical checkpoints and identical results for any
// --jobs. --check-reproducible runs this binary twice (--jobs 1 and --jobs 2) into
// DIR/a and DIR/b and compares the two outputs (registered with CTest on --quick).
//
// results.json (version 1 fields; version 2 adds what is listed after the block):
//   { "version": 2,
//     "config": { trainLength, evalLengths, seeds, model: {layers, heads, dModel, mlpRatio, ...},
//                 steps, batch, lr, minLr, warmup, tasks, encodings, taskOptions: {<task>: {...}},
//                 evaluation: {...}, ropeScalings: {...}, jobs, seconds (total wall time) },
//     "runs": [ { task, encoding, seed, scaling ("none" | "linear" | "ntk" | "dynamic" | "yarn"),
//                 trainSeconds, evalSeconds, steps, parameters, trainedLength,
//                 finalTrainAccuracy, finalTrainLoss,
//                 lengths: [ { length, accuracy, loss, scored, oracleAccuracy, oracleLoss,
//                              untrainedPositions, accuracyByPosition: [16 numbers or null],
//                              heads: [ {layer, head, entropy, distance, sink} ... ] } ... ],
//                 grid: { depths, lengths, accuracy: [[per depth, per length]] }   (retrieval only)
//                 checkpoint: "web/checkpoints/<task>-<encoding>.ckpt"  (seed 0, scaling "none") } ] }
//   Rows with scaling != "none" reuse the trained RoPE model of the same seed (no retraining),
//   except the variant "finetuned" rows (PI, YaRN fine-tuned at 4x; see config.finetune).
//
// Version 2 (docs/results.json "version":2; the schema shared with scripts/results-md.js is
// /work/wt/CONTRACT.md's, summarised here): top-level "tasks" {<task>: {role, needsPosition, what,
// cannot, metric, chance, floors, oracle, target}}; every run also has variant, finetune,
// learned, stepsToTarget, scoredLength, and T5 / learned lengths[i].untrainedParameters
// {kind: "t5Buckets" | "learnedRows", count, ids}. A run is (task, encoding, variant, scaling, seed).
//
// The parts: cpp/tools/train/ (train.hpp lists them). This file is the command line.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "flags.hpp"
#include "posenc/error.hpp"
#include "train/train.hpp"

namespace fs = std::filesystem;
using namespace posenc;
using namespace posenc::train;
using posenc::tools::Args;
using posenc::tools::Ends;
using posenc::tools::run_tool;

namespace {

// Writes the runs' checkpoints (seed 0), curves.json beside them and docs/results.json under c.out.
int write_outputs(const Config& c, const std::vector<RunResult>& results, double seconds) {
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
  if (ckpt_files) {
    const fs::path at = out / "web" / "checkpoints" / "curves.json";
    const std::string json = curves_json(c, results, fs::exists(at) ? read_file(at) : "");
    std::ofstream f(at, std::ios::binary);
    f << json;
    if (!f) {
      std::fprintf(stderr, "posenc_train: cannot write %s\n", at.c_str());
      return 1;
    }
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

void usage(FILE* f) {
  std::fprintf(f,
               "usage: posenc_train [--out DIR] [--quick] [--seeds N] [--tasks LIST] [--encodings LIST] [--jobs N]\n"
               "                    [--steps N] [--batch N] [--length N] [--lr X] [--warmup N] [--beta2 X]\n"
               "                    [--layers N] [--heads N] [--d-model N] [--mlp-ratio N]\n"
               "                    [--random-length N] [--rope-base X]\n"
               "                    [--eval-sequences N] [--grid-sequences N]\n"
               "                    [--no-scalings] [--check-reproducible]\n"
               "  --out DIR            writes DIR/web/checkpoints/<task>-<encoding>.ckpt and DIR/docs/results.json (.)\n"
               "  --quick              a short configuration for tests (copy; rope, alibi; 1 seed; 60 steps)\n"
               "  --seeds N            seeds 0..N-1 per task and encoding (3)\n"
               "  --first-seed S       seeds S..S+N-1 instead (more seeds for a few rows; merge with scripts/results-merge.js)\n"
               "  --tasks LIST         comma-separated: copy,reverse,retrieval,kth_retrieval,markov (all)\n"
               "  --strings S          copy and reverse strings: uniform (default), distinct (no repeated k-gram) or\n"
               "                       repeats (two symbols per sequence: content matching fails); --kgram K (3): k of distinct\n"
               "  --encodings LIST     comma-separated: %s (all)\n"
               "  --jobs N             runs trained in parallel (2); results do not depend on it\n"
               "  --no-scalings        skip the RoPE linear/ntk/dynamic/yarn evaluation sweeps (and the fine-tunes)\n"
               "  --no-variants        skip the rope base-10000 variant runs\n"
               "  --finetune-steps N   PI/YaRN fine-tune steps at 4x the length (200; 0 = none)\n"
               "  --check-every N      early-stop check interval in steps (100)\n"
               "  --check-reproducible run twice (--jobs 1, --jobs 2) into DIR/a and DIR/b and compare\n"
               "  --print-tasks        print results.json's \"tasks\" (chance, floors, oracle, target) and exit: no training\n"
               "  --probe-checkpoints  print the shipped checkpoints' sweep (entropy, sink mass, log-length logit\n"
               "                       scaling) as results.json's \"checkpointProbe\" and exit: no training\n"
               "  --fingerprint N      train only the first N steps of each run and print a hash of its parameters\n"
               "                       (one line a run): a cheap check that the training arithmetic has not changed\n",
               registered_names().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  return run_tool("posenc_train", [&] {
    Config c;
    std::vector<std::string> pass_through;  // flags forwarded by --check-reproducible
    std::string print;                      // --print-tasks, --probe-checkpoints
    Args args(argc, argv);
    if (args.has("--quick")) apply_quick(c);  // first, so explicit flags override its values whatever their order
    while (args.next()) {
      const std::string& k = args.flag();
      bool forward = true;  // passed on to the two runs of --check-reproducible
      if (k == "--help" || k == "-h") {
        usage(stdout);
        return 0;
      } else if (k == "--quick") {
      } else if (k == "--out") {
        c.out = args.value();
        forward = false;
      } else if (k == "--check-reproducible") {
        c.check_reproducible = true;
        forward = false;
      } else if (k == "--print-tasks") {
        print = "tasks";
        forward = false;
      } else if (k == "--probe-checkpoints") {
        print = "probe";
        forward = false;
      } else if (k == "--no-scalings") {
        c.scalings = false;
      } else if (k == "--no-variants") {
        c.variants = false;
      } else if (k == "--fingerprint") {
        c.fingerprint_steps = args.integer(1, 1000000);
      } else if (k == "--finetune-steps") {
        c.finetune_steps = args.integer(0, 1000000);
      } else if (k == "--check-every") {
        c.check_every = args.integer(1, 1000000);
      } else if (k == "--seeds") {
        c.seeds = args.integer(1, 1000);
      } else if (k == "--first-seed") {
        c.first_seed = args.integer(0, 1000);
      } else if (k == "--jobs") {
        c.jobs = args.integer(1, 64);
        forward = false;
      } else if (k == "--strings") {
        const std::string v = args.value();
        if (v == "uniform") c.strings = CopyStrings::Uniform;
        else if (v == "distinct") c.strings = CopyStrings::Distinct;
        else if (v == "repeats") c.strings = CopyStrings::Repeats;
        else throw Error(ErrorKind::Range, "--strings must be one of 'uniform', 'distinct', 'repeats' (got '" + v + "')");
      } else if (k == "--kgram") {
        c.kgram = args.integer(2, 4);
      } else if (k == "--tasks") {
        c.tasks = args.list<TaskKind>(parse_task);
      } else if (k == "--encodings") {
        c.encodings = args.list<Encoding>(parse_encoding);
      } else if (k == "--steps") {
        c.steps = args.integer(1, 10000000);
      } else if (k == "--batch") {
        c.batch = args.integer(1, 4096);
      } else if (k == "--length") {
        c.length = args.integer(6, 4096);
      } else if (k == "--layers") {
        c.layers = args.integer(1, 64);
      } else if (k == "--heads") {
        c.heads = args.integer(1, 64);
      } else if (k == "--d-model") {
        c.d_model = args.integer(2, 4096);
      } else if (k == "--random-length") {
        c.random_length = args.integer(1, 1 << 20);
      } else if (k == "--rope-base") {
        c.rope_base = args.number(1, 1e9);
      } else if (k == "--mlp-ratio") {
        c.mlp_ratio = args.integer(1, 16);
      } else if (k == "--eval-sequences") {
        c.eval_sequences = args.integer(1, 100000);
      } else if (k == "--grid-sequences") {
        c.grid_sequences = args.integer(1, 100000);
      } else if (k == "--warmup") {
        c.warmup = args.integer(0, 10000000);
      } else if (k == "--beta2") {
        c.beta2 = args.number<float>(0, 1, Ends::LowClosed);
      } else if (k == "--lr") {
        c.lr = args.number<float>(0, 10);
        c.min_lr = c.lr / 10;
      } else {
        args.unknown();
      }
      if (forward) pass_through.insert(pass_through.end(), args.taken().begin(), args.taken().end());
    }
    if (c.tasks.empty() || c.encodings.empty()) range_error("--tasks/--encodings", "non-empty lists", "[]");
    if (c.warmup > c.steps) c.warmup = c.steps / 10;
    if (print == "tasks" || print == "probe") {  // no training: results.json members, to stdout
      std::printf("%s\n", (print == "tasks" ? tasks_json(c) : probe_json(c)).c_str());
      return 0;
    }
    if (c.fingerprint_steps) return print_fingerprints(c);
    if (c.check_reproducible) return check_reproducible(c, pass_through);
    double seconds = 0;
    const std::vector<RunResult> results = run_parallel(c, seconds);
    return results.empty() ? 1 : write_outputs(c, results, seconds);
  });
}
