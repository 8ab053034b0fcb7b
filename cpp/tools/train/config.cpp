// posenc_train's settings: the task variants, the model of a run, the evaluation lengths, --quick.
#include <cmath>
#include <string>
#include <vector>

#include "train.hpp"

namespace posenc::train {

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

TaskOptions task_options(const Config& c, TaskKind k) {
  TaskOptions o;
  o.kind = k;
  switch (k) {
    case TaskKind::Copy:
    case TaskKind::Reverse:
      o.symbols = 8;
      o.variable_length = true;
      o.strings = c.strings;
      o.kgram = c.kgram;
      break;
    case TaskKind::Retrieval:
    case TaskKind::KthRetrieval:
      o.symbols = 16;  // 8 keys, 8 values, 64 pair tokens (packed layout; kth: + 16 query tokens)
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

ModelConfig model_config(const Config& c, Encoding e, const TaskOptions& t, int seed, double rope_base) {
  ModelConfig m;
  m.rope_base = rope_base;
  // T5: 16 buckets (8 exact, 8 logarithmic) up to distance 32, so that the distances 0 .. 30
  // training reaches at T = 32 use every bucket (HF's 32 / 128 leaves 11 of 32 untrained here).
  m.t5_num_buckets = 16;
  m.t5_max_distance = 32;
  m.encoding = e;
  m.layers = c.layers;
  m.heads = c.heads;
  m.d_model = c.d_model;
  m.mlp_ratio = c.mlp_ratio;
  m.vocab_size = task_vocab_size(t);
  m.max_length = c.length;
  m.seed = 1000 + static_cast<uint64_t>(seed);
  m.random_length = c.random_length;
  // Learned tables are evaluated past their end by reusing the last row training reaches
  // (maxLength - 2; the untrained positions are counted in each length's untrainedPositions).
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

void apply_quick(Config& c) {
  c.quick = true;
  c.seeds = 1;
  c.tasks = {TaskKind::Copy};
  c.encodings = {parse_encoding("rope"), parse_encoding("alibi")};
  c.steps = 60;
  c.warmup = 10;
  c.batch = 8;
  c.length = 16;
  c.eval_factors = {1, 2};
  c.eval_sequences = 8;
  c.grid_sequences = 8;
  c.check_every = 20;
  c.finetune_steps = 10;
}

}  // namespace posenc::train
