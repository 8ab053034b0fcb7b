// Helpers shared by the GoogleTest suites.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "posenc/encoding.hpp"
#include "posenc/error.hpp"
#include "posenc/rng.hpp"

// Every registered encoding (posenc::encodings()): tests loop over this, never over a list of
// their own, so a new encoding is tested without a test edit.
inline std::vector<posenc::Encoding> all_encodings() {
  std::vector<posenc::Encoding> out;
  for (const posenc::EncodingInfo& e : posenc::encodings()) out.push_back(e.id);
  return out;
}

// n floats uniform in [-scale, scale), from std::mt19937(seed).
inline std::vector<float> random_vec(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

// n token ids in [0, vocab), from posenc::Rng(seed).
inline std::vector<int32_t> random_tokens(int n, int vocab, uint64_t seed) {
  posenc::Rng r(seed);
  std::vector<int32_t> t(n);
  for (auto& x : t) x = static_cast<int32_t>(r.below(vocab));
  return t;
}

// Expects f() to throw posenc::Error of `kind` whose message contains `needle`.
template <class F>
void ExpectError(F&& f, posenc::ErrorKind kind, const std::string& needle) {
  try {
    f();
  } catch (const posenc::Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    return;
  } catch (...) {
    ADD_FAILURE() << "threw something other than posenc::Error";
    return;
  }
  ADD_FAILURE() << "did not throw; expected an error mentioning '" << needle << "'";
}
