// JSON written by hand, shared by the experiment tools (posenc_train and the replications beside it):
// numbers with 4 significant digits, NaN as null (the page ships these files, and 4 digits are plenty for
// accuracies over <= 256 sequences); configuration values with 7 (float settings hold 7 digits); training
// curves with 3.
#pragma once
#include <cmath>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

namespace posenc::tools {

inline std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
inline std::string num3(double v) {  // 3 significant digits: a curve drawn 60 px high needs no more
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
inline std::string num_exact(double v) {  // configuration values (10000, 0.006; float settings hold 7 digits)
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}
inline std::string str(const std::string& s) { return "\"" + s + "\""; }
template <class T, class F>
std::string list(const std::vector<T>& v, F&& f) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + f(v[i]);
  return s + "]";
}
inline std::string nums(const std::vector<double>& v) { return list(v, [](double x) { return num(x); }); }
inline std::string ints(const std::vector<int>& v) { return list(v, [](int x) { return std::to_string(x); }); }

// `json` with the number (or null) of every member named in `names` (a regex alternation such as
// "seconds|cpuSeconds") set to 0: two runs' files compared with their timings aside.
inline std::string without_timings(const std::string& json, const std::string& names) {
  const std::regex timing("\"(" + names + ")\":(?:[-+0-9.eE]+|null)");
  return std::regex_replace(json, timing, "\"$1\":0");
}

}  // namespace posenc::tools
