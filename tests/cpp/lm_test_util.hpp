// Shared by the posenc::lm suites: the stories260K files (../shared/models/stories260K, read in
// place; tests skip when the folder is missing) and small file helpers.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace posenc::lm::test {

// The checkout, for suites that read files in place. CTest passes it in the environment, not as a compile definition:
// an absolute path compiled in made these objects differ per clone folder, so a clean clone compiled them again
// instead of taking ccache's. A binary run by hand from its build folder (build/<name>) finds it two levels up.
inline std::string source_dir() {
  if (const char* dir = std::getenv("POSENC_SOURCE_DIR"); dir && *dir) return dir;
  return std::filesystem::absolute("../..").lexically_normal().string();
}
inline std::string stories_dir() { return source_dir() + "/../shared/models/stories260K"; }
inline bool have_stories() { return std::filesystem::exists(stories_dir() + "/stories260K.bin"); }
#define POSENC_REQUIRE_STORIES() \
  if (!::posenc::lm::test::have_stories()) GTEST_SKIP() << "../shared/models/stories260K is missing: skipped"

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}
inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace posenc::lm::test

#include <cmath>
#include <cstdint>
#include <random>

#include "posenc/lm.hpp"

namespace posenc::lm::test {

// A random Llama model whose matrices (embeddings included) are in `dtype`, built from random bytes of that
// format (F32, F16, BF16 values of magnitude 2^-6 .. 2^-1; Q8_0 blocks of scale 2^-8), norms float32 near 1.
// Columns must be whole blocks (multiples of 32 for Q8_0). Keeps its bytes: the Model reads them in place.
struct RandomModel {
  Config config;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<TensorBytes> tensors;
};
// A block format's bytes per 32 or 256 values and the byte offsets of its f16 scales (d, and dmin where it has
// one), from ggml's block layouts (ggml-common.h).
struct BlockLayout {
  int block, bytes;
  std::vector<int> scales;
};
inline BlockLayout block_layout(DType t) {
  switch (t) {
    case DType::Q4_0: return {32, 18, {0}};
    case DType::Q4_1: return {32, 20, {0, 2}};
    case DType::Q5_0: return {32, 22, {0}};
    case DType::Q5_1: return {32, 24, {0, 2}};
    case DType::Q2_K: return {256, 84, {80, 82}};
    case DType::Q3_K: return {256, 110, {108}};
    case DType::Q4_K: return {256, 144, {0, 2}};
    case DType::Q5_K: return {256, 176, {0, 2}};
    case DType::Q6_K: return {256, 210, {208}};
    default: return {1, 0, {}};
  }
}
// With `of`: each matrix in the dtype of(name) (a mix, as Q4_K_M files are); block formats other than Q8_0 are
// random bytes with f16 scales 2^-8 (columns then multiples of 256 for the K formats).
inline RandomModel random_model(const Config& c, DType dtype, uint32_t seed,
                                const std::function<DType(const std::string&)>& of = nullptr) {
  RandomModel m{c, {}, {}};
  std::mt19937 rng(seed);
  m.bytes.reserve(4 + 9 * static_cast<std::size_t>(c.n_layers));  // (tensors point into it)
  auto half_bits = [&](int bias, int mant_bits) {  // sign, exponent 2^-6 .. 2^-1, random mantissa
    const uint32_t e = static_cast<uint32_t>(bias - 6 + static_cast<int>(rng() % 6));
    return static_cast<uint16_t>(((rng() & 1u) << 15) | (e << mant_bits) | (rng() & ((1u << mant_bits) - 1)));
  };
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    const bool vec = shape.size() == 1;
    const std::size_t n = vec ? static_cast<std::size_t>(shape[0]) : static_cast<std::size_t>(shape[0] * shape[1]);
    std::vector<uint8_t> b;
    const DType t = vec ? DType::F32 : of ? of(name) : dtype;
    auto put16 = [&](uint16_t h) { b.push_back(static_cast<uint8_t>(h & 0xff)), b.push_back(static_cast<uint8_t>(h >> 8)); };
    for (std::size_t i = 0; i < n; ++i) {
      if (t == DType::F32) {
        const float v = vec ? 1.0f + static_cast<int>(rng() % 33 - 16) / 128.0f
                            : std::ldexp(static_cast<float>(rng() % 1024) / 1024.0f + 1.0f, -static_cast<int>(1 + rng() % 6)) *
                                  (rng() & 1 ? -1.0f : 1.0f);
        const auto* p = reinterpret_cast<const uint8_t*>(&v);
        b.insert(b.end(), p, p + 4);
      } else if (t == DType::F16) {
        put16(half_bits(15, 10));
      } else if (t == DType::BF16) {
        put16(half_bits(127, 7));
      } else if (t == DType::Q8_0) {
        if (i % 32 == 0) put16(0x1c00);  // 2^-8
        b.push_back(static_cast<uint8_t>(static_cast<int8_t>(static_cast<int>(rng() % 255) - 127)));
      }
    }
    if (!vec && t > DType::Q8_0) {
      const BlockLayout f = block_layout(t);
      b.resize(n / f.block * f.bytes);
      for (uint8_t& v : b) v = static_cast<uint8_t>(rng());
      for (std::size_t k = 0; k < b.size(); k += f.bytes)
        for (int o : f.scales) b[k + o] = 0x00, b[k + o + 1] = 0x1c;  // 2^-8
    }
    m.bytes.push_back(std::move(b));
    m.tensors.push_back({name, t, shape, m.bytes.back().data(), m.bytes.back().size()});
  };
  const int64_t D = c.dim, F = c.hidden_dim, V = c.vocab_size, Q = int64_t{c.n_heads} * c.hd(), KV = int64_t{c.n_kv_heads} * c.hd();
  add("token_embd.weight", {V, D});
  if (!c.tied_embeddings) add("output.weight", {V, D});
  add("output_norm.weight", {D});
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    add(p + "attn_norm.weight", {D});
    add(p + "ffn_norm.weight", {D});
    add(p + "attn_q.weight", {Q, D});
    add(p + "attn_k.weight", {KV, D});
    add(p + "attn_v.weight", {KV, D});
    add(p + "attn_output.weight", {D, Q});
    add(p + "ffn_gate.weight", {F, D});
    add(p + "ffn_up.weight", {F, D});
    add(p + "ffn_down.weight", {D, F});
  }
  return m;
}

}  // namespace posenc::lm::test
