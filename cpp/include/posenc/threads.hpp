// posenc::threads: the pool of threads the language-model forward runs on (std::thread natively; Emscripten
// pthreads in the threaded wasm build, one Web Worker each; in a wasm build without threads, only the caller).
// Work is split into items whose results do not depend on which thread computes them, so a forward gives the
// same bits on any number of threads.
#pragma once

#include <functional>

namespace posenc::threads {

// The most threads a forward may ask for.
inline constexpr int kMax = 64;
// The threads this build can run at once: std::thread::hardware_concurrency() natively and in the threaded
// wasm build (navigator.hardwareConcurrency, or Node's CPU count), 1 in a wasm build without threads.
int hardware();
// The threads a forward uses when it is not told: hardware(), at most 8 (past that, memory bandwidth, not
// arithmetic, bounds a small model's forward).
int default_count();

// Runs fn(i) for every i in [0, n), on up to `threads` threads (the caller is one of them; the others are
// the pool's, started on first use and kept). Items are taken in order by whichever thread is free; returns
// when all are done. Called from inside an item, it runs the items on the calling thread only. The first
// exception an item throws is rethrown here after the others finish.
void parallel_for(int n, int threads, const std::function<void(int)>& fn);

// The thread count a forward set for the work it runs (Scope), read by the kernels it calls: 1 outside one.
int current();
class Scope {
 public:
  explicit Scope(int threads);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  int saved_;
};

}  // namespace posenc::threads
