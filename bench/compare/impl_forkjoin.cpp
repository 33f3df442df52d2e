// impl_forkjoin.cpp: the workloads written the way a forkjoin user writes them: join for
// binary recursion, task_group for n-ary spawning, parallel_for / parallel_reduce with the
// default schedule (auto_) unless the workload names one.
#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "task_group_workloads.hpp"
#include "workloads.hpp"

namespace forkjoin::bench {
namespace {

std::unique_ptr<forkjoin::pool> g_pool;

template <class F>
auto in_pool(F&& f) {
  return g_pool->run(f);
}

// join(f, g) runs f inline and forks g: fib(n-2) is the forked branch (the OpenMP and
// oneTBB versions fork the same one).
std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = forkjoin::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

// The same recursion through parallel_invoke, results written into locals.
std::uint64_t fib_invoke(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0, b = 0;
  forkjoin::parallel_invoke([&a, n] { a = fib_invoke(n - 1); }, [&b, n] { b = fib_invoke(n - 2); });
  return a + b;
}

void quicksort(int* first, int* last) {
  while (last - first > k_sort_cutoff) {
    // Plain pointers, not a structured binding: clang 14 cannot capture bindings in lambdas/tasks.
    const std::pair<int*, int*> mids = partition3(first, last);
    int* const mid1 = mids.first;
    int* const mid2 = mids.second;
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
    [](int n) { return in_pool([n] { return fib_invoke(n); }); },
    [](int depth) { return in_pool([depth] { return skynet_tg<forkjoin::task_group>(0, skynet_leaves(depth)); }); },
    [](int n) { return in_pool([n] { return nqueens_tg<forkjoin::task_group>({}, 0, n); }); },
    [](const uts::node& root) { return in_pool([&root] { return uts_tg<forkjoin::task_group>(root); }); },
    [](int* a, int n) { in_pool([a, n] { forkjoin::parallel_for(0, n, [a](int i) { a[i] += 1; }); }); },
    [](double* out, int n) {
      in_pool([out, n] { forkjoin::parallel_for(0, n, [out](int i) { out[i] = imbalanced_iteration(i); }); });
    },
    [](const double* x, std::size_t n) {
      return in_pool([x, n] {
        // The chunk form: std::reduce may reassociate, so the inner sum is unrolled.
        return forkjoin::parallel_reduce(
            std::size_t{0}, n, 0.0,
            [x](std::size_t b, std::size_t e, double acc) { return std::reduce(x + b, x + e, acc); }, std::plus<>());
      });
    },
    [](const double* a, const double* b, double* c, int n) {
      in_pool([=] { forkjoin::parallel_for(0, n, [=](int i) { matmul_row(a, b, c, n, i); }); });
    },
    [](int* v, std::size_t n) { in_pool([v, n] { quicksort(v, v + n); }); },
    [](int* a, int n) {
      in_pool([a, n] {
        forkjoin::parallel_for(
            0, n, [a](int i) { a[i] += 1; }, forkjoin::schedule::static_());
      });
    },
    [](float* a, float* b, int n, int sweeps) {
      in_pool([=]() mutable {
        for (int s = 0; s < sweeps; ++s) {
          forkjoin::parallel_for_2d(1, n - 1, 1, n - 1, [a, b, n](int i0, int i1, int j0, int j1) {
            for (int i = i0; i < i1; ++i)
              for (int j = j0; j < j1; ++j)
                b[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] =
                    jacobi_point(a, n, i, j);
          });
          std::swap(a, b);
        }
      });
    },
    [](const double* x, double* out, std::size_t n) {
      in_pool([=] { forkjoin::parallel_inclusive_scan(x, x + n, out); });
    },
    [](const std::uint32_t* v, std::size_t n, std::uint64_t* bins) {
      in_pool([=] {
        forkjoin::per_worker<std::array<std::uint64_t, 256>> local;
        forkjoin::parallel_for(std::size_t{0}, n, [&](std::size_t b, std::size_t e) {
          auto& h = local.local();
          for (std::size_t i = b; i < e; ++i) ++h[v[i] & 255];
        });
        local.for_each([bins](const std::array<std::uint64_t, 256>& h) {
          for (std::size_t k = 0; k < 256; ++k) bins[k] += h[k];
        });
      });
    },
    [](const int* v, std::size_t n) {
      return in_pool([=] {
        return static_cast<std::size_t>(forkjoin::parallel_find_if(v, v + n, [](int x) { return x == k_find_needle; }) -
                                        v);
      });
    },
};

// Library sorts and the wavefront: a task_group child per block, ordered by in/out
// dependencies on per-block tokens (row -1 and column -1 are tokens nobody writes).
std::int64_t wave(wavefront& w) {
  const int nb = w.blocks();
  std::vector<char> token(static_cast<std::size_t>((nb + 1) * (nb + 1)));
  auto tok = [&token, nb](int i, int j) -> char& {
    return token[static_cast<std::size_t>((i + 1) * (nb + 1) + j + 1)];
  };
  in_pool([&] {
    forkjoin::task_group g;
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j)
        g.run(forkjoin::in(tok(i - 1, j)), forkjoin::in(tok(i, j - 1)), forkjoin::out(tok(i, j)),
              [&w, i, j] { w.block(i, j); });
    g.wait();
  });
  return w.result();
}

}  // namespace

const implementation& forkjoin_impl() {
  static const implementation full = [] {
    implementation f = k_impl;
    f.sort_lib = [](int* v, std::size_t n) { in_pool([v, n] { forkjoin::parallel_sort(v, v + n); }); };
    f.stable_sort_lib = [](int* v, std::size_t n) { in_pool([v, n] { forkjoin::parallel_stable_sort(v, v + n); }); };
    f.wave = wave;
    return f;
  }();
  return full;
}

}  // namespace forkjoin::bench
