// impl_forkjoin.cpp: the workloads written the way a forkjoin user writes them: join for
// binary recursion, task_group for n-ary spawning, parallel_for / parallel_reduce with the
// default schedule (auto_) unless the workload names one.
#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <numeric>

#include "forkjoin/forkjoin.hpp"
#include "uts.hpp"
#include "workloads.hpp"

namespace forkjoin::bench {
namespace {

std::unique_ptr<forkjoin::pool> g_pool;

template <class F>
auto in_pool(F&& f) {
  return g_pool->run(f);
}

std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = forkjoin::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

std::uint64_t skynet(std::uint64_t first, std::uint64_t size) {
  if (size == 1) return first;
  std::array<std::uint64_t, 10> part{};
  forkjoin::task_group g;
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
  forkjoin::task_group g;
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
  forkjoin::task_group g;
  for (int i = 0; i < c; ++i) g.run([&part, &n, i] { part[static_cast<std::size_t>(i)] = uts_count(uts::child(n, i)); });
  g.wait();
  for (int i = 0; i < c; ++i) total += part[static_cast<std::size_t>(i)];
  return total;
}

void quicksort(int* first, int* last) {
  while (last - first > k_sort_cutoff) {
    const int pivot = first[(last - first) / 2];
    int* mid1 = std::partition(first, last, [pivot](int x) { return x < pivot; });
    int* mid2 = std::partition(mid1, last, [pivot](int x) { return !(pivot < x); });
    forkjoin::join([=] { quicksort(first, mid1); }, [=] { quicksort(mid2, last); });
    return;
  }
  std::sort(first, last);
}

const implementation k_impl{
    "forkjoin",
    [](int threads) {
      if (!g_pool || g_pool->num_threads() != static_cast<std::size_t>(threads))
        g_pool = std::make_unique<forkjoin::pool>(static_cast<std::size_t>(threads));
    },
    [] {},
    [](int n) { return in_pool([n] { return fib(n); }); },
    [](int depth) {
      std::uint64_t leaves = 1;
      for (int i = 0; i < depth; ++i) leaves *= 10;
      return in_pool([leaves] { return skynet(0, leaves); });
    },
    [](int n) { return in_pool([n] { return nqueens({}, 0, n); }); },
    [] { return in_pool([] { return uts_count(uts::root()); }); },
    [](int* a, int n) {
      in_pool([a, n] { forkjoin::parallel_for(0, n, [a](int i) { a[i] += 1; }); });
    },
    [](double* out, int n) {
      in_pool([out, n] { forkjoin::parallel_for(0, n, [out](int i) { out[i] = imbalanced_iteration(i); }); });
    },
    [](const double* x, std::size_t n) {
      return in_pool([x, n] {
        // The chunk form: std::reduce may reassociate, so the inner sum is unrolled.
        return forkjoin::parallel_reduce(std::size_t{0}, n, 0.0, [x](std::size_t b, std::size_t e, double acc) {
          return std::reduce(x + b, x + e, acc);
        }, std::plus<>());
      });
    },
    [](const double* a, const double* b, double* c, int n) {
      in_pool([=] {
        forkjoin::parallel_for(0, n, [=](int i) {
          for (int k = 0; k < n; ++k) {
            const double aik = a[i * n + k];
            for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
          }
        });
      });
    },
    [](int* v, std::size_t n) { in_pool([v, n] { quicksort(v, v + n); }); },
};

}  // namespace

const implementation& forkjoin_impl() { return k_impl; }

}  // namespace forkjoin::bench
