// The one command-line reader of every native tool (posenc_train, posenc_spectrum, posenc_ruoss,
// posenc_kazemnejad, and the bench programs through bench/cli.hpp): `--flag value` pairs and bare
// `--switch`es, read in order. A bad argument throws posenc::Error naming the flag and what it allows;
// run_tool prints that as one line, "<tool>: <message>", and the tool exits with status 2.
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

// Which ends of a number flag's interval are allowed: (lo, hi), [lo, hi), (lo, hi].
enum class Ends { Open, LowClosed, HighClosed };

// A number flag value in the interval from lo to hi (ends as `ends` says), else RangeError naming
// the flag. T = float reads the text as a float directly (strtof), so a float setting keeps the value
// it always had; T = double reads a double.
template <class T = double>
T parse_number(const std::string& flag, const std::string& v, double lo, double hi, Ends ends = Ends::Open) {
  char* end = nullptr;
  const T x = sizeof(T) == sizeof(float) ? static_cast<T>(std::strtof(v.c_str(), &end))
                                         : static_cast<T>(std::strtod(v.c_str(), &end));
  const bool above = ends == Ends::LowClosed ? x >= lo : x > lo;
  const bool below = ends == Ends::HighClosed ? x <= hi : x < hi;
  if (v.empty() || *end != '\0' || !(above && below))
    range_error(flag, std::string("a number in ") + (ends == Ends::LowClosed ? "[" : "(") + shortest(lo) + ", " +
                          shortest(hi) + (ends == Ends::HighClosed ? "]" : ")"),
                v);
  return x;
}

// A name list's item, kept as written once `parse` accepts it (a RangeError from parse names the item):
// args.list<std::string>(checked<parse_encoding>).
template <auto parse>
std::string checked(const std::string& name) {
  parse(name);
  return name;
}

class Args {
 public:
  Args(int argc, char** argv) : argc_(argc), argv_(argv) {}

  // True if `flag` is anywhere on the line (a preset such as --quick, applied before the other flags
  // so that explicit flags override its values whatever their order).
  bool has(const char* flag) const {
    for (int i = 1; i < argc_; ++i)
      if (flag == std::string(argv_[i])) return true;
    return false;
  }

  // Moves to the next flag; false at the end.
  bool next() {
    if (++i_ >= argc_) return false;
    flag_ = argv_[i_];
    taken_.assign(1, flag_);
    return true;
  }
  bool next(std::string& flag) {
    if (!next()) return false;
    flag = flag_;
    return true;
  }
  const std::string& flag() const { return flag_; }
  // The current flag and the value read after it: what a tool forwards to a child run.
  const std::vector<std::string>& taken() const { return taken_; }

  // The value after the current flag (RangeError naming the flag if there is none).
  std::string value() {
    if (i_ + 1 >= argc_) throw Error(ErrorKind::Range, flag_ + " needs a value");
    taken_.push_back(argv_[++i_]);
    return taken_.back();
  }
  int integer(int lo, int hi) { return parse_int(flag_, value(), lo, hi); }
  template <class T = double>
  T number(double lo, double hi, Ends ends = Ends::Open) {
    return parse_number<T>(flag_, value(), lo, hi, ends);
  }
  // A comma-separated list (empty items skipped), each item read by parse.
  template <class T, class F>
  std::vector<T> list(F&& parse) {
    return parse_list<T>(value(), parse);
  }
  std::vector<std::string> names() {
    return list<std::string>([](const std::string& s) { return s; });
  }
  // The current flag is none of the tool's.
  [[noreturn]] void unknown() const { throw Error(ErrorKind::Range, "unknown option " + flag_ + " (see --help)"); }

 protected:
  int argc_;
  char** argv_;
  int i_ = 0;  // the argument read last

 private:
  std::string flag_;
  std::vector<std::string> taken_;
};

// Runs a tool's body; a posenc::Error (a bad argument, a bad setting) becomes one line on stderr,
// "<tool>: <message>", and exit status 2.
template <class F>
int run_tool(const char* tool, F&& body) {
  try {
    return body();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return 2;
  }
}

}  // namespace posenc::tools
