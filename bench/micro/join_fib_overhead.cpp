// join_fib_overhead.cpp: fib(32)'s work overhead T1/Ts and 2-worker speedup, in one
// process: per repetition the plain serial fib (as bench_runtime writes it), fib by join
// on a 1-worker pool (the caller runs it all), and fib by join on a T-worker pool; prints
// the medians of the thread's CPU time and of wall time, and checks every answer. Built
// by hand against a tree's library (not by CMake), like the other programs here:
//   g++ -std=c++20 -O3 -DNDEBUG -I<tree>/include join_fib_overhead.cpp <tree>/build/release/libforkjoin.a -lpthread
//   ./a.out 15 2        # 15 repetitions, 2 workers for the speedup
// Under callgrind, `./a.out 0 1 serial` and `./a.out 0 1 join` run fib(32) once each way.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {
constexpr std::uint64_t k_fib32 = 2178309;

std::uint64_t fib_serial(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2);
}
std::uint64_t fib_join(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = forkjoin::join([n] { return fib_join(n - 1); }, [n] { return fib_join(n - 2); });
  return a + b;
}
double thread_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}
double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int reps = std::atoi(argv[1]);
  const auto threads = static_cast<std::size_t>(std::atoi(argv[2]));
  volatile int n = 32;  // not folded to a constant
  forkjoin::pool one(1);
  if (argc > 3) {  // one run, for callgrind
    const std::uint64_t r = std::strcmp(argv[3], "serial") == 0 ? fib_serial(n) : one.run([&] { return fib_join(n); });
    return r == k_fib32 ? 0 : 1;
  }
  forkjoin::pool many(threads);
  std::vector<double> sc, sw, jc, jw, mw;
  for (int r = 0; r < reps; ++r) {
    double c0 = thread_cpu_ms(), w0 = wall_ms();
    if (fib_serial(n) != k_fib32) return 1;
    sc.push_back(thread_cpu_ms() - c0);
    sw.push_back(wall_ms() - w0);
    c0 = thread_cpu_ms();
    w0 = wall_ms();
    if (one.run([&] { return fib_join(n); }) != k_fib32) return 1;
    jc.push_back(thread_cpu_ms() - c0);
    jw.push_back(wall_ms() - w0);
    w0 = wall_ms();
    if (many.run([&] { return fib_join(n); }) != k_fib32) return 1;
    mw.push_back(wall_ms() - w0);
  }
  std::printf(
      "serial cpu %.2f wall %.2f ms | join, 1 worker: cpu %.2f wall %.2f ms | T1/Ts cpu %.2f wall %.2f | "
      "join, %zu workers: wall %.2f ms, speedup %.2f\n",
      median(sc), median(sw), median(jc), median(jw), median(jc) / median(sc), median(jw) / median(sw), threads,
      median(mw), median(jw) / median(mw));
}
