// Checkpoint format versions 1, 2 (float32 weights) and 3 (float16 or int8 weights) (see checkpoint.hpp);
// the config block is the model-config schema (config_fields()) in order, each field from its
// version on.
#include "posenc/checkpoint.hpp"

#include <algorithm>
#include <cmath>
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
constexpr uint32_t kHalfVersion = 3;  // the first version with a weight-format field (float16 weights)
// Header + count (+ weight format from version 3) + checksum: every byte but the weights.
std::size_t min_bytes(uint32_t version) { return 12 + config_bytes(version) + 8 + (version >= kHalfVersion ? 4 : 0) + 8; }
std::size_t weight_bytes(uint32_t version) { return version >= kHalfVersion ? 2 : 4; }

// The oldest version that stores this config: version 1 unless a newer field differs from
// its default (so checkpoints of the first seven encodings stay readable by version-1 readers).
uint32_t version_for(const ModelConfig& c) {
  uint32_t v = 1;
  for (const ConfigField& f : config_fields())
    if (f.since > v && f.get(c) != f.default_value()) v = f.since;
  return v;
}

[[noreturn]] void fail(const std::string& msg) { throw Error(ErrorKind::Range, msg); }
[[noreturn]] void fail_shorter_than(std::size_t size, std::size_t min_size) {
  fail("checkpoint is truncated: " + std::to_string(size) + " bytes, a checkpoint has at least " + std::to_string(min_size));
}

// ---- binary16 values as two byte planes: n low bytes, then n high bytes (weight formats 1 and 2)
template <class Byte>  // uint8_t to write, const uint8_t to read
struct HalfPlanes {
  Byte* lo;           // value i: lo[i] | lo[n + i] << 8
  std::size_t n;      // values in the whole stream (the distance from the low plane to the high plane)
  float get(std::size_t i) const { return half_to_float(static_cast<uint16_t>(lo[i] | lo[n + i] << 8)); }
  void put(std::size_t i, uint16_t v) const {
    lo[i] = static_cast<uint8_t>(v);
    lo[n + i] = static_cast<uint8_t>(v >> 8);
  }
};

// ---- weight format 2 (int8): its layout, defined once
//
//   [Q int8 values][H low bytes][H high bytes]       (Q, H: int8_layout of the tensor table)
//
// walked in tensor-table order; each tensor takes its share (int8_share) from both streams:
//   coded [in, out] (h<l>.attn.qkv/proj.weight, h<l>.mlp.fc/proj.weight):
//       in*out int8 values, row-major, and out binary16 column scales
//   any other tensor [size]: size binary16 weights
bool int8_coded(const TensorInfo& t) {
  static constexpr const char* kCoded[] = {".attn.qkv.weight", ".attn.proj.weight", ".mlp.fc.weight", ".mlp.proj.weight"};
  if (t.shape.size() != 2 || t.name.rfind('h', 0) != 0) return false;
  return std::any_of(std::begin(kCoded), std::end(kCoded), [&](const char* s) { return t.name.ends_with(s); });
}
struct Int8Layout {
  std::size_t int8s = 0, halves = 0;  // int8 values; binary16 values (column scales + uncoded weights)
  std::size_t bytes() const { return int8s + 2 * halves; }
};
Int8Layout int8_share(const TensorInfo& t) {
  if (!int8_coded(t)) return {0, t.size};
  return {t.size, static_cast<std::size_t>(t.shape[1])};
}
Int8Layout int8_layout(const std::vector<TensorInfo>& tensors) {
  Int8Layout l;
  for (const TensorInfo& t : tensors) {
    const Int8Layout s = int8_share(t);
    l.int8s += s.int8s;
    l.halves += s.halves;
  }
  return l;
}
// The one walk: visit(t, halves, q) for each tensor in table order, where halves.get(i) is its i-th
// binary16 value (a coded tensor's column scale i, any other tensor's weight i) and q its [in, out]
// int8 values (nullptr: not coded). at: the region's first byte (int8_layout(tensors).bytes() bytes).
template <class Byte, class Visit>
void walk_int8(const std::vector<TensorInfo>& tensors, Byte* at, Visit&& visit) {
  const Int8Layout l = int8_layout(tensors);
  HalfPlanes<Byte> halves{at + l.int8s, l.halves};
  Byte* q = at;
  for (const TensorInfo& t : tensors) {
    const Int8Layout s = int8_share(t);
    visit(t, halves, s.int8s ? q : nullptr);
    halves.lo += s.halves;
    q += s.int8s;
  }
}
float half_round(float x) { return half_to_float(float_to_half(x)); }

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
  WeightFormat weights = WeightFormat::Float32;
};

Parsed parse(const uint8_t* data, std::size_t size) {
  if (!data && size > 0) fail("no data");
  if (size < 4) fail_shorter_than(size, min_bytes(1));
  if (std::memcmp(data, kMagic, 4) != 0) fail("not a posenc checkpoint: bad magic (expected \"PSNC\")");
  Reader r{data, size, 4};
  if (size < 8) fail_shorter_than(size, min_bytes(1));
  const uint32_t version = r.u32();
  if (version < 1 || version > kCheckpointVersion)
    fail("checkpoint version " + std::to_string(version) + " is not supported (this build reads versions 1 to " +
         std::to_string(kCheckpointVersion) + ")");
  const std::size_t min_size = min_bytes(version);
  if (size < min_size) fail_shorter_than(size, min_size);
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
  if (version >= kHalfVersion) {
    const uint32_t format = r.u32();
    if (format != static_cast<uint32_t>(WeightFormat::Float16) && format != static_cast<uint32_t>(WeightFormat::Int8))
      fail("checkpoint weight format " + std::to_string(format) + " is not supported (version " + std::to_string(version) +
           " stores 1, float16, or 2, int8)");
    out.weights = static_cast<WeightFormat>(format);
  }
  out.weights_at = r.pos;
  // Size: header + w * count + checksum (w: bytes per weight), compared without overflow. Int8:
  // every weight takes at least 1 byte here; the exact size is checked against the config below.
  const bool int8 = out.weights == WeightFormat::Int8;
  const std::size_t w = int8 ? 1 : weight_bytes(version);
  const std::size_t body = size - min_size;
  if (out.count > body / w || (!int8 && out.count * w != body)) {
    if (out.count > body / w)
      fail("checkpoint is truncated: " + std::to_string(size) + " bytes, but its header promises " + std::to_string(out.count) +
           " parameters (" + std::to_string(out.count) + " * " + std::to_string(w) + " + " + std::to_string(min_size) + " bytes)");
    fail("checkpoint size mismatch: " + std::to_string(size) + " bytes, but " + std::to_string(out.count) +
         " parameters make " + std::to_string(out.count * w + min_size) + " bytes");
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
  if (int8) {  // (the model is at most as large as the file: count <= body)
    const std::vector<TensorInfo> tensors = tensor_table(c);
    const Int8Layout l = int8_layout(tensors);
    if (l.bytes() != body)
      fail("checkpoint size mismatch: " + std::to_string(size) + " bytes, but its int8 weights make " +
           std::to_string(l.bytes() + min_size) + " bytes");
    // Column scales must keep every decoded weight (|scale| x 127 at most) within binary16: a loaded
    // model then re-saves as int8 (whose coder rounds to binary16 first and refuses non-finite values).
    walk_int8(tensors, data + out.weights_at, [](const TensorInfo& t, HalfPlanes<const uint8_t> scale, const uint8_t* q) {
      if (!q) return;
      for (int col = 0; col < t.shape[1]; ++col)
        if (!std::isfinite(half_round(std::fabs(scale.get(col)) * 127.0f)))
          fail("checkpoint int8 scale of " + t.name + " column " + std::to_string(col) + " is " +
               std::to_string(scale.get(col)) + ": out of range (127 x |scale| must be a finite binary16)");
    });
  }
  return out;
}

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

uint16_t float_to_half(float f) {
  const uint32_t u = f32_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const int exp = static_cast<int>((u >> 23) & 0xffu);
  const uint32_t mant = u & 0x7fffffu;
  if (exp == 255) {  // infinity, or NaN with its payload's top 10 bits (kept non-zero: still a NaN)
    if (!mant) return sign | 0x7c00u;
    const uint16_t payload = static_cast<uint16_t>(mant >> 13);
    return sign | 0x7c00u | (payload ? payload : 0x200u);
  }
  const int e = exp - 127 + 15;  // the half exponent field
  if (e >= 31) return sign | 0x7c00u;  // too large: infinity
  if (e >= 1) {  // normal: drop 13 mantissa bits, round to nearest even (a carry may reach infinity, correctly)
    uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  // Subnormal half (or zero): value = m * 2^-24 with m = (1.mant) >> (14 - e).
  const int shift = 14 - e;
  if (shift > 24) return sign;  // below half the smallest subnormal (and every float32 subnormal)
  const uint32_t m = mant | 0x800000u;
  uint32_t h = m >> shift;
  const uint32_t rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1u))) ++h;  // (a carry into 0x400 is the smallest normal)
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 31) return bits_f32(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
    return sign ? -v : v;
  }
  return bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

uint64_t fnv1a64(const uint8_t* data, std::size_t size) {
  uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::vector<uint8_t> save_checkpoint(const Model& model, const SaveOptions& options) {
  const ModelConfig& c = model.config();
  const bool int8 = options.weights == WeightFormat::Int8;
  const bool half = options.weights == WeightFormat::Float16 || int8;  // (both version 3)
  if (!half && options.weights != WeightFormat::Float32)
    fail("weight format " + std::to_string(static_cast<uint32_t>(options.weights)) +
         " is not one of 0 (float32), 1 (float16), 2 (int8)");
  if (!c.causal)  // not in the schema (model.hpp): a reader would load it as causal
    throw Error(ErrorKind::Range, "causal = false: checkpoints store causal models only (a bidirectional model "
                                  "would load as a causal one)");
  const uint32_t version = half ? kHalfVersion : version_for(c);
  Writer w;
  w.out.reserve(min_bytes(version) + weight_bytes(version) * model.num_parameters());
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
  if (int8) {
    w.u32(static_cast<uint32_t>(WeightFormat::Int8));
    const std::vector<TensorInfo>& tensors = model.tensors();
    const std::size_t at = w.out.size();
    w.out.resize(at + int8_layout(tensors).bytes());
    std::vector<float> scale;
    walk_int8(tensors, w.out.data() + at, [&](const TensorInfo& t, HalfPlanes<uint8_t> halves, uint8_t* q) {
      const float* x = p + t.offset;
      if (!q) {
        for (std::size_t i = 0; i < t.size; ++i) halves.put(i, float_to_half(x[i]));
        return;
      }
      // x [rows, cols] -> scale [cols] = binary16(max_r |binary16(x[r, col])| / 127), q [rows, cols]
      const int rows = t.shape[0], cols = t.shape[1];
      scale.assign(static_cast<std::size_t>(cols), 0.0f);
      for (int r = 0; r < rows; ++r)
        for (int col = 0; col < cols; ++col) {
          const float v = std::fabs(half_round(x[static_cast<std::size_t>(r) * cols + col]));
          if (!std::isfinite(v)) fail("int8 weights need finite values: " + t.name + " holds " + std::to_string(v) + " (save as float16)");
          scale[col] = std::max(scale[col], v);
        }
      for (int col = 0; col < cols; ++col) {
        const uint16_t s = float_to_half(scale[col] / 127.0f);
        halves.put(col, s);
        scale[col] = half_to_float(s);
      }
      for (int r = 0; r < rows; ++r)
        for (int col = 0; col < cols; ++col) {
          const float v = scale[col] > 0 ? half_round(x[static_cast<std::size_t>(r) * cols + col]) / scale[col] : 0.0f;
          *q++ = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(std::nearbyint(v), -127.0f, 127.0f)));
        }
    });
  } else if (half) {
    w.u32(static_cast<uint32_t>(WeightFormat::Float16));
    const std::size_t n = model.num_parameters();
    const std::size_t at = w.out.size();
    w.out.resize(at + 2 * n);
    const HalfPlanes<uint8_t> halves{w.out.data() + at, n};
    for (std::size_t i = 0; i < n; ++i) halves.put(i, float_to_half(p[i]));
  } else {
    for (std::size_t i = 0; i < model.num_parameters(); ++i) w.f32(p[i]);
  }
  w.u64(fnv1a64(w.out.data(), w.out.size()));
  return std::move(w.out);
}

ModelConfig read_checkpoint_config(const uint8_t* data, std::size_t size) { return parse(data, size).config; }

CheckpointInfo read_checkpoint_info(const uint8_t* data, std::size_t size) {
  const Parsed p = parse(data, size);
  return CheckpointInfo{p.config, p.trained_length, p.version, static_cast<std::size_t>(p.count), p.weights};
}

Model load_checkpoint(const uint8_t* data, std::size_t size, const LoadOptions& options) {
  Parsed p = parse(data, size);
  if (options.learned_policy) {
    p.config.learned_policy = *options.learned_policy;
    p.config.validate();  // (an out-of-range enum value)
  }
  Model m(p.config);
  float* w = m.parameters();
  if (p.weights == WeightFormat::Int8) {
    std::vector<float> scale;
    walk_int8(m.tensors(), data + p.weights_at, [&](const TensorInfo& t, HalfPlanes<const uint8_t> halves, const uint8_t* q) {
      float* x = w + t.offset;
      if (!q) {
        for (std::size_t i = 0; i < t.size; ++i) x[i] = halves.get(i);
        return;
      }
      // x [rows, cols] = scale [cols] * q [rows, cols]
      const int rows = t.shape[0], cols = t.shape[1];
      scale.resize(static_cast<std::size_t>(cols));
      for (int col = 0; col < cols; ++col) scale[col] = halves.get(col);
      for (int r = 0; r < rows; ++r)
        for (int col = 0; col < cols; ++col) *x++ = scale[col] * static_cast<float>(static_cast<int8_t>(*q++));
    });
  } else if (p.weights == WeightFormat::Float16) {
    const HalfPlanes<const uint8_t> halves{data + p.weights_at, static_cast<std::size_t>(p.count)};
    for (std::size_t i = 0; i < p.count; ++i) w[i] = halves.get(i);
  } else {
    for (std::size_t i = 0; i < p.count; ++i) {
      const uint8_t* b = data + p.weights_at + 4 * i;
      const uint32_t u = static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
                         static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24;
      std::memcpy(&w[i], &u, 4);
    }
  }
  m.set_trained_length(p.trained_length);
  return m;
}

}  // namespace posenc
