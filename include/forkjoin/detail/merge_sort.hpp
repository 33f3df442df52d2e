// merge_sort.hpp: parallel_stable_sort's merge sort. The range is cut into 2^levels leaves
// sorted by std::stable_sort; each level merges pairs of sorted runs from the range into a
// buffer of n elements or back (levels even: the last merge writes the range). A merge of
// many elements splits at the middle of its longer input and a binary search in the other
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

#include "forkjoin/join.hpp"

namespace forkjoin::detail::merge_sort {

constexpr std::ptrdiff_t k_leaf = std::ptrdiff_t{1} << 14;          // at most this many per leaf
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

// Sorts the n elements at x. levels > 0: the halves are sorted into y (to_y false) or left
// in x (to_y true) one level down, then merged into the other array.
template <class It, class T, class Comp>
void sort_levels(It x, T* y, std::ptrdiff_t n, int levels, bool to_y, Comp& comp) {
  if (levels == 0) {
    std::stable_sort(x, x + n, comp);  // every leaf has to_y false: levels is even at the top
    return;
  }
  const std::ptrdiff_t h = n / 2;
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

// Levels such that leaves hold at most k_leaf elements, rounded up to an even count.
inline int levels_for(std::ptrdiff_t n) {
  int levels = 0;
  while ((n >> levels) > k_leaf) ++levels;
  return levels + (levels & 1);
}

template <class It, class Comp>
void run(It first, It last, Comp& comp) {
  using value = std::iter_value_t<It>;
  const std::ptrdiff_t n = last - first;
  const int levels = levels_for(n);
  if (levels == 0 || tls_worker->pool_size_ == 1) {
    std::stable_sort(first, last, comp);
    return;
  }
  buffer<value> buf(n);
  if (buf.get() == nullptr) {  // as std::stable_sort does: sort without the buffer
    std::stable_sort(first, last, comp);
    return;
  }
  if constexpr (!std::is_trivially_copyable_v<value>) {
    // The merges assign into the buffer, so it must hold objects: moved-from copies of
    // the input (whose values are overwritten before they are read).
    if constexpr (std::is_nothrow_move_constructible_v<value>) {
      parallel_uninitialized_move(first, buf.get(), n);
    } else {
      std::uninitialized_move(first, last, buf.get());
    }
    buf.set_live(n);
    // The input now sits in the buffer: move it back, still in parallel, then sort.
    parallel_merge(buf.get(), buf.get() + n, buf.get() + n, buf.get() + n, first, comp);
  }
  sort_levels(first, buf.get(), n, levels, false, comp);
}

}  // namespace forkjoin::detail::merge_sort
