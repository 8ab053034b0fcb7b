// posenc: the one error type the core throws.
//
// Every check in the core throws posenc::Error, which carries the kind of
// failure (a wrong type of value, or a value out of its allowed range) and a
// message that names the argument and what is allowed. The embind layer turns
// it into a JS TypeError or RangeError; native callers can catch it directly.
#pragma once

#include <stdexcept>
#include <string>

namespace posenc {

enum class ErrorKind { Type, Range };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// "<arg> must be <allowed> (got <got>)"
[[noreturn]] inline void range_error(const std::string& arg, const std::string& allowed, const std::string& got) {
  throw Error(ErrorKind::Range, arg + " must be " + allowed + " (got " + got + ")");
}
[[noreturn]] inline void type_error(const std::string& arg, const std::string& allowed, const std::string& got) {
  throw Error(ErrorKind::Type, arg + " must be " + allowed + " (got " + got + ")");
}

// Small helpers used by every entry point.
inline void require_int_range(const char* arg, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    range_error(arg, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", std::to_string(v));
}
void require_finite(const char* arg, double v);              // NaN/Inf -> RangeError
void require_positive(const char* arg, double v);            // finite and > 0
std::string format_number(double v);

}  // namespace posenc
