// The embind layer: thin by design. Each function takes plain numbers and
// pointers into wasm memory (the JS library allocates and validates), calls
// the core, and turns a C++ exception into a status code plus a message that
// the JS library rethrows as TypeError / RangeError. No exception ever
// escapes into JS (that would surface as a bare number and leak).
#include <emscripten/bind.h>
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <new>
#include <string>

#include "posenc/alibi.hpp"
#include "posenc/error.hpp"
#include "posenc/kernels.hpp"
#include "posenc/learned.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/shaw.hpp"
#include "posenc/simd.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"

namespace {

using ptr = uintptr_t;  // an address in wasm memory, passed from JS as a number

enum Status { kOk = 0, kTypeError = 1, kRangeError = 2 };
std::string g_error;

template <class F>
int guard(F&& f) {
  try {
    f();
    return kOk;
  } catch (const posenc::Error& e) {
    g_error = e.what();
    return e.kind() == posenc::ErrorKind::Type ? kTypeError : kRangeError;
  } catch (const std::bad_alloc&) {
    g_error = "out of memory: the request is too large for this module";
  } catch (const std::exception& e) {
    g_error = e.what();
  }
  return kRangeError;
}

template <class T>
T* at(ptr p) {
  return reinterpret_cast<T*>(p);
}

std::string last_error() { return g_error; }
std::string simd_arch() { return posenc::simd::arch_name(); }
double heap_bytes() { return static_cast<double>(mallinfo().uordblks); }

int sinusoidal(ptr out, int length, int dim, double base, bool concat, bool t2t, int start) {
  return guard([&] {
    posenc::SinusoidalOptions o;
    o.length = length;
    o.dim = dim;
    o.base = base;
    o.layout = concat ? posenc::SinusoidLayout::Concat : posenc::SinusoidLayout::Interleaved;
    o.spacing = t2t ? posenc::SinusoidSpacing::Tensor2Tensor : posenc::SinusoidSpacing::Paper;
    o.start = start;
    posenc::sinusoidal(o, at<float>(out));
  });
}

int learned_lookup(ptr table, int rows, int dim, ptr positions, int count, int policy, ptr out) {
  return guard([&] {
    posenc::learned_lookup(at<const float>(table), rows, dim, at<const int32_t>(positions), count,
                           static_cast<posenc::OutOfRange>(policy), at<float>(out));
  });
}

int shaw_index(ptr out, int tq, int tk, int k) {
  return guard([&] { posenc::shaw_index(tq, tk, k, at<int32_t>(out)); });
}

int t5_buckets(ptr relative, int count, bool bidirectional, int num_buckets, int max_distance, ptr out) {
  return guard([&] {
    posenc::T5BucketOptions o{bidirectional, num_buckets, max_distance};
    posenc::t5_validate(o);
    posenc::t5_buckets(at<const int32_t>(relative), count, o, at<int32_t>(out));
  });
}

int alibi_slopes(int heads, ptr out) {
  return guard([&] { posenc::alibi_slopes(heads, at<float>(out)); });
}

int alibi_bias(ptr out, int heads, int tq, int tk, bool causal) {
  return guard([&] { posenc::alibi_bias({heads, tq, tk, causal}, at<float>(out)); });
}

// The scaling block arrives as a Float64Array of fixed slots (NaN = not set,
// i.e. HF's None), normalised from snake_case or camelCase by the JS library.
enum Slot {
  kType, kFactor, kMaxPos, kOrigMaxPos, kAttnFactor, kBetaFast, kBetaSlow, kMscale, kMscaleAllDim, kTruncate,
  kLowFreq, kHighFreq, kSlotCount
};
posenc::RopeScaling unpack_scaling(const double* s, ptr long_factor, ptr short_factor, int factor_count) {
  auto opt = [&](Slot k) { return std::isnan(s[k]) ? std::optional<double>() : std::optional<double>(s[k]); };
  auto opt_int = [&](Slot k) { return std::isnan(s[k]) ? std::optional<int>() : std::optional<int>(int(s[k])); };
  posenc::RopeScaling r;
  r.type = static_cast<posenc::RopeType>(int(s[kType]));
  r.factor = std::isnan(s[kFactor]) ? 1.0 : s[kFactor];
  r.max_position_embeddings = opt_int(kMaxPos);
  r.original_max_position_embeddings = opt_int(kOrigMaxPos);
  r.attention_factor = opt(kAttnFactor);
  r.beta_fast = opt(kBetaFast);
  r.beta_slow = opt(kBetaSlow);
  r.mscale = opt(kMscale);
  r.mscale_all_dim = opt(kMscaleAllDim);
  if (!std::isnan(s[kTruncate])) r.truncate = s[kTruncate] != 0.0;
  r.low_freq_factor = opt(kLowFreq);
  r.high_freq_factor = opt(kHighFreq);
  if (long_factor) r.long_factor.assign(at<const double>(long_factor), at<const double>(long_factor) + factor_count);
  if (short_factor) r.short_factor.assign(at<const double>(short_factor), at<const double>(short_factor) + factor_count);
  return r;
}

// out: dim/2 inverse frequencies (float64) followed by the attention scale.
int rope_frequencies(int dim, double base, ptr slots, ptr long_factor, ptr short_factor, int factor_count,
                     int seq_len, ptr out) {
  return guard([&] {
    auto scaling = unpack_scaling(at<const double>(slots), long_factor, short_factor, factor_count);
    auto f = posenc::rope_frequencies(dim, base, scaling, seq_len > 0 ? std::optional<int>(seq_len) : std::nullopt);
    double* o = at<double>(out);
    for (size_t i = 0; i < f.inv_freq.size(); ++i) o[i] = f.inv_freq[i];
    o[f.inv_freq.size()] = f.attention_scale;
  });
}

int apply_rope(ptr x, ptr out, int length, int dim, int rotary_dim, bool half, ptr inv_freq, double attention_scale,
               ptr positions) {
  return guard([&] {
    posenc::RopeApplyOptions o;
    o.length = length;
    o.dim = dim;
    o.rotary_dim = rotary_dim;
    o.layout = half ? posenc::RopeLayout::Half : posenc::RopeLayout::Interleaved;
    o.inv_freq = at<const double>(inv_freq);
    o.attention_scale = attention_scale;
    o.positions = positions ? at<const int32_t>(positions) : nullptr;
    posenc::apply_rope(o, at<const float>(x), at<float>(out));
  });
}

int attention(ptr q, ptr k, ptr s, int tq, int tk, int d, double scale, bool causal, double slope, ptr bias) {
  return guard([&] {
    posenc::kernels::attention_scores_softmax(at<const float>(q), at<const float>(k), at<float>(s), tq, tk, d,
                                              static_cast<float>(scale), causal, static_cast<float>(slope),
                                              bias ? at<const float>(bias) : nullptr);
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(posenc) {
  using emscripten::function;
  function("lastError", &last_error);
  function("simdArch", &simd_arch);
  function("heapBytes", &heap_bytes);
  function("sinusoidal", &sinusoidal);
  function("learnedLookup", &learned_lookup);
  function("shawIndex", &shaw_index);
  function("t5Buckets", &t5_buckets);
  function("alibiSlopes", &alibi_slopes);
  function("alibiBias", &alibi_bias);
  function("ropeFrequencies", &rope_frequencies);
  function("applyRope", &apply_rope);
  function("attention", &attention);
}
