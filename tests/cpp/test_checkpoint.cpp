// Checkpoints: round trip, and every kind of damaged input gives a posenc::Error
// (RangeError) with a clear message, never a crash or an out-of-bounds read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "posenc/checkpoint.hpp"
#include "posenc/error.hpp"
#include "posenc/model.hpp"
#include "posenc/rng.hpp"
#include "lm_test_util.hpp"
#include "test_util.hpp"

namespace {

using posenc::Encoding;
using posenc::Model;
using posenc::ModelConfig;

ModelConfig config_for(Encoding e) {
  ModelConfig c;
  c.encoding = e;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 8;
  c.vocab_size = 9;
  c.max_length = 10;
  c.seed = 99;
  c.rope_layout = posenc::RopeLayout::Interleaved;
  c.rotary_dim = 2;
  c.rope_base = 500.0;
  c.t5_num_buckets = 6;
  c.t5_max_distance = 20;
  c.shaw_k = 3;
  c.learned_policy = posenc::OutOfRange::Zero;
  return c;
}

std::string load_error(const std::vector<uint8_t>& bytes) {
  try {
    posenc::load_checkpoint(bytes.data(), bytes.size());
  } catch (const posenc::Error& e) {
    EXPECT_EQ(e.kind(), posenc::ErrorKind::Range);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a posenc::Error: " << e.what();
    return "";
  }
  return "";  // loaded
}

void put_u32(std::vector<uint8_t>& b, std::size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
// Rewrites the trailing checksum so that only the intended defect remains.
// Float32 weights: format versions 1 and 2, the weights bit for bit.
std::vector<uint8_t> save32(const Model& m) { return posenc::save_checkpoint(m, {posenc::WeightFormat::Float32}); }

void reseal(std::vector<uint8_t>& b) { put_u64(b, b.size() - 8, posenc::fnv1a64(b.data(), b.size() - 8)); }

Model trained_model(Encoding e) {
  Model m(config_for(e));
  posenc::Rng r(1);
  std::vector<int32_t> tok(2 * 7);
  for (auto& t : tok) t = static_cast<int32_t>(r.below(9));
  for (int s = 0; s < 3; ++s) m.train_step(tok.data(), tok.data(), 2, 7, 1e-2f);
  return m;
}

TEST(model_checkpoint, RoundTripGivesIdenticalLogitsForEveryEncoding) {
  for (Encoding e : all_encodings()) {
    Model m = trained_model(e);
    const std::vector<uint8_t> bytes = save32(m);
    EXPECT_EQ(bytes.size(), 100 + 4 * m.num_parameters());
    EXPECT_EQ(std::memcmp(bytes.data(), "PSNC", 4), 0);
    Model loaded = posenc::load_checkpoint(bytes.data(), bytes.size());
    const ModelConfig& a = m.config();
    const ModelConfig& b = loaded.config();
    for (const posenc::ConfigField& f : posenc::config_fields()) EXPECT_EQ(f.get(b), f.get(a)) << f.name;
    EXPECT_EQ(b.seed, a.seed);
    EXPECT_EQ(loaded.trained_length(), 7);
    ASSERT_EQ(loaded.num_parameters(), m.num_parameters());
    EXPECT_EQ(std::memcmp(loaded.parameters(), m.parameters(), 4 * m.num_parameters()), 0);
    // identical logits, also past max_length
    std::vector<int32_t> tok(13);
    for (int i = 0; i < 13; ++i) tok[i] = (i * 5) % 9;
    const std::vector<float> la(m.forward(tok.data(), 1, 13), m.forward(tok.data(), 1, 13) + 13 * 9);
    const float* lb = loaded.forward(tok.data(), 1, 13);
    for (int i = 0; i < 13 * 9; ++i) ASSERT_EQ(la[i], lb[i]) << posenc::encoding_name(e);
    EXPECT_EQ(posenc::read_checkpoint_config(bytes.data(), bytes.size()).encoding, e);
    // saving the loaded model gives the same bytes
    EXPECT_EQ(save32(loaded), bytes);
  }
}

// A config with a version-2 field away from its default is saved as version 2 (92-byte config
// block of 112 bytes) and reads back every field; the default config stays version 1 (72 bytes).
TEST(model_checkpoint, VersionTwoCarriesTheNewFields) {
  ModelConfig c = config_for(posenc::parse_encoding("xpos"));
  Model v1(c);
  const std::vector<uint8_t> b1 = save32(v1);
  EXPECT_EQ(b1[4], 1);
  EXPECT_EQ(b1[8], 72);
  c.xpos_scale_base = 64;
  c.xpos_gamma = 0.25;
  c.rope_fraction = 0.5;
  Model v2(c);
  const std::vector<uint8_t> b2 = save32(v2);
  EXPECT_EQ(b2[4], 2);
  EXPECT_EQ(b2[8], 112);
  EXPECT_EQ(b2.size(), 140 + 4 * v2.num_parameters());
  const ModelConfig r = posenc::read_checkpoint_config(b2.data(), b2.size());
  EXPECT_EQ(r.xpos_scale_base, 64);
  EXPECT_EQ(r.xpos_gamma, 0.25);
  EXPECT_EQ(r.rope_fraction, 0.5);
  Model loaded = posenc::load_checkpoint(b2.data(), b2.size());
  EXPECT_EQ(save32(loaded), b2);
  std::vector<int32_t> tok = {1, 2, 3, 4, 5};
  const std::vector<float> la(v2.forward(tok.data(), 1, 5), v2.forward(tok.data(), 1, 5) + 5 * 9);
  const float* lb = loaded.forward(tok.data(), 1, 5);
  for (int i = 0; i < 5 * 9; ++i) ASSERT_EQ(la[i], lb[i]);
}

TEST(model_checkpoint, TruncatedAtEveryLength) {
  const std::vector<uint8_t> bytes = posenc::save_checkpoint(trained_model(posenc::parse_encoding("rope")));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    const std::string msg = load_error(cut);
    ASSERT_FALSE(msg.empty()) << "a checkpoint cut to " << n << " bytes loaded";
    // Past the magic every cut is reported as truncation.
    if (n >= 4) ASSERT_NE(msg.find("truncated"), std::string::npos) << n << ": " << msg;
  }
  EXPECT_NE(load_error({}).find("truncated"), std::string::npos);
  EXPECT_THROW(posenc::load_checkpoint(nullptr, 0), posenc::Error);
}

TEST(model_checkpoint, EveryFlippedBitIsDetected) {
  const std::vector<uint8_t> bytes = posenc::save_checkpoint(trained_model(posenc::parse_encoding("shaw")));
  for (std::size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; bit += (i < 100 ? 1 : 3)) {  // every bit of the header, a sample of the rest
      std::vector<uint8_t> b = bytes;
      b[i] ^= static_cast<uint8_t>(1u << bit);
      ASSERT_FALSE(load_error(b).empty()) << "flipping bit " << bit << " of byte " << i << " went unnoticed";
    }
  std::vector<uint8_t> b = bytes;
  b[200] ^= 0x10;
  EXPECT_EQ(load_error(b), "checkpoint checksum mismatch: the file is corrupted");
}

TEST(model_checkpoint, ClearMessages) {
  const std::vector<uint8_t> good = save32(trained_model(posenc::parse_encoding("t5")));
  {
    std::vector<uint8_t> b = good;
    b[0] = 'X';
    EXPECT_EQ(load_error(b), "not a posenc checkpoint: bad magic (expected \"PSNC\")");
  }
  {
    std::vector<uint8_t> b = good;
    put_u32(b, 4, 4);
    EXPECT_EQ(load_error(b), "checkpoint version 4 is not supported (this build reads versions 1 to 3)");
    put_u32(b, 4, 0);
    EXPECT_EQ(load_error(b), "checkpoint version 0 is not supported (this build reads versions 1 to 3)");
    put_u32(b, 4, 2);  // a version-1 block under a version-2 header
    EXPECT_EQ(load_error(b), "checkpoint config block is 72 bytes (version 2 has 112)");
  }
  {
    // invalid config with a valid checksum: heads = 3 does not divide d_model = 8
    std::vector<uint8_t> b = good;
    put_u32(b, 12 + 8, 3);
    reseal(b);
    EXPECT_EQ(load_error(b).rfind("checkpoint config is invalid: dModel must be divisible by heads", 0), 0u)
        << load_error(b);
    // unknown encoding
    b = good;
    put_u32(b, 12, 77);
    reseal(b);
    EXPECT_NE(load_error(b).find("config is invalid: encoding"), std::string::npos) << load_error(b);
  }
  {
    // config and data disagree: vocab 10 needs more parameters than stored (valid checksum)
    std::vector<uint8_t> b = good;
    put_u32(b, 12 + 20, 10);
    reseal(b);
    EXPECT_NE(load_error(b).find("parameters, but its config needs"), std::string::npos) << load_error(b);
  }
  {
    // parameter count that does not match the file size
    std::vector<uint8_t> b = good;
    put_u64(b, 84, 3);
    EXPECT_NE(load_error(b).find("size mismatch"), std::string::npos) << load_error(b);
    put_u64(b, 84, ~0ull);  // absurd count: no overflow, reported as truncated
    EXPECT_NE(load_error(b).find("truncated"), std::string::npos) << load_error(b);
  }
  {
    // trailing bytes
    std::vector<uint8_t> b = good;
    b.push_back(0);
    EXPECT_NE(load_error(b).find("size mismatch"), std::string::npos) << load_error(b);
  }
  {
    std::vector<uint8_t> b = good;
    put_u32(b, 8, 64);
    EXPECT_NE(load_error(b).find("config block"), std::string::npos) << load_error(b);
  }
}

// binary16: every half survives half -> float -> half; known values and ties round to even;
// every float converts to its nearest half (checked against the two neighbours, in double).
TEST(model_checkpoint, HalfConversion) {
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_EQ(posenc::float_to_half(posenc::half_to_float(static_cast<uint16_t>(h))), h) << std::hex << h;
  EXPECT_EQ(posenc::float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(posenc::float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(posenc::float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(posenc::float_to_half(65519.0f), 0x7bff);
  EXPECT_EQ(posenc::float_to_half(65520.0f), 0x7c00);  // the tie above the largest half: to even (infinity)
  EXPECT_EQ(posenc::float_to_half(1e30f), 0x7c00);
  EXPECT_EQ(posenc::float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(posenc::float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(posenc::float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // half of it: a tie, to even
  EXPECT_EQ(posenc::float_to_half(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(posenc::float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 ulp: a tie, to even (2)
  EXPECT_EQ(posenc::float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie, even
  EXPECT_EQ(posenc::float_to_half(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // tie, even
  EXPECT_EQ(posenc::float_to_half(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  const uint16_t nan = posenc::float_to_half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(posenc::half_to_float(nan)));
  EXPECT_EQ(posenc::half_to_float(0x3555), 0.333251953125f);
  posenc::Rng r(5);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = static_cast<uint32_t>(r.below(1u << 31)) | (i & 1 ? 0x80000000u : 0u);
    if (((u >> 23) & 0xff) == 0xff) continue;  // inf/NaN: above
    float f;
    std::memcpy(&f, &u, 4);
    const uint16_t h = posenc::float_to_half(f);
    if (std::fabs(f) >= 65520.0f) {  // past the largest half and its rounding half-ulp: infinity
      ASSERT_EQ(h & 0x7fff, 0x7c00) << f;
      continue;
    }
    const double err = std::fabs(double(posenc::half_to_float(h)) - f);
    for (int d : {-1, 1}) {
      const uint16_t n = static_cast<uint16_t>(h + d);
      if ((n & 0x7fff) > 0x7c00 || ((n ^ h) & 0x8000)) continue;  // past infinity or across the sign
      const float g = posenc::half_to_float(n);
      if (std::isinf(g)) continue;
      ASSERT_LE(err, std::fabs(double(g) - f)) << f;
    }
  }
}

// Version 3 (float16, the default): 144-byte header + 2 bytes a weight; the loaded weights are the
// rounded ones; re-saving gives the same bytes; converting a float32 checkpoint gives the bytes saving
// in float16 gives; the forward pass stays close.
TEST(model_checkpoint, Float16IsVersionThree) {
  for (Encoding e : all_encodings()) {
    Model m = trained_model(e);
    const std::vector<uint8_t> bytes = posenc::save_checkpoint(m);
    ASSERT_EQ(bytes[4], 3);
    EXPECT_EQ(bytes[8], 112);
    EXPECT_EQ(bytes.size(), 144 + 2 * m.num_parameters());
    const posenc::CheckpointInfo info = posenc::read_checkpoint_info(bytes.data(), bytes.size());
    EXPECT_EQ(info.weights, posenc::WeightFormat::Float16);
    EXPECT_EQ(info.version, 3u);
    EXPECT_EQ(posenc::read_checkpoint_info(save32(m).data(), save32(m).size()).weights, posenc::WeightFormat::Float32);
    Model loaded = posenc::load_checkpoint(bytes.data(), bytes.size());
    for (const posenc::ConfigField& f : posenc::config_fields()) EXPECT_EQ(f.get(loaded.config()), f.get(m.config())) << f.name;
    EXPECT_EQ(loaded.config().seed, m.config().seed);
    EXPECT_EQ(loaded.trained_length(), 7);
    for (std::size_t i = 0; i < m.num_parameters(); ++i)
      ASSERT_EQ(loaded.parameters()[i], posenc::half_to_float(posenc::float_to_half(m.parameters()[i])));
    EXPECT_EQ(posenc::save_checkpoint(loaded), bytes);
    const std::vector<uint8_t> f32 = save32(m);
    Model wide = posenc::load_checkpoint(f32.data(), f32.size());
    EXPECT_EQ(posenc::save_checkpoint(wide), bytes);  // the converter's path
    std::vector<int32_t> tok(13);
    for (int i = 0; i < 13; ++i) tok[i] = (i * 5) % 9;
    const std::vector<float> la(m.forward(tok.data(), 1, 13), m.forward(tok.data(), 1, 13) + 13 * 9);
    const float* lb = loaded.forward(tok.data(), 1, 13);
    for (int i = 0; i < 13 * 9; ++i) ASSERT_NEAR(la[i], lb[i], 2e-2 * (1 + std::fabs(la[i]))) << posenc::encoding_name(e);
  }
}

TEST(model_checkpoint, Float16ClearMessages) {
  const std::vector<uint8_t> good = posenc::save_checkpoint(trained_model(posenc::parse_encoding("rope")));
  ASSERT_EQ(good[4], 3);
  std::vector<uint8_t> b = good;
  put_u32(b, 132, 0);
  reseal(b);
  EXPECT_EQ(load_error(b), "checkpoint weight format 0 is not supported (version 3 stores 1, float16, or 2, int8)");
  b = good;
  put_u64(b, 124, 3);
  reseal(b);
  EXPECT_NE(load_error(b).find("size mismatch"), std::string::npos) << load_error(b);
  b = good;
  b.pop_back();
  EXPECT_NE(load_error(b).find("truncated"), std::string::npos) << load_error(b);
  // a float32 body under a version-3 header
  std::vector<uint8_t> f32 = save32(trained_model(posenc::parse_encoding("rope")));
  put_u32(f32, 4, 3);
  EXPECT_EQ(load_error(f32), "checkpoint config block is 72 bytes (version 3 has 112)");
  Model m = trained_model(posenc::parse_encoding("rope"));
  EXPECT_THROW(posenc::save_checkpoint(m, {static_cast<posenc::WeightFormat>(7)}), posenc::Error);
}

// Weight format 2 (int8): each block's qkv, attention-projection, MLP fc and MLP projection matrix as
// int8 with a binary16 scale per output column (computed from the binary16-rounded weights), every
// other weight as binary16. Checked against the rule written out here, independently of the coder.
namespace {
bool coded(const posenc::TensorInfo& t) {
  for (const char* s : {".attn.qkv.weight", ".attn.proj.weight", ".mlp.fc.weight", ".mlp.proj.weight"})
    if (t.name.size() > std::strlen(s) && t.name.compare(t.name.size() - std::strlen(s), std::string::npos, s) == 0) return true;
  return false;
}
float half_round(float x) { return posenc::half_to_float(posenc::float_to_half(x)); }
}  // namespace

TEST(model_checkpoint, Int8CodesTheBlockMatrices) {
  for (Encoding e : all_encodings()) {
    Model m = trained_model(e);
    const std::vector<uint8_t> bytes = posenc::save_checkpoint(m, {posenc::WeightFormat::Int8});
    ASSERT_EQ(bytes[4], 3);
    const posenc::CheckpointInfo info = posenc::read_checkpoint_info(bytes.data(), bytes.size());
    EXPECT_EQ(info.weights, posenc::WeightFormat::Int8);
    std::size_t expected = 144;
    int coded_tensors = 0;
    for (const posenc::TensorInfo& t : m.tensors()) {
      if (coded(t)) ++coded_tensors;
      expected += coded(t) ? t.size + 2 * static_cast<std::size_t>(t.shape[1]) : 2 * t.size;
    }
    EXPECT_EQ(coded_tensors, 4 * m.config().layers) << posenc::encoding_name(e);
    EXPECT_EQ(bytes.size(), expected) << posenc::encoding_name(e);
    Model loaded = posenc::load_checkpoint(bytes.data(), bytes.size());
    for (const posenc::TensorInfo& t : m.tensors()) {
      const float* w = m.parameters() + t.offset;
      const float* got = loaded.parameters() + t.offset;
      if (!coded(t)) {
        for (std::size_t i = 0; i < t.size; ++i) ASSERT_EQ(got[i], half_round(w[i])) << t.name;
        continue;
      }
      const int rows = t.shape[0], cols = t.shape[1];
      for (int c = 0; c < cols; ++c) {
        double mx = 0;
        for (int r = 0; r < rows; ++r) mx = std::max(mx, std::fabs(double(half_round(w[r * cols + c]))));
        const float scale = half_round(static_cast<float>(mx / 127.0));
        for (int r = 0; r < rows; ++r) {
          const float x = half_round(w[r * cols + c]), y = got[r * cols + c];
          const double q = scale > 0 ? y / scale : 0;
          ASSERT_EQ(q, std::nearbyint(q)) << t.name;  // an integer multiple of the column's scale
          ASSERT_LE(std::fabs(q), 127.0) << t.name;
          ASSERT_LE(std::fabs(double(x) - y), 0.5 * scale * (1 + 1e-6) + 1e-12) << t.name << " [" << r << ", " << c << "]";
        }
      }
    }
    EXPECT_EQ(posenc::save_checkpoint(loaded, {posenc::WeightFormat::Int8}), bytes);  // a re-save changes nothing
    const std::vector<uint8_t> half = posenc::save_checkpoint(m);
    Model narrow = posenc::load_checkpoint(half.data(), half.size());
    EXPECT_EQ(posenc::save_checkpoint(narrow, {posenc::WeightFormat::Int8}), bytes);  // from float16: the same bytes
    std::vector<int32_t> tok(13);
    for (int i = 0; i < 13; ++i) tok[i] = (i * 5) % 9;
    const std::vector<float> la(m.forward(tok.data(), 1, 13), m.forward(tok.data(), 1, 13) + 13 * 9);
    const float* lb = loaded.forward(tok.data(), 1, 13);
    for (int i = 0; i < 13 * 9; ++i) ASSERT_NEAR(la[i], lb[i], 0.1 * (1 + std::fabs(la[i]))) << posenc::encoding_name(e);
  }
}

// Every shipped checkpoint (web/checkpoints/*.ckpt) loads and re-saves in its own weight format to
// the same bytes: the reader and the writer walk the layout alike.
TEST(model_checkpoint, ShippedCheckpointsResaveToTheSameBytes) {
  const std::filesystem::path dir = std::filesystem::path(posenc::lm::test::source_dir()) / "web" / "checkpoints";
  int files = 0, int8_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".ckpt") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const posenc::CheckpointInfo info = posenc::read_checkpoint_info(bytes.data(), bytes.size());
    const Model m = posenc::load_checkpoint(bytes.data(), bytes.size());
    EXPECT_EQ(m.trained_length(), info.trained_length) << entry.path();
    EXPECT_TRUE(posenc::save_checkpoint(m, {info.weights}) == bytes) << entry.path();
    ++files;
    int8_files += info.weights == posenc::WeightFormat::Int8;
  }
  EXPECT_GE(files, static_cast<int>(all_encodings().size())) << dir;  // (at least one task's checkpoints)
  EXPECT_GT(int8_files, 0);
}

TEST(model_checkpoint, Int8ClearMessages) {
  const std::vector<uint8_t> good = posenc::save_checkpoint(trained_model(posenc::parse_encoding("rope")), {posenc::WeightFormat::Int8});
  std::vector<uint8_t> b = good;
  b.erase(b.end() - 9);  // one weight byte fewer
  reseal(b);
  EXPECT_NE(load_error(b).find("its int8 weights make"), std::string::npos) << load_error(b);
  b = good;
  b.insert(b.end() - 8, 0);
  reseal(b);
  EXPECT_NE(load_error(b).find("its int8 weights make"), std::string::npos) << load_error(b);
  b = good;
  b.pop_back();  // (the exact int8 size needs the config, which is read after the checksum)
  EXPECT_EQ(load_error(b), "checkpoint checksum mismatch: the file is corrupted");
  b.resize(150);
  EXPECT_NE(load_error(b).find("truncated"), std::string::npos) << load_error(b);
  // a non-finite column scale (the first coded tensor's first scale: the first binary16 after the
  // uncoded tensors before it) is refused, so a loaded int8 model always re-saves
  {
    Model probe = trained_model(posenc::parse_encoding("rope"));
    std::size_t q = 0, h = 0;
    for (const posenc::TensorInfo& t : probe.tensors()) q += coded(t) ? t.size : 0;
    for (const posenc::TensorInfo& t : probe.tensors()) {
      if (coded(t)) break;
      h += t.size;
    }
    const std::size_t halves = (good.size() - 144 - q) / 2;
    b = good;
    b[136 + q + h] = 0x00;           // low byte
    b[136 + q + halves + h] = 0x7c;  // high byte: +infinity
    reseal(b);
    EXPECT_NE(load_error(b).find("int8 scale of h0.attn.qkv.weight column 0 is inf: out of range"), std::string::npos) << load_error(b);
    b[136 + q + h] = 0xff;           // 65504: finite, but 127 x 65504 is not a binary16
    b[136 + q + halves + h] = 0x7b;
    reseal(b);
    EXPECT_NE(load_error(b).find("column 0 is 65504.000000: out of range"), std::string::npos) << load_error(b);
  }
  Model m = trained_model(posenc::parse_encoding("rope"));
  for (const posenc::TensorInfo& t : m.tensors())
    if (coded(t)) m.parameters()[t.offset + 3] = std::numeric_limits<float>::infinity();
  try {
    posenc::save_checkpoint(m, {posenc::WeightFormat::Int8});
    ADD_FAILURE() << "saved a non-finite weight as int8";
  } catch (const posenc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("int8 weights need finite values"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(posenc::save_checkpoint(m));  // float16 keeps infinities
}

TEST(model_checkpoint, Fnv1a64KnownValues) {
  EXPECT_EQ(posenc::fnv1a64(nullptr, 0), 14695981039346656037ull);
  const uint8_t a[] = {'a'};
  EXPECT_EQ(posenc::fnv1a64(a, 1), 0xaf63dc4c8601ec8cull);
  const uint8_t foobar[] = {'f', 'o', 'o', 'b', 'a', 'r'};
  EXPECT_EQ(posenc::fnv1a64(foobar, 6), 0x85944171f73967e8ull);
}

}  // namespace
