// Shared by the libFuzzer targets: turns the fuzzer's bytes into arguments
// (sizes, integers, doubles with NaN/Inf/huge values, scaling blocks) and
// states the contract every target checks.
//
// The contract of a public entry point of the core, for any arguments:
//  - it returns normally, or throws posenc::Error (kind Type or Range);
//  - it never crashes, reads or writes out of bounds, leaks, or hits undefined
//    behaviour (ASan/UBSan make each of those fatal);
//  - when every input is "tame" (finite and of moderate size, see Tame) and it
//    returns normally, its outputs are finite and satisfy the documented
//    invariants checked by each target.
// Anything else aborts with a message, which libFuzzer records as a crash.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <vector>

#include "posenc/error.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::fuzz {

// Data magnitudes up to this are tame: products of a few of them stay far from FLT_MAX.
inline constexpr double kTameMagnitude = 1e15;

[[noreturn]] inline void violation(const char* what, const char* file, int line) {
  std::fprintf(stderr, "\n*** posenc fuzz contract violated at %s:%d: %s\n", file, line, what);
  std::abort();
}
#define FUZZ_CHECK(cond, what) \
  do {                         \
    if (!(cond)) ::posenc::fuzz::violation(what, __FILE__, __LINE__); \
  } while (0)

// Runs f; posenc::Error is an allowed outcome (returns false), anything else
// thrown violates the contract. Returns true when f returned normally.
template <class F>
bool call(F&& f) {
  try {
    f();
    return true;
  } catch (const posenc::Error& e) {
    FUZZ_CHECK(e.kind() == ErrorKind::Type || e.kind() == ErrorKind::Range, "posenc::Error of an unknown kind");
    FUZZ_CHECK(std::strlen(e.what()) > 0, "posenc::Error without a message");
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nunexpected exception: %s\n", e.what());
    violation("an exception other than posenc::Error", __FILE__, __LINE__);
  }
}

// Whether all inputs seen so far are tame (finite, |v| <= kTameMagnitude).
struct Tame {
  bool ok = true;
  double note(double v) {
    if (!(std::fabs(v) <= kTameMagnitude)) ok = false;  // also NaN
    return v;
  }
};

inline bool all_finite(const float* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

// The fuzzer's bytes as a stream; reads past the end give zeros, so every
// input decodes to some call.
class Input {
 public:
  Input(const uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  std::size_t remaining() const { return n_ - pos_; }
  uint8_t byte() { return pos_ < n_ ? p_[pos_++] : 0; }
  bool flag() { return byte() & 1; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(byte()) << (8 * i);
    return v;
  }
  uint64_t u64() { return static_cast<uint64_t>(u32()) | static_cast<uint64_t>(u32()) << 32; }
  // Uniform-ish in [lo, hi] (lo <= hi).
  int range(int lo, int hi) {
    const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1;
    return static_cast<int>(lo + static_cast<int64_t>(u32() % span));
  }
  template <class T, std::size_t N>
  T pick(const T (&choices)[N]) {
    return choices[byte() % N];
  }

  // A size in [0, cap] (mostly small), or now and then an invalid or huge one:
  // negative, INT_MIN, INT_MAX or just past cap. Callers must not allocate
  // what they get without checking it against their cap.
  int size(int cap) {
    switch (byte() % 10) {
      case 0: return 0;
      case 1: return -range(1, 3);
      case 2: return pick(kHugeInts);
      case 3: return cap + range(1, 4);
      case 4: case 5: return range(0, cap);
      default: return range(1, cap < 16 ? cap : 16);
    }
  }

  // Any int, biased to the interesting ones (edges, 1e6, INT_MIN/MAX).
  int any_int() {
    switch (byte() % 9) {
      case 0: return 0;
      case 1: return range(0, 16);
      case 2: return range(0, 4096);
      case 3: return range(999990, 1000010);  // around position 1e6
      case 4: return std::numeric_limits<int>::max() - range(0, 4);
      case 5: return std::numeric_limits<int>::min() + range(0, 4);
      case 6: return -range(1, 16);
      case 7: return range(0, 1 << 20);
      default: return static_cast<int>(u32());
    }
  }

  // Any double: NaN, +-Inf, +-0, denormals, huge, raw bit patterns, and
  // plenty of ordinary values, notably scaling factors up to 1000.
  double any_double() {
    constexpr double inf = std::numeric_limits<double>::infinity();
    switch (byte() % 16) {
      case 0: return std::numeric_limits<double>::quiet_NaN();
      case 1: return inf;
      case 2: return -inf;
      case 3: return -0.0;
      case 4: return 0.0;
      case 5: return std::numeric_limits<double>::max();
      case 6: return std::numeric_limits<double>::denorm_min();
      case 7: return byte() & 1 ? 1e300 : -1e300;
      case 8: {
        uint64_t bits = u64();
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
      }
      case 9: return range(-4, 1000);
      case 10: return range(0, 1000000) / 1000.0;  // [0, 1000] in steps of 1e-3: scaling factors
      case 11: return 1.0 + (u32() & 0xffff) / 65536.0;
      case 12: return std::pow(10.0, range(-160, 160) / 10.0);  // 1e-16 .. 1e16
      case 13: return -std::pow(10.0, range(-80, 80) / 10.0);
      case 14: return range(1, 1000) / 1000.0;
      default: return range(1, 64);
    }
  }

  // A float from the same families (for data arrays and kernel parameters).
  float any_float() { return static_cast<float>(any_double()); }

  // Fills n floats: a seeded PRNG gives ordinary values in [-4, 4] (cheap for big
  // arrays); then up to 4 entries are replaced by any_float() values.
  void fill(float* x, std::size_t n, Tame& tame) {
    uint64_t s = u64() | 1;
    for (std::size_t i = 0; i < n; ++i) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;  // xorshift64
      x[i] = static_cast<float>(static_cast<int64_t>(s >> 40) - (int64_t(1) << 23)) / static_cast<float>(1 << 21);
    }
    const int specials = byte() % 5;
    for (int k = 0; k < specials && n > 0; ++k) {
      const std::size_t at = u32() % n;
      x[at] = any_float();
      tame.note(x[at]);
    }
  }

 private:
  static constexpr int kHugeInts[] = {std::numeric_limits<int>::max(), std::numeric_limits<int>::min(), 1 << 30,
                                      65537, 1000000};
  const uint8_t* p_;
  std::size_t n_;
  std::size_t pos_ = 0;
};

// An HF rope_scaling block with arbitrary fields (any rope_type, each field set
// or not, NaN/Inf/negative/huge values, long/short factor lists of any length
// near dim/2). `dim` is the rotary dim the caller will pass.
inline RopeScaling scaling(Input& in, int dim) {
  RopeScaling s;
  const int type = in.byte() % 8;  // 6: proportional; 7: a value outside the enum
  s.type = static_cast<RopeType>(type == 7 ? -1 : type);
  auto opt = [&]() { return in.flag() ? std::optional<double>(in.any_double()) : std::nullopt; };
  auto opt_int = [&]() { return in.flag() ? std::optional<int>(in.any_int()) : std::nullopt; };
  s.factor = opt();
  s.max_position_embeddings = opt_int();
  s.original_max_position_embeddings = opt_int();
  s.attention_factor = opt();
  s.beta_fast = opt();
  s.beta_slow = opt();
  s.mscale = opt();
  s.mscale_all_dim = opt();
  if (in.flag()) s.truncate = in.flag();
  s.low_freq_factor = opt();
  s.high_freq_factor = opt();
  auto factors = [&](std::vector<double>& v) {
    if (!in.flag()) return;
    const int half = dim / 2 > 0 ? dim / 2 : 0;
    const int n = half + (in.flag() ? 0 : in.range(-1, 1));  // mostly the right length
    if (n < 0 || n > 4096) return;
    v.resize(static_cast<std::size_t>(n));
    for (double& f : v) f = in.byte() < 240 ? 1.0 + in.byte() / 16.0 : in.any_double();
  };
  factors(s.long_factor);
  factors(s.short_factor);
  s.ext_factor = opt();
  s.partial_rotary_factor = opt();
  return s;
}

}  // namespace posenc::fuzz
