// test_tbb_omp.cpp: OpenMP, oneTBB and std::execution::par in one process on one pool. A gcc
// OpenMP loop (on libforkjoin-omp) calls tbb::parallel_for and std::reduce(par) (on
// libforkjoin-tbb) in every iteration, and the reverse; every index is visited once, every sum
// is right, and the process never holds more threads than the larger of the OpenMP team and
// forkjoin's pool (native libgomp + libtbb hold both pools' threads: 8 at OMP_NUM_THREADS=4 on
// 2 CPUs). Threads counted in /proc/self/task: the main thread and those forkjoin names
// ("forkjoin*"), so that a sanitizer's own thread is not counted; neither libgomp nor
// libtbb.so.12 may be mapped, so no other runtime's threads can hide among the rest.
// A plain program (exit status 0 on success), run at OMP_NUM_THREADS 2, 4 and 8.
#include <dirent.h>
#include <omp.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <execution>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "forkjoin/pool.hpp"
#include "threads_held.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "test_tbb_omp: FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  constexpr int k_outer = 64, k_inner = 1000;
  const std::size_t team = static_cast<std::size_t>(omp_get_max_threads());
  const std::size_t pool = forkjoin::default_pool().num_threads();
  const std::size_t bound = team > pool ? team : pool;
  std::atomic<std::size_t> max_seen{process_threads()};

  // OpenMP outside, oneTBB inside.
  std::vector<std::atomic<int>> hits(k_outer * k_inner);
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < k_outer; ++i) {
    tbb::parallel_for(0, k_inner, [&](int j) { hits[static_cast<std::size_t>(i * k_inner + j)]++; });
    note_max(max_seen);
  }
  bool once = true;
  for (auto& h : hits) once = once && h.load() == 1;
  check(once, "omp parallel for over tbb::parallel_for: every index exactly once");

  // OpenMP outside, std::execution::par inside.
  std::vector<long> v(1 << 16);
  std::iota(v.begin(), v.end(), 1L);
  const long expected = static_cast<long>(v.size()) * static_cast<long>(v.size() + 1) / 2;
  long total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < 16; ++i) {
    total += std::reduce(std::execution::par, v.begin(), v.end(), 0L);
    note_max(max_seen);
  }
  check(total == 16 * expected, "omp parallel for over std::reduce(par): the sum");

  // oneTBB outside, OpenMP inside.
  std::vector<std::atomic<int>> hits2(k_outer * k_inner);
  tbb::task_group g;
  for (int i = 0; i < k_outer; ++i)
    g.run([&, i] {
#pragma omp parallel for
      for (int j = 0; j < k_inner; ++j) hits2[static_cast<std::size_t>(i * k_inner + j)]++;
      note_max(max_seen);
    });
  g.wait();
  once = true;
  for (auto& h : hits2) once = once && h.load() == 1;
  check(once, "tbb::task_group over omp parallel for: every index exactly once");

  check(!mapped("libgomp"), "libgomp is not loaded");
  check(!mapped("libtbb.so"), "native libtbb is not loaded");
  std::printf("test_tbb_omp: team %zu, pool %zu, at most %zu threads seen\n", team, pool, max_seen.load());
  check(max_seen.load() <= bound, "threads in the process <= max(OpenMP team, pool)");
  return failures == 0 ? 0 : 1;
}
