// A small GGUF v3 writer for tests and fuzz seeds: key-values of any scalar or array type, tensors
// in F32 / F16 / BF16 / Q8_0 (and raw bytes of any ggml type id, to test refusals).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace posenc::lm::test {

class GgufWriter {
 public:
  enum Type : uint32_t { U8 = 0, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64 };
  void kv_u32(const std::string& k, uint32_t v) { key(k, U32), put(v), ++n_kv_; }
  void kv_f32(const std::string& k, float v) { key(k, F32), put(v), ++n_kv_; }
  void kv_str(const std::string& k, const std::string& v) { key(k, String), str(kv_, v), ++n_kv_; }
  void kv_strs(const std::string& k, const std::vector<std::string>& v) {
    key(k, Array), put(uint32_t{String}), put(uint64_t{v.size()});
    for (const std::string& s : v) str(kv_, s);
    ++n_kv_;
  }
  void kv_f32s(const std::string& k, const std::vector<float>& v) {
    key(k, Array), put(uint32_t{F32}), put(uint64_t{v.size()});
    for (float f : v) put(f);
    ++n_kv_;
  }
  // shape row-major (outermost first); values written in `ggml_type` (0 F32, 1 F16, 8 Q8_0, 30 BF16).
  void tensor(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values, uint32_t ggml_type) {
    std::vector<uint8_t> bytes = encode(values, ggml_type);
    tensor_raw(name, shape, bytes, ggml_type);
  }
  void tensor_raw(const std::string& name, const std::vector<int64_t>& shape, const std::vector<uint8_t>& bytes, uint32_t type) {
    while (data_.size() % 32) data_.push_back(0);
    str(info_, name);
    put(info_, static_cast<uint32_t>(shape.size()));
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) put(info_, static_cast<uint64_t>(*it));
    put(info_, type);
    put(info_, static_cast<uint64_t>(data_.size()));
    data_.insert(data_.end(), bytes.begin(), bytes.end());
    ++n_tensors_;
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out;
    put(out, uint32_t{0x46554747});
    put(out, uint32_t{3});
    put(out, n_tensors_);
    put(out, n_kv_);
    out.insert(out.end(), kv_.begin(), kv_.end());
    out.insert(out.end(), info_.begin(), info_.end());
    while (out.size() % 32) out.push_back(0);
    out.insert(out.end(), data_.begin(), data_.end());
    return out;
  }

  static uint16_t to_f16(float f) {  // round to nearest even, normal range only (tests)
    if (f == 0) return std::signbit(f) ? 0x8000 : 0;
    int e;
    const float m = std::frexp(std::fabs(f), &e);  // f = m 2^e, m in [0.5, 1)
    const uint32_t mant = static_cast<uint32_t>(std::nearbyint((m * 2 - 1) * 1024));
    uint32_t bits = (static_cast<uint32_t>(e - 1 + 15) << 10) + mant;
    return static_cast<uint16_t>((std::signbit(f) ? 0x8000 : 0) | bits);
  }
  static uint16_t to_bf16(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return static_cast<uint16_t>((b + 0x7fff + ((b >> 16) & 1)) >> 16);
  }
  static std::vector<uint8_t> encode(const std::vector<float>& v, uint32_t type) {
    std::vector<uint8_t> out;
    if (type == 0) for (float f : v) put(out, f);
    if (type == 1) for (float f : v) put(out, to_f16(f));
    if (type == 30) for (float f : v) put(out, to_bf16(f));
    if (type == 8)
      for (std::size_t b = 0; b + 32 <= v.size(); b += 32) {
        float amax = 0;
        for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(v[b + i]));
        const float d = amax / 127;
        put(out, to_f16(d));
        for (int i = 0; i < 32; ++i) out.push_back(static_cast<uint8_t>(static_cast<int8_t>(d ? std::nearbyint(v[b + i] / d) : 0)));
      }
    return out;
  }

 private:
  template <class T>
  static void put(std::vector<uint8_t>& o, T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    o.insert(o.end(), b, b + sizeof(T));
  }
  template <class T>
  void put(T v) { put(kv_, v); }
  static void str(std::vector<uint8_t>& o, const std::string& s) {
    put(o, static_cast<uint64_t>(s.size()));
    o.insert(o.end(), s.begin(), s.end());
  }
  void key(const std::string& k, uint32_t type) { str(kv_, k), put(type); }
  std::vector<uint8_t> kv_, info_, data_;
  uint64_t n_kv_ = 0, n_tensors_ = 0;
};

}  // namespace posenc::lm::test
