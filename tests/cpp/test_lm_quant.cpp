// Weights kept in ggml's block formats (and 16-bit floats), multiplied by lm_weights.cpp's kernels, against
// tests/lm/dequant.py: an independent float64 dequantisation written from ggml's published layouts.
//  - LmQuant.BlocksMatchTheFloat64Dequantisation: one random [8, 512] matrix per format (random bytes; f16
//    scales near the model's, and with --extreme one block in two with f16's largest, subnormal or zero
//    scales): x W^T for T = 5 and T = 1, by the format's kernel (blocks unpacked in registers) and by its
//    decoded panels, and an embedding row.
//  - LmQuant.ModelsInEachFormatMatchTheFloat64Forward: a random llama model (rows multiples of 256) with every
//    matrix in one format, and a Q4_K_M-like mix with Q6_K; NLL vs tests/lm/reference.py's float64 forward of
//    the dequantised weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <unistd.h>

#include "../../cpp/src/lm/lm_internal.hpp"  // internal: make_weight, matmul, weight_row
#include "lm_test_util.hpp"
#include "posenc/lm.hpp"

namespace posenc::lm {
namespace {

using namespace test;

bool have_numpy() { return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0; }
#define POSENC_REQUIRE_NUMPY() \
  if (!have_numpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is missing: skipped"

struct Case {
  std::vector<uint8_t> gguf;
  std::map<std::string, std::vector<double>> lines;  // first word (and the second for row0 / bound) -> values
};

// Runs dequant.py with `args`; reads the GGUF it writes and its text output.
Case run_dequant(const std::string& args) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("posenc-quant-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string g = (dir / "q.gguf").string(), t = (dir / "q.txt").string();
  const std::string cmd = "/usr/bin/python3 " + source_dir() + "/tests/lm/dequant.py " + args.substr(0, args.find(' ')) + " " + g +
                          " " + t + args.substr(args.find(' '));
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Case c{read_file(g), {}};
  std::istringstream in(read_text(t));
  std::filesystem::remove_all(dir);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key, word;
    ls >> key;
    if (key == "row0" || key == "bound") ls >> word, key += " " + word;
    std::vector<double>& v = c.lines[key];
    for (double x; ls >> x;) v.push_back(x);
  }
  return c;
}

TensorBytes tensor_of(const GgufFile& f, const GgufTensorInfo& t, const std::vector<uint8_t>& file) {
  const Format* fmt = format_of_ggml(t.ggml_type);
  EXPECT_NE(fmt, nullptr) << t.name;
  const int64_t rows = static_cast<int64_t>(t.ne[1]), cols = static_cast<int64_t>(t.ne[0]);
  return TensorBytes{t.name, fmt->dtype, {rows, cols}, file.data() + f.data_offset + t.offset,
                     static_cast<std::size_t>(rows * cols / fmt->block * fmt->block_bytes)};
}

void check_blocks(const std::string& args) {
  const Case c = run_dequant(args);
  const GgufFile f = parse_gguf(c.gguf.data(), c.gguf.size());
  const std::vector<double>& xd = c.lines.at("x");
  const int T = static_cast<int>(xd[0]), cols = static_cast<int>(xd[1]);
  const std::vector<float> x(xd.begin() + 2, xd.end());
  ASSERT_EQ(x.size(), static_cast<std::size_t>(T) * cols);
  for (const GgufTensorInfo& info : f.tensors) {
    const TensorBytes t = tensor_of(f, info, c.gguf);
    const Weight w = make_weight(t);
    EXPECT_EQ(w.dtype, t.dtype) << info.name << ": kept in its format";
    EXPECT_EQ(w.bytes(), t.bytes) << info.name;
    const std::vector<double>& want = c.lines.at(info.name);
    const std::vector<double>& bound = c.lines.at("bound " + info.name);
    const int rows = w.rows;
    double worst = 0;
    for (BlockPath path : {BlockPath::Kernel, BlockPath::Panel}) {  // the format's kernel, and its decoded panels
      const char* how = path == BlockPath::Kernel ? "kernel" : "panels";
      std::vector<float> out(static_cast<std::size_t>(T) * rows, 7.0f), one(rows, 7.0f);
      matmul(out.data(), x.data(), w, T, false, path);
      matmul(one.data(), x.data(), w, 1, false, path);
      for (int i = 0; i < T * rows; ++i) {
        const double tol = 1e-5 * bound[i] + 1e-30;
        EXPECT_NEAR(out[i], want[2 + i], tol) << info.name << " " << args << " " << how << " element " << i << " (T = " << T << ")";
        if (i < rows) EXPECT_NEAR(one[i], want[2 + i], tol) << info.name << " " << args << " " << how << " element " << i << " (T = 1)";
        worst = std::max(worst, std::fabs(out[i] - want[2 + i]) / (bound[i] + 1e-300));
      }
    }
    std::vector<float> row(cols);
    weight_row(w, 0, row.data());
    const std::vector<double>& r0 = c.lines.at("row0 " + info.name);
    for (int i = 0; i < cols; ++i) EXPECT_NEAR(row[i], r0[i], 1e-6 * std::fabs(r0[i]) + 1e-30) << info.name << " row 0, " << i;
    std::printf("[quant %s %s] x W^T: max |error| / (|x| |W|^T) %.2e\n", info.name.c_str(), args.c_str(), worst);
  }
}

TEST(LmQuant, BlocksMatchTheFloat64Dequantisation) {
  POSENC_REQUIRE_NUMPY();
  check_blocks("blocks --seed 3");
  check_blocks("blocks --seed 4 --extreme");
}

// float32 forward (weights exact, activations float32) vs float64, measured per format (each prints its numbers).
constexpr double kMaxTolerance = 5e-3, kMeanTolerance = 5e-4;

class LmQuantModel : public ::testing::TestWithParam<const char*> {};

TEST_P(LmQuantModel, MatchesTheFloat64Forward) {
  POSENC_REQUIRE_NUMPY();
  const std::string fmt = GetParam();
  const Case c = run_dequant("model --seed 5 --length 64 --format " + fmt);
  const Loaded l = load_gguf(c.gguf.data(), c.gguf.size());
  std::vector<int32_t> tok;
  for (double t : c.lines.at("tokens")) tok.push_back(static_cast<int32_t>(t));
  const std::vector<double>& want = c.lines.at("nll");
  const ForwardResult r = forward(l.model, tok.data(), static_cast<int>(tok.size()));
  ASSERT_EQ(r.nll.size(), want.size());
  double worst = 0, mean = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double e = std::fabs(r.nll[i] - want[i]);
    worst = std::max(worst, e);
    mean += e / want.size();
  }
  std::printf("[quant model %s] NLL |C++ - float64| max %.2e mean %.2e; weights %zu bytes for %zu parameters\n", fmt.c_str(), worst,
              mean, l.model.weight_bytes(), l.model.parameter_count());
  EXPECT_LT(worst, kMaxTolerance) << fmt;
  EXPECT_LT(mean, kMeanTolerance) << fmt;
  if (fmt != "F32") EXPECT_LT(l.model.weight_bytes(), 2 * l.model.parameter_count() + 4 * 4096) << fmt << ": weights kept in their format";
}

INSTANTIATE_TEST_SUITE_P(Formats, LmQuantModel,
                         ::testing::Values("F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "mix"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace posenc::lm

namespace posenc::lm {
namespace {

std::string error_of(const TensorBytes& t) {
  try {
    make_weight(t);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A half's infinity or NaN, as a 16-bit weight or as a block's scale, is refused with the element it reaches.
TEST(LmQuant, NonFiniteHalvesAreRefusedByElement) {
  std::vector<uint8_t> f16(2 * 64, 0);
  f16[2 * 37 + 1] = 0x7c;  // +inf at element 37
  EXPECT_EQ(error_of({"w", DType::F16, {2, 32}, f16.data(), f16.size()}), "tensor w has an infinite value at element 37");
  std::vector<uint8_t> q4(2 * 18, 0x88);  // two Q4_0 blocks of zeros (nibbles 8), scales set below
  q4[0] = 0, q4[1] = 0x3c;                // 1.0
  q4[18] = 0x01, q4[19] = 0x7e;           // NaN: the second block, elements 32..63
  EXPECT_EQ(error_of({"w", DType::Q4_0, {1, 64}, q4.data(), q4.size()}), "tensor w has a NaN at element 32");
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
  EXPECT_EQ(f16_to_f32(0xfbff), -65504.0f);
  EXPECT_TRUE(std::isnan(f16_to_f32(0xfe00)));
}

}  // namespace
}  // namespace posenc::lm

namespace posenc::lm {
namespace {

Storage copy_to_storage(const std::vector<uint8_t>& file) {
  Storage s(static_cast<uint8_t*>(std::malloc(file.size())), std::free);
  std::memcpy(s.get(), file.data(), file.size());
  return s;
}

// A file handed over as the model's storage is read in place (float32 matrices transposed where they lie): the
// same NLL as from a copy, and the model's weights hold no bytes of their own beyond its float32 vectors.
TEST(LmQuant, FilesKeptAsStorageAreReadInPlace) {
  POSENC_REQUIRE_NUMPY();
  for (const char* fmt : {"mix", "F32", "BF16"}) {
    const Case c = run_dequant(std::string("model --seed 6 --length 16 --format ") + fmt);
    std::vector<int32_t> tok;
    for (double t : c.lines.at("tokens")) tok.push_back(static_cast<int32_t>(t));
    const Loaded copied = load_gguf(c.gguf.data(), c.gguf.size());
    Storage s = copy_to_storage(c.gguf);
    const uint8_t* base = s.get();
    const Loaded kept = load_gguf(base, c.gguf.size(), std::move(s));
    EXPECT_EQ(forward(kept.model, tok.data(), 16).nll, forward(copied.model, tok.data(), 16).nll) << fmt;
    EXPECT_EQ(kept.model.weight_bytes(), copied.model.weight_bytes()) << fmt;
  }
  if (!have_stories()) return;
  const std::vector<uint8_t> bin = read_file(stories_dir() + "/stories260K.bin");
  Storage s = copy_to_storage(bin);
  const uint8_t* base = s.get();
  const Model kept = load_llama2c(base, bin.size(), std::move(s));
  const std::vector<int32_t> tok = {1, 200, 300, 17, 400, 5};
  EXPECT_EQ(forward(kept, tok.data(), 6).nll, forward(load_llama2c(bin.data(), bin.size()), tok.data(), 6).nll);
}

}  // namespace
}  // namespace posenc::lm
