// impl_tbb.cpp: the workloads the way oneTBB users write them: parallel_invoke for binary
// recursion, task_group for n-ary spawning, parallel_for / parallel_reduce over a
// blocked_range with the default (auto) partitioner, parallel_sort. Thread count through
// global_control; worker stacks 8 MiB like forkjoin's (anchors.md: fair competitors).
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_group.h>

#include <array>
#include <functional>
#include <memory>
#include <numeric>

#include "uts.hpp"
#include "workloads.hpp"

namespace forkjoin::bench {
namespace {

std::unique_ptr<tbb::global_control> g_threads, g_stack;

std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  return a + b;
}

std::uint64_t skynet(std::uint64_t first, std::uint64_t size) {
  if (size == 1) return first;
  std::array<std::uint64_t, 10> part{};
  tbb::task_group g;
  for (std::uint64_t i = 0; i < 10; ++i)
    g.run([&part, i, first, size] { part[i] = skynet(first + i * (size / 10), size / 10); });
  g.wait();
  std::uint64_t sum = 0;
  for (auto p : part) sum += p;
  return sum;
}

long nqueens(std::array<signed char, 16> col, int row, int n) {
  if (row == n) return 1;
  std::array<long, 16> part{};
  tbb::task_group g;
  for (int c = 0; c < n; ++c) {
    bool ok = true;
    for (int r = 0; r < row && ok; ++r) {
      const int d = col[static_cast<std::size_t>(r)] - c;
      ok = d != 0 && d != row - r && d != r - row;
    }
    if (!ok) continue;
    auto next = col;
    next[static_cast<std::size_t>(row)] = static_cast<signed char>(c);
    g.run([&part, next, row, n, c] { part[static_cast<std::size_t>(c)] = nqueens(next, row + 1, n); });
  }
  g.wait();
  long sum = 0;
  for (long p : part) sum += p;
  return sum;
}

std::uint64_t uts_count(const uts::node& n) {
  const int c = uts::num_children(n);
  if (c == 0) return 1;
  std::uint64_t total = 1;
  std::array<std::uint64_t, uts::k_max_children> part{};
  tbb::task_group g;
  for (int i = 0; i < c; ++i) g.run([&part, &n, i] { part[static_cast<std::size_t>(i)] = uts_count(uts::child(n, i)); });
  g.wait();
  for (int i = 0; i < c; ++i) total += part[static_cast<std::size_t>(i)];
  return total;
}

const implementation k_impl{
    "tbb",
    [](int threads) {
      g_threads.reset();
      g_threads = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                        static_cast<std::size_t>(threads));
      if (!g_stack)
        g_stack = std::make_unique<tbb::global_control>(tbb::global_control::thread_stack_size, std::size_t{8} << 20);
    },
    [] {},
    fib,
    [](int depth) {
      std::uint64_t leaves = 1;
      for (int i = 0; i < depth; ++i) leaves *= 10;
      return skynet(0, leaves);
    },
    [](int n) { return nqueens({}, 0, n); },
    [] { return uts_count(uts::root()); },
    [](int* a, int n) {
      tbb::parallel_for(tbb::blocked_range<int>(0, n), [a](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i < r.end(); ++i) a[i] += 1;
      });
    },
    [](double* out, int n) {
      tbb::parallel_for(tbb::blocked_range<int>(0, n), [out](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i < r.end(); ++i) out[i] = imbalanced_iteration(i);
      });
    },
    [](const double* x, std::size_t n) {
      return tbb::parallel_reduce(tbb::blocked_range<std::size_t>(0, n), 0.0,
                                  [x](const tbb::blocked_range<std::size_t>& r, double acc) {
                                    return std::reduce(x + r.begin(), x + r.end(), acc);  // same inner sum as forkjoin
                                  }, std::plus<>());
    },
    [](const double* a, const double* b, double* c, int n) {
      tbb::parallel_for(tbb::blocked_range<int>(0, n), [=](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i < r.end(); ++i)
          for (int k = 0; k < n; ++k) {
            const double aik = a[i * n + k];
            for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
          }
      });
    },
    [](int* v, std::size_t n) { tbb::parallel_sort(v, v + n); },
};

}  // namespace

const implementation& tbb_impl() { return k_impl; }

}  // namespace forkjoin::bench
