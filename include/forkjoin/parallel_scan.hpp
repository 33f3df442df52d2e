// parallel_scan.hpp: parallel_inclusive_scan and parallel_exclusive_scan with the
// semantics of std::inclusive_scan / std::exclusive_scan, and the same bits for every
// thread count (a split tree fixed by the input size alone, see detail/scan.hpp).
#pragma once

#include <functional>
#include <iterator>
#include <optional>
#include <utility>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/scan.hpp"

namespace forkjoin {

/// std::inclusive_scan: d_first[k] = x[0] op ... op x[k], for op associative (not
/// necessarily commutative: operands keep their order). Returns d_first + (last - first).
/// d_first == first scans in place; other overlaps are not allowed. The grouping of the
/// operations depends only on last - first, so the result is bitwise identical on every
/// run and every thread count, also for floating-point addition. An exception from op is
/// rethrown once (the output is then partly written, as the standard algorithm leaves it).
template <std::random_access_iterator It, std::random_access_iterator Out, class Op = std::plus<>>
Out parallel_inclusive_scan(It first, It last, Out d_first, Op op = {}) {
  using T = std::iter_value_t<It>;
  const auto n = last - first;
  if (n <= 0) return d_first;
  detail::scan_run<false, T>(first, static_cast<std::size_t>(n), d_first, op, std::optional<T>());
  return d_first + n;
}

/// std::inclusive_scan with init: d_first[k] = init op x[0] op ... op x[k].
template <std::random_access_iterator It, std::random_access_iterator Out, class Op, class T>
Out parallel_inclusive_scan(It first, It last, Out d_first, Op op, T init) {
  const auto n = last - first;
  if (n <= 0) return d_first;
  detail::scan_run<false, T>(first, static_cast<std::size_t>(n), d_first, op, std::optional<T>(std::move(init)));
  return d_first + n;
}

/// std::exclusive_scan: d_first[0] = init, d_first[k] = init op x[0] op ... op x[k - 1];
/// otherwise as parallel_inclusive_scan (in place when d_first == first; same bits on
/// every thread count).
template <std::random_access_iterator It, std::random_access_iterator Out, class T, class Op = std::plus<>>
Out parallel_exclusive_scan(It first, It last, Out d_first, T init, Op op = {}) {
  const auto n = last - first;
  if (n <= 0) return d_first;
  detail::scan_run<true, T>(first, static_cast<std::size_t>(n), d_first, op, std::optional<T>(std::move(init)));
  return d_first + n;
}

}  // namespace forkjoin
