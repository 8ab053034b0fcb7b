// Blank-slot tasks (posenc/tasks_blank.hpp).
#include "posenc/tasks_blank.hpp"

#include <cstddef>
#include <iterator>

#include "../kind_table.hpp"
#include "posenc/error.hpp"

namespace posenc {
namespace {
struct BlankTaskRow {
  BlankTask id;
  const char* name;
};
constexpr BlankTaskRow kTasks[] = {{BlankTask::Duplicate, "duplicate"}, {BlankTask::Reverse, "reverse"}};
static_assert(rows_in_enum_order(kTasks), "kTasks' rows must be in BlankTask's order");
}  // namespace

const char* blank_task_name(BlankTask t) {
  const auto i = static_cast<std::size_t>(t);
  return i < std::size(kTasks) ? kTasks[i].name : "?";
}

BlankTask parse_blank_task(const std::string& name) {
  for (const BlankTaskRow& t : kTasks)
    if (name == t.name) return t.id;
  range_error("task", one_of(kTasks), "'" + name + "'");
}

BlankTaskGenerator::BlankTaskGenerator(BlankTask task, int symbols, uint64_t seed)
    : task_(task), symbols_(symbols), rng_(seed, /*stream=*/7) {
  if (static_cast<std::size_t>(task) >= std::size(kTasks))
    range_error("task", one_of(kTasks), std::to_string(static_cast<int>(task)));
  require_int_range("symbols", symbols, 1, 65000);
}

int BlankTaskGenerator::sequence_length(int n) const {
  require_int_range("n", n, 1, 1 << 20);
  return task_ == BlankTask::Duplicate ? 3 * n : 2 * n;
}

void BlankTaskGenerator::sample(int B, int n, int32_t* tokens, int32_t* targets) {
  const int T = sequence_length(n);
  require_int_range("B", B, 1, 1 << 20);
  if (!tokens || !targets) type_error(!tokens ? "tokens" : "targets", "a non-null buffer of B*T ints", "null");
  for (int b = 0; b < B; ++b) {
    int32_t* x = tokens + static_cast<std::size_t>(b) * T;
    int32_t* y = targets + static_cast<std::size_t>(b) * T;
    for (int i = 0; i < n; ++i) {
      x[i] = 1 + static_cast<int32_t>(rng_.below(static_cast<uint32_t>(symbols_)));
      y[i] = -1;
    }
    for (int j = n; j < T; ++j) {
      x[j] = kTokenBlank;
      const int k = j - n;  // output slot k
      y[j] = task_ == BlankTask::Duplicate ? x[k % n] : x[n - 1 - k];
    }
  }
}

}  // namespace posenc
