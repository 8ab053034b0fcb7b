// CPU seconds of the calling thread, shared by the experiment tools (posenc_spectrum, posenc_kazemnejad): each run
// trains on one thread, so this is its CPU time whatever else the machine runs.
#pragma once
#include <time.h>

namespace posenc::tools {

inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace posenc::tools
