// support.hpp: helpers shared by the tests: a scale factor for stress sizes (smaller under
// sanitizers, FORKJOIN_STRESS_SCALE to change it) and a serial fib for checks.
#pragma once

#include <time.h>

#include <cstdint>
#include <cstdlib>

namespace forkjoin::test {

inline bool under_tsan() {
#if defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

inline bool under_asan() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

inline bool under_sanitizer() { return under_tsan() || under_asan(); }

// CPU time of the whole process (every thread), in seconds.
inline double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Iteration counts are multiplied by this: FORKJOIN_STRESS_SCALE (default 1), divided by
// 10 under sanitizers (never below the sizes the issues ask for unless scaled by hand).
inline double stress_scale() {
  double s = 1.0;
  if (const char* v = std::getenv("FORKJOIN_STRESS_SCALE")) s = std::atof(v);
  return s;
}

inline std::int64_t scaled(std::int64_t n, std::int64_t sanitizer_n) {
  return static_cast<std::int64_t>(static_cast<double>(under_sanitizer() ? sanitizer_n : n) * stress_scale());
}

inline std::uint64_t serial_fib(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : serial_fib(n - 1) + serial_fib(n - 2);
}

}  // namespace forkjoin::test

#include <pthread.h>

#include <functional>
#include <stdexcept>

namespace forkjoin::test {

// Runs fn on a fresh thread with a stack of `bytes` (sanitizers inflate frames: a deep
// recursion that fits 8 MiB natively may not fit under ASan's fake stacks).
inline void run_on_big_stack(const std::function<void()>& fn, std::size_t bytes) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t t;
  auto* arg = const_cast<std::function<void()>*>(&fn);
  int rc = pthread_create(
      &t, &attr,
      [](void* a) -> void* {
        (*static_cast<std::function<void()>*>(a))();
        return nullptr;
      },
      arg);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("pthread_create failed");
  pthread_join(t, nullptr);
}

}  // namespace forkjoin::test
