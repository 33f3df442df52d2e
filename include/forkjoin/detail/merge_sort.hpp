// merge_sort.hpp: parallel_stable_sort's merge sort. The range is cut into 2^levels runs
// of at most about k_run elements, each sorted by insertion sort (stable, and bounded by
// the run whatever the comparator answers); each level merges pairs of sorted runs from
// the range into a buffer of n elements or back (levels even: the last merge writes the
// range). Above k_leaf elements the halves are sorted by join and merged in parallel: a
// merge splits at the middle of its longer input and a binary search in the other
// (lower_bound or upper_bound, so equal elements keep their input order) and merges both
// halves by join. Elements move by move assignment only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/sort.hpp"
#include "forkjoin/join.hpp"

namespace forkjoin::detail::merge_sort {

constexpr std::ptrdiff_t k_run = 32;                                // insertion-sorted runs
constexpr std::ptrdiff_t k_leaf = std::ptrdiff_t{1} << 14;          // sorted serially below
constexpr std::ptrdiff_t k_serial_merge = std::ptrdiff_t{1} << 14;  // merged serially below

// Stable: on ties the element of [a, a_end) goes first.
template <class Src, class Dst, class Comp>
void serial_merge(Src a, Src a_end, Src b, Src b_end, Dst out, Comp& comp) {
  while (a != a_end && b != b_end) {
    if (comp(*b, *a)) {
      *out = std::move(*b);
      ++b;
    } else {
      *out = std::move(*a);
      ++a;
    }
    ++out;
  }
  out = std::move(a, a_end, out);
  std::move(b, b_end, out);
}

template <class Src, class Dst, class Comp>
void parallel_merge(Src a, Src a_end, Src b, Src b_end, Dst out, Comp& comp) {
  const std::ptrdiff_t na = a_end - a;
  const std::ptrdiff_t nb = b_end - b;
  if (na + nb <= k_serial_merge) {
    serial_merge(a, a_end, b, b_end, out, comp);
    return;
  }
  Src ma;
  Src mb;
  if (na >= nb) {
    ma = a + na / 2;
    mb = std::lower_bound(b, b_end, *ma, comp);  // b's equals of *ma go after it
  } else {
    mb = b + nb / 2;
    ma = std::upper_bound(a, a_end, *mb, comp);  // a's equals of *mb go before it
  }
  Dst out_right = out + ((ma - a) + (mb - b));
  join([&] { parallel_merge(a, ma, b, mb, out, comp); },
       [&] { parallel_merge(ma, a_end, mb, b_end, out_right, comp); });
}

// Sorts the n elements at x into x (to_y false) or into y (to_y true). levels > 0: the
// halves are sorted one level down with !to_y, then merged into the other array. Every
// run (levels 0) must have to_y false: the top call picks the parity of levels.
template <class X, class Y, class Comp>
void sort_levels(X x, Y y, std::ptrdiff_t n, int levels, bool to_y, Comp& comp) {
  if (levels == 0) {
    sort::insertion_sort(x, x + n, comp);
    return;
  }
  const std::ptrdiff_t h = n / 2;
  if (n <= k_leaf) {
    sort_levels(x, y, h, levels - 1, !to_y, comp);
    sort_levels(x + h, y + h, n - h, levels - 1, !to_y, comp);
    if (to_y) {
      serial_merge(x, x + h, x + h, x + n, y, comp);
    } else {
      serial_merge(y, y + h, y + h, y + n, x, comp);
    }
    return;
  }
  join([&] { sort_levels(x, y, h, levels - 1, !to_y, comp); },
       [&] { sort_levels(x + h, y + h, n - h, levels - 1, !to_y, comp); });
  if (to_y) {
    parallel_merge(x, x + h, x + h, x + n, y, comp);
  } else {
    parallel_merge(y, y + h, y + h, y + n, x, comp);
  }
}

// Moves [x, x + n) into raw storage at y, in parallel halves (the move constructor does
// not throw: the caller checked).
template <class It, class T>
void parallel_uninitialized_move(It x, T* y, std::ptrdiff_t n) noexcept {
  if (n <= k_leaf) {
    std::uninitialized_move(x, x + n, y);
    return;
  }
  const std::ptrdiff_t h = n / 2;
  join([&] { parallel_uninitialized_move(x, y, h); }, [&] { parallel_uninitialized_move(x + h, y + h, n - h); });
}

template <class T>
void parallel_destroy(T* y, std::ptrdiff_t n) noexcept {
  if constexpr (!std::is_trivially_destructible_v<T>) {
    if (n <= k_leaf) {
      std::destroy(y, y + n);
      return;
    }
    const std::ptrdiff_t h = n / 2;
    join([&] { parallel_destroy(y, h); }, [&] { parallel_destroy(y + h, n - h); });
  }
}

// The buffer, freed (and its objects destroyed) on every path out.
template <class T>
class buffer {
 public:
  explicit buffer(std::ptrdiff_t n) noexcept
      : data_(static_cast<T*>(
            ::operator new (static_cast<std::size_t>(n) * sizeof(T), std::align_val_t{alignof(T)}, std::nothrow))) {}
  ~buffer() {
    if (live_ > 0) parallel_destroy(data_, live_);
    if (data_ != nullptr) ::operator delete (data_, std::align_val_t{alignof(T)});
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  T* get() const noexcept { return data_; }
  void set_live(std::ptrdiff_t n) noexcept { live_ = n; }

 private:
  T* data_;
  std::ptrdiff_t live_ = 0;
};

// Levels such that runs hold about k_run elements at most, rounded up to the parity asked.
inline int levels_for(std::ptrdiff_t n, bool odd) {
  int levels = 0;
  while ((n >> levels) > k_run) ++levels;
  return levels + ((levels & 1) != static_cast<int>(odd));
}

// Inside a worker, or with at most k_leaf elements (then nothing forks).
template <class It, class Comp>
void run(It first, It last, Comp& comp) {
  using value = std::iter_value_t<It>;
  const std::ptrdiff_t n = last - first;
  if (n <= k_run) {
    sort::insertion_sort(first, last, comp);
    return;
  }
  buffer<value> buf(n);
  if (buf.get() == nullptr) {  // as std::stable_sort does: sort without the buffer
    std::stable_sort(first, last, comp);
    return;
  }
  if constexpr (std::is_trivially_copyable_v<value>) {
    // The raw buffer holds objects as soon as they are assigned (implicit lifetime).
    sort_levels(first, buf.get(), n, levels_for(n, false), false, comp);
  } else {
    // The merges assign, so the buffer must hold objects: the input itself, moved there
    // (the range keeps moved-from objects, overwritten before they are read). Then the
    // sort starts in the buffer and an odd number of levels ends it in the range.
    if constexpr (std::is_nothrow_move_constructible_v<value>) {
      parallel_uninitialized_move(first, buf.get(), n);
    } else {
      std::uninitialized_move(first, last, buf.get());
    }
    buf.set_live(n);
    sort_levels(buf.get(), first, n, levels_for(n, true), true, comp);
  }
}

}  // namespace forkjoin::detail::merge_sort
