#include "posenc/error.hpp"

#include <cmath>
#include <cstdio>

namespace posenc {

std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void require_finite(const char* arg, double v) {
  if (!std::isfinite(v)) range_error(arg, "a finite number", format_number(v));
}

void require_positive(const char* arg, double v) {
  if (!std::isfinite(v) || v <= 0) range_error(arg, "a finite number > 0", format_number(v));
}

}  // namespace posenc
