// The bench programs read their command lines with the tools' reader (cpp/tools/flags.hpp): `--flag value`
// pairs and bare `--switch`es. A bench program has no error handler of its own, so a missing value ends it
// here, as one line and exit status 2, like the tools.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../cpp/tools/flags.hpp"

namespace posenc::bench {

class Cli : public tools::Args {
 public:
  using Args::Args;
  // The value after the current flag (it lives as long as argv); exits with status 2 if there is none.
  const char* value() {
    try {
      Args::value();
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      std::exit(2);
    }
    return argv_[i_];
  }
};

// "512,2048" -> {512, 2048}
inline std::vector<int> parse_ints(const std::string& s) {
  return tools::parse_list<int>(s, [](const std::string& item) { return std::atoi(item.c_str()); });
}

}  // namespace posenc::bench
