// posenc::threads (threads.hpp): one job at a time, handed out by an atomic item counter. The pool's threads
// sleep on a condition variable between jobs; the caller takes items too, then waits for the last one.
#include "posenc/threads.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define POSENC_NO_THREADS 1
#endif

namespace posenc::threads {
namespace {

thread_local int tl_current = 1;
[[maybe_unused]] thread_local bool tl_inside = false;  // running an item (in the pool or in the caller)

#ifndef POSENC_NO_THREADS
class Pool {
 public:
  void run(int n, int threads, const std::function<void(int)>& fn) {
    std::lock_guard<std::mutex> one_job(job_mutex_);  // a second caller waits for the pool
    grow(threads - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      n_ = n;
      next_.store(0, std::memory_order_relaxed);
      done_ = 0;
      error_ = nullptr;
      helpers_ = std::min(threads - 1, n - 1);  // pool threads that take part in this job
      joined_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return done_ == n_ && joined_ == helpers_; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void grow(int want) {
    while (static_cast<int>(workers_.size()) < want) {
      const int id = static_cast<int>(workers_.size());
      workers_.emplace_back([this, id] { loop(id); });
      workers_.back().detach();  // lives as long as the process (a wasm module's workers, as long as the page)
    }
  }
  // Takes items until none is left; counts the ones it finished.
  void work() {
    tl_inside = true;
    int finished = 0;
    for (int i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_; ++finished) {
      try {
        (*fn_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
    tl_inside = false;
    std::lock_guard<std::mutex> lock(mutex_);
    done_ += finished;
    if (done_ == n_) finished_.notify_all();
  }
  void loop(int id) {
    unsigned seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen && id < helpers_; });
        seen = generation_;
      }
      work();
      std::lock_guard<std::mutex> lock(mutex_);
      ++joined_;
      if (joined_ == helpers_) finished_.notify_all();
    }
  }

  std::mutex job_mutex_, mutex_;
  std::condition_variable wake_, finished_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* fn_ = nullptr;
  int n_ = 0, done_ = 0, helpers_ = 0, joined_ = 0;
  unsigned generation_ = 0;
  std::atomic<int> next_{0};
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: its threads outlive static destruction
  return *p;
}
#endif

}  // namespace

int hardware() {
#ifdef POSENC_NO_THREADS
  return 1;
#else
  return std::max(1u, std::thread::hardware_concurrency());
#endif
}

int default_count() { return std::min(hardware(), POSENC_THREADS_MAX); }

int available() {
#if defined(__EMSCRIPTEN__)
  return default_count();  // the Workers the module started with, and the caller (cpp/wasm/threads-pre.js.in)
#else
  return kMax;
#endif
}

void parallel_for(int n, int threads, const std::function<void(int)>& fn) {
  if (n <= 0) return;
#ifndef POSENC_NO_THREADS
  threads = std::min({threads, available(), n});
  if (threads > 1 && !tl_inside) return pool().run(n, threads, fn);
#else
  (void)threads;
#endif
  for (int i = 0; i < n; ++i) fn(i);
}

int current() { return tl_current; }

int for_work(double work) { return work < kMinWork ? 1 : tl_current; }

Scope::Scope(int threads) : saved_(tl_current) { tl_current = std::clamp(threads, 1, kMax); }
Scope::~Scope() { tl_current = saved_; }

}  // namespace posenc::threads
