// posenc::lm: GGUF v3 (and v2) files (lm.hpp). Layout (ggml's gguf.md):
//   "GGUF", u32 version, u64 tensor_count, u64 kv_count,
//   kv_count x (string key, u32 type, value)          string = u64 length + bytes; array = u32 type, u64 n, n values
//   tensor_count x (string name, u32 n_dims, u64 ne[n_dims], u32 ggml_type, u64 offset)
//   padding to general.alignment (default 32), then the tensor data (offsets relative to its start).
#include <cmath>
#include <limits>

#include "lm_internal.hpp"

namespace posenc::lm {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" little-endian
constexpr int kMaxDepth = 4;             // nested arrays
constexpr uint32_t kMaxDims = 4;         // GGML_MAX_DIMS

// ggml_type ids and names (ggml.h); the gaps are types ggml removed.
const char* const kGgmlNames[] = {"F32",     "F16",    "Q4_0",   "Q4_1",   nullptr,  nullptr,   "Q5_0",     "Q5_1",
                                  "Q8_0",    "Q8_1",   "Q2_K",   "Q3_K",   "Q4_K",   "Q5_K",    "Q6_K",     "Q8_K",
                                  "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S",   "IQ2_S",    "IQ4_XS",
                                  "I8",      "I16",    "I32",    "I64",    "F64",    "IQ1_M",   "BF16",     nullptr,
                                  nullptr,   nullptr,  "TQ1_0",  "TQ2_0",  nullptr,  nullptr,   nullptr,    "MXFP4"};

std::size_t scalar_size(GgufType t) {
  switch (t) {
    case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
    case GgufType::U16: case GgufType::I16: return 2;
    case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
    case GgufType::U64: case GgufType::I64: case GgufType::F64: return 8;
    case GgufType::String: return 8;   // at least its length
    case GgufType::Array: return 12;   // at least its type and count
  }
  return 0;
}

GgufType read_type(ByteReader& r, const std::string& key) {
  const uint32_t t = r.get<uint32_t>("a value type");
  if (t > static_cast<uint32_t>(GgufType::F64))
    throw Error(ErrorKind::Range, "GGUF key " + key + " has unknown value type " + std::to_string(t));
  return static_cast<GgufType>(t);
}

std::string read_string(ByteReader& r, const char* field) {
  const uint64_t n = r.get<uint64_t>(field);
  const uint8_t* p = r.skip(n, field);
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
}

template <class T>
T get_as(ByteReader& r) { return r.get<T>("a value"); }

GgufValue read_value(ByteReader& r, GgufType t, const std::string& key, int depth) {
  GgufValue v;
  v.type = t;
  switch (t) {
    case GgufType::U8: v.u = get_as<uint8_t>(r); break;
    case GgufType::I8: v.i = get_as<int8_t>(r); break;
    case GgufType::U16: v.u = get_as<uint16_t>(r); break;
    case GgufType::I16: v.i = get_as<int16_t>(r); break;
    case GgufType::U32: v.u = get_as<uint32_t>(r); break;
    case GgufType::I32: v.i = get_as<int32_t>(r); break;
    case GgufType::U64: v.u = get_as<uint64_t>(r); break;
    case GgufType::I64: v.i = get_as<int64_t>(r); break;
    case GgufType::F32: v.f = get_as<float>(r); break;
    case GgufType::F64: v.f = get_as<double>(r); break;
    case GgufType::Bool: {
      const uint8_t b = get_as<uint8_t>(r);
      if (b > 1) throw Error(ErrorKind::Range, "GGUF key " + key + " has a bool of value " + std::to_string(b));
      v.u = b;
      break;
    }
    case GgufType::String: v.s = read_string(r, "a string value"); break;
    case GgufType::Array: {
      if (depth >= kMaxDepth) throw Error(ErrorKind::Range, "GGUF key " + key + " nests arrays deeper than " + std::to_string(kMaxDepth));
      v.elem = read_type(r, key);
      const uint64_t n = r.get<uint64_t>("an array length");
      if (n > r.remaining() / scalar_size(v.elem))  // a lying count: caught before reserving
        throw Error(ErrorKind::Range, "GGUF key " + key + " claims " + std::to_string(n) + " array items; the " +
                                          std::to_string(r.remaining()) + " bytes left cannot hold them");
      v.items.reserve(static_cast<std::size_t>(n));
      for (uint64_t i = 0; i < n; ++i) v.items.push_back(read_value(r, v.elem, key, depth + 1));
      break;
    }
  }
  return v;
}

// Bytes of a tensor of a type posenc reads (lm_dtype.cpp's table); 0 for any other type, or rows that are not
// whole blocks (refused by name at load).
uint64_t tensor_bytes(const GgufTensorInfo& t, uint64_t n) {
  const Format* f = format_of_ggml(t.ggml_type);
  return f && t.ne[0] % f->block == 0 ? n / f->block * f->block_bytes : 0;
}

GgufTensorInfo read_tensor_info(ByteReader& r) {
  GgufTensorInfo t;
  t.name = read_string(r, "a tensor name");
  const uint32_t dims = r.get<uint32_t>("a tensor's n_dims");
  if (dims < 1 || dims > kMaxDims)
    throw Error(ErrorKind::Range, "GGUF tensor " + t.name + " has " + std::to_string(dims) + " dimensions (1 to 4)");
  uint64_t n = 1;
  for (uint32_t d = 0; d < dims; ++d) {
    const uint64_t ne = r.get<uint64_t>("a tensor dimension");
    if (ne < 1 || ne > (uint64_t{1} << 40) || n > (uint64_t{1} << 60) / ne)
      throw Error(ErrorKind::Range, "GGUF tensor " + t.name + " has an invalid dimension " + std::to_string(ne));
    n *= ne;
    t.ne.push_back(ne);
  }
  t.ggml_type = r.get<uint32_t>("a tensor type");
  t.offset = r.get<uint64_t>("a tensor offset");
  return t;
}

uint64_t alignment_of(const std::map<std::string, GgufValue>& kv) {
  const auto it = kv.find("general.alignment");
  if (it == kv.end()) return 32;
  const GgufValue& v = it->second;
  if (v.type != GgufType::U32 || v.u == 0 || (v.u & (v.u - 1)) != 0 || v.u > (1u << 20))
    throw Error(ErrorKind::Range, "GGUF general.alignment must be a u32 power of two up to 2^20 (got " +
                                      std::to_string(v.type == GgufType::U32 ? v.u : 0) + ")");
  return v.u;
}

void check_tensor_data(const GgufFile& f, std::size_t size) {
  for (const GgufTensorInfo& t : f.tensors) {
    if (t.offset % f.alignment != 0)
      throw Error(ErrorKind::Range, "GGUF tensor " + t.name + " has offset " + std::to_string(t.offset) +
                                        ", not a multiple of the alignment " + std::to_string(f.alignment));
    uint64_t n = 1;
    for (uint64_t ne : t.ne) n *= ne;
    const uint64_t bytes = tensor_bytes(t, n);
    if (t.offset > size || bytes > size - f.data_offset || t.offset > size - f.data_offset - bytes)
      throw Error(ErrorKind::Range, "GGUF is truncated at byte " + std::to_string(size) + ": tensor " + t.name +
                                        " lies at bytes " + std::to_string(f.data_offset + t.offset) + " + " +
                                        std::to_string(bytes));
  }
}

}  // namespace

std::string ggml_type_name(uint32_t t) {
  constexpr uint32_t n = sizeof kGgmlNames / sizeof kGgmlNames[0];
  return t < n && kGgmlNames[t] ? kGgmlNames[t] : "type " + std::to_string(t);
}

GgufFile parse_gguf(const uint8_t* data, std::size_t size) {
  if (!data) throw Error(ErrorKind::Type, "GGUF has no data (null pointer)");
  ByteReader r(data, size, "GGUF");
  if (r.get<uint32_t>("the magic") != kMagic) throw Error(ErrorKind::Range, "not a GGUF file (the first 4 bytes are not 'GGUF')");
  GgufFile f;
  f.version = r.get<uint32_t>("the version");
  if (f.version != 2 && f.version != 3)
    throw Error(ErrorKind::Range, "GGUF version " + std::to_string(f.version) + " is not supported (2, 3)");
  const uint64_t n_tensors = r.get<uint64_t>("the tensor count");
  const uint64_t n_kv = r.get<uint64_t>("the key-value count");
  // A key-value takes at least 13 bytes, a tensor info at least 29: lying counts fail here.
  if (n_kv > r.remaining() / 13 || n_tensors > r.remaining() / 29)
    throw Error(ErrorKind::Range, "GGUF claims " + std::to_string(n_kv) + " key-values and " + std::to_string(n_tensors) +
                                      " tensors; its " + std::to_string(size) + " bytes cannot hold them");
  for (uint64_t i = 0; i < n_kv; ++i) {
    std::string key = read_string(r, "a key");
    const GgufType t = read_type(r, key);
    GgufValue v = read_value(r, t, key, 0);
    if (f.kv.count(key)) throw Error(ErrorKind::Range, "GGUF key " + key + " appears twice");
    f.kv.emplace(std::move(key), std::move(v));
  }
  f.tensors.reserve(static_cast<std::size_t>(n_tensors));
  for (uint64_t i = 0; i < n_tensors; ++i) f.tensors.push_back(read_tensor_info(r));
  f.alignment = alignment_of(f.kv);
  f.data_offset = (r.pos() + f.alignment - 1) / f.alignment * f.alignment;
  r.seek(f.data_offset, "the tensor data");
  check_tensor_data(f, size);
  return f;
}

}  // namespace posenc::lm
