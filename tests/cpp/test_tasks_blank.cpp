// Blank-slot tasks (posenc/tasks_blank.hpp): the layout of Ruoss et al.'s non-autoregressive format, checked
// sequence by sequence against the definition, the one-length batches, determinism, and errors naming the field.
#include <gtest/gtest.h>

#include <vector>

#include "posenc/tasks_blank.hpp"
#include "test_util.hpp"

namespace {

using posenc::BlankTask;
using posenc::BlankTaskGenerator;

TEST(BlankTasks, DuplicateAndReverseFillTheBlankSlots) {
  for (BlankTask t : {BlankTask::Duplicate, BlankTask::Reverse}) {
    BlankTaskGenerator g(t, 2, 5);
    EXPECT_EQ(g.vocab_size(), 3);
    const int n = 7, B = 4, T = g.sequence_length(n);
    EXPECT_EQ(T, t == BlankTask::Duplicate ? 21 : 14);
    std::vector<int32_t> x(B * T), y(B * T);
    g.sample(B, n, x.data(), y.data());
    int ones = 0;
    for (int b = 0; b < B; ++b) {
      const int32_t* s = x.data() + b * T;
      const int32_t* o = y.data() + b * T;
      for (int i = 0; i < n; ++i) {
        EXPECT_TRUE(s[i] == 1 || s[i] == 2);
        EXPECT_EQ(o[i], -1);  // the input is not scored
        ones += s[i] == 1;
      }
      for (int k = 0; k < T - n; ++k) {
        EXPECT_EQ(s[n + k], posenc::kTokenBlank);
        EXPECT_EQ(o[n + k], t == BlankTask::Duplicate ? s[k % n] : s[n - 1 - k]);
      }
    }
    EXPECT_GT(ones, 0);
    EXPECT_LT(ones, B * n);  // both symbols occur
  }
}

TEST(BlankTasks, SameSeedSameBatchesAndErrorsNameTheField) {
  BlankTaskGenerator a(BlankTask::Reverse, 2, 9), b(BlankTask::Reverse, 2, 9), c(BlankTask::Reverse, 2, 10);
  std::vector<int32_t> xa(40), ya(40), xb(40), yb(40), xc(40), yc(40);
  a.sample(4, 5, xa.data(), ya.data());
  b.sample(4, 5, xb.data(), yb.data());
  c.sample(4, 5, xc.data(), yc.data());
  EXPECT_EQ(xa, xb);
  EXPECT_EQ(ya, yb);
  EXPECT_NE(xa, xc);
  EXPECT_EQ(posenc::parse_blank_task("duplicate"), BlankTask::Duplicate);
  ExpectError([] { posenc::parse_blank_task("copy"); }, posenc::ErrorKind::Range, "task");
  ExpectError([] { BlankTaskGenerator bad(BlankTask::Reverse, 0, 1); }, posenc::ErrorKind::Range, "symbols");
  ExpectError([&] { a.sample(4, 0, xa.data(), ya.data()); }, posenc::ErrorKind::Range, "n");
}

}  // namespace
