// posenc_train's JSON: results.json (its schema: cpp/tools/train_main.cpp), web/checkpoints/curves.json, the
// tasks' chance, floors, oracle and target (results.json "tasks"), and the checkpoint probe. Numbers go through
// the tools' one writer (json_out.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../floors.hpp"
#include "../json_out.hpp"
#include "posenc/error.hpp"
#include "train.hpp"

namespace fs = std::filesystem;

namespace posenc::train {
using namespace posenc::tools;

namespace {

// web/checkpoints/curves.json: the training curve of each shipped checkpoint, one entry a line, keyed by
// the checkpoint's file name (the page fetches it only where it draws a training chart). Entries of
// checkpoints this run did not write are kept from the file already there (a partial run, e.g. --tasks copy,
// rewrites its own), as their checkpoints are.
std::string curve_entry(const Config& c, const RunResult& r) {
  const TrainingCurve& k = r.curve;
  return "\"" + fs::path(checkpoint_name(r.spec)).filename().string() + "\":{\"steps\":" + std::to_string(r.steps) +
         ",\"stepsToTarget\":" + (r.steps_to_target > 0 ? std::to_string(r.steps_to_target) : "null") +
         ",\"every\":" + std::to_string(k.every) + ",\"loss\":" + list(k.loss, num3) +
         ",\"checkEvery\":" + std::to_string(c.check_every) + ",\"heldOutMetric\":" +
         str(r.spec.task == TaskKind::Markov ? "loss" : "accuracy") + ",\"heldOut\":" + list(k.held_out, num3) + "}";
}
}  // namespace

std::string curves_json(const Config& c, const std::vector<RunResult>& runs, const std::string& existing) {
  std::vector<std::pair<std::string, std::string>> entries;  // (file name, line)
  for (const RunResult& r : runs)
    if (!r.checkpoint.empty()) {
      std::string line = curve_entry(c, r);
      entries.emplace_back(line.substr(1, line.find('"', 1) - 1), std::move(line));
    }
  static const std::regex kept("^(\"([^\"]+\\.ckpt)\":\\{.*\\}),?$");
  std::istringstream in(existing);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, kept)) continue;
    if (std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return e.first == m[2].str(); }))
      entries.emplace_back(m[2].str(), m[1].str());
  }
  std::sort(entries.begin(), entries.end());
  std::string j =
      "{\"version\":1,\"about\":\"per checkpoint: loss[i] is the mean training loss of steps i*every+1 .. "
      "min((i+1)*every, steps); heldOut[i] the early stop's held-out check (heldOutMetric) at step (i+1)*checkEvery\","
      "\n\"curves\":{\n";
  for (std::size_t i = 0; i < entries.size(); ++i) j += entries[i].second + (i + 1 < entries.size() ? ",\n" : "\n");
  return j + "}}\n";
}

namespace {

std::string task_json(const TaskOptions& o) {
  std::string s = "{\"symbols\":" + std::to_string(o.symbols) + ",\"vocabSize\":" + std::to_string(task_vocab_size(o));
  if (o.kind == TaskKind::Markov)
    s += ",\"order\":" + std::to_string(o.order) + ",\"branching\":" + std::to_string(o.branching) +
         ",\"tableSeed\":" + std::to_string(o.table_seed);
  else
    s += std::string(",\"variableLength\":") + (o.variable_length ? "true" : "false");
  if (o.kind == TaskKind::Retrieval) s += std::string(",\"packed\":") + (o.packed ? "true" : "false");
  if (o.strings != CopyStrings::Uniform)  // (uniform strings, the default, are not written: older files stay valid)
    s += std::string(",\"strings\":\"") + (o.strings == CopyStrings::Distinct ? "distinct" : "repeats") + "\"" +
         (o.strings == CopyStrings::Distinct ? ",\"kgram\":" + std::to_string(o.kgram) : "");
  return s + "}";
}

// ---------------------------------------------------------------------------
// Per-task chance, floors, oracle and target (results.json "tasks")

struct Score {
  double accuracy = 0, loss = 0;
};
std::string score_json(const Score& s) { return "\"accuracy\":" + num(s.accuracy) + ",\"loss\":" + num(s.loss); }

// The evaluation sequences at trainLength (the sweep's own: sweep_seed(eval_seed, T, -1)).
struct EvalBatch {
  TaskOptions task;
  int B = 0, T = 0;
  std::vector<int32_t> tokens, targets;
};
EvalBatch eval_batch(const Config& c, TaskKind k) {
  EvalBatch e;
  e.task = task_options(c, k);
  e.task.variable_length = false;
  e.T = c.length;
  e.B = (k == TaskKind::Retrieval || k == TaskKind::KthRetrieval) ? 4 * c.eval_sequences : c.eval_sequences;
  e.tokens.resize(static_cast<std::size_t>(e.B) * e.T);
  e.targets.resize(e.tokens.size());
  TaskGenerator g(e.task, sweep_seed(c.eval_seed, e.T, -1));
  g.sample(e.B, e.T, e.tokens.data(), e.targets.data());
  return e;
}

// Markov floors: the next symbol predicted from no context (unigram) or from the current
// token only (bigram), with frequencies counted on 4096 training-distribution sequences
// (seed 777, add-1/2 smoothing), scored on the evaluation sequences.
Score markov_floor(const Config& c, const EvalBatch& e, bool bigram) {
  const int V = task_vocab_size(e.task);
  const int ctx = bigram ? V : 1;
  std::vector<double> count(static_cast<std::size_t>(ctx) * V, 0.0);
  {
    const int B = 4096, T = c.length;
    std::vector<int32_t> tok(static_cast<std::size_t>(B) * T), tgt(tok.size());
    TaskGenerator g(e.task, 777);
    g.sample(B, T, tok.data(), tgt.data());
    for (std::size_t i = 0; i < tok.size(); ++i)
      if (tgt[i] >= 0) count[static_cast<std::size_t>(bigram ? tok[i] : 0) * V + tgt[i]] += 1;
  }
  const int first = kFirstSymbol, n = e.task.symbols;
  Score s;
  int scored = 0;
  for (std::size_t i = 0; i < e.tokens.size(); ++i) {
    if (e.targets[i] < 0) continue;
    const double* row = count.data() + static_cast<std::size_t>(bigram ? e.tokens[i] : 0) * V;
    double total = 0;
    int best = first;
    for (int v = first; v < first + n; ++v) {
      total += row[v] + 0.5;
      if (row[v] > row[best]) best = v;
    }
    s.loss -= std::log((row[e.targets[i]] + 0.5) / total);
    s.accuracy += best == e.targets[i] ? 1 : 0;
    ++scored;
  }
  s.loss /= scored;
  s.accuracy /= scored;
  return s;
}

// Copy and Reverse: the bag-of-tokens floor at each evaluation length. A predictor that ignores
// position and knows only the multiset of the input symbols x1 .. xh predicts the most frequent one
// (the first of equal counts) at every scored position; its loss is that of the input's own symbol
// frequencies (add-1/2 smoothing over the n symbols). Scored on the sweep's own sequences at L
// (sweep_seed(eval_seed, L, -1), c.eval_sequences of them, full length), so it grows from chance
// toward 1 as the input gets shorter and falls toward chance as it gets longer.
Score bag_floor(const Config& c, TaskKind k, int L) {
  const FloorScore f = posenc::tools::bag_floor(task_options(c, k), L, c.eval_sequences, c.eval_seed);
  return Score{f.accuracy, f.loss};
}

std::string task_meta_json(const Config& c, TaskKind k) {
  const TaskOptions to = task_options(c, k);
  const EvalBatch e = eval_batch(c, k);
  TaskGenerator g(e.task, 0);
  const TaskOracle o = g.oracle(e.tokens.data(), e.targets.data(), e.B, e.T);
  // the answer symbols: the n symbols (copy, reverse, markov) or the nv values (retrievals)
  const int answers = (k == TaskKind::Retrieval || k == TaskKind::KthRetrieval) ? to.symbols - (to.symbols + 1) / 2
                                                                                 : to.symbols;
  const Score chance{1.0 / answers, std::log(static_cast<double>(answers))};
  std::string role = k == TaskKind::Retrieval ? "control" : "main";
  bool needs = k != TaskKind::Retrieval;
  std::string what, cannot, baselines;
  std::string floors = "[{\"name\":\"uniform\"," + score_json(chance) +
                       ",\"note\":\"a uniform guess over the " + std::to_string(answers) + " answer symbols\"}";
  switch (k) {
    case TaskKind::Copy:
      what = "whether a model can read back a sequence token by token at a fixed offset, at lengths it was not trained on";
      cannot = "that the model addresses positions: matching the last few tokens by content (the induction baseline) "
               "also copies nearly all of a uniform string, so only accuracy above that baseline shows a position skill; "
               "strings with adversarial repeats (a repeated motif) are where content matching fails";
      break;
    case TaskKind::Reverse:
      what = "whether a model can address a position that moves as it writes (the mirror of the current one), above "
             "what content matching alone finds";
      cannot = "that the model addresses positions: matching the last few output tokens reversed against the input "
               "by content (the induction baseline) finds the mirror of nearly all of a uniform string too; also how a model "
               "behaves on natural text";
      break;
    case TaskKind::Retrieval:
      what = "the content-only control: a lookup that content matching alone solves (the query key occurs once)";
      cannot = "anything about position: NoPE solves it at every length, so its depth grid cannot show lost in the middle";
      floors += ",{\"name\":\"content\",\"accuracy\":1,\"loss\":0,\"note\":\"exact: the query key "
                "occurs once, so matching it against the pairs finds the answer without position\"}";
      break;
    case TaskKind::KthRetrieval:
      what = "a lookup whose answer depends on where things are (the first or the second of two occurrences of the "
             "query key; in training, a shorter sequence then asks the same of other repeated keys), with its accuracy "
             "at each depth of the needle (where in the input it sits) and each length";
      cannot = "recall from natural long documents; the order of two occurrences is also available to NoPE, since "
               "each token sees only the tokens before it";
      floors += ",{\"name\":\"content\",\"accuracy\":0.5,\"loss\":" + num(std::log(2.0)) +
                ",\"note\":\"exact: from the multiset of tokens a predictor finds the query key's two values but "
                "not their order\"}";
      break;
    case TaskKind::Markov: {
      what = "language-model loss against length on a sparse order-2 chain, Press-style (only the last 2 symbols "
             "matter)";
      cannot = "long-range use of position: the task needs none beyond the last two tokens";
      const Score uni = markov_floor(c, e, false), bi = markov_floor(c, e, true);
      floors += ",{\"name\":\"unigram\"," + score_json(uni) +
                ",\"note\":\"no context: symbol frequencies of 4096 training sequences, scored on the evaluation "
                "sequences at trainLength\"}";
      floors += ",{\"name\":\"bigram\"," + score_json(bi) +
                ",\"note\":\"the current token only: next-symbol frequencies per token of 4096 training "
                "sequences, scored on the evaluation sequences at trainLength\"}";
      break;
    }
  }
  if (k == TaskKind::Copy || k == TaskKind::Reverse) {
    std::string by;
    Score at_T;
    for (int L : eval_lengths(c)) {
      const Score b = bag_floor(c, k, L);
      if (L == c.length) at_T = b;
      by += (by.empty() ? "" : ",") + std::string("{\"length\":") + std::to_string(L) + "," + score_json(b) + "}";
    }
    floors += ",{\"name\":\"bag\"," + score_json(at_T) +
              ",\"note\":\"bag of tokens: the most frequent input symbol predicted at every answer position, "
              "measured on the evaluation sequences at each length\","
              "\"byLength\":[" + by + "]}";
    // the induction baseline: content matching with no positions, reported beside the floors (a separate member:
    // on uniform strings it reaches the models' own 1x scores, so as a floor it would leave no verdict standing)
    std::string ind;
    for (int L : eval_lengths(c)) {
      const double a = posenc::tools::induction_floor(task_options(c, k), L, c.eval_sequences, c.eval_seed);
      ind += (ind.empty() ? "" : ",") + std::string("{\"length\":") + std::to_string(L) + ",\"accuracy\":" + num(a) + "}";
    }
    baselines = "[{\"name\":\"induction\",\"note\":\"content matching with no positions, an algorithm (no training): the last 1 to " +
                std::to_string(posenc::tools::kInductionContext) +
                " tokens looked up in the input by content, and the token after (copy) or before (reverse) the longest match "
                "predicted; measured on the evaluation sequences at each length\",\"byLength\":[" + ind + "]}]";
  }
  floors += "]";
  std::string j = "{\"role\":" + str(role) + ",\"needsPosition\":" + (needs ? "true" : "false") +
                  ",\"what\":" + str(what) + ",\"cannot\":" + str(cannot) + ",\"metric\":" +
                  str(k == TaskKind::Markov ? "loss" : "accuracy") + ",\"chance\":{" + score_json(chance) +
                  "},\"floors\":" + floors + (baselines.empty() ? "" : ",\"baselines\":" + baselines) + ",\"oracle\":{\"accuracy\":" + num(o.accuracy) +
                  ",\"loss\":" + num(o.loss) + "},\"target\":";
  if (k == TaskKind::Markov)
    j += "{\"loss\":" + num(o.loss + kMarkovMargin) + ",\"marginOverOracle\":" + num_exact(kMarkovMargin) + "}";
  else
    j += num_exact(accuracy_target(k));
  return j + "}";
}

}  // namespace

// results.json's "tasks" member, one task a line (--print-tasks prints it alone).
std::string tasks_json(const Config& c) {
  std::string j = "\"tasks\":{";
  for (std::size_t i = 0; i < c.tasks.size(); ++i)
    j += (i ? ",\n" : "\n") + str(task_name(c.tasks[i])) + ":" + task_meta_json(c, c.tasks[i]);
  return j + "}";
}

// --probe-checkpoints: the shipped checkpoints (DIR/web/checkpoints/<task>-<encoding>.ckpt, seed 0,
// int8 + float16 weights) through the evaluation sweep, plain and with log-length logit scaling
// (SweepOptions::log_length_scaling), with per-length accuracy, loss, and the attention entropy and
// first-token (sink) mass averaged over every head. No training. A JSON object on one line a
// checkpoint, as results.json's "checkpointProbe" member (scripts/results-probe.js puts it there).
std::string probe_json(const Config& c) {
  const auto t0 = Clock::now();
  std::string j = "\"checkpointProbe\":{\"weights\":\"seed 0, int8 and float16 weights\",\"attentionSequences\":" +
                  std::to_string(c.attention_sequences) + ",\"logLengthScaling\":\"attention q.k logits x ln(L) / ln(trainLength) for L > trainLength\",\"runs\":[";
  bool first = true;
  for (TaskKind k : c.tasks)
    for (Encoding e : c.encodings) {
      const fs::path file = fs::path(c.out) / checkpoint_name({k, e, 0, "", 0.0});
      std::ifstream in(file, std::ios::binary);
      if (!in) throw Error(ErrorKind::Range, "no checkpoint " + file.string());
      const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      Model model = load_checkpoint(bytes.data(), bytes.size());
      const TaskOptions to = task_options(c, k);
      SweepOptions so;
      so.lengths = eval_lengths(c);
      so.train_length = c.length;
      so.sequences = k == TaskKind::Retrieval || k == TaskKind::KthRetrieval ? 4 * c.eval_sequences : c.eval_sequences;
      so.attention_sequences = std::min(c.attention_sequences, so.sequences);
      so.grid_depths.clear();
      so.seed = c.eval_seed;
      j += std::string(first ? "\n" : ",\n") + "{\"task\":" + str(task_name(k)) + ",\"encoding\":" + str(encoding_name(e));
      first = false;
      for (bool log_scaled : {false, true}) {
        so.log_length_scaling = log_scaled;
        const SweepResult r = sweep(model, to, so);
        j += log_scaled ? ",\"logLength\":[" : ",\"lengths\":[";
        for (std::size_t i = 0; i < r.lengths.size(); ++i) {
          const LengthResult& l = r.lengths[i];
          double entropy = 0, sink = 0;
          for (const HeadStats& h : l.heads) entropy += h.entropy, sink += h.sink;
          const double nh = static_cast<double>(std::max<std::size_t>(1, l.heads.size()));
          j += (i ? ",{" : "{") + std::string("\"length\":") + std::to_string(l.length) + ",\"accuracy\":" +
               num(l.accuracy) + ",\"loss\":" + num(l.loss) + ",\"entropy\":" + num(entropy / nh) +
               ",\"sink\":" + num(sink / nh) + "}";
        }
        j += "]";
      }
      j += "}";
    }
  return j + "\n],\"seconds\":" + num(seconds_since(t0)) + "}";
}

std::string results_json(const Config& c, const std::vector<RunResult>& runs, double seconds) {
  std::ostringstream j;
  std::vector<int> seeds(c.seeds);
  for (int i = 0; i < c.seeds; ++i) seeds[i] = c.first_seed + i;
  j << "{\n\"version\":2,\n\"config\":{";
  j << "\"trainLength\":" << c.length << ",\"evalLengths\":" << ints(eval_lengths(c)) << ",\"seeds\":" << ints(seeds);
  ModelConfig probe = model_config(c, parse_encoding("rope"), task_options(c, TaskKind::Copy), 0, c.rope_base);
  j << ",\"model\":{\"layers\":" << c.layers << ",\"heads\":" << c.heads << ",\"dModel\":" << c.d_model
    << ",\"mlpRatio\":" << c.mlp_ratio << ",\"ropeBase\":" << num_exact(probe.rope_base) << ",\"ropeLayout\":\"half\""
    << ",\"t5NumBuckets\":" << probe.t5_num_buckets << ",\"t5MaxDistance\":" << probe.t5_max_distance
    << ",\"shawK\":" << probe.shaw_k << ",\"randomLength\":" << probe.random_length
    << ",\"learnedPolicy\":\"clamp\"}";
  // settings of one encoding that differ from the model's above
  j << ",\"modelByEncoding\":{\"rope_random\":{\"ropeBase\":" << num_exact(c.rope_base_random) << "}}";
  j << ",\"steps\":" << c.steps << ",\"batch\":" << c.batch << ",\"lr\":" << num_exact(c.lr) << ",\"minLr\":" << num_exact(c.min_lr)
    << ",\"warmup\":" << c.warmup << ",\"checkEvery\":" << c.check_every << ",\"beta2\":" << num_exact(c.beta2)
    << ",\"weightDecay\":" << num_exact(AdamWOptions{}.weight_decay);
  j << ",\"tasks\":" << list(c.tasks, [](TaskKind k) { return str(task_name(k)); });
  j << ",\"encodings\":" << list(c.encodings, [](Encoding e) { return str(encoding_name(e)); });
  j << ",\"taskOptions\":{";
  for (std::size_t i = 0; i < c.tasks.size(); ++i)
    j << (i ? "," : "") << str(task_name(c.tasks[i])) << ":" << task_json(task_options(c, c.tasks[i]));
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
  j << ",\"earlyStop\":{\"checkEvery\":" << c.check_every
    << ",\"batch\":\"1024 full-length sequences (retrievals), else 64; seed 6000 + seed\""
    << ",\"margin\":" << num_exact(kStopMargin)
    << ",\"rule\":\"accuracy >= tasks[task].target + margin; markov: loss <= the oracle's on that batch + "
    << num_exact(kMarkovMargin) << " - margin / 2\"}";
  j << ",\"variants\":[";
  if (c.variants)
    j << "{\"encoding\":\"rope\",\"variant\":\"base10000\",\"note\":\"RoPE base " << num_exact(c.rope_base_variant)
      << " (only 1 of the 4 pairs of head_dim 8 turns within trainLength); the default rows use base "
      << num_exact(c.rope_base) << " (3 of 4 turn)\"},";
  j << "{\"encoding\":\"rope\",\"variant\":\"finetuned\",\"scaling\":\"linear\",\"note\":\"PI with factor "
    << c.finetune_factor << ", fine-tuned " << c.finetune_steps << " steps at " << c.finetune_factor * c.length
    << " (Chen et al. 2023), evaluated with that factor at every length\"}"
    << ",{\"encoding\":\"rope\",\"variant\":\"finetuned\",\"scaling\":\"yarn\",\"note\":\"YaRN with factor "
    << c.finetune_factor << ", fine-tuned " << c.finetune_steps << " steps at " << c.finetune_factor * c.length
    << ", evaluated with that factor at every length\"}"
    << ",{\"encoding\":\"rope\",\"variant\":\"finetuned\",\"scaling\":\"none\",\"note\":\"plain RoPE fine-tuned "
    << c.finetune_steps << " steps at " << c.finetune_factor * c.length
    << " with no interpolation (Chen et al. 2023's control), evaluated plain\"}]";
  j << ",\"finetune\":{\"factor\":" << c.finetune_factor << ",\"length\":" << c.finetune_factor * c.length
    << ",\"steps\":" << c.finetune_steps << ",\"batch\":" << std::max(1, c.batch / c.finetune_factor)
    << ",\"lr\":" << num_exact(c.finetune_lr) << ",\"minLr\":" << num_exact(c.finetune_lr / 10)
    << ",\"warmup\":" << std::max(1, c.finetune_steps / 10) << "}";
  j << ",\"jobs\":" << c.jobs << ",\"seconds\":" << num(seconds) << "},\n" << tasks_json(c) << ",\n\"runs\":[\n";
  bool first = true;
  for (const RunResult& r : runs)
    for (const Row& row : r.rows) {
      const SweepResult& s = row.sweep;
      j << (first ? "" : ",\n");
      first = false;
      j << "{\"task\":" << str(task_name(r.spec.task)) << ",\"encoding\":" << str(encoding_name(r.spec.encoding))
        << ",\"seed\":" << r.spec.seed << ",\"scaling\":" << str(s.scaling) << ",\"variant\":" << str(row.variant)
        << ",\"finetune\":"
        << (row.finetune_steps > 0 ? "{\"length\":" + std::to_string(row.finetune_length) +
                                         ",\"steps\":" + std::to_string(row.finetune_steps) + "}"
                                   : std::string("null"))
        << ",\"learned\":" << (r.learned ? "true" : "false") << ",\"stepsToTarget\":"
        << (r.steps_to_target >= 0 ? std::to_string(r.steps_to_target) : std::string("null"))
        << ",\"scoredLength\":" << r.scored_length << ",\"trainSeconds\":"
        << num(r.train_seconds) << ",\"evalSeconds\":" << num(r.eval_seconds) << ",\"steps\":" << r.steps
        << ",\"parameters\":" << r.parameters << ",\"trainedLength\":" << r.trained_length
        << ",\"finalTrainAccuracy\":" << num(r.final_accuracy) << ",\"finalTrainLoss\":" << num(r.final_loss);
      j << ",\"lengths\":[";
      for (std::size_t i = 0; i < s.lengths.size(); ++i) {
        const LengthResult& l = s.lengths[i];
        j << (i ? "," : "") << "\n {\"length\":" << l.length << ",\"accuracy\":" << num(l.accuracy)
          << ",\"loss\":" << num(l.loss) << ",\"scored\":" << l.scored << ",\"oracleAccuracy\":"
          << num(l.oracle_accuracy) << ",\"oracleLoss\":" << num(l.oracle_loss)
          << ",\"untrainedPositions\":" << l.untrained_positions;
        if (r.spec.encoding == parse_encoding("t5") || r.spec.encoding == parse_encoding("learned"))
          j << ",\"untrainedParameters\":{\"kind\":"
            << str(r.spec.encoding == parse_encoding("t5") ? "t5Buckets" : "learnedRows") << ",\"count\":"
            << row.untrained[i].size() << ",\"ids\":" << ints(row.untrained[i]) << "}";
        j
          << ",\"accuracyByPosition\":" << nums(l.accuracy_by_position) << ",\"heads\":"
          << list(l.heads, [](const HeadStats& h) {
               return "{\"layer\":" + std::to_string(h.layer) + ",\"head\":" + std::to_string(h.head) +
                      ",\"entropy\":" + num(h.entropy) + ",\"distance\":" + num(h.distance) +
                      ",\"sink\":" + num(h.sink) + "}";
             })
          << "}";
      }
      j << "]";
      if (!s.grid_accuracy.empty())
        j << ",\n \"grid\":{\"depths\":" << nums(s.grid_depths) << ",\"lengths\":" << ints(s.grid_lengths)
          << ",\"accuracy\":" << list(s.grid_accuracy, [](const std::vector<double>& row) { return nums(row); })
          << "}";
      if (!r.checkpoint.empty() && s.scaling == "none" && row.finetune_steps == 0)  // the trained model itself, not a fine-tuned copy
        j << ",\"checkpoint\":" << str(checkpoint_name(r.spec));
      j << "}";
    }
  j << "\n]\n}\n";
  return j.str();
}

}  // namespace posenc::train
