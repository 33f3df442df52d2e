// impl_tbb.cpp: the workloads the way oneTBB users write them: parallel_invoke for binary
// recursion, task_group for n-ary spawning, parallel_for / parallel_reduce over a
// blocked_range with the default (auto) partitioner, parallel_sort. Thread count through
// global_control; worker stacks 8 MiB like forkjoin's, so that no runtime wins by a stack size.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/combinable.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_for_each.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_group.h>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "task_group_workloads.hpp"
#include "workloads.hpp"

namespace forkjoin::bench {
namespace {

std::unique_ptr<tbb::global_control> g_threads, g_stack;

// parallel_invoke(f1, f2) spawns f1 and runs f2 itself: fib(n-2) is the forked branch,
// as in forkjoin's join. It serves both the fib and the fib_invoke rows.
std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { b = fib(n - 2); }, [&] { a = fib(n - 1); });
  return a + b;
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
    fib,
    [](int depth) { return skynet_tg<tbb::task_group>(0, skynet_leaves(depth)); },
    [](int n) { return nqueens_tg<tbb::task_group>({}, 0, n); },
    [](const uts::node& root) { return uts_tg<tbb::task_group>(root); },
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
      return tbb::parallel_reduce(
          tbb::blocked_range<std::size_t>(0, n), 0.0,
          [x](const tbb::blocked_range<std::size_t>& r, double acc) {
            return std::reduce(x + r.begin(), x + r.end(), acc);  // same inner sum as forkjoin
          },
          std::plus<>());
    },
    [](const double* a, const double* b, double* c, int n) {
      tbb::parallel_for(tbb::blocked_range<int>(0, n), [=](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i < r.end(); ++i) matmul_row(a, b, c, n, i);
      });
    },
    [](int* v, std::size_t n) { tbb::parallel_sort(v, v + n); },
    [](int* a, int n) {
      tbb::parallel_for(
          tbb::blocked_range<int>(0, n),
          [a](const tbb::blocked_range<int>& r) {
            for (int i = r.begin(); i < r.end(); ++i) a[i] += 1;
          },
          tbb::static_partitioner());
    },
    [](float* a, float* b, int n, int sweeps) {
      for (int s = 0; s < sweeps; ++s) {
        tbb::parallel_for(tbb::blocked_range2d<int>(1, n - 1, 1, n - 1), [a, b, n](const tbb::blocked_range2d<int>& r) {
          for (int i = r.rows().begin(); i < r.rows().end(); ++i)
            for (int j = r.cols().begin(); j < r.cols().end(); ++j)
              b[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] =
                  jacobi_point(a, n, i, j);
        });
        std::swap(a, b);
      }
    },
    [](const double* x, double* out, std::size_t n) {
      tbb::parallel_scan(
          tbb::blocked_range<std::size_t>(0, n), 0.0,
          [x, out](const tbb::blocked_range<std::size_t>& r, double sum, bool is_final) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) {
              sum += x[i];
              if (is_final) out[i] = sum;
            }
            return sum;
          },
          std::plus<>());
    },
    [](const std::uint32_t* v, std::size_t n, std::uint64_t* bins) {
      tbb::combinable<std::array<std::uint64_t, 256>> local([] { return std::array<std::uint64_t, 256>{}; });
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n), [&](const tbb::blocked_range<std::size_t>& r) {
        auto& h = local.local();
        for (std::size_t i = r.begin(); i < r.end(); ++i) ++h[v[i] & 255];
      });
      local.combine_each([bins](const std::array<std::uint64_t, 256>& h) {
        for (std::size_t k = 0; k < 256; ++k) bins[k] += h[k];
      });
    },
    nullptr,
};

// The wavefront as oneTBB's documentation writes it: parallel_for_each from block (0, 0)
// with a feeder; each block counts its unfinished neighbours (up, left) and the block that
// brings a count to zero feeds it.
std::int64_t wave(wavefront& w) {
  const int nb = w.blocks();
  std::vector<std::atomic<int>> count(static_cast<std::size_t>(nb * nb));
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) count[static_cast<std::size_t>(i * nb + j)] = (i > 0) + (j > 0);
  const std::pair<int, int> start[] = {{0, 0}};
  tbb::parallel_for_each(std::begin(start), std::end(start),
                         [&](const std::pair<int, int>& b, tbb::feeder<std::pair<int, int>>& feed) {
                           const auto [i, j] = b;
                           w.block(i, j);
                           if (j + 1 < nb && --count[static_cast<std::size_t>(i * nb + j + 1)] == 0)
                             feed.add({i, j + 1});
                           if (i + 1 < nb && --count[static_cast<std::size_t>((i + 1) * nb + j)] == 0)
                             feed.add({i + 1, j});
                         });
  return w.result();
}

}  // namespace

const implementation& tbb_impl() {
  static const implementation full = [] {
    implementation t = k_impl;
    t.sort_lib = [](int* v, std::size_t n) { tbb::parallel_sort(v, v + n); };
    t.wave = wave;
    return t;
  }();
  return full;
}

}  // namespace forkjoin::bench
