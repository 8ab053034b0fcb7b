// Writes the named seed inputs of tests/fuzz/corpus/<target>/ (scripts/fuzz-seeds.sh):
// meaningful calls (HF-style rope_scaling blocks, positions near 1e6, scaling factors
// up to 1000, every encoding's model, real checkpoints) that the fuzzers mutate.
//
// Seed bytes are produced by Output, which mirrors fuzz::Input's decoding: each
// writer below follows its case in fuzz_<target>.cpp field by field. A seed that
// drifts from its decoder still works as a fuzz input, just a less useful one.
//
//   posenc_fuzz_seeds <corpus dir>   (writes <dir>/fuzz_encodings/..., fuzz_model/..., fuzz_checkpoint/...)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "posenc/checkpoint.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "make_lm_seeds.hpp"

namespace {

namespace fs = std::filesystem;

class Output {
 public:
  std::vector<uint8_t> bytes;
  Output& byte(int b) { bytes.push_back(static_cast<uint8_t>(b)); return *this; }
  Output& flag(bool b) { return byte(b ? 1 : 0); }
  Output& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Output& u64(uint64_t v) { return u32(static_cast<uint32_t>(v)).u32(static_cast<uint32_t>(v >> 32)); }
  Output& range(int lo, int v) { return u32(static_cast<uint32_t>(static_cast<int64_t>(v) - lo)); }
  // Input::size: case 0 -> 0, case 1 -> -range(1, 3), case 4 -> range(0, cap).
  Output& size(int v) {
    if (v == 0) return byte(0);
    if (v < 0) return byte(1).range(1, -v);
    return byte(4).range(0, v);
  }
  Output& any_int(int v) { return byte(8).u32(static_cast<uint32_t>(v)); }  // the raw case
  Output& any_double(double v) {
    if (std::isnan(v)) return byte(0);
    if (std::isinf(v)) return byte(v > 0 ? 1 : 2);
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return byte(8).u64(bits);
  }
  Output& fill(uint64_t seed) { return u64(seed).byte(0); }  // PRNG values, no specials
  Output& opt_double(std::optional<double> v) { return v ? flag(true).any_double(*v) : flag(false); }
  Output& opt_int(std::optional<int> v) { return v ? flag(true).any_int(*v) : flag(false); }
};

struct Scaling {  // the fields fuzz::scaling reads, in order (unset: the field is absent)
  int type = 0;
  std::optional<double> factor = {};
  std::optional<int> max_pos = {}, original_max = {};
  std::optional<double> attention_factor = {}, beta_fast = {}, beta_slow = {}, mscale = {}, mscale_all_dim = {};
  std::optional<bool> truncate = {};
  std::optional<double> low = {}, high = {};
  bool long_short = false;  // longrope factor lists of dim/2 values
};

// `dim`: the rotary dim the decoder passes to fuzz::scaling (longrope lists hold dim/2 values).
void write_scaling(Output& o, const Scaling& s, int dim) {
  o.byte(s.type).opt_double(s.factor).opt_int(s.max_pos).opt_int(s.original_max).opt_double(s.attention_factor);
  o.opt_double(s.beta_fast).opt_double(s.beta_slow).opt_double(s.mscale).opt_double(s.mscale_all_dim);
  if (s.truncate) o.flag(true).flag(*s.truncate);
  else o.flag(false);
  o.opt_double(s.low).opt_double(s.high);
  for (int list = 0; list < 2; ++list) {
    o.flag(s.long_short);
    if (!s.long_short) continue;
    o.flag(true);  // exactly dim/2 values, each 1 + b/16
    for (int i = 0; i < dim / 2; ++i) o.byte(i % 200).byte((list + 1) * 8 + i % 5);
  }
}

const Scaling kScalings[] = {
    {.type = 0},                                                       // default
    {.type = 1, .factor = 2.0},                                        // linear (position interpolation)
    {.type = 1, .factor = 1000.0},                                     // linear at the largest factor
    {.type = 2, .factor = 2.0, .max_pos = 2048},                       // dynamic NTK
    {.type = 2, .factor = 1000.0, .max_pos = 4096},                    // dynamic, factor 1000
    {.type = 3, .factor = 4.0, .original_max = 2048},                  // yarn
    {.type = 3, .factor = 1000.0, .original_max = 4096, .beta_fast = 32.0, .beta_slow = 1.0, .mscale = 0.707,
     .mscale_all_dim = 0.707, .truncate = false},                      // yarn, DeepSeek style
    {.type = 4, .factor = 8.0, .original_max = 8192, .low = 1.0, .high = 4.0},     // llama3 (Llama 3.1)
    {.type = 4, .factor = 1000.0, .original_max = 8192, .low = 1.0, .high = 4.0},  // llama3, factor 1000
    {.type = 5, .max_pos = 131072, .original_max = 4096, .long_short = true},      // longrope (Phi-3 style)
    {.type = 3, .factor = std::nan(""), .original_max = 2048},                     // yarn with a NaN factor
};

class Writer {
 public:
  explicit Writer(fs::path dir) : dir_(std::move(dir)) { fs::create_directories(dir_); }
  void write(const std::string& name, const std::vector<uint8_t>& b) {
    std::ofstream(dir_ / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
    ++count_;
  }
  int count() const { return count_; }

 private:
  fs::path dir_;
  int count_ = 0;
};

// ---------------------------------------------------------------------------
// fuzz_encodings: the first byte picks the case (see LLVMFuzzerTestOneInput there).

void encodings(Writer& w) {
  const int kIntMax = std::numeric_limits<int>::max();
  struct Sin { int length, dim; std::optional<double> base; int layout, spacing, start; };
  for (const Sin& s : {Sin{128, 64, {}, 0, 0, 0}, Sin{16, 512, {}, 1, 1, 1000000}, Sin{4, 2, 1e4, 0, 0, kIntMax - 4},
                       Sin{8, 6, 1.0, 0, 0, 0}, Sin{3, 4, std::nan(""), 1, 0, 0}}) {
    Output o;
    o.byte(0).size(s.length).size(s.dim).byte(0);
    if (s.base) o.flag(false).any_double(*s.base);
    else o.flag(true);
    o.byte(s.layout).byte(s.spacing).flag(false).any_int(s.start);
    w.write("sinusoidal-" + std::to_string(s.length) + "x" + std::to_string(s.dim) + "-start" + std::to_string(s.start) +
                (s.base ? "-base-" + posenc::format_number(*s.base) : ""), o.bytes);
  }
  for (int policy = 0; policy < 3; ++policy) {
    Output o;
    o.byte(1).size(16).size(8).size(20).byte(policy).fill(1);
    for (int k = 0; k < 20; ++k) o.flag(true).range(0, k);  // positions 0..19, past the 16 rows at the end
    w.write("learned-policy" + std::to_string(policy), o.bytes);
  }
  for (bool bidi : {true, false}) {
    Output o;
    o.byte(2).flag(bidi).flag(true).range(0, bidi ? 32 : 8).flag(true).range(0, bidi ? 128 : 16).any_int(-1000000);
    o.size(9);
    for (int r : {-200, -17, -3, -1, 0, 1, 3, 17, 200}) o.flag(true).range(-300, r);
    w.write(bidi ? "t5-bidirectional" : "t5-unidirectional", o.bytes);
  }
  {
    Output o;
    o.byte(3).size(4).size(8).flag(true).range(-2, 2);
    w.write("shaw-4x8-k2", o.bytes);
  }
  for (int heads : {8, 12, 64}) {
    Output o;
    o.byte(4).flag(true).size(heads).flag(false).size(16).flag(false).size(24).flag(heads != 12);
    w.write("alibi-" + std::to_string(heads) + "-heads", o.bytes);
  }
  for (std::size_t k = 0; k < std::size(kScalings); ++k) {
    for (int dim : {64, 128}) {
      Output o;
      o.byte(5).size(dim).byte(0).flag(true).byte(0);  // dim, base 10000
      write_scaling(o, kScalings[k], dim);
      o.flag(true).flag(true).range(0, 8192);  // seq_len 8192
      o.range(0, 1).flag(false).range(0, 8).flag(k % 2 == 0);  // dim + 2, length 8, layout
      o.flag(false);  // explicit positions, around 1e6
      for (int r = 0; r < 8; ++r) o.byte(1).range(999990, 999995 + r);
      o.fill(k).flag(false);
      w.write("rope-frequencies-" + std::to_string(k) + "-dim" + std::to_string(dim), o.bytes);
    }
  }
  struct Apply { int length, dim, rotary_case, rotary, layout; };
  for (const Apply& a : {Apply{8, 64, 0, 0, 1}, Apply{8, 64, 1, 16, 0}, Apply{5, 130, 1, 64, 1}, Apply{4, 8, 2, 7, 0}}) {
    Output o;
    o.byte(6).size(a.length).size(a.dim).byte(0).byte(a.rotary_case);
    if (a.rotary_case == 1) o.range(1, a.rotary / 2);
    if (a.rotary_case == 2) o.range(-2, a.rotary);
    o.byte(a.layout).flag(true).byte(1);  // scale 1, inv_freq present
    const int rd = a.rotary_case == 0 ? a.dim : a.rotary;
    for (int i = 0; i < rd / 2; ++i) o.byte(0);  // default frequencies
    o.flag(false);  // explicit positions
    for (int r = 0; r < a.length; ++r) o.byte(0).range(0, r * 125000);
    o.fill(7).flag(false);
    w.write("apply-rope-" + std::to_string(a.length) + "x" + std::to_string(a.dim) + "-rotary" + std::to_string(rd) +
                (a.layout ? "-half" : "-interleaved"), o.bytes);
  }
  for (bool causal : {true, false}) {
    Output o;
    o.byte(7).range(0, 16).range(0, 8).range(1, 16).flag(causal).flag(true).flag(false).any_double(0.0625);
    o.fill(3).fill(4).flag(true).fill(5).byte(2).u32(0).u32(37);
    w.write(causal ? "attention-causal-alibi-bias" : "attention-bidirectional", o.bytes);
  }
  {
    Output o;
    o.byte(8).range(0, 6).range(0, 9).flag(true).fill(8).fill(9);
    w.write("softmax-6x9-causal", o.bytes);
  }
  for (int which = 0; which < 3; ++which) {
    Output o;
    o.byte(9).range(0, 17).range(0, 9).range(0, 33).flag(which == 1).byte(which).fill(10).fill(11).fill(12);
    w.write("matmul-" + std::to_string(which), o.bytes);
  }
  {
    Output o;
    o.byte(10).range(0, 37).flag(true).fill(13);
    w.write("sin-scaled", o.bytes);
  }
  {
    Output o;
    o.byte(11).byte(0).flag(true).byte(4).byte(9);
    w.write("rope-type-llama3", o.bytes);
  }
  // Streaming attention over several 64-key blocks: plain causal with ALiBi, a T5-style
  // table (row_stride 0, offset Tk - 1), a Shaw-style one (one row per query, offset k).
  struct Stream { int tk, tq, d, dv, extra; bool causal; float slope; int bias; };
  for (const Stream& a : {Stream{150, 150, 16, 16, 0, true, 0.0625f, 0}, Stream{130, 70, 8, 12, 2, true, 0, 1},
                          Stream{140, 140, 16, 16, 1, true, 0, 2}, Stream{65, 20, 4, 4, 3, false, 0, 1}}) {
    Output o;
    o.byte(12).range(0, a.tk).range(0, a.tq).range(1, a.d).range(1, a.dv).range(0, a.extra).flag(a.causal).flag(true);
    if (a.slope == 0) o.flag(true);
    else o.flag(false).any_double(a.slope);
    o.fill(21).fill(22).fill(23).flag(a.bias != 0);
    if (a.bias == 1) o.range(1, a.tk).range(-a.tk, a.tk - 1).flag(true).fill(24).byte(0);         // T5
    if (a.bias == 2) o.range(1, 5).range(-a.tk, 4).flag(false).range(0, 1).fill(25).byte(0);     // Shaw, k = 4
    w.write("attention-stream-" + std::to_string(a.tq) + "x" + std::to_string(a.tk) +
                (a.bias == 1 ? "-t5" : a.bias == 2 ? "-shaw" : a.slope != 0 ? "-alibi" : ""), o.bytes);
  }
}

// ---------------------------------------------------------------------------
// fuzz_model: config fields in config() order, then up to 4 operations.

struct Config {
  int encoding, layers, heads_index, dmodel_index, vocab, max_length, rope_layout, shaw_k, policy;
};

void write_config(Output& o, const Config& c) {
  o.byte(c.encoding).byte(0).range(1, c.layers).byte(0).byte(c.heads_index).byte(0).byte(c.dmodel_index);
  o.byte(0).range(1, 1).byte(0).range(2, c.vocab).byte(0).range(1, c.max_length).u64(42);
  o.byte(c.rope_layout).flag(true).flag(true);  // rope_base 10000, rotary_dim 0
  o.byte(0).range(1, 8).byte(0).range(1, 16).byte(0).range(0, c.shaw_k).byte(c.policy);
}

// A batch of B x T valid tokens and targets (copy-like: target = next token, -1 at the end).
void write_batch(Output& o, int B, int T, int vocab) {
  o.byte(0).range(1, B).byte(0).range(1, T);
  for (int i = 0; i < B * T; ++i) o.byte(0).range(0, (i * 7 + 3) % vocab).byte(0).range(-1, i % T == T - 1 ? -1 : (i * 7 + 10) % vocab);
}

void model(Writer& w) {
  for (const posenc::EncodingInfo& info : posenc::encodings()) {  // every registered encoding
    const int e = static_cast<int>(info.id);
    const Config c{e, 2, 1, 3, 11, 16, info.id == posenc::parse_encoding("rope") ? 1 : 0, 3, 1};  // 2 layers, 2 heads, d 16, learned 'clamp'
    Output o;
    write_config(o, c);
    o.byte(0);  // forward with attention maps, past maxLength
    write_batch(o, 1, 24, 11);
    o.flag(true).byte(0);
    o.byte(2);  // train step: default AdamW options, lr 1e-3
    write_batch(o, 2, 12, 11);
    o.flag(false).flag(true);
    o.byte(1);  // evaluate
    write_batch(o, 2, 16, 11);
    o.flag(false).byte(0);
    o.byte(3).flag(false);  // checkpoint round trip
    w.write(std::string("model-") + info.name, o.bytes);
  }
  // RoPE (2 heads of dim 4) with each eval-time scaling, past maxLength.
  for (std::size_t k = 1; k < std::size(kScalings); ++k) {
    Output o;
    write_config(o, {5, 1, 1, 2, 8, 8, 1, 0, 0});
    o.byte(0);
    write_batch(o, 1, 16, 8);
    o.flag(true).byte(255);
    write_scaling(o, kScalings[k], 4);
    w.write("model-rope-scaling-" + std::to_string(k), o.bytes);
  }
  // The extremes the picks reach: 1 head of dim 2, 8 heads of dim 4, Shaw with 1 head of dim 2.
  for (const Config& c : {Config{0, 1, 0, 0, 4, 8, 0, 0, 0}, Config{4, 1, 3, 5, 4, 8, 0, 0, 0}, Config{6, 2, 0, 0, 5, 4, 0, 40, 2}}) {
    Output o;
    write_config(o, c);
    o.byte(0);
    write_batch(o, 2, 8, c.vocab);
    o.flag(true).byte(0);
    w.write("model-extreme-" + std::string(posenc::encoding_name(static_cast<posenc::Encoding>(c.encoding))) + "-h" + std::to_string(c.heads_index) + "-d" +
                std::to_string(c.dmodel_index), o.bytes);
  }
  // Tasks (vocab = symbols + 3) and a sweep, on a copy-task-sized model.
  for (int task = 0; task < 4; ++task) {
    Output o;
    write_config(o, {5, 1, 1, 2, 11, 16, 1, 0, 0});
    const bool sweep = task == 0;
    // kind, symbols = vocab - 3, not variable, no depth, two-token retrieval, no repeats, order 2, branching 3
    o.byte(sweep ? 6 : 5).byte(task).byte(0).flag(false).flag(false).flag(false).flag(false);
    o.byte(0).range(1, 2).byte(0).range(1, 3).u64(5);
    if (sweep) {
      o.range(0, 2).flag(true).range(1, 8).flag(true).range(1, 24).flag(true).range(0, 8).range(1, 2);
      o.flag(true).u64(9).byte(1).flag(true).flag(true).range(0, 4).range(0, 1).range(0, 0).range(1, 1);
    } else {
      o.u64(3).range(1, 2).flag(true).range(0, 16);
    }
    w.write(std::string(sweep ? "sweep-copy-linear" : "task-") + (sweep ? "" : std::to_string(task)), o.bytes);
  }
}

// ---------------------------------------------------------------------------
// fuzz_checkpoint: mode byte + a real checkpoint of a small model per encoding,
// whole, and truncated / bit-flipped with the checksum repaired (mode 1).

void checkpoints(Writer& w) {
  for (const posenc::EncodingInfo& info : posenc::encodings()) {
    const int e = static_cast<int>(info.id);
    const posenc::ModelConfig c{.encoding = info.id, .layers = 1, .heads = 2, .d_model = 4,
                                .mlp_ratio = 1, .vocab_size = 5, .max_length = 8, .rotary_dim = 2,
                                .t5_num_buckets = 4, .t5_max_distance = 8, .shaw_k = 2,
                                .learned_policy = posenc::OutOfRange::Clamp};
    posenc::Model m(c);
    m.set_trained_length(8);
    const std::vector<uint8_t> file = posenc::save_checkpoint(m);
    const std::string name = std::string("checkpoint-") + posenc::encoding_name(c.encoding);
    auto with_mode = [](uint8_t mode, std::vector<uint8_t> b) {
      b.insert(b.begin(), mode);
      return b;
    };
    w.write(name, with_mode(0, file));
    if (e == 0) w.write(name + "-int8", with_mode(0, posenc::save_checkpoint(m, {posenc::WeightFormat::Int8})));
    if (e == 0) {
      std::vector<uint8_t> cut(file.begin(), file.begin() + 100);
      w.write(name + "-truncated", with_mode(0, cut));
      std::vector<uint8_t> flipped = file;
      flipped[32] ^= 0x10;  // vocab_size 5 -> 21: the parameter count no longer matches
      w.write(name + "-vocab-bit-flipped-resealed", with_mode(1, flipped));
      std::vector<uint8_t> shaw = file;
      shaw[72] = shaw[73] = shaw[74] = 0xff, shaw[75] = 0x7f;  // shaw_k INT_MAX, unused without Shaw
      w.write(name + "-shaw-k-max-resealed", with_mode(1, shaw));
      std::vector<uint8_t> version = file;
      version[4] = 2;
      w.write(name + "-version-2", with_mode(1, version));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  Writer enc(root / "fuzz_encodings"), mod(root / "fuzz_model"), ckpt(root / "fuzz_checkpoint");
  encodings(enc);
  model(mod);
  checkpoints(ckpt);
  Writer bin(root / "fuzz_llama2c"), gguf(root / "fuzz_gguf"), tok(root / "fuzz_sp_tokenizer");
  lm_seeds::write_all(bin, gguf, tok);
  std::printf("wrote %d + %d + %d seeds under %s\n", enc.count(), mod.count(), ckpt.count(), root.c_str());
  return 0;
}
