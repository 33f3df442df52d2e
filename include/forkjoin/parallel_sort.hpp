// parallel_sort.hpp: parallel_sort (introsort, in place) and parallel_stable_sort (merge
// sort with one buffer). Internals in detail/sort.hpp and detail/merge_sort.hpp.
#pragma once

#include <algorithm>
#include <functional>
#include <iterator>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/merge_sort.hpp"
#include "forkjoin/detail/sort.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin {

/// Sorts [first, last) by comp, in place, as std::sort (not stable). O(n log n) comparisons
/// in the worst case (heap sort below a depth limit), O(log n) stack per thread, no heap
/// memory. Runs in the calling worker's pool, or default_pool() from outside every pool;
/// serially in a pool of one thread. comp is called concurrently from several threads.
/// If comp throws, the first exception is rethrown once every branch has stopped, and the
/// range holds a permutation of the input (provided swapping elements does not throw).
/// A comp that is not a strict weak ordering gives an unspecified order, never an access
/// outside the range.
template <std::random_access_iterator It, class Comp = std::less<>>
requires std::sortable<It, Comp>
void parallel_sort(It first, It last, Comp comp = {}) {
  namespace s = detail::sort;
  const std::ptrdiff_t n = last - first;
  if (n < 2) return;
  const s::piece<It> all{first, last, first, false};
  const int depth = s::depth_limit(n);
  detail::worker* w = detail::tls_worker;
  if (n <= s::k_parallel_cutoff || (w != nullptr && w->pool_size_ == 1)) {
    s::serial_sort(all, depth, comp);
  } else if (w == nullptr) {
    default_pool().run([&] { s::parallel_sort(all, depth, comp); });
  } else {
    s::parallel_sort(all, depth, comp);
  }
}

/// Sorts [first, last) by comp, keeping equivalent elements in their input order, as
/// std::stable_sort. Uses one buffer of last - first elements; if it cannot be allocated,
/// calls std::stable_sort (serial, less memory; then a comparator that is not a strict
/// weak ordering is undefined behaviour, as there). Move-only types work. Runs where
/// parallel_sort runs. If comp or a move throws, the first exception is rethrown once
/// every branch has stopped; the elements are then valid but in an unspecified order,
/// some possibly moved-from (as after std::stable_sort). A comp that is not a strict weak
/// ordering gives an unspecified order, never an access outside the range or the buffer.
template <std::random_access_iterator It, class Comp = std::less<>>
requires std::sortable<It, Comp>
void parallel_stable_sort(It first, It last, Comp comp = {}) {
  if (last - first <= detail::merge_sort::k_leaf || detail::tls_worker != nullptr) {
    detail::merge_sort::run(first, last, comp);
  } else {
    default_pool().run([&] { detail::merge_sort::run(first, last, comp); });
  }
}

}  // namespace forkjoin
