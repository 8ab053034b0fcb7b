// Seeds of the posenc::lm fuzz targets (included by make_seeds.cpp): tiny llama2.c checkpoints,
// tiny GGUF files (llama and qwen2, each dtype, with and without a SentencePiece vocabulary) and
// tokenizer.bin + text inputs, each small enough for the fuzzers' max_len.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../cpp/src/lm_internal.hpp"  // internal: the format table (block sizes)
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

// A GGUF of a tiny model (dim D, one layer, 2 heads, 1 kv head, vocab 8) with 2-D tensors in `type`.
inline std::vector<uint8_t> gguf(const std::string& arch, int D, uint32_t type, bool vocab, bool untied) {
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
  if (vocab) {
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
  gg.write("gguf-llama-q8_0", mode(0, gguf("llama", 32, 8, false, false)));
  for (uint32_t type : {2u, 3u, 6u, 7u, 10u, 11u, 12u, 13u, 14u})  // Q4_0 Q4_1 Q5_0 Q5_1 Q2_K Q3_K Q4_K Q5_K Q6_K
    gg.write("gguf-blocks-" + posenc::lm::ggml_type_name(type), mode(0, gguf_blocks({type})));
  gg.write("gguf-blocks-mix", mode(2, gguf_blocks({12, 14, 8, 6, 13, 30})));  // Q4_K_M-like, and more
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
