// The table of training-free context extensions (lm_extend.hpp) and the checks of a method's parameters.
#include "posenc/lm_extend.hpp"

#include <cmath>
#include <limits>

#include "../kind_table.hpp"
#include "lm_internal.hpp"

namespace posenc::lm {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// ReRoPE and Leaky ReRoPE (Su 2023, bojone/rerope: rerope_patch.py, leaky_rerope_patch.py). Queries and keys d >= w
// apart score as if d were w (ReRoPE: the query rotated to position w, the key not rotated), or w + (d - w) / k
// (Leaky: both rotated by the default frequencies divided by k, the query w (k - 1) further on); nearer keys score
// as RoPE does. Both scale each query by max(1, log(p + 1) / log(context)) first, as the authors' code does.
constexpr ExtendParam kReRopeParams[] = {
    {"window", true, 1, kMaxLength, kNone, false, "keys nearer than this many positions score as RoPE does"},
    {"leak", true, 2, 1024, kNone, true,
     "Leaky ReRoPE: past the window, relative positions grow 1/leak as fast (left out: they stay at the window)"},
    {"logn", true, 0, 1, 1, false, "queries scaled by the log of their position over the log of the context, as the authors' code does (1), or not (0)"},
    {"context", true, 2, kMaxContext, kNone, true, "the trained length in that log (the authors' training_length; left out: the model's context)"},
};

constexpr ExtendMethodInfo kMethods[] = {
    {ExtendMethod::None, "none", "none", "", {}, "", ""},
    {ExtendMethod::ReRope, "rerope", "ReRoPE", "bojone/rerope (rerope_patch.py, leaky_rerope_patch.py)", kReRopeParams,
     "default linear",
     "the authors' code runs ReRoPE on the model's own rotary table, which in its transformers version is the "
     "default or linear one (dynamic NTK there re-rotates every cached key at each step's frequencies, neither of "
     "the two forms drawn here)"},
};
static_assert(rows_in_enum_order(kMethods), "extend_methods() rows in ExtendMethod order");

constexpr DynamicFormInfo kForms[] = {
    {DynamicForm::Call, "call", "one call over the whole input (every position at the input's length)"},
    {DynamicForm::Cached, "cached", "as generated with a cache (each key keeps the frequencies of its own step)"},
};
static_assert(rows_in_enum_order(kForms), "dynamic_forms() rows in DynamicForm order");

}  // namespace

std::span<const ExtendMethodInfo> extend_methods() { return kMethods; }
std::span<const DynamicFormInfo> dynamic_forms() { return kForms; }

Extend resolve_extend(const Extend& e, const RopeScaling& scaling) {
  const int id = static_cast<int>(e.method);
  if (id < 0 || id >= static_cast<int>(std::size(kMethods)))
    range_error("extend.method", one_of(kMethods), std::to_string(id));
  const ExtendMethodInfo& row = kMethods[id];
  if (e.values.size() > row.params.size())
    range_error("extend", std::to_string(row.params.size()) + " values for '" + row.name + "'", std::to_string(e.values.size()));
  Extend r{e.method, {}};
  for (std::size_t i = 0; i < row.params.size(); ++i) {
    const ExtendParam& p = row.params[i];
    const std::string key = std::string("extend.") + p.key;
    double v = i < e.values.size() ? e.values[i] : kNone;
    if (std::isnan(v) && !std::isnan(p.fallback)) v = p.fallback;
    if (std::isnan(v) && !p.optional) range_error(key, std::string("a value (required by '") + row.name + "')", "none");
    if (!std::isnan(v)) {
      const std::string range = (p.integer ? "an integer in [" : "a number in [") + format_number(p.min) + ", " + format_number(p.max) + "]";
      if (!std::isfinite(v) || v < p.min || v > p.max || (p.integer && v != std::floor(v))) range_error(key, range, format_number(v));
    }
    r.values.push_back(v);
  }
  if (!composes_with(row, scaling.type))
    range_error("extend", std::string("a RoPE scaling that '") + row.name + "' composes with: " + row.refused,
                rope_type_name(scaling.type));
  if (e.method == ExtendMethod::ReRope && !std::isnan(r.values[1]) && scaling.type != parse_rope_type("default"))
    range_error("extend.leak", "no RoPE scaling: Leaky ReRoPE builds its own linear table from the default one (the "
                               "authors' code replaces the model's scaling with it)",
                rope_type_name(scaling.type));
  return r;
}

bool composes_with(const ExtendMethodInfo& m, RopeType t) {
  if (!*m.scalings) return true;
  const std::string names = std::string(" ") + m.scalings + " ";
  return names.find(std::string(" ") + rope_type_name(t) + " ") != std::string::npos;
}

double extend_value(const Extend& e, const char* key) {
  const ExtendMethodInfo& row = kMethods[static_cast<int>(e.method)];
  for (std::size_t i = 0; i < row.params.size(); ++i)
    if (std::string(row.params[i].key) == key) return i < e.values.size() ? e.values[i] : kNone;
  return kNone;
}

}  // namespace posenc::lm
