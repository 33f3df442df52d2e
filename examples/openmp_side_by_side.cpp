// openmp_side_by_side.cpp: each common OpenMP construct next to its forkjoin call, both
// run and compared. Built with -fopenmp when CMake finds OpenMP; without it, only the
// forkjoin side runs (and still checks its answers). See docs/from-openmp.md, whose
// "Checked by" column names this example or the test that checks each row.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
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

  // #pragma omp parallel for reduction(+ : total), total starting at 100: the identity (0)
  // starts every chunk, the start value is added once, to the result.
  // [doc:reduction-start-value]
  long total = 100;
  total += fj::parallel_reduce(
      0, n, 0L, [](int i) { return static_cast<long>(i); }, std::plus<>());
  // [/doc]
  long total_omp = 100;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : total_omp)
#endif
  for (int i = 0; i < n; ++i) total_omp += i;
  check(total == total_omp, "reduction(+) from a start value");

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

  // loop body over a chunk: parallel_for(first, last, [&](I b, I e) { ... })
  std::vector<double> w(n, 0.0);
  fj::parallel_for(0, n, [&](int b, int e) {
    for (int i = b; i < e; ++i) w[i] = 2.0 * x[i];
  });
  check(std::equal(w.begin(), w.end(), z.begin(), [](double a, double c) { return a == c - 3.0; }), "chunk-form body");

  // #pragma omp parallel for schedule(static, 7): chunk k runs on thread k mod T
  std::vector<int> thread_of(n, -1), omp_thread_of(n, -1);
  fj::pool team(4);
  team.run([&] {
    fj::parallel_for(
        0, n, [&](int i) { thread_of[i] = fj::this_worker_index(); }, fj::schedule::static_(7));
  });
  bool same_thread_per_class = true;  // chunks k and k + T ran on one thread: one participant
  for (int i = 7 * 4; i < n; ++i) same_thread_per_class &= thread_of[i] == thread_of[i - 7 * 4];
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 7) num_threads(4)
  for (int i = 0; i < n; ++i) omp_thread_of[i] = omp_get_thread_num();
  for (int i = 7 * 4; i < n; ++i) same_thread_per_class &= omp_thread_of[i] == omp_thread_of[i - 7 * 4];
#endif
  check(same_thread_per_class, "schedule(static, 7)  (chunk k on k mod T)");

  // #pragma omp parallel for schedule(runtime), OMP_SCHEDULE read from the environment
  ::setenv("OMP_SCHEDULE", "dynamic,16", 1);
  check(fj::schedule::runtime() == fj::schedule::dynamic(16), "schedule(runtime)  (OMP_SCHEDULE)");
  fj::parallel_for(
      0, n, [&](int i) { w[i] += 1.0; }, fj::schedule::runtime());
  ::unsetenv("OMP_SCHEDULE");
  check(std::equal(w.begin(), w.end(), z.begin(), [](double a, double c) { return a == c - 2.0; }),
        "schedule(runtime) loop");

  // #pragma omp parallel for num_threads(2) if(n > 1000), inside a 4-thread pool so that
  // num_threads(2) really limits something
  std::atomic<unsigned> workers{0};  // bit w: worker w ran an iteration
  auto record = [&](int) { workers.fetch_or(1u << fj::this_worker_index(), std::memory_order_relaxed); };
  team.run([&] { fj::parallel_for(0, n, record, fj::schedule::static_().num_threads(2).parallel_if(n > 1000)); });
  const unsigned used = workers.load();
  check((used & 1u) != 0 && std::popcount(used) <= 2,  // the caller and at most one more
        "num_threads(2) if(true)");
  // if(false): every iteration on the calling thread (worker 0 of the pool)
  workers = 0;
  team.run([&] { fj::parallel_for(0, n, record, fj::schedule::static_().parallel_if(n < 1000)); });
  check(workers.load() == 1u, "if(false)  (serial on the caller)");

  // #pragma omp parallel num_threads(3) region + omp_get_num_threads()
  int region_threads = 0;
  fj::pool three(3);
  three.run([&] { region_threads = static_cast<int>(three.num_threads()); });
  int omp_region_threads = 3;
#ifdef _OPENMP
#pragma omp parallel num_threads(3)
#pragma omp single
  omp_region_threads = omp_get_num_threads();
#endif
  check(region_threads == omp_region_threads && three.run([] { return fj::this_worker_index(); }) == 0,
        "parallel num_threads(3) region  (pool p(3))");

  // bitwise-reproducible reduction (OpenMP has none): same bits on 1 and 4 threads
  auto det_sum = [&](fj::pool& p) {
    return p.run([&] {
      return fj::parallel_deterministic_reduce(
          0, n, 0.0, [&](int i) { return x[i] * 1e-3 + 1.0 / (i + 1); }, std::plus<>(), 1000);
    });
  };
  fj::pool one(1);
  const double d1 = det_sum(one), d4 = det_sum(team);
  check(std::memcmp(&d1, &d4, sizeof d1) == 0, "deterministic reduce  (1 vs 4 threads)");

  // exceptions: OpenMP terminates; forkjoin rethrows the body's exception once
  bool caught = false;
  try {
    fj::parallel_for(0, n, [](int i) {
      if (i == 12345) throw std::runtime_error("body");
    });
  } catch (const std::runtime_error&) {
    caught = true;
  }
  check(caught, "exception in a body  (rethrown)");

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
