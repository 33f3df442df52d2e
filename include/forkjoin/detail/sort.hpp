// sort.hpp: parallel_sort's introsort. Pivots by median of three (ninther above
// k_ninther); a block partition (comparisons without branches, then swaps) whose every
// access stays inside the range, so a comparator that is not a strict weak ordering gives
// a wrong order, never an access out of bounds; a partition that drops the run of elements
// equal to the left neighbour (the parent's pivot), so many duplicates cost
// O(n log distinct); a bounded insertion sort after a partition that moved nothing
// (sorted input runs in linear time); heap sort below a depth limit of 2 log2(n);
// insertion sort for small ranges. Above k_parallel_cutoff the two sides run by join.
// Elements move only by swaps and by insertion sort's hole, which is filled back if a
// comparison throws: after an exception the range is still a permutation of the input.
#pragma once

#include <bit>
#include <cstddef>
#include <iterator>
#include <utility>

#include "forkjoin/join.hpp"

namespace forkjoin::detail::sort {

constexpr std::ptrdiff_t k_insertion = 24;
constexpr std::ptrdiff_t k_ninther = 128;
// Below this many elements a range is sorted serially: large enough that a join costs
// nothing next to the work, small enough to leave many pieces to steal.
constexpr std::ptrdiff_t k_parallel_cutoff = std::ptrdiff_t{1} << 14;

// Moves *i left into the sorted [first, i); returns how far it went. If a comparison
// throws, the hole is filled back: the range stays a permutation.
template <class It, class Comp>
std::ptrdiff_t insert_one(It first, It i, Comp& comp) {
  if (!comp(*i, *std::prev(i))) return 0;
  auto tmp = std::move(*i);
  It hole = i;
  try {
    do {
      *hole = std::move(*std::prev(hole));
      --hole;
    } while (hole != first && comp(tmp, *std::prev(hole)));
  } catch (...) {
    *hole = std::move(tmp);
    throw;
  }
  *hole = std::move(tmp);
  return i - hole;
}

template <class It, class Comp>
void insertion_sort(It first, It last, Comp& comp) {
  if (first == last) return;
  for (It i = std::next(first); i != last; ++i) insert_one(first, i, comp);
}

// Insertion sort that gives up (false) once it has moved elements more than
// k_partial_limit places in all: finishes nearly sorted ranges in linear time.
constexpr std::ptrdiff_t k_partial_limit = 8;
template <class It, class Comp>
bool partial_insertion_sort(It first, It last, Comp& comp) {
  if (first == last) return true;
  std::ptrdiff_t moved = 0;
  for (It i = std::next(first); i != last; ++i) {
    moved += insert_one(first, i, comp);
    if (moved > k_partial_limit) return std::next(i) == last;
  }
  return true;
}

template <class It, class Comp>
void sort3(It a, It b, It c, Comp& comp) {
  if (comp(*b, *a)) std::iter_swap(a, b);
  if (comp(*c, *b)) {
    std::iter_swap(b, c);
    if (comp(*b, *a)) std::iter_swap(a, b);
  }
}

// Moves the chosen pivot to *first.
template <class It, class Comp>
void choose_pivot(It first, It last, Comp& comp) {
  const std::ptrdiff_t n = last - first;
  It mid = first + n / 2;
  if (n > k_ninther) {
    sort3(first, mid, last - 1, comp);
    sort3(first + 1, mid - 1, last - 2, comp);
    sort3(first + 2, mid + 1, last - 3, comp);
    sort3(mid - 1, mid, mid + 1, comp);
    std::iter_swap(first, mid);
  } else {
    sort3(mid, first, last - 1, comp);  // the median lands in *first
  }
}

// Hoare's scans on [i, j) with the pivot in *first: afterwards [.., i) < pivot and
// [i, ..) >= pivot. Both scans stop at the other one, whatever the comparator answers.
template <class It, class Comp>
It hoare_scan(It first, It i, It j, Comp& comp) {
  for (;;) {
    while (i < j && comp(*i, *first)) ++i;
    while (i < j && !comp(*(j - 1), *first)) --j;
    if (i >= j) return i;
    --j;
    std::iter_swap(i, j);
    ++i;
  }
}

constexpr std::ptrdiff_t k_block = 64;

// Block partition (Edelkamp and Weiss, "BlockQuicksort", 2016): compare a block of
// k_block elements at each end without branches, recording the offsets of the misplaced
// ones, then swap them pairwise. Every access stays inside [l, r), which shrinks by whole
// blocks; the rest (at most 2 k_block elements) goes through hoare_scan.
template <class It, class Comp>
It block_scan(It first, It l, It r, Comp& comp) {
  alignas(64) unsigned char off_l[k_block];
  alignas(64) unsigned char off_r[k_block];
  std::ptrdiff_t num_l = 0, num_r = 0, start_l = 0, start_r = 0;
  while (r - l > 2 * k_block) {
    if (num_l == 0) {
      start_l = 0;
      for (std::ptrdiff_t k = 0; k < k_block; ++k) {
        off_l[num_l] = static_cast<unsigned char>(k);
        num_l += !comp(l[k], *first);
      }
    }
    if (num_r == 0) {
      start_r = 0;
      for (std::ptrdiff_t k = 0; k < k_block; ++k) {
        off_r[num_r] = static_cast<unsigned char>(k);
        num_r += comp(*(r - 1 - k), *first);
      }
    }
    const std::ptrdiff_t num = num_l < num_r ? num_l : num_r;
    for (std::ptrdiff_t k = 0; k < num; ++k) std::iter_swap(l + off_l[start_l + k], r - 1 - off_r[start_r + k]);
    num_l -= num;
    num_r -= num;
    start_l += num;
    start_r += num;
    if (num_l == 0) l += k_block;
    if (num_r == 0) r -= k_block;
  }
  return hoare_scan(first, l, r, comp);
}

// Pivot in *first. Afterwards [first, p) < pivot, *p is the pivot, (p, last) >= pivot.
// Also says whether the range was already partitioned (no element had to move).
template <class It>
struct partitioned {
  It pivot;
  bool already;
};
template <class It, class Comp>
partitioned<It> partition_right(It first, It last, Comp& comp) {
  It i = first + 1;
  It j = last;
  while (i < j && comp(*i, *first)) ++i;
  while (i < j && !comp(*(j - 1), *first)) --j;
  const bool already = i >= j;
  if (!already) {
    --j;
    std::iter_swap(i, j);
    i = block_scan(first, i + 1, j, comp);
  }
  --i;
  std::iter_swap(first, i);
  return {i, already};
}

// After a partition that moved nothing and is not lopsided, the input was probably sorted
// (or nearly): try to finish both sides by bounded insertion sorts.
template <class It, class Comp>
bool finish_if_sorted(It first, partitioned<It> p, It last, Comp& comp) {
  const std::ptrdiff_t n = last - first;
  const std::ptrdiff_t left = p.pivot - first;
  if (!p.already || left < n / 8 || n - left - 1 < n / 8) return false;
  return partial_insertion_sort(first, p.pivot, comp) && partial_insertion_sort(p.pivot + 1, last, comp);
}

// Pivot in *first, known to be no greater than any element (it equals the left
// neighbour). Afterwards [first, p] holds the elements equivalent to it: the returned p is
// the last of them, and (p, last) is what remains to be sorted.
template <class It, class Comp>
It partition_left(It first, It last, Comp& comp) {
  It i = first + 1;
  It j = last;
  for (;;) {
    while (i < j && !comp(*first, *i)) ++i;
    while (i < j && comp(*first, *(j - 1))) --j;
    if (i >= j) break;
    --j;
    std::iter_swap(i, j);
    ++i;
  }
  --i;
  std::iter_swap(first, i);
  return i;
}

template <class It, class Comp>
void sift_down(It first, std::ptrdiff_t n, std::ptrdiff_t i, Comp& comp) {
  for (;;) {
    std::ptrdiff_t c = 2 * i + 1;
    if (c >= n) return;
    if (c + 1 < n && comp(first[c], first[c + 1])) ++c;
    if (!comp(first[i], first[c])) return;
    std::iter_swap(first + i, first + c);
    i = c;
  }
}

template <class It, class Comp>
void heap_sort(It first, It last, Comp& comp) {
  const std::ptrdiff_t n = last - first;
  for (std::ptrdiff_t i = n / 2; i-- > 0;) sift_down(first, n, i, comp);
  for (std::ptrdiff_t end = n - 1; end > 0; --end) {
    std::iter_swap(first, first + end);
    sift_down(first, end, 0, comp);
  }
}

// A range and what is known of its left neighbour: when has_left, *left is no greater
// than any element of the range (a pivot of an enclosing partition, already in place).
template <class It>
struct piece {
  It first;
  It last;
  It left;
  bool has_left;
};

enum class step_result { again, done, split };

// One partition step, shared by both sorts. again: r's elements equal to its left
// neighbour's pivot were set aside and r shrank, partition it again; done: r is sorted;
// split: *p is in place, [r.first, p) and (p, r.last) remain.
template <class It, class Comp>
step_result partition_step(piece<It>& r, It& p, Comp& comp) {
  choose_pivot(r.first, r.last, comp);
  if (r.has_left && !comp(*r.left, *r.first)) {
    r.first = partition_left(r.first, r.last, comp) + 1;
    return step_result::again;
  }
  const partitioned<It> part = partition_right(r.first, r.last, comp);
  if (finish_if_sorted(r.first, part, r.last, comp)) return step_result::done;
  p = part.pivot;
  return step_result::split;
}

// Serial introsort; recursion on the smaller side only, so the stack is O(log n).
template <class It, class Comp>
void serial_sort(piece<It> r, int depth, Comp& comp) {
  for (;;) {
    const std::ptrdiff_t n = r.last - r.first;
    if (n <= k_insertion) {
      insertion_sort(r.first, r.last, comp);
      return;
    }
    if (depth == 0) {
      heap_sort(r.first, r.last, comp);
      return;
    }
    --depth;
    It p = r.first;
    const step_result step = partition_step(r, p, comp);
    if (step == step_result::again) continue;
    if (step == step_result::done) return;
    if (p - r.first < r.last - p) {
      serial_sort(piece<It>{r.first, p, r.left, r.has_left}, depth, comp);
      r = piece<It>{p + 1, r.last, p, true};
    } else {
      serial_sort(piece<It>{p + 1, r.last, p, true}, depth, comp);
      r.last = p;
    }
  }
}

// The top of the recursion: both sides by join. Join frames nest at most `depth` deep.
template <class It, class Comp>
void parallel_sort(piece<It> r, int depth, Comp& comp) {
  for (;;) {
    if (r.last - r.first <= k_parallel_cutoff || depth == 0) {
      serial_sort(r, depth, comp);
      return;
    }
    --depth;
    It p = r.first;
    const step_result step = partition_step(r, p, comp);
    if (step == step_result::again) continue;
    if (step == step_result::done) return;
    join(
        [&] {
          parallel_sort(piece<It>{r.first, p, r.left, r.has_left}, depth, comp);
        },
        [&] {
          parallel_sort(piece<It>{p + 1, r.last, p, true}, depth, comp);
        });
    return;
  }
}

inline int depth_limit(std::ptrdiff_t n) { return 2 * static_cast<int>(std::bit_width(static_cast<std::size_t>(n))); }

}  // namespace forkjoin::detail::sort
