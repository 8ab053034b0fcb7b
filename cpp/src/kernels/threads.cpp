// posenc::threads (threads.hpp): one job at a time, handed out by an atomic item counter. The pool's threads
// sleep on a condition variable between jobs; the caller takes items too, then waits for the last one.
#include "posenc/threads.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
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
// One parallel_for: its items, handed out by `next`; `done` counts the finished ones. Pool threads hold it by
// shared_ptr, so one that wakes after the job ended finds no item left and lets it go.
struct Job {
  const std::function<void(int)>* fn;
  int n, helpers;
  std::atomic<int> next{0};
  int done = 0;  // (under the pool's mutex)
  std::exception_ptr error;
};

class Pool {
 public:
  void run(int n, int threads, const std::function<void(int)>& fn) {
    std::lock_guard<std::mutex> one_job(job_mutex_);  // a second caller waits for the pool
    grow(threads - 1);
    auto job = std::make_shared<Job>();
    job->fn = &fn;
    job->n = n;
    job->helpers = threads - 1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = job;
      ++generation_;
    }
    wake_.notify_all();
    work(*job);
    // Waits for the items taken, not for the pool's threads: one that has not woken yet (a loaded machine) is not waited for.
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return job->done == n; });
    job_.reset();
    if (job->error) std::rethrow_exception(job->error);
  }

 private:
  void grow(int want) {
    while (static_cast<int>(workers_.size()) < want) {
      const int id = static_cast<int>(workers_.size());
      workers_.emplace_back([this, id] { loop(id); });
      workers_.back().detach();  // lives as long as the process (a wasm module's Workers, as long as the page)
    }
  }
  // Takes items until none is left; counts the ones it finished.
  void work(Job& job) {
    tl_inside = true;
    int finished = 0;
    for (int i; (i = job.next.fetch_add(1, std::memory_order_relaxed)) < job.n; ++finished) {
      try {
        (*job.fn)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!job.error) job.error = std::current_exception();
      }
    }
    tl_inside = false;
    if (!finished) return;
    std::lock_guard<std::mutex> lock(mutex_);
    job.done += finished;
    if (job.done == job.n) finished_.notify_all();
  }
  void loop(int id) {
    unsigned seen = 0;
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen && job_ && id < job_->helpers; });
        seen = generation_;
        job = job_;
      }
      work(*job);
    }
  }

  std::mutex job_mutex_, mutex_;
  std::condition_variable wake_, finished_;
  std::vector<std::thread> workers_;
  std::shared_ptr<Job> job_;
  unsigned generation_ = 0;
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
