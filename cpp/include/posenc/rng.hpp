// posenc's own random numbers: PCG32 seeded through splitmix64, with its own
// uniform and Box-Muller normal draws.
//
// Why not <random>: std:: distributions are implementation-defined and differ
// between libstdc++ (native) and libc++ (Emscripten). Everything here is plain
// integer arithmetic plus log/sqrt/cos/sin in double, so the same seed gives
// the same stream on every build (the float results are bit-identical within
// one build; across libms a last-bit difference in log/cos is possible but
// has never been seen after the rounding to float).
#pragma once

#include <cmath>
#include <cstdint>

namespace posenc {

// splitmix64 (Steele, Lea & Flood): turns any 64-bit seed into well-mixed words.
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// PCG32 (O'Neill, pcg32_random_r: XSH-RR 64/32). `stream` selects one of 2^63
// independent sequences for the same seed (e.g. init vs. data).
class Rng {
 public:
  explicit Rng(uint64_t seed = 0, uint64_t stream = 0) { reseed(seed, stream); }

  void reseed(uint64_t seed, uint64_t stream = 0) {
    uint64_t s = seed;
    const uint64_t init_state = splitmix64(s);
    uint64_t t = stream ^ 0x5851F42D4C957F2Dull;
    inc_ = (splitmix64(t) << 1u) | 1u;
    state_ = 0;
    next_u32();
    state_ += init_state;
    next_u32();
    has_spare_ = false;
  }

  uint32_t next_u32() {
    const uint64_t old = state_;
    state_ = old * 6364136223846793005ull + inc_;
    const uint32_t xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    const uint32_t rot = static_cast<uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
  }

  // Uniform integer in [0, n), n >= 1, without modulo bias (rejection sampling).
  uint32_t below(uint32_t n) {
    if (n <= 1) return 0;
    const uint32_t threshold = (0u - n) % n;  // 2^32 mod n
    for (;;) {
      const uint32_t r = next_u32();
      if (r >= threshold) return r % n;
    }
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() {
    const uint64_t hi = next_u32() >> 5;  // 27 bits
    const uint64_t lo = next_u32() >> 6;  // 26 bits
    return static_cast<double>((hi << 26) | lo) * (1.0 / 9007199254740992.0);
  }

  // Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 6.283185307179586476925 * u2;
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }

 private:
  uint64_t state_ = 0;
  uint64_t inc_ = 1;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace posenc
