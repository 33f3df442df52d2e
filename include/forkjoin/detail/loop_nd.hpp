// loop_nd.hpp: the index arithmetic under parallel_for_2d / parallel_for_3d. A D-dimensional
// iteration space is a row-major grid of extents (the last dimension fastest); the loop
// engine runs over a flattened range of it (the points themselves for OpenMP's collapsed
// schedules, a grid of tiles for auto_), and each chunk [lo, hi) of that range is cut into
// at most 2D - 1 boxes, in row-major order, that the body receives.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace forkjoin::detail {

template <std::size_t D>
using extents = std::array<std::uint64_t, D>;

// A box: [lo[d], hi[d]) in every dimension d.
template <std::size_t D>
struct box {
  extents<D> lo;
  extents<D> hi;
};

// The number of points of e; throws when it does not fit 64 bits (the flattened index
// could not address every point).
template <std::size_t D>
std::uint64_t grid_size(const extents<D>& e, const char* what) {
  std::uint64_t total = 1;
  for (std::uint64_t x : e) {
    if (x == 0) return 0;
    if (__builtin_mul_overflow(total, x, &total))
      throw std::invalid_argument(std::string("forkjoin: ") + what +
                                  ": more than 2^64 - 1 points in the iteration space");
  }
  return total;
}

// Calls emit(box) for boxes covering the flattened range [lo, hi) of grid e, in row-major
// order: from lo, the largest box that starts there and stays inside the range (whole
// rows, planes, ... once lo is aligned to them), then the rest. At most 2D - 1 boxes.
template <std::size_t D, class Emit>
void for_each_box(const extents<D>& e, std::uint64_t lo, std::uint64_t hi, Emit&& emit) {
  extents<D> stride;
  stride[D - 1] = 1;
  for (std::size_t d = D - 1; d > 0; --d) stride[d - 1] = stride[d] * e[d];  // fits: grid_size checked the product
  while (lo < hi) {
    extents<D> c;
    std::uint64_t rem = lo;
    for (std::size_t d = 0; d < D; ++d) {
      c[d] = rem / stride[d];
      rem %= stride[d];
    }
    // The outermost dimension d whose inner coordinates are all 0: a box may span several
    // values of c[d] with every inner dimension whole.
    std::size_t d = D - 1;
    while (d > 0 && c[d] == 0) --d;
    std::uint64_t count = 0;
    for (;; ++d) {
      count = std::min((hi - lo) / stride[d], e[d] - c[d]);
      if (count != 0 || d == D - 1) break;
    }
    box<D> b;
    for (std::size_t m = 0; m < D; ++m) {
      if (m < d) {
        b.lo[m] = c[m];
        b.hi[m] = c[m] + 1;
      } else if (m == d) {
        b.lo[m] = c[m];
        b.hi[m] = c[m] + count;
      } else {
        b.lo[m] = 0;
        b.hi[m] = e[m];
      }
    }
    emit(b);
    lo += count * stride[d];
  }
}

// auto_'s tiles: the grid of points cut into blocks per dimension, block t of b blocks of
// an extent x starting at t*(x/b) + min(t, x%b) (OpenMP's static formula). The outer
// dimension is cut first and the inner ones only while there are fewer than `want` tiles,
// so tiles are bands of whole rows (or planes) whenever there are enough of them: the
// inner loops keep unit stride over the whole row, which hardware prefetching and a
// stencil's reuse of the neighbouring rows like best.
template <std::size_t D>
struct tile_grid {
  extents<D> points;
  extents<D> tiles;

  tile_grid(const extents<D>& e, std::uint64_t want) : points(e) {
    std::uint64_t have = 1;
    for (std::size_t d = 0; d < D; ++d) {
      const std::uint64_t need = have >= want ? 1 : (want + have - 1) / have;
      tiles[d] = std::max<std::uint64_t>(1, std::min(e[d], need));
      have *= tiles[d];
    }
  }
  std::uint64_t start(std::size_t d, std::uint64_t t) const noexcept {
    const std::uint64_t q = points[d] / tiles[d], r = points[d] % tiles[d];
    return t * q + std::min(t, r);
  }
  box<D> to_points(const box<D>& tb) const noexcept {
    box<D> pb;
    for (std::size_t d = 0; d < D; ++d) {
      pb.lo[d] = start(d, tb.lo[d]);
      pb.hi[d] = start(d, tb.hi[d]);
    }
    return pb;
  }
};

}  // namespace forkjoin::detail
