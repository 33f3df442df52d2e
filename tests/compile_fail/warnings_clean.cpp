// Every public entry point instantiated the way users write them (int and size_t bounds
// mixed, iterators, chunk forms, every algorithm, every schedule), compiled with the strict
// warnings a user's project may turn on, -Werror included (compile_warnings_clean): forkjoin's
// templates must not leak a warning into the user's code.
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <functional>
#include <vector>

long use() {
  std::vector<int> v(100);
  forkjoin::parallel_for(0, v.size(), [&](std::size_t i) { v[i] = 1; });
  forkjoin::parallel_for(0, 100, [&](int i) { v[static_cast<std::size_t>(i)] += i; });
  forkjoin::parallel_for(
      0, 100, [](int, int) {}, forkjoin::schedule::dynamic(4));
  forkjoin::parallel_for(
      0L, 100L, [](long) {}, forkjoin::schedule::guided(2).num_threads(2));
  forkjoin::parallel_for(
      0u, 100u, [](unsigned) {}, forkjoin::schedule::static_(8));
  forkjoin::parallel_for(
      0, 100, [](int) {}, forkjoin::schedule::num_tasks(3));
  const long a = forkjoin::parallel_reduce(
      0, 100, 0L, [](int i) { return static_cast<long>(i); }, std::plus<>());
  const long b = forkjoin::parallel_reduce(
      0, v.size(), 0L, [](std::size_t lo, std::size_t hi, long acc) { return acc + static_cast<long>(hi - lo); },
      std::plus<>());
  const double c = forkjoin::parallel_deterministic_reduce(
      0, 100, 0.0, [](int i) { return static_cast<double>(i); }, std::plus<>());
  forkjoin::parallel_for_each(v.begin(), v.end(), [](int& x) { ++x; });
  forkjoin::parallel_for_2d(0, 10, 0, v.size(), [](int, std::size_t) {});
  forkjoin::parallel_for_3d(0, 10, 0, 10, 0, 3, [](int, int, int) {});
  forkjoin::parallel_sort(v.begin(), v.end());
  forkjoin::parallel_stable_sort(v.begin(), v.end(), std::greater<>());
  std::vector<int> out(v.size());
  forkjoin::parallel_inclusive_scan(v.begin(), v.end(), out.begin());
  forkjoin::parallel_exclusive_scan(v.begin(), v.end(), out.begin(), 0, std::plus<>());
  const auto found = forkjoin::parallel_find(v.begin(), v.end(), 3);
  forkjoin::per_worker<long> counts;
  forkjoin::parallel_for(0, 10, [&](int) { ++counts.local(); });
  forkjoin::task_group g;
  int x = 0, y = 0;
  g.run([] {});
  g.run(forkjoin::out(x), [&] { x = 1; });
  g.run(forkjoin::in(x), forkjoin::out(y), [&] { y = x; });
  g.wait();
  const auto [p, q] = forkjoin::join([] { return 1L; }, [] { return 2L; });
  forkjoin::parallel_invoke([] {}, [] {});
  forkjoin::pool pool(2);
  return a + b + static_cast<long>(c) + (found - v.begin()) + p + q + pool.run([] { return 1L; }) + y;
}
