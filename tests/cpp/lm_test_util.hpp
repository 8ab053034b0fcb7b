// Shared by the posenc::lm suites: the stories260K files (../shared/models/stories260K, read in
// place; tests skip when the folder is missing) and small file helpers.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace posenc::lm::test {

inline std::string source_dir() { return POSENC_SOURCE_DIR; }
inline std::string stories_dir() { return source_dir() + "/../shared/models/stories260K"; }
inline bool have_stories() { return std::filesystem::exists(stories_dir() + "/stories260K.bin"); }
#define POSENC_REQUIRE_STORIES() \
  if (!::posenc::lm::test::have_stories()) GTEST_SKIP() << "../shared/models/stories260K is missing: skipped"

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}
inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace posenc::lm::test
