// Command-line helpers shared by the experiment tools (posenc_train, posenc_spectrum).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "posenc/error.hpp"

namespace posenc::tools {

// "a,b,,c" -> {parse("a"), parse("b"), parse("c")}: empty items are skipped.
template <class T, class F>
std::vector<T> parse_list(const std::string& s, F&& parse) {
  std::vector<T> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(parse(item));
  return out;
}

// An integer flag value in [lo, hi], else RangeError naming the flag.
inline int parse_int(const std::string& flag, const std::string& v, int lo, int hi) {
  char* end = nullptr;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x < lo || x > hi)
    range_error(flag, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", v);
  return static_cast<int>(x);
}

inline std::string shortest(double x) {  // 1e+09, 0.5
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// A number flag value in the open interval (lo, hi), else RangeError naming the flag.
inline double parse_number(const std::string& flag, const std::string& v, double lo, double hi) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x > lo && x < hi))
    range_error(flag, "a number in (" + shortest(lo) + ", " + shortest(hi) + ")", v);
  return x;
}

}  // namespace posenc::tools
