// Checkpoint format versions 1 and 2 (see checkpoint.hpp); the config block is the
// model-config schema (config_fields()) in order, each field from its version on.
#include "posenc/checkpoint.hpp"

#include <cstring>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr uint8_t kMagic[4] = {'P', 'S', 'N', 'C'};

std::size_t field_bytes(FieldType t) { return t == FieldType::UInt64 || t == FieldType::Float ? 8 : 4; }

// Config block size of a version: its fields + trained_length (i32). Version 1: 72.
std::size_t config_bytes(uint32_t version) {
  std::size_t n = 4;
  for (const ConfigField& f : config_fields())
    if (f.since <= version) n += field_bytes(f.type);
  return n;
}
std::size_t min_bytes(uint32_t version) { return 12 + config_bytes(version) + 8 + 8; }  // + count, checksum

// The oldest version that stores this config: version 1 unless a newer field differs from
// its default (so checkpoints of the first seven encodings stay readable by version-1 readers).
uint32_t version_for(const ModelConfig& c) {
  uint32_t v = 1;
  for (const ConfigField& f : config_fields())
    if (f.since > v && f.get(c) != f.default_value()) v = f.since;
  return v;
}

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
  uint32_t version = 0;
  int trained_length = 0;
  uint64_t count = 0;
  std::size_t weights_at = 0;
};

Parsed parse(const uint8_t* data, std::size_t size) {
  if (!data && size > 0) fail("no data");
  if (size < 4) fail("checkpoint is truncated: " + std::to_string(size) + " bytes, a checkpoint has at least " +
                     std::to_string(min_bytes(1)));
  if (std::memcmp(data, kMagic, 4) != 0) fail("not a posenc checkpoint: bad magic (expected \"PSNC\")");
  Reader r{data, size, 4};
  if (size < 8) fail("checkpoint is truncated: " + std::to_string(size) + " bytes, a checkpoint has at least " +
                     std::to_string(min_bytes(1)));
  const uint32_t version = r.u32();
  if (version < 1 || version > kCheckpointVersion)
    fail("checkpoint version " + std::to_string(version) + " is not supported (this build reads versions 1 to " +
         std::to_string(kCheckpointVersion) + ")");
  const std::size_t min_size = min_bytes(version);
  if (size < min_size)
    fail("checkpoint is truncated: " + std::to_string(size) + " bytes, a checkpoint has at least " + std::to_string(min_size));
  const uint32_t block = r.u32();
  if (block != config_bytes(version))
    fail("checkpoint config block is " + std::to_string(block) + " bytes (version " + std::to_string(version) +
         " has " + std::to_string(config_bytes(version)) + ")");
  Parsed out;
  out.version = version;
  ModelConfig& c = out.config;  // fields newer than the version keep their defaults
  for (const ConfigField& f : config_fields()) {
    if (f.since > version) continue;
    switch (f.type) {
      case FieldType::Int: f.set(c, r.i32()); break;
      case FieldType::Choice: f.set(c, r.u32()); break;
      case FieldType::UInt64: c.seed = r.u64(); break;  // (the only u64: not through a double)
      case FieldType::Float: f.set(c, r.f64()); break;
    }
  }
  out.trained_length = r.i32();
  out.count = r.u64();
  out.weights_at = r.pos;
  // Size: header + 4 * count + checksum, compared without overflow.
  const std::size_t body = size - min_size;
  if (out.count > body / 4 || out.count * 4 != body) {
    if (out.count > body / 4)
      fail("checkpoint is truncated: " + std::to_string(size) + " bytes, but its header promises " + std::to_string(out.count) +
           " parameters (" + std::to_string(out.count) + " * 4 + " + std::to_string(min_size) + " bytes)");
    fail("checkpoint size mismatch: " + std::to_string(size) + " bytes, but " + std::to_string(out.count) +
         " parameters make " + std::to_string(out.count * 4 + min_size) + " bytes");
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
  w.out.reserve(min_bytes(kCheckpointVersion) + 4 * model.num_parameters());
  const uint32_t version = version_for(c);
  for (uint8_t b : kMagic) w.out.push_back(b);
  w.u32(version);
  w.u32(static_cast<uint32_t>(config_bytes(version)));
  for (const ConfigField& f : config_fields()) {
    if (f.since > version) continue;
    switch (f.type) {
      case FieldType::Int: w.i32(static_cast<int32_t>(f.get(c))); break;
      case FieldType::Choice: w.u32(static_cast<uint32_t>(f.get(c))); break;
      case FieldType::UInt64: w.u64(c.seed); break;
      case FieldType::Float: w.f64(f.get(c)); break;
    }
  }
  w.i32(model.trained_length());
  w.u64(model.num_parameters());
  const float* p = model.parameters();
  for (std::size_t i = 0; i < model.num_parameters(); ++i) w.f32(p[i]);
  w.u64(fnv1a64(w.out.data(), w.out.size()));
  return std::move(w.out);
}

ModelConfig read_checkpoint_config(const uint8_t* data, std::size_t size) { return parse(data, size).config; }

CheckpointInfo read_checkpoint_info(const uint8_t* data, std::size_t size) {
  const Parsed p = parse(data, size);
  return CheckpointInfo{p.config, p.trained_length, p.version, static_cast<std::size_t>(p.count)};
}

Model load_checkpoint(const uint8_t* data, std::size_t size, const LoadOptions& options) {
  Parsed p = parse(data, size);
  if (options.learned_policy) {
    p.config.learned_policy = *options.learned_policy;
    p.config.validate();  // (an out-of-range enum value)
  }
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
