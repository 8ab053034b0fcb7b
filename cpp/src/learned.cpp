// Learned absolute position table (BERT, GPT-2): row lookup with an explicit
// policy for positions at or past the table's end.
#include "posenc/learned.hpp"

#include <cstddef>
#include <cstring>
#include <limits>
#include <string>

#include "posenc/error.hpp"

namespace posenc {
namespace {

constexpr int kMaxInt = std::numeric_limits<int>::max();

void validate_shape(const float* table, int rows, int dim, const int32_t* positions, int count, OutOfRange policy,
                    const float* out) {
  require_int_range("rows", rows, 1, kMaxInt);
  require_int_range("dim", dim, 1, kMaxInt);
  require_int_range("count", count, 0, kMaxInt);
  if (policy != OutOfRange::Error && policy != OutOfRange::Clamp && policy != OutOfRange::Zero)
    range_error("outOfRange", "'error', 'clamp' or 'zero'", std::to_string(static_cast<int>(policy)));
  if (!table) type_error("table", "a non-null buffer of rows*dim floats", "null");
  if (count > 0 && !positions) type_error("positions", "a non-null buffer of count ints", "null");
  if (count > 0 && !out) type_error("out", "a non-null buffer of count*dim floats", "null");
}

// Checks every position before writing anything, so a throw leaves `out` untouched.
void validate_positions(int rows, const int32_t* positions, int count, OutOfRange policy) {
  for (int k = 0; k < count; ++k) {
    const int32_t p = positions[k];
    if (p < 0) range_error("positions[" + std::to_string(k) + "]", "an integer >= 0", std::to_string(p));
    if (p >= rows && policy == OutOfRange::Error)
      throw Error(ErrorKind::Range, "position " + std::to_string(p) + " is past the learned table (rows " +
                                        std::to_string(rows) + "): allowed 0.." + std::to_string(rows - 1) +
                                        ", or choose outOfRange 'clamp' or 'zero'");
  }
}

}  // namespace

void learned_lookup(const float* table, int rows, int dim, const int32_t* positions, int count, OutOfRange policy,
                    float* out) {
  validate_shape(table, rows, dim, positions, count, policy, out);
  validate_positions(rows, positions, count, policy);
  const std::size_t row_bytes = sizeof(float) * static_cast<std::size_t>(dim);
  for (int k = 0; k < count; ++k) {
    float* dst = out + static_cast<std::size_t>(k) * dim;
    int32_t p = positions[k];
    if (p >= rows) {
      if (policy == OutOfRange::Zero) {
        std::memset(dst, 0, row_bytes);
        continue;
      }
      p = rows - 1;  // Clamp: reuse the last trained row
    }
    std::memmove(dst, table + static_cast<std::size_t>(p) * dim, row_bytes);
  }
}

}  // namespace posenc
