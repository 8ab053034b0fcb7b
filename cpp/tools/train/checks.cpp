// posenc_train's checks of itself: --check-reproducible (two runs in child processes, --jobs 1 and 2, whose
// checkpoints and results must match) and --fingerprint (a hash of each run's parameters after its first steps).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../json_out.hpp"
#include "train.hpp"

namespace fs = std::filesystem;

namespace posenc::train {
namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

}  // namespace

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// --fingerprint N: each run's first N steps (one at a time), one line each: task encoding[ variant] seed N hash.
// tests/js/shipped-arithmetic.test.js compares them with the values of the code that trained the shipped
// checkpoints; any change to the training arithmetic (kernel, float order, optimizer, data, schedule) moves them.
int print_fingerprints(const Config& c) {
  for (const RunSpec& spec : run_specs(c)) {
    const RunResult r = run_one(c, spec);
    std::printf("%s %s%s%s seed %d steps %d %016llx\n", task_name(spec.task), encoding_name(spec.encoding),
                spec.variant.empty() ? "" : " ", spec.variant.c_str(), spec.seed, r.steps,
                static_cast<unsigned long long>(r.fingerprint));
  }
  return 0;
}

int check_reproducible(const Config& c, const std::vector<std::string>& pass_through) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const fs::path base(c.out);
  std::string args;
  for (const std::string& a : pass_through) args += " " + shell_quote(a);
  for (const char* name : {"a", "b"}) {
    fs::remove_all(base / name);
    const std::string cmd = shell_quote(self.string()) + args + " --jobs " + (name[0] == 'a' ? "1" : "2") +
                            " --out " + shell_quote((base / name).string());
    std::fprintf(stderr, "posenc_train: %s\n", cmd.c_str());
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "posenc_train: the run into %s failed\n", (base / name).c_str());
      return 1;
    }
  }
  int files = 0;
  for (const auto& e : fs::directory_iterator(base / "a" / "web" / "checkpoints")) {
    const fs::path other = base / "b" / "web" / "checkpoints" / e.path().filename();
    if (!fs::exists(other) || read_file(e.path()) != read_file(other)) {
      std::fprintf(stderr, "posenc_train: %s differs between the two runs\n", e.path().filename().c_str());
      return 1;
    }
    ++files;
  }
  if (files == 0) {
    std::fprintf(stderr, "posenc_train: no checkpoints were written\n");
    return 1;
  }
  const char* timings = "seconds|trainSeconds|evalSeconds|jobs";
  if (tools::without_timings(read_file(base / "a" / "docs" / "results.json"), timings) !=
      tools::without_timings(read_file(base / "b" / "docs" / "results.json"), timings)) {
    std::fprintf(stderr, "posenc_train: results.json differs between the two runs (timings aside)\n");
    return 1;
  }
  std::fprintf(stderr, "posenc_train: reproducible: %d checkpoints byte-identical, results identical\n", files);
  return 0;
}

}  // namespace posenc::train
