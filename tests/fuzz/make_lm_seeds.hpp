// Seeds of the posenc::lm fuzz targets (included by make_seeds.cpp): tiny llama2.c checkpoints,
// tiny GGUF files (llama and qwen2, each dtype, with and without a SentencePiece vocabulary; each block format and
// mixes of them; llama.cpp's other families: qwen3, smollm3, olmo2, phi3, gemma3) and
// tokenizer.bin + text inputs, each small enough for the fuzzers' max_len.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../cpp/src/lm/lm_internal.hpp"  // internal: the format table (block sizes)
#include "../cpp/lm_gguf_writer.hpp"

namespace lm_seeds {

inline void put_f32(std::vector<uint8_t>& b, float f) {
  uint8_t x[4];
  std::memcpy(x, &f, 4);
  b.insert(b.end(), x, x + 4);
}
inline void put_i32(std::vector<uint8_t>& b, int32_t v) {
  uint8_t x[4];
  std::memcpy(x, &v, 4);
  b.insert(b.end(), x, x + 4);
}
inline float weight(int i) { return static_cast<float>((i * 37 % 29) - 14) / 32.0f; }

// A .bin: header then every float (norms 1, others small); vocab < 0 adds a classifier.
inline std::vector<uint8_t> llama2c(int dim, int hidden, int layers, int heads, int kv, int vocab, int seq) {
  std::vector<uint8_t> b;
  for (int v : {dim, hidden, layers, heads, kv, vocab, seq}) put_i32(b, v);
  const int V = std::abs(vocab), hd = dim / heads, KV = kv * hd;
  const long floats = long(V) * dim + long(layers) * (2 * dim + 2 * dim * dim + 2 * KV * dim + 3 * hidden * dim) + dim +
                      long(seq) * hd + (vocab < 0 ? long(V) * dim : 0);
  for (long i = 0; i < floats; ++i) put_f32(b, weight(static_cast<int>(i)));
  return b;
}

inline std::vector<uint8_t> tokenizer_bin(const std::vector<std::string>& pieces) {
  std::vector<uint8_t> b;
  put_i32(b, 8);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    put_f32(b, -static_cast<float>(i));
    put_i32(b, static_cast<int32_t>(pieces[i].size()));
    b.insert(b.end(), pieces[i].begin(), pieces[i].end());
  }
  return b;
}

// A GGUF of a tiny model (dim D, one layer, 2 heads, 1 kv head, vocab 8) with 2-D tensors in `type`; its vocabulary
// (when `vocab`) SentencePiece, or byte-level BPE split as `bpe_pre` says (tokenizer.ggml.pre) when one is given.
inline std::vector<uint8_t> gguf(const std::string& arch, int D, uint32_t type, bool vocab, bool untied, const std::string& bpe_pre = "") {
  posenc::lm::test::GgufWriter g;
  const int V = 8, F = D, hd = D / 2;
  g.kv_str("general.architecture", arch);
  g.kv_u32(arch + ".context_length", 8);
  g.kv_u32(arch + ".embedding_length", D);
  g.kv_u32(arch + ".block_count", 1);
  g.kv_u32(arch + ".feed_forward_length", F);
  g.kv_u32(arch + ".attention.head_count", 2);
  g.kv_u32(arch + ".attention.head_count_kv", 1);
  g.kv_f32(arch + ".attention.layer_norm_rms_epsilon", 1e-5f);
  if (vocab && !bpe_pre.empty()) {  // GPT-2's byte characters: U+0120 for a space
    g.kv_str("tokenizer.ggml.model", "gpt2");
    g.kv_str("tokenizer.ggml.pre", bpe_pre);
    g.kv_strs("tokenizer.ggml.tokens", {"<|endoftext|>", "a", "b", "\xC4\xA0", "ab", "\xC4\xA0" "a", "1", "2"});
    g.kv_strs("tokenizer.ggml.merges", {"a b", "\xC4\xA0 a"});
    g.kv_u32("tokenizer.ggml.bos_token_id", 0);
  } else if (vocab) {
    g.kv_str("tokenizer.ggml.model", "llama");
    g.kv_strs("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a", "ab"});
    g.kv_f32s("tokenizer.ggml.scores", {0, 0, 0, -1, -2, -3, 1, 2});
    g.kv_u32("tokenizer.ggml.bos_token_id", 1);
  }
  int k = 0;
  auto t = [&](const std::string& name, std::vector<int64_t> shape) {
    long n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(n);
    for (float& x : v) x = shape.size() == 1 ? 1.0f : weight(k++);
    g.tensor(name, shape, v, shape.size() == 1 ? 0 : type);
  };
  t("token_embd.weight", {V, D});
  if (untied) t("output.weight", {V, D});
  t("output_norm.weight", {D});
  t("blk.0.attn_norm.weight", {D});
  t("blk.0.attn_q.weight", {2 * hd, D});
  t("blk.0.attn_k.weight", {hd, D});
  t("blk.0.attn_v.weight", {hd, D});
  if (arch == "qwen2") {
    t("blk.0.attn_q.bias", {2 * hd});
    t("blk.0.attn_k.bias", {hd});
    t("blk.0.attn_v.bias", {hd});
  }
  t("blk.0.attn_output.weight", {D, 2 * hd});
  t("blk.0.ffn_norm.weight", {D});
  t("blk.0.ffn_gate.weight", {F, D});
  t("blk.0.ffn_up.weight", {F, D});
  t("blk.0.ffn_down.weight", {D, F});
  return g.bytes();
}

// A GGUF of a model 256 wide with one head of 2 channels and an FFN of 2: the least that K-quants' 256-value rows
// allow within the fuzzer's max_len. The matrices whose rows are 256 long take `types` in turn (ggml type ids), the
// two whose rows are 2 long F16. Block bytes are pseudo-random below 0x3c, so every f16 scale is finite.
inline std::vector<uint8_t> gguf_blocks(const std::vector<uint32_t>& types) {
  posenc::lm::test::GgufWriter g;
  const int D = 256, V = 8, hd = 2, F = 2;
  g.kv_str("general.architecture", "llama");
  g.kv_u32("llama.context_length", 8);
  g.kv_u32("llama.embedding_length", D);
  g.kv_u32("llama.block_count", 1);
  g.kv_u32("llama.feed_forward_length", F);
  g.kv_u32("llama.attention.head_count", 1);
  g.kv_u32("llama.attention.head_count_kv", 1);
  g.kv_u32("llama.attention.key_length", hd);
  g.kv_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  uint32_t state = 12345;
  std::size_t next = 0;
  auto blocks = [&](const std::string& name, std::vector<int64_t> shape) {
    const posenc::lm::Format& f = *posenc::lm::format_of_ggml(types[next++ % types.size()]);
    std::vector<uint8_t> b(static_cast<std::size_t>(shape[0]) * (shape[1] / f.block) * f.block_bytes);
    for (uint8_t& x : b) x = static_cast<uint8_t>((state = state * 1103515245u + 12345u) >> 16) % 0x3c;
    g.tensor_raw(name, shape, b, f.ggml);
  };
  auto floats = [&](const std::string& name, std::vector<int64_t> shape, uint32_t type) {
    std::vector<float> v(static_cast<std::size_t>(shape[0]) * (shape.size() > 1 ? shape[1] : 1));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = shape.size() == 1 ? 1.0f : weight(static_cast<int>(i));
    g.tensor(name, shape, v, type);
  };
  blocks("token_embd.weight", {V, D});
  floats("output_norm.weight", {D}, 0);
  floats("blk.0.attn_norm.weight", {D}, 0);
  blocks("blk.0.attn_q.weight", {hd, D});
  blocks("blk.0.attn_k.weight", {hd, D});
  blocks("blk.0.attn_v.weight", {hd, D});
  floats("blk.0.attn_output.weight", {D, hd}, 1);
  floats("blk.0.ffn_norm.weight", {D}, 0);
  blocks("blk.0.ffn_gate.weight", {F, D});
  blocks("blk.0.ffn_up.weight", {F, D});
  floats("blk.0.ffn_down.weight", {D, F}, 1);
  return g.bytes();
}

// A GGUF of a tiny model of one of llama.cpp's families, with that family's own tensors and keys, so each family's rules
// are reached: SmolLM3's NoPE layer (4 layers), OLMo 2's post-only norms and whole q/k norms, Phi-3's fused qkv and
// gate_up with LongRoPE factor tensors and a window, Gemma 3's per-head q/k norms, pre and post norms, windowed and
// global layers (a pattern of 2), Qwen3's per-head q/k norms. D 8: 2 heads of 4 (1 kv head), FFN 8, weights in
// `types[0]`. D 256: 2 heads of 2 channels, FFN 2, the matrices take `types` in turn; a matrix whose rows are not a
// whole number of its type's blocks falls back to F16, as llama.cpp's quantizer does.
inline std::vector<uint8_t> gguf_family(const std::string& arch, int D, int layers, const std::vector<uint32_t>& types,
                                        bool vocab = false) {
  posenc::lm::test::GgufWriter g;
  const int V = 8, hd = D == 256 ? 2 : D / 2, F = D == 256 ? 2 : D, Q = 2 * hd, KV = hd;
  g.kv_str("general.architecture", arch);
  g.kv_u32(arch + ".context_length", 8);
  g.kv_u32(arch + ".embedding_length", D);
  g.kv_u32(arch + ".block_count", layers);
  g.kv_u32(arch + ".feed_forward_length", F);
  g.kv_u32(arch + ".attention.head_count", 2);
  g.kv_u32(arch + ".attention.head_count_kv", 1);
  g.kv_u32(arch + ".attention.key_length", hd);
  g.kv_f32(arch + ".attention.layer_norm_rms_epsilon", 1e-6f);
  if (arch == "phi3") {
    g.kv_u32("phi3.attention.sliding_window", 4);
    g.kv_u32("phi3.rope.scaling.original_context_length", 4);
    g.kv_f32("phi3.rope.scaling.attn_factor", 1.19f);
  }
  if (arch == "gemma3") {
    g.kv_u32("gemma3.attention.sliding_window", 3);
    g.kv_u32("gemma3.attention.sliding_window_pattern", 2);
    g.kv_f32("gemma3.rope.freq_base", 1e6f);
  }
  if (vocab) {
    g.kv_str("tokenizer.ggml.model", "llama");
    g.kv_strs("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a", "ab"});
    g.kv_f32s("tokenizer.ggml.scores", {0, 0, 0, -1, -2, -3, 1, 2});
  }
  uint32_t state = 777;
  int k = 0;
  std::size_t next = 0;
  auto matrix = [&](const std::string& name, int64_t rows, int64_t cols) {
    uint32_t type = types[next++ % types.size()];
    const posenc::lm::Format* f = posenc::lm::format_of_ggml(type);
    if (cols % f->block) type = 1, f = posenc::lm::format_of_ggml(1);
    if (type == 0 || type == 1 || type == 8 || type == 30) {
      std::vector<float> v(static_cast<std::size_t>(rows * cols));
      for (float& x : v) x = weight(k++);
      g.tensor(name, {rows, cols}, v, type);
      return;
    }
    std::vector<uint8_t> b(static_cast<std::size_t>(rows) * (cols / f->block) * f->block_bytes);
    for (uint8_t& x : b) x = static_cast<uint8_t>((state = state * 1103515245u + 12345u) >> 16) % 0x3c;
    g.tensor_raw(name, {rows, cols}, b, type);
  };
  auto vec = [&](const std::string& name, int64_t n, float base, float step) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = base + step * static_cast<float>(i);
    g.tensor(name, {n}, v, 0);
  };
  const bool pre = arch != "olmo2", post = arch == "olmo2" || arch == "gemma3", fused = arch == "phi3";
  matrix("token_embd.weight", V, D);
  vec("output_norm.weight", D, 1.0f, 0.0f);
  if (fused) {  // LongRoPE: one factor per rotated pair
    vec("rope_factors_short.weight", hd / 2, 1.0f, 0.25f);
    vec("rope_factors_long.weight", hd / 2, 1.5f, 2.0f);
  }
  for (int l = 0; l < layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    if (pre) vec(p + "attn_norm.weight", D, 1.0f, 0.0f);
    if (fused) {
      matrix(p + "attn_qkv.weight", Q + 2 * KV, D);
    } else {
      matrix(p + "attn_q.weight", Q, D);
      matrix(p + "attn_k.weight", KV, D);
      matrix(p + "attn_v.weight", KV, D);
    }
    if (arch == "qwen3" || arch == "gemma3") {
      vec(p + "attn_q_norm.weight", hd, 0.5f, 0.25f);
      vec(p + "attn_k_norm.weight", hd, 1.5f, -0.25f);
    } else if (arch == "olmo2") {
      vec(p + "attn_q_norm.weight", Q, 0.5f, 0.125f);
      vec(p + "attn_k_norm.weight", KV, 1.5f, -0.125f);
    }
    matrix(p + "attn_output.weight", D, Q);
    if (post) vec(p + "post_attention_norm.weight", D, 0.75f, 0.0f);
    if (pre) vec(p + "ffn_norm.weight", D, 1.0f, 0.0f);
    if (fused) {
      matrix(p + "ffn_up.weight", 2 * F, D);
    } else {
      matrix(p + "ffn_gate.weight", F, D);
      matrix(p + "ffn_up.weight", F, D);
    }
    matrix(p + "ffn_down.weight", D, F);
    if (post) vec(p + "post_ffw_norm.weight", D, 1.25f, 0.0f);
  }
  return g.bytes();
}

template <class Writer>
void write_all(Writer& bin, Writer& gg, Writer& tok) {
  auto mode = [](uint8_t m, std::vector<uint8_t> b) { return b.insert(b.begin(), m), b; };
  bin.write("llama2c-tied", mode(0, llama2c(8, 12, 1, 2, 1, 16, 8)));
  bin.write("llama2c-untied-2-layers", mode(4, llama2c(8, 8, 2, 2, 2, -8, 4)));
  bin.write("llama2c-repair-size", mode(1, llama2c(4, 4, 1, 1, 1, 4, 2)));
  std::vector<uint8_t> cut = llama2c(8, 12, 1, 2, 1, 16, 8);
  cut.resize(100);
  bin.write("llama2c-truncated", mode(0, cut));
  gg.write("gguf-llama-f32-vocab", mode(0, gguf("llama", 8, 0, true, false)));
  gg.write("gguf-llama-f16-untied", mode(2, gguf("llama", 8, 1, false, true)));
  gg.write("gguf-llama-bf16", mode(0, gguf("llama", 8, 30, true, false)));
  gg.write("gguf-qwen2-f32", mode(0, gguf("qwen2", 8, 0, false, false)));
  gg.write("gguf-qwen2-bpe-vocab", mode(0, gguf("qwen2", 8, 0, true, false, "qwen2")));
  gg.write("gguf-llama-bpe-vocab-llama3", mode(0, gguf("llama", 8, 0, true, false, "llama-bpe")));
  gg.write("gguf-llama-q8_0", mode(0, gguf("llama", 32, 8, false, false)));
  for (uint32_t type : {2u, 3u, 6u, 7u, 10u, 11u, 12u, 13u, 14u})  // Q4_0 Q4_1 Q5_0 Q5_1 Q2_K Q3_K Q4_K Q5_K Q6_K
    gg.write("gguf-blocks-" + posenc::lm::ggml_type_name(type), mode(0, gguf_blocks({type})));
  gg.write("gguf-blocks-mix", mode(2, gguf_blocks({12, 14, 8, 6, 13, 30})));  // Q4_K_M-like, and more
  // llama.cpp's other families (their GGUF rules), in F32 / F16 / BF16 / Q8_0; mode 0: the forward applies the file's own
  // scaling (Phi-3's LongRoPE), mode 2: YaRN instead
  gg.write("gguf-smollm3-f16", mode(0, gguf_family("smollm3", 8, 4, {1})));
  gg.write("gguf-olmo2-bf16", mode(0, gguf_family("olmo2", 8, 1, {30})));
  gg.write("gguf-phi3-f32-longrope", mode(0, gguf_family("phi3", 8, 1, {0})));
  gg.write("gguf-phi3-q8_0-longrope", mode(2, gguf_family("phi3", 32, 1, {8})));
  gg.write("gguf-gemma3-f32-vocab", mode(0, gguf_family("gemma3", 8, 2, {0}, true)));
  gg.write("gguf-qwen3-f16", mode(2, gguf_family("qwen3", 8, 1, {1})));
  // Q4_K_M-like mixes (Q4_K, Q6_K, Q8_0, Q5_0; the 2-wide rows fall back to F16) in the fused and the normed families
  gg.write("gguf-phi3-mix", mode(0, gguf_family("phi3", 256, 1, {12, 14, 12, 8, 6})));
  gg.write("gguf-gemma3-mix", mode(2, gguf_family("gemma3", 256, 1, {14, 12, 12, 6, 8})));
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>", " ", "a", "b", " a", "ab", "<0x00>", "<0xC3>", "<0xA9>", "\xC3\xA9"};
  for (const std::string& text : {std::string("ab ab abba"), std::string("\xC3\xA9\xC3\xA9 a\x01"), std::string("")}) {
    const std::vector<uint8_t> t = tokenizer_bin(pieces);
    std::vector<uint8_t> b = {static_cast<uint8_t>(pieces.size() - 1), static_cast<uint8_t>(t.size()),
                              static_cast<uint8_t>(t.size() >> 8)};
    b.insert(b.end(), t.begin(), t.end());
    b.insert(b.end(), text.begin(), text.end());
    char name[32];
    std::snprintf(name, sizeof name, "tokenizer-%zu", text.size());
    tok.write(name, b);
    b[0] |= 0x80;  // no dummy prefix
    tok.write(std::string(name) + "-no-prefix", b);
  }
}

}  // namespace lm_seeds
