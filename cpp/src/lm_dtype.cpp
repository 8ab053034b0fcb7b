// posenc::lm: tensor dtypes to float32 (F32, F16, BF16, Q8_0), with the byte count and every value checked.
#include <cmath>
#include <limits>

#include "lm_internal.hpp"

namespace posenc::lm {

float f16_to_f32(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);  // zero and subnormals
  else if (exp == 31)
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  return sign ? -v : v;
}

namespace {

constexpr int kQ8Block = 32;       // Q8_0: one f16 scale, then 32 int8 values
constexpr int kQ8BlockBytes = 34;

uint64_t element_count(const TensorBytes& t) {
  uint64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 1 || d > (int64_t{1} << 40) || n > (uint64_t{1} << 62) / static_cast<uint64_t>(d))
      throw Error(ErrorKind::Range, "tensor " + t.name + " has an invalid dimension " + std::to_string(d));
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

uint64_t expected_bytes(const TensorBytes& t, uint64_t n) {
  switch (t.dtype) {
    case DType::F32: return 4 * n;
    case DType::F16:
    case DType::BF16: return 2 * n;
    case DType::Q8_0:
      if (t.shape.empty() || t.shape.back() % kQ8Block != 0)
        throw Error(ErrorKind::Range, "tensor " + t.name + " is Q8_0 but its rows are not a multiple of 32 values");
      return n / kQ8Block * kQ8BlockBytes;
  }
  throw Error(ErrorKind::Range, "tensor " + t.name + " has an unknown dtype");
}

uint16_t u16_at(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

void decode(const TensorBytes& t, float* out, std::size_t n) {
  const uint8_t* p = t.data;
  switch (t.dtype) {
    case DType::F32: std::memcpy(out, p, 4 * n); break;
    case DType::F16: for (std::size_t i = 0; i < n; ++i) out[i] = f16_to_f32(u16_at(p + 2 * i)); break;
    case DType::BF16: for (std::size_t i = 0; i < n; ++i) out[i] = bf16_to_f32(u16_at(p + 2 * i)); break;
    case DType::Q8_0:
      for (std::size_t b = 0; b < n / kQ8Block; ++b) {
        const uint8_t* blk = p + b * kQ8BlockBytes;
        const float d = f16_to_f32(u16_at(blk));
        for (int i = 0; i < kQ8Block; ++i) out[b * kQ8Block + i] = d * static_cast<float>(static_cast<int8_t>(blk[2 + i]));
      }
      break;
  }
}

}  // namespace

std::vector<float> dequantise(const TensorBytes& t) {
  const uint64_t n = element_count(t);
  const uint64_t bytes = expected_bytes(t, n);
  if (t.bytes != bytes)
    throw Error(ErrorKind::Range, "tensor " + t.name + " has " + std::to_string(t.bytes) + " bytes; its shape and dtype " +
                                      dtype_name(t.dtype) + " need " + std::to_string(bytes));
  if (!t.data) throw Error(ErrorKind::Type, "tensor " + t.name + " has no data (null pointer)");
  std::vector<float> out(static_cast<std::size_t>(n));
  decode(t, out.data(), out.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out[i]))
      throw Error(ErrorKind::Range, "tensor " + t.name + " has " + (std::isnan(out[i]) ? "a NaN" : "an infinite value") +
                                        " at element " + std::to_string(i));
  return out;
}

}  // namespace posenc::lm
