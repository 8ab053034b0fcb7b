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
// The threads a forward uses when it is not told: hardware(), at most POSENC_THREADS_MAX (CMakeLists.txt: past
// that, memory bandwidth, not arithmetic, bounds a small model's forward).
int default_count();
// The most threads a forward may ask for in this build: kMax natively; in wasm, default_count() (the threaded
// module starts that many Workers less one, and can start no more while a forward waits for them).
int available();

// Runs fn(i) for every i in [0, n), on up to `threads` threads (the caller is one of them; the others are
// the pool's, started on first use and kept). Items are taken in order by whichever thread is free; returns
// when all are done. Called from inside an item, it runs the items on the calling thread only. The first
// exception an item throws is rethrown here after the others finish.
void parallel_for(int n, int threads, const std::function<void(int)>& fn);

// Work (multiply-adds) below which a product or an attention runs on the calling thread alone: handing it out
// would cost more than it saves (about 20 µs of one thread's arithmetic in wasm).
inline constexpr double kMinWork = 1 << 20;
// The threads worth using for `work` multiply-adds: current(), or 1 when the work is small.
int for_work(double work);

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
