// Shared by the embind files: addresses, the exception guard and the
// RoPE-scaling slots. Marshalling only; no logic.
#pragma once

#include <cmath>
#include <cstdint>
#include <new>
#include <optional>
#include <string>

#include "posenc/error.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::wasm {

using ptr = uintptr_t;  // an address in wasm memory, passed from JS as a number

template <class T>
T* at(ptr p) {
  return reinterpret_cast<T*>(p);
}

enum Status { kOk = 0, kTypeError = 1, kRangeError = 2 };

inline std::string& last_error_message() {
  static std::string message;
  return message;
}

// Runs f; a C++ exception becomes a status code and a message (rethrown in JS
// as TypeError / RangeError). Nothing escapes into JS as a bare number.
template <class F>
int guard(F&& f) {
  try {
    f();
    return kOk;
  } catch (const posenc::Error& e) {
    last_error_message() = e.what();
    return e.kind() == posenc::ErrorKind::Type ? kTypeError : kRangeError;
  } catch (const std::bad_alloc&) {
    last_error_message() = "out of memory: the request is too large for this module";
  } catch (const std::exception& e) {
    last_error_message() = e.what();
  }
  return kRangeError;
}

// The scaling block arrives as a Float64Array of fixed slots (NaN = not set, i.e. HF's None), normalised from
// snake_case or camelCase by the JS library: slot 0 the type's index, then posenc::scaling_fields()' numbers in order.
inline posenc::RopeScaling unpack_scaling(const double* s, ptr long_factor, ptr short_factor, int factor_count) {
  posenc::RopeScaling r;
  r.type = static_cast<posenc::RopeType>(static_cast<int>(s[0]));
  int slot = 1;
  for (const posenc::ScalingField& f : posenc::scaling_fields()) {
    if (!f.set) continue;
    const double v = s[slot++];
    if (!std::isnan(v)) f.set(r, v);
  }
  if (long_factor) r.long_factor.assign(at<const double>(long_factor), at<const double>(long_factor) + factor_count);
  if (short_factor) r.short_factor.assign(at<const double>(short_factor), at<const double>(short_factor) + factor_count);
  return r;
}

}  // namespace posenc::wasm
