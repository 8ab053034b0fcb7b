// Checkpoint format version 1 (see checkpoint.hpp).
#include "posenc/checkpoint.hpp"

#include <cstring>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr uint8_t kMagic[4] = {'P', 'S', 'N', 'C'};
constexpr std::size_t kConfigBytes = 72;
constexpr std::size_t kHeaderBytes = 12 + kConfigBytes + 8;  // magic, version, block size, config, count
constexpr std::size_t kMinBytes = kHeaderBytes + 8;          // + checksum

[[noreturn]] void fail(const std::string& msg) { throw Error(ErrorKind::Range, msg); }

// --- little-endian writer / bounds-checked reader
struct Writer {
  std::vector<uint8_t> out;
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u32(u);
  }
  void f64(double v) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    u64(u);
  }
};

struct Reader {
  const uint8_t* p;
  std::size_t size;
  std::size_t pos = 0;
  void need(std::size_t n) const {
    if (pos > size || size - pos < n) fail("checkpoint is truncated (" + std::to_string(size) + " bytes)");
  }
  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[pos + i]) << (8 * i);
    pos += 4;
    return v;
  }
  uint64_t u64() {
    need(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[pos + i]) << (8 * i);
    pos += 8;
    return v;
  }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  double f64() {
    const uint64_t u = u64();
    double v;
    std::memcpy(&v, &u, 8);
    return v;
  }
};

struct Parsed {
  ModelConfig config;
  int trained_length = 0;
  uint64_t count = 0;
  std::size_t weights_at = 0;
};

Parsed parse(const uint8_t* data, std::size_t size) {
  if (!data && size > 0) fail("no data");
  if (size < 4) fail("checkpoint is truncated: " + std::to_string(size) + " bytes, a checkpoint has at least " +
                     std::to_string(kMinBytes));
  if (std::memcmp(data, kMagic, 4) != 0) fail("not a posenc checkpoint: bad magic (expected \"PSNC\")");
  Reader r{data, size, 4};
  if (size < 8) fail("checkpoint is truncated: " + std::to_string(size) + " bytes, a checkpoint has at least " +
                     std::to_string(kMinBytes));
  const uint32_t version = r.u32();
  if (version != kCheckpointVersion)
    fail("checkpoint version " + std::to_string(version) + " is not supported (this build reads version " +
         std::to_string(kCheckpointVersion) + ")");
  if (size < kMinBytes)
    fail("checkpoint is truncated: " + std::to_string(size) + " bytes, a checkpoint has at least " + std::to_string(kMinBytes));
  const uint32_t block = r.u32();
  if (block != kConfigBytes)
    fail("checkpoint config block is " + std::to_string(block) + " bytes (version 1 has " + std::to_string(kConfigBytes) + ")");
  Parsed out;
  ModelConfig& c = out.config;
  c.encoding = static_cast<Encoding>(r.u32());
  c.layers = r.i32();
  c.heads = r.i32();
  c.d_model = r.i32();
  c.mlp_ratio = r.i32();
  c.vocab_size = r.i32();
  c.max_length = r.i32();
  c.seed = r.u64();
  c.rope_layout = static_cast<RopeLayout>(r.u32());
  c.rope_base = r.f64();
  c.rotary_dim = r.i32();
  c.t5_num_buckets = r.i32();
  c.t5_max_distance = r.i32();
  c.shaw_k = r.i32();
  c.learned_policy = static_cast<OutOfRange>(r.u32());
  out.trained_length = r.i32();
  out.count = r.u64();
  out.weights_at = r.pos;
  // Size: header + 4 * count + checksum, compared without overflow.
  const std::size_t body = size - kMinBytes;
  if (out.count > body / 4 || out.count * 4 != body) {
    if (out.count > body / 4)
      fail("checkpoint is truncated: " + std::to_string(size) + " bytes, but its header promises " + std::to_string(out.count) +
           " parameters (" + std::to_string(out.count) + " * 4 + " + std::to_string(kMinBytes) + " bytes)");
    fail("checkpoint size mismatch: " + std::to_string(size) + " bytes, but " + std::to_string(out.count) +
         " parameters make " + std::to_string(out.count * 4 + kMinBytes) + " bytes");
  }
  const std::size_t sum_at = size - 8;
  Reader cr{data, size, sum_at};
  const uint64_t stored = cr.u64();
  if (stored != fnv1a64(data, sum_at)) fail("checkpoint checksum mismatch: the file is corrupted");
  try {
    c.validate();
  } catch (const Error& e) {
    fail(std::string("checkpoint config is invalid: ") + e.what());
  }
  const std::size_t expected = count_parameters(c);
  if (expected != out.count)
    fail("checkpoint holds " + std::to_string(out.count) + " parameters, but its config needs " +
         std::to_string(expected));
  if (out.trained_length < 0 || out.trained_length > kMaxSequenceLength)
    fail("checkpoint trained length " + std::to_string(out.trained_length) + " is out of range");
  return out;
}

}  // namespace

uint64_t fnv1a64(const uint8_t* data, std::size_t size) {
  uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::vector<uint8_t> save_checkpoint(const Model& model) {
  const ModelConfig& c = model.config();
  Writer w;
  w.out.reserve(kMinBytes + 4 * model.num_parameters());
  for (uint8_t b : kMagic) w.out.push_back(b);
  w.u32(kCheckpointVersion);
  w.u32(static_cast<uint32_t>(kConfigBytes));
  w.u32(static_cast<uint32_t>(c.encoding));
  w.i32(c.layers);
  w.i32(c.heads);
  w.i32(c.d_model);
  w.i32(c.mlp_ratio);
  w.i32(c.vocab_size);
  w.i32(c.max_length);
  w.u64(c.seed);
  w.u32(static_cast<uint32_t>(c.rope_layout));
  w.f64(c.rope_base);
  w.i32(c.rotary_dim);
  w.i32(c.t5_num_buckets);
  w.i32(c.t5_max_distance);
  w.i32(c.shaw_k);
  w.u32(static_cast<uint32_t>(c.learned_policy));
  w.i32(model.trained_length());
  w.u64(model.num_parameters());
  const float* p = model.parameters();
  for (std::size_t i = 0; i < model.num_parameters(); ++i) w.f32(p[i]);
  w.u64(fnv1a64(w.out.data(), w.out.size()));
  return std::move(w.out);
}

ModelConfig read_checkpoint_config(const uint8_t* data, std::size_t size) { return parse(data, size).config; }

Model load_checkpoint(const uint8_t* data, std::size_t size) {
  const Parsed p = parse(data, size);
  Model m(p.config);
  float* w = m.parameters();
  for (std::size_t i = 0; i < p.count; ++i) {
    const uint8_t* b = data + p.weights_at + 4 * i;
    const uint32_t u = static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
                       static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24;
    std::memcpy(&w[i], &u, 4);
  }
  m.set_trained_length(p.trained_length);
  return m;
}

}  // namespace posenc
