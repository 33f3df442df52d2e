// tbb_launcher_probe.cpp: a gcc OpenMP program linked the ordinary way against libgomp
// (-fopenmp) and native oneTBB (-ltbb), run under the forkjoin-omp launcher. It nests an
// OpenMP loop and tbb::parallel_for both ways and std::reduce(par) inside OpenMP, then
// checks that every answer is right, that libforkjoin-omp and libforkjoin-tbb are loaded and
// native libtbb is not, and that every thread but the main one is a forkjoin worker
// ("forkjoin*" in /proc/self/task/*/comm): no libgomp or oneTBB thread ever ran. Exit
// status 0 on success.
#include <dirent.h>
#include <omp.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <execution>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "threads_held.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "tbb_launcher_probe: FAILED: %s\n", what);
    ++failures;
  }
}

// Threads of the process other than the main one, and how many of them forkjoin named.
void count_threads(std::size_t& others, std::size_t& forkjoin_named) {
  others = forkjoin_named = 0;
  const std::string main_tid = std::to_string(getpid());
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.' || e->d_name == main_tid) continue;
      std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
      std::string name;
      std::getline(comm, name);
      ++others;
      if (name.rfind("forkjoin", 0) == 0) ++forkjoin_named;
    }
    closedir(d);
  }
}

}  // namespace

int main() {
  constexpr int k_outer = 32, k_inner = 1000;
  std::vector<std::atomic<int>> hits(k_outer * k_inner);
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < k_outer; ++i)
    tbb::parallel_for(0, k_inner, [&](int j) { hits[static_cast<std::size_t>(i * k_inner + j)]++; });
  bool once = true;
  for (auto& h : hits) once = once && h.exchange(0) == 1;
  check(once, "omp parallel for over tbb::parallel_for: every index exactly once");

  tbb::task_group g;
  for (int i = 0; i < k_outer; ++i)
    g.run([&, i] {
#pragma omp parallel for
      for (int j = 0; j < k_inner; ++j) hits[static_cast<std::size_t>(i * k_inner + j)]++;
    });
  g.wait();
  once = true;
  for (auto& h : hits) once = once && h.load() == 1;
  check(once, "tbb::task_group over omp parallel for: every index exactly once");

  std::vector<long> v(1 << 14);
  std::iota(v.begin(), v.end(), 1L);
  const long expected = static_cast<long>(v.size()) * static_cast<long>(v.size() + 1) / 2;
  long total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < 8; ++i) total += std::reduce(std::execution::par, v.begin(), v.end(), 0L);
  check(total == 8 * expected, "omp parallel for over std::reduce(par): the sum");

  check(mapped("libforkjoin-omp"), "libforkjoin-omp is loaded");
  check(mapped("libforkjoin-tbb"), "libforkjoin-tbb is loaded");
  check(!mapped("libtbb.so"), "native libtbb is not loaded");
  std::size_t others = 0, named = 0;
  count_threads(others, named);
  std::printf(
      "tbb_launcher_probe: OpenMP team %d, oneTBB concurrency %d, %zu threads besides main, %zu of them forkjoin's\n",
      omp_get_max_threads(), tbb::this_task_arena::max_concurrency(), others, named);
  check(others == named, "every thread but the main one is a forkjoin worker");
  return failures == 0 ? 0 : 1;
}
