// openmp_side_by_side.cpp: each common OpenMP construct next to its forkjoin call, both
// run and compared. Built with -fopenmp when CMake finds OpenMP; without it, only the
// forkjoin side runs (and still checks its answers). See docs/from-openmp.md.
#include <atomic>
#include <cstdio>
#include <functional>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace fj = forkjoin;

static int failures = 0;
static void check(bool ok, const char* what) {
  std::printf("%-44s %s\n", what, ok ? "ok" : "MISMATCH");
  if (!ok) ++failures;
}

static long fib_fj(int n) {
  if (n < 2) return n;
  auto [a, b] = fj::join([n] { return fib_fj(n - 1); }, [n] { return fib_fj(n - 2); });
  return a + b;
}
#ifdef _OPENMP
static long fib_omp(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a)
  a = fib_omp(n - 1);
  b = fib_omp(n - 2);
#pragma omp taskwait
  return a + b;
}
#endif

int main() {
  const int n = 1'000'000;
  std::vector<double> x(n), y(n, 0.0), z(n, 0.0);
  for (int i = 0; i < n; ++i) x[i] = 0.5 * i;

  // #pragma omp parallel for
  fj::parallel_for(0, n, [&](int i) { y[i] = 2.0 * x[i]; });
#ifdef _OPENMP
#pragma omp parallel for
  for (int i = 0; i < n; ++i) z[i] = 2.0 * x[i];
#else
  for (int i = 0; i < n; ++i) z[i] = 2.0 * x[i];
#endif
  check(y == z, "parallel for");

  // #pragma omp parallel for schedule(dynamic, 64) / schedule(static) / schedule(guided)
  fj::parallel_for(
      0, n, [&](int i) { y[i] += 1.0; }, fj::schedule::dynamic(64));
  fj::parallel_for(
      0, n, [&](int i) { y[i] += 1.0; }, fj::schedule::static_());
  fj::parallel_for(
      0, n, [&](int i) { y[i] += 1.0; }, fj::schedule::guided());
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < n; ++i) z[i] += 1.0;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) z[i] += 1.0;
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < n; ++i) z[i] += 1.0;
#else
  for (int i = 0; i < n; ++i) z[i] += 3.0;
#endif
  check(y == z, "schedule(dynamic / static / guided)");

  // #pragma omp parallel for reduction(+ : sum)
  const long sum_fj = fj::parallel_reduce(
      0, n, 0L, [](int i) { return static_cast<long>(i); }, std::plus<>());
  long sum_omp = 0;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : sum_omp)
#endif
  for (int i = 0; i < n; ++i) sum_omp += i;
  check(sum_fj == sum_omp, "reduction(+)");

  // #pragma omp parallel for collapse(2): flatten the index space yourself
  const int rows = 300, cols = 700;
  std::vector<int> grid(rows * cols, 0);
  fj::parallel_for(0, rows * cols, [&](int k) { grid[k] = (k / cols) + (k % cols); });
  long grid_sum = 0;
#ifdef _OPENMP
#pragma omp parallel for collapse(2) reduction(+ : grid_sum)
#endif
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) grid_sum += r + c;
  long grid_fj = 0;
  for (int v : grid) grid_fj += v;
  check(grid_fj == grid_sum, "collapse(2)");

  // #pragma omp parallel for num_threads(2) if(n > 1000)
  std::atomic<int> max_index{-1};
  fj::parallel_for(
      0, n,
      [&](int) {
        int me = fj::this_worker_index(), seen = max_index.load();
        while (me > seen && !max_index.compare_exchange_weak(seen, me)) {
        }
      },
      fj::schedule::static_().num_threads(2).parallel_if(n > 1000));
  check(max_index.load() < 2, "num_threads(2) if(...)");

  // #pragma omp task / taskwait
  long f_omp = 832040;
#ifdef _OPENMP
#pragma omp parallel
#pragma omp single
  f_omp = fib_omp(30);
#endif
  check(fj::default_pool().run([] { return fib_fj(30); }) == f_omp, "task / taskwait  (join)");

  // #pragma omp taskgroup with #pragma omp task children
  std::atomic<int> done{0};
  fj::default_pool().run([&] {
    fj::task_group g;
    for (int i = 0; i < 100; ++i) g.run([&] { done.fetch_add(1); });
    g.wait();
  });
  check(done.load() == 100, "taskgroup  (task_group)");

  // omp_get_thread_num() / omp_get_num_threads()
  check(fj::this_worker_index() == -1 && fj::default_pool().run([] { return fj::this_worker_index(); }) == 0,
        "omp_get_thread_num  (this_worker_index)");

  std::printf("%s on %zu threads\n", failures == 0 ? "all constructs agree" : "some constructs differ",
              fj::default_pool().num_threads());
  return failures == 0 ? 0 : 1;
}
