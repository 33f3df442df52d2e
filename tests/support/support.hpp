// support.hpp: helpers shared by the tests: a scale factor for stress sizes (smaller under
// sanitizers, FORKJOIN_STRESS_SCALE to change it), a serial fib for checks, the exit of a
// fork()ed child, the thread count and a wait for it to settle, a scope guard and a holder
// for a pool's external slot (both release threads before an ASSERT returns).
#pragma once

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#if defined(FORKJOIN_COVERAGE_BUILD)
extern "C" void __gcov_dump();  // libgcov's (the coverage preset)
#endif

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

// Iteration counts are multiplied by this: FORKJOIN_STRESS_SCALE (default 1). Sized tests
// pick smaller base sizes under sanitizers (see each test's scaled() call). A value that is
// not a number > 0 throws: a typo must not turn the sized tests into loops of 0 rounds.
inline double stress_scale() {
  const char* v = std::getenv("FORKJOIN_STRESS_SCALE");
  if (v == nullptr) return 1.0;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(s > 0.0))
    throw std::invalid_argument(std::string("FORKJOIN_STRESS_SCALE must be a number > 0, not '") + v + "'");
  return s;
}

inline std::int64_t scaled(std::int64_t n, std::int64_t sanitizer_n) {
  return static_cast<std::int64_t>(static_cast<double>(under_sanitizer() ? sanitizer_n : n) * stress_scale());
}

// Ends a fork()ed child with _exit(code), having first written the counters of the coverage
// build: gcov writes them at exit(), which the child of a threaded process must not run.
[[noreturn]] inline void exit_child(int code) {
#if defined(FORKJOIN_COVERAGE_BUILD)
  __gcov_dump();
#endif
  _exit(code);
}

// The threads of this process now (/proc/self/task).
inline int count_threads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// A thread that was joined (or, a detached spare, has left) stays in /proc/self/task for a
// moment after pthread_join returns: the kernel wakes the joiner when the thread clears its
// id, before the task is released. Waits, 20 s at most, for the count to come down to `n`.
inline bool threads_back_to(int n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (count_threads() > n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
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

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "forkjoin/pool.hpp"

namespace forkjoin::test {

// Runs f when the scope ends, also when a failed ASSERT_* returns early: threads are
// released and joined before their std::thread objects die (a joinable one would terminate).
template <class F>
class scope_exit {
 public:
  explicit scope_exit(F f) : f_(std::move(f)) {}
  ~scope_exit() { f_(); }
  scope_exit(const scope_exit&) = delete;
  scope_exit& operator=(const scope_exit&) = delete;

 private:
  F f_;
};

// Holds pool p's external slot (slot 0) from a helper thread inside p.run, so that every
// p.run from another thread meanwhile is injected and runs on a background worker. The
// destructor releases the slot and joins the helper.
// Options for a pool of n threads that lets one outside thread in at a time: a second
// caller's job is handed over ([P-SLOT] D1-D5) and runs on a worker, instead of running on
// the caller's own thread in a slot of its own (X1). Tests of injected work hold slot 0
// (slot_holder below) and submit with run() on such a pool.
inline pool_options one_outside_thread(std::size_t n, pool_options o = {}) {
  o.num_threads = n;
  o.max_outside_threads = 1;
  return o;
}

class slot_holder {
 public:
  explicit slot_holder(pool& p)
      : thread_([this, &p] {
          p.run([this] {
            in_.store(true);
            while (!release_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          });
        }) {
    while (!in_.load()) std::this_thread::yield();
  }
  ~slot_holder() {
    release_.store(true);
    thread_.join();
  }
  slot_holder(const slot_holder&) = delete;
  slot_holder& operator=(const slot_holder&) = delete;

 private:
  std::atomic<bool> in_{false};
  std::atomic<bool> release_{false};
  std::thread thread_;  // declared last: it starts after the flags exist
};

// The message of the std::invalid_argument that f throws; "" when it throws nothing.
template <class F>
std::string invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace forkjoin::test
