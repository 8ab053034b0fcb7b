// Internal: the two things every table of a kind needs, written once. A kind's table has one {id, name, ...} row per
// value of its enum, in the enum's order (the encodings, the RoPE scaling types, the sweep's methods, the tasks), so
// that row i is the value i and a name is found by walking the rows:
//   static_assert(rows_in_enum_order(kRows), "...");   beside the table
//   range_error("task", one_of(kRows), ...)           "one of 'copy', 'reverse', ...": the allowed names in an error
#pragma once

#include <cstddef>
#include <string>

namespace posenc {

template <class Row, std::size_t N>
constexpr bool rows_in_enum_order(const Row (&rows)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(rows[i].id) != i) return false;
  return true;
}

// Items: rows with a `name`, or the names themselves (strings).
template <class Items>
std::string one_of(const Items& items) {
  std::string s = "one of ";
  bool first = true;
  for (const auto& item : items) {
    s += first ? "'" : ", '";
    if constexpr (requires { item.name; })
      s += item.name;
    else
      s += item;
    s += "'";
    first = false;
  }
  return s;
}

}  // namespace posenc
