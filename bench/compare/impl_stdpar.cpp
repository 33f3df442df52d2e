// impl_stdpar.cpp: the loop, reduce and sort workloads with the standard parallel
// algorithms and std::execution::par. libstdc++ runs them on oneTBB (linked here; without
// it they silently run serially). No recursive workloads: the standard has no fork-join.
#include <algorithm>
#include <execution>
#include <numeric>
#include <vector>

#include "workloads.hpp"

namespace forkjoin::bench {
namespace {

const implementation k_impl{
    "std::par",
    [](int threads) { tbb_impl().begin(threads); },  // libstdc++'s backend is oneTBB: its global_control applies
    [] {},
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    [](int* a, int n) { std::for_each(std::execution::par, a, a + n, [](int& x) { x += 1; }); },
    [](double* out, int n) {  // the index is the element's offset (iota_view is not a forward iterator for PSTL)
      std::for_each(std::execution::par, out, out + n,
                    [out](double& o) { o = imbalanced_iteration(static_cast<int>(&o - out)); });
    },
    [](const double* x, std::size_t n) { return std::reduce(std::execution::par, x, x + n, 0.0); },
    [](const double* a, const double* b, double* c, int n) {
      std::vector<int> rows(static_cast<std::size_t>(n));
      std::iota(rows.begin(), rows.end(), 0);
      std::for_each(std::execution::par, rows.begin(), rows.end(), [=](int i) { matmul_row(a, b, c, n, i); });
    },
    [](int* v, std::size_t n) { std::sort(std::execution::par, v, v + n); },
    nullptr,
    nullptr,
    [](const double* x, double* out, std::size_t n) { std::inclusive_scan(std::execution::par, x, x + n, out); },
    nullptr,
    [](const int* v, std::size_t n) {
      return static_cast<std::size_t>(
          std::find_if(std::execution::par, v, v + n, [](int x) { return x == k_find_needle; }) - v);
    },
};

}  // namespace

const implementation& stdpar_impl() {
  static const implementation full = [] {
    implementation s = k_impl;
    s.sort_lib = [](int* v, std::size_t n) { std::sort(std::execution::par, v, v + n); };
    s.stable_sort_lib = [](int* v, std::size_t n) { std::stable_sort(std::execution::par, v, v + n); };
    return s;
  }();
  return full;
}

}  // namespace forkjoin::bench
