// impl_openmp.cpp: the workloads the way OpenMP users write them: task / taskwait inside
// parallel + single for recursion (tasks `untied`, as the usual fair-competitor rule
// asks; libgomp accepts the clause), parallel for with the schedule a user would pick
// (static for uniform loops, dynamic,1 for the imbalanced one), reduction(+).
// Compiled with -fopenmp (libgomp).
#include <omp.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "uts.hpp"
#include "workloads.hpp"

namespace forkjoin::bench {
namespace {

// Forks fib(n-2) and runs fib(n-1) itself, the same branches as forkjoin's join.
std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0, b = 0;
#pragma omp task untied shared(b)
  b = fib(n - 2);
  a = fib(n - 1);
#pragma omp taskwait
  return a + b;
}

std::uint64_t skynet(std::uint64_t first, std::uint64_t size) {
  if (size == 1) return first;
  std::array<std::uint64_t, 10> part{};
  for (std::uint64_t i = 0; i < 10; ++i) {
#pragma omp task untied shared(part)
    part[i] = skynet(first + i * (size / 10), size / 10);
  }
#pragma omp taskwait
  std::uint64_t sum = 0;
  for (auto p : part) sum += p;
  return sum;
}

long nqueens(queens_board col, int row, int n) {
  if (row == n) return 1;
  std::array<long, 16> part{};
  for (int c = 0; c < n; ++c) {
    if (!queen_safe(col, row, c)) continue;
#pragma omp task untied shared(part) firstprivate(col)
    {
      col[static_cast<std::size_t>(row)] = static_cast<signed char>(c);
      part[static_cast<std::size_t>(c)] = nqueens(col, row + 1, n);
    }
  }
#pragma omp taskwait
  long sum = 0;
  for (long p : part) sum += p;
  return sum;
}

std::uint64_t uts_count(const uts::node& n) {
  const int c = uts::num_children(n);
  if (c == 0) return 1;
  std::uint64_t total = 1;
  std::array<std::uint64_t, uts::k_max_children> part{};
  for (int i = 0; i < c; ++i) {
#pragma omp task untied shared(part, n)
    part[static_cast<std::size_t>(i)] = uts_count(uts::child(n, i));
  }
#pragma omp taskwait
  for (int i = 0; i < c; ++i) total += part[static_cast<std::size_t>(i)];
  return total;
}

void quicksort(int* first, int* last) {
  if (last - first <= k_sort_cutoff) {
    std::sort(first, last);
    return;
  }
  // Plain pointers, not a structured binding: clang 14 cannot capture bindings in lambdas/tasks.
  const std::pair<int*, int*> mids = partition3(first, last);
  int* const mid1 = mids.first;
  int* const mid2 = mids.second;
#pragma omp task untied  // the upper part, as forkjoin's join forks it
  quicksort(mid2, last);
  quicksort(first, mid1);
#pragma omp taskwait
}

template <class F>
auto in_team(F f) {
  decltype(f()) r{};
#pragma omp parallel
#pragma omp single
  r = f();
  return r;
}

const implementation k_impl{
    "openmp",
    [](int threads) { omp_set_num_threads(threads); },
    [] {},
    [](int n) { return in_team([n] { return fib(n); }); },
    nullptr,
    [](int depth) {
      std::uint64_t leaves = 1;
      for (int i = 0; i < depth; ++i) leaves *= 10;
      return in_team([leaves] { return skynet(0, leaves); });
    },
    [](int n) { return in_team([n] { return nqueens({}, 0, n); }); },
    [](const uts::node& root) { return in_team([&root] { return uts_count(root); }); },
    [](int* a, int n) {
#pragma omp parallel for schedule(static)
      for (int i = 0; i < n; ++i) a[i] += 1;
    },
    [](double* out, int n) {
#pragma omp parallel for schedule(dynamic, 1)
      for (int i = 0; i < n; ++i) out[i] = imbalanced_iteration(i);
    },
    [](const double* x, std::size_t n) {
      double s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)  // simd: lets the sum reassociate, as std::reduce may
      for (std::size_t i = 0; i < n; ++i) s += x[i];
      return s;
    },
    [](const double* a, const double* b, double* c, int n) {
#pragma omp parallel for schedule(static)
      for (int i = 0; i < n; ++i) matmul_row(a, b, c, n, i);
    },
    [](int* v, std::size_t n) {
      in_team([v, n] {
        quicksort(v, v + n);
        return 0;
      });
    },
    [](int* a, int n) {
#pragma omp parallel for schedule(static)
      for (int i = 0; i < n; ++i) a[i] += 1;
    },
    [](float* a, float* b, int n, int sweeps) {
      for (int s = 0; s < sweeps; ++s) {
#pragma omp parallel for collapse(2) schedule(static)
        for (int i = 1; i < n - 1; ++i)
          for (int j = 1; j < n - 1; ++j)
            b[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] =
                jacobi_point(a, n, i, j);
        std::swap(a, b);
      }
    },
    nullptr,
    [](const std::uint32_t* v, std::size_t n, std::uint64_t* bins) {
#pragma omp parallel for schedule(static) reduction(+ : bins[:256])
      for (std::size_t i = 0; i < n; ++i) ++bins[v[i] & 255];
    },
    nullptr,
};

// The wavefront with `task depend` on per-block tokens (row -1 and column -1 are tokens
// nobody writes), created by one thread of the team.
std::int64_t wave(wavefront& w) {
  const int nb = w.blocks();
  std::vector<char> token(static_cast<std::size_t>((nb + 1) * (nb + 1)));
  char* tok = token.data();
  static_cast<void>(tok);  // gcc does not count its uses in depend() as uses
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      const int up = i * (nb + 1) + j + 1, left = (i + 1) * (nb + 1) + j, self = left + 1;
#pragma omp task depend(in : tok[up], tok[left]) depend(out : tok[self]) firstprivate(i, j) shared(w)
      w.block(i, j);
    }
  return w.result();
}

}  // namespace

const implementation& openmp_impl() {
  static const implementation full = [] {
    implementation o = k_impl;
    o.wave = wave;
    return o;
  }();
  return full;
}

}  // namespace forkjoin::bench
