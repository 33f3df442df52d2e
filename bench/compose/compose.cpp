// compose.cpp: one process that nests two parallel runtimes, an outer parallel loop of one
// calling an inner parallel loop of the other, in each pair of {OpenMP, oneTBB,
// std::execution::par, forkjoin} and both ways. The same source is linked twice: natively
// (libgomp, libtbb.so.12 and forkjoin's own pool: three sets of threads) and on forkjoin
// (libforkjoin-omp and libforkjoin-tbb: one pool). Prints, per run, the time, the most
// threads the process held (/proc/self/task, sampled in the outer loop) and whether the
// answer matched the serial one; run_compose.py times the two builds against each other.
//
// usage: bench_compose OUTER-INNER [REPEATS]   (OUTER, INNER: omp, tbb, par, fj)
#include <dirent.h>
#include <omp.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <execution>
#include <numeric>
#include <string>
#include <vector>

#include "forkjoin/parallel_for.hpp"

namespace {

constexpr int k_outer = 64;
constexpr int k_inner = 8192;

// The work of one inner iteration: a few hundred cycles, result kept.
double work(int i, int j) {
  double x = static_cast<double>(i * k_inner + j) * 1e-6;
  for (int k = 0; k < 24; ++k) x = std::sqrt(x + 1.0);
  return x;
}

std::size_t process_threads() {
  std::size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

std::atomic<std::size_t> g_max_threads{0};
void note_threads() {
  const std::size_t now = process_threads();
  std::size_t m = g_max_threads.load(std::memory_order_relaxed);
  while (now > m && !g_max_threads.compare_exchange_weak(m, now)) {
  }
}

// The inner loop of outer iteration i on runtime `inner`, writing row i of out.
void inner_loop(const std::string& inner, int i, double* row) {
  if (inner == "omp") {
#pragma omp parallel for
    for (int j = 0; j < k_inner; ++j) row[j] = work(i, j);
  } else if (inner == "tbb") {
    tbb::parallel_for(0, k_inner, [&](int j) { row[j] = work(i, j); });
  } else if (inner == "par") {
    std::vector<int> idx(k_inner);
    std::iota(idx.begin(), idx.end(), 0);
    std::for_each(std::execution::par, idx.begin(), idx.end(), [&](int j) { row[j] = work(i, j); });
  } else {
    forkjoin::parallel_for(0, k_inner, [&](int j) { row[j] = work(i, j); });
  }
}

void outer_loop(const std::string& outer, const std::string& inner, std::vector<double>& out) {
  auto body = [&](int i) {
    inner_loop(inner, i, out.data() + static_cast<std::size_t>(i) * k_inner);
    note_threads();
  };
  if (outer == "omp") {
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < k_outer; ++i) body(i);
  } else if (outer == "tbb") {
    tbb::parallel_for(0, k_outer, body);
  } else if (outer == "par") {
    std::vector<int> idx(k_outer);
    std::iota(idx.begin(), idx.end(), 0);
    std::for_each(std::execution::par, idx.begin(), idx.end(), body);
  } else {
    forkjoin::parallel_for(0, k_outer, body);
  }
}

bool known(const std::string& r) { return r == "omp" || r == "tbb" || r == "par" || r == "fj"; }

}  // namespace

int main(int argc, char** argv) {
  const char* dash = argc >= 2 ? std::strchr(argv[1], '-') : nullptr;
  if (dash == nullptr) {
    std::fprintf(stderr, "usage: bench_compose OUTER-INNER [REPEATS]  (omp, tbb, par, fj)\n");
    return 2;
  }
  const std::string outer(argv[1], static_cast<std::size_t>(dash - argv[1])), inner(dash + 1);
  const int repeats = argc >= 3 ? std::atoi(argv[2]) : 1;
  if (!known(outer) || !known(inner) || outer == inner || repeats < 1) {
    std::fprintf(stderr, "bench_compose: bad pair or repeat count: %s\n", argv[1]);
    return 2;
  }
  std::vector<double> expected(static_cast<std::size_t>(k_outer) * k_inner);
  for (int i = 0; i < k_outer; ++i)
    for (int j = 0; j < k_inner; ++j) expected[static_cast<std::size_t>(i) * k_inner + j] = work(i, j);
  std::vector<double> out(expected.size());
  for (int r = 0; r < repeats; ++r) {
    std::fill(out.begin(), out.end(), 0.0);
    const auto t0 = std::chrono::steady_clock::now();
    outer_loop(outer, inner, out);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool ok = out == expected;
    std::printf("%s-%s seconds %.6f threads %zu answer %s\n", outer.c_str(), inner.c_str(), s, g_max_threads.load(),
                ok ? "ok" : "WRONG");
    if (!ok) return 1;
  }
  return 0;
}
