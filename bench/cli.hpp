// Command-line walking shared by the native bench tools: `--flag value` pairs
// and bare `--switch`es, with a clear message when a value is missing.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace posenc::bench {

class Cli {
 public:
  Cli(int argc, char** argv) : argc_(argc), argv_(argv) {}
  // The next argument, or false at the end.
  bool next(std::string& flag) {
    if (++i_ >= argc_) return false;
    flag = argv_[i_];
    return true;
  }
  // The value after the current flag (exits with status 2 if there is none).
  const char* value() {
    if (i_ + 1 >= argc_) {
      std::fprintf(stderr, "%s needs a value\n", argv_[i_]);
      std::exit(2);
    }
    return argv_[++i_];
  }

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
};

// "512,2048" -> {512, 2048}
inline std::vector<int> parse_ints(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace posenc::bench
