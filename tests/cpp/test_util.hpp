// Helpers shared by the GoogleTest suites.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "posenc/error.hpp"

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
