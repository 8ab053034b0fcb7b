// Timing shared by the native bench tools (also built for wasm and run with node).
#pragma once

#include <algorithm>
#include <ctime>
#include <functional>
#include <vector>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#endif

namespace posenc::bench {

// The CPU time of the process, not wall time: on a shared machine it leaves out the time slices other
// processes take (not all of their effect: under a load of 5 to 10 on this 2-core virtual machine it
// still varied by about 20%). Under Emscripten (node), process.cpuUsage(): std::clock is wall time there.
inline double cpu_ms() {
#if defined(__EMSCRIPTEN__)
  return EM_ASM_DOUBLE({
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  });
#else
  return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
#endif
}

// The median over 7 samples of the mean time per call of f (ms, by the clock `now`, in ms): after `warm_ms` of
// warm-up (in wasm, V8 first runs baseline code and tiers a function up only after it has run for a while), each
// sample repeats f as many times as one timing needed to pass `sample_ms`.
template <class Now>
double median_ms(const std::function<void()>& f, Now now, double warm_ms, double sample_ms) {
  for (const double t0 = now(); now() - t0 < warm_ms;) f();
  int reps = 1;
  for (;;) {
    const double t0 = now();
    for (int i = 0; i < reps; ++i) f();
    if (now() - t0 > sample_ms || reps > (1 << 20)) break;
    reps *= 2;
  }
  std::vector<double> s;
  for (int k = 0; k < 7; ++k) {
    const double t0 = now();
    for (int i = 0; i < reps; ++i) f();
    s.push_back((now() - t0) / reps);
  }
  std::sort(s.begin(), s.end());
  return s[3];
}

}  // namespace posenc::bench
