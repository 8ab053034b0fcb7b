// The few functions every posenc wasm module has (the page's module and the language models'):
// the message of the last failed call, the SIMD architecture it was built for, and the
// allocator's bytes in use (for leak checks). Linked into both modules; no logic.
#include <emscripten/bind.h>
#include <malloc.h>

#include <string>

#include "bindings_common.hpp"
#include "posenc/simd.hpp"

namespace {

std::string last_error() { return posenc::wasm::last_error_message(); }
std::string simd_arch() { return posenc::simd::arch_name(); }
// mallinfo counts in an int: read as unsigned, or a module past 2 GB (the language models', up to 4 GB) looks negative.
double heap_bytes() { return static_cast<double>(static_cast<unsigned>(mallinfo().uordblks)); }

}  // namespace

EMSCRIPTEN_BINDINGS(posenc_runtime) {
  using emscripten::function;
  function("lastError", &last_error);
  function("simdArch", &simd_arch);
  function("heapBytes", &heap_bytes);
}
