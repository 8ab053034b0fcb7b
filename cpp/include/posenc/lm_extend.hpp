// Training-free ways past a language model's context, as changes of positions or scores inside the forward's own
// RoPE and streamed attention (so the NLL, the attention maps, entropy and sink mass come out for each of them).
// One table (extend_methods()): each method's name, its parameters with their defaults and bounds, and the RoPE
// scalings its authors' code runs it with; the wasm layer exports it (lmExtendMethods()) and the JS library, the
// CLI and the page read it there. Dynamic NTK's two forms are a second small table (dynamic_forms()).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "posenc/rope_scaling.hpp"

namespace posenc::lm {

// In the order of extend_methods()' rows (a row's index is its ExtendMethod).
enum class ExtendMethod { None, ReRope };

struct ExtendParam {
  const char* key;     // the JSON key ({"method": "rerope", "window": 512})
  bool integer;        // an integer (flags are integers in [0, 1])
  double min, max;     // inclusive bounds
  double fallback;     // the value when left out; NaN: required, or (optional) the method without it
  bool optional;       // may be left out with no value (NaN: ReRoPE without a leak is plain ReRoPE)
  const char* about;   // for readers
};

struct ExtendMethodInfo {
  ExtendMethod id;
  const char* name;    // the JSON "method"
  const char* label;   // as readers know it
  const char* source;  // the authors' code followed
  std::span<const ExtendParam> params;
  // The RoPE scalings the authors' code runs the method with, by their rows' names in rope_types() separated by
  // spaces ("" for every one), and why the others are refused.
  const char* scalings;
  const char* refused;
};
std::span<const ExtendMethodInfo> extend_methods();
// Whether the method's row names the scaling type t among those it runs with.
bool composes_with(const ExtendMethodInfo& m, RopeType t);

// A method and its parameters' values in its row's order (NaN: left out, before resolve_extend).
struct Extend {
  ExtendMethod method = ExtendMethod::None;
  std::vector<double> values;
};
// Checks e against its row and fills what was left out (the defaults): throws RangeError naming "extend.<key>" and
// its range, or "extend" with the reason a scaling is refused. leak_scalings: Leaky ReRoPE builds its own tables.
Extend resolve_extend(const Extend& e, const RopeScaling& scaling);
// The parameter `key` of a resolved Extend (NaN when an optional one is left out).
double extend_value(const Extend& e, const char* key);

// Dynamic NTK (RopeType::Dynamic) in two forms: as one call over the whole input (HF's forward: every position's
// frequencies follow the input's length T), or as generated with a cache (HF's generate one token at a time: a key
// keeps the frequencies of the step at which it was cached, seq_len = its position + 1, and a query uses its own).
enum class DynamicForm { Call, Cached };
struct DynamicFormInfo {
  DynamicForm id;
  const char* name;   // "call", "cached"
  const char* label;  // for readers
};
std::span<const DynamicFormInfo> dynamic_forms();

}  // namespace posenc::lm
