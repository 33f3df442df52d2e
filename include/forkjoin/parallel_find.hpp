// parallel_find.hpp: parallel_find_if and parallel_find, std::find_if / std::find in
// parallel with early exit (detail/find.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/find.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin {

/// std::find_if: the first iterator in [first, last) whose element satisfies pred, or
/// last. The range is searched in chunks claimed in increasing order; after a match at
/// position k no chunk that starts after k is started (chunks already running finish).
/// pred may be called on elements after the first match, and concurrently, so it must be
/// safe to call from several threads. An exception from pred stops new chunks and is
/// rethrown once.
template <std::random_access_iterator It, class Pred>
It parallel_find_if(It first, It last, Pred pred) {
  const auto d = last - first;
  if (d <= 0) return last;
  const auto n = static_cast<std::size_t>(d);
  auto check = [&](std::size_t lo, std::size_t hi) -> std::size_t {
    using diff = std::iter_difference_t<It>;
    return static_cast<std::size_t>(
        std::find_if(first + static_cast<diff>(lo), first + static_cast<diff>(hi), std::ref(pred)) - first);
  };
  auto run = [&]() -> std::size_t {
    const std::size_t team = detail::tls_worker->pool_size_;
    if (team == 1 || n == 1) return check(0, n);
    detail::first_match_search<decltype(check)> search(n, detail::find_chunk_size(n, team), check);
    return search.run(team);
  };
  const std::size_t k = detail::tls_worker == nullptr ? default_pool().run(run) : run();
  return first + static_cast<std::iter_difference_t<It>>(k);
}

/// std::find: the first element equal to value, by parallel_find_if.
template <std::random_access_iterator It, class T>
It parallel_find(It first, It last, const T& value) {
  return parallel_find_if(first, last, [&value](const auto& x) { return x == value; });
}

}  // namespace forkjoin
