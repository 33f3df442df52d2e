// parallel_for_nd.hpp: parallel_for_2d and parallel_for_3d, OpenMP's collapse(2) and
// collapse(3) (oneTBB's blocked_range2d / blocked_range3d). Each dimension's bounds follow
// parallel_for's index rules (their common type; lengths in its unsigned type).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/loop.hpp"
#include "forkjoin/detail/loop_nd.hpp"
#include "forkjoin/parallel_for.hpp"
#include "forkjoin/schedule.hpp"

namespace forkjoin {
namespace detail {

// auto_: the engine runs over auto_'s tile grid, at least 128 tiles per participant when
// the space has that many points (the engine's finest grain is n / (128 T)); an explicit
// auto_(grain) counts points and becomes a grain of whole tiles. Every other schedule
// runs over the flattened points, so its blocks and chunks are OpenMP's collapse(D) ones.
template <std::size_t D, class OnBox>
void run_loop_nd(const char* what, const extents<D>& e, OnBox& on_box, const schedule& s) {
  const std::uint64_t total = grid_size<D>(e, what);
  if (total == 0) return;
  auto combine = [](no_result a, no_result) { return a; };
  if (s.type() != schedule::kind::auto_) {
    auto chunk = [&](std::uint64_t lo, std::uint64_t hi, no_result acc) {
      for_each_box<D>(e, lo, hi, on_box);
      return acc;
    };
    run_loop(total, no_result{}, chunk, combine, s);
    return;
  }
  auto tiled = [&] {
    std::size_t team = tls_worker != nullptr ? tls_worker->pool_size_ : 1;
    if (s.max_threads() != 0) team = std::min(team, s.max_threads());
    const tile_grid<D> grid(e, std::uint64_t{128} * team);
    const std::uint64_t tiles = grid_size<D>(grid.tiles, what);
    std::size_t grain = 0;
    if (s.chunk() != 0) grain = static_cast<std::size_t>(std::max<std::uint64_t>(1, s.chunk() / (total / tiles)));
    const schedule ts = schedule::auto_(grain).num_threads(s.max_threads()).parallel_if(s.parallel());
    auto chunk = [&](std::uint64_t lo, std::uint64_t hi, no_result acc) {
      for_each_box<D>(grid.tiles, lo, hi, [&](const box<D>& tb) { on_box(grid.to_points(tb)); });
      return acc;
    };
    run_loop(tiles, no_result{}, chunk, combine, ts);
  };
  if (tls_worker == nullptr && s.parallel())
    default_pool().run(tiled);
  else
    tiled();
}

template <class Space>
typename Space::index nd_index(const Space& space, std::uint64_t k) noexcept {
  return space.at(static_cast<typename Space::offset>(k));
}

}  // namespace detail

/// OpenMP's collapse(2): body(i, j) for every point of [row_first, row_last) x
/// [col_first, col_last), or body(i0, i1, j0, j1) for disjoint boxes covering it (the
/// tile form lets the inner loop vectorise; one point argument pair wins when both fit).
/// schedule::auto_() (default) hands out bands of whole rows (columns are cut too only
/// when there are too few rows), block t on worker t, split again when an idle thread
/// asks; an explicit auto_(grain) counts points. Every other schedule maps the flattened
/// row-major space exactly as OpenMP's collapse(2) with that schedule does. An empty
/// dimension calls nothing; a space of more than 2^64 - 1 points, or a bound its
/// dimension's common type cannot hold, throws std::invalid_argument. An exception from
/// body stops new chunks and is rethrown once.
template <detail::loop_index I1, detail::loop_index I2, detail::loop_index J1, detail::loop_index J2, class Body>
void parallel_for_2d(I1 row_first, I2 row_last, J1 col_first, J2 col_last, Body&& body,
                     schedule s = schedule::auto_()) {
  using I = std::common_type_t<I1, I2>;
  using J = std::common_type_t<J1, J2>;
  // Misuse is one static_assert, and nothing more: the loop is instantiated only if it holds.
  constexpr bool k_body_ok = std::invocable<Body&, I, J> || std::invocable<Body&, I, I, J, J>;
  static_assert(k_body_ok, "parallel_for_2d: body must accept (i, j) or (i0, i1, j0, j1)");
  if constexpr (k_body_ok) {
    const detail::index_space<I1, I2> si(row_first, row_last);
    const detail::index_space<J1, J2> sj(col_first, col_last);
    auto on_box = [&](const detail::box<2>& b) {
      if constexpr (std::invocable<Body&, I, J>) {
        const J j0 = detail::nd_index(sj, b.lo[1]), j1 = detail::nd_index(sj, b.hi[1]);
        for (std::uint64_t a = b.lo[0]; a != b.hi[0]; ++a) {
          const I i = detail::nd_index(si, a);
          for (J j = j0; j != j1; ++j) std::invoke(body, i, j);
        }
      } else {
        std::invoke(body, detail::nd_index(si, b.lo[0]), detail::nd_index(si, b.hi[0]), detail::nd_index(sj, b.lo[1]),
                    detail::nd_index(sj, b.hi[1]));
      }
    };
    detail::run_loop_nd<2>("parallel_for_2d", {si.size, sj.size}, on_box, s);
  }
}

/// OpenMP's collapse(3): body(i, j, k) per point or body(i0, i1, j0, j1, k0, k1) per box;
/// otherwise as parallel_for_2d (auto_ hands out bands of whole planes while there are
/// enough of them, then rows, then pieces of rows).
template <detail::loop_index I1, detail::loop_index I2, detail::loop_index J1, detail::loop_index J2,
          detail::loop_index K1, detail::loop_index K2, class Body>
void parallel_for_3d(I1 i_first, I2 i_last, J1 j_first, J2 j_last, K1 k_first, K2 k_last, Body&& body,
                     schedule s = schedule::auto_()) {
  using I = std::common_type_t<I1, I2>;
  using J = std::common_type_t<J1, J2>;
  using K = std::common_type_t<K1, K2>;
  constexpr bool k_body_ok = std::invocable<Body&, I, J, K> || std::invocable<Body&, I, I, J, J, K, K>;
  static_assert(k_body_ok, "parallel_for_3d: body must accept (i, j, k) or (i0, i1, j0, j1, k0, k1)");
  if constexpr (k_body_ok) {
    const detail::index_space<I1, I2> si(i_first, i_last);
    const detail::index_space<J1, J2> sj(j_first, j_last);
    const detail::index_space<K1, K2> sk(k_first, k_last);
    auto on_box = [&](const detail::box<3>& b) {
      if constexpr (std::invocable<Body&, I, J, K>) {
        const K k0 = detail::nd_index(sk, b.lo[2]), k1 = detail::nd_index(sk, b.hi[2]);
        for (std::uint64_t a = b.lo[0]; a != b.hi[0]; ++a) {
          const I i = detail::nd_index(si, a);
          for (std::uint64_t c = b.lo[1]; c != b.hi[1]; ++c) {
            const J j = detail::nd_index(sj, c);
            for (K k = k0; k != k1; ++k) std::invoke(body, i, j, k);
          }
        }
      } else {
        std::invoke(body, detail::nd_index(si, b.lo[0]), detail::nd_index(si, b.hi[0]), detail::nd_index(sj, b.lo[1]),
                    detail::nd_index(sj, b.hi[1]), detail::nd_index(sk, b.lo[2]), detail::nd_index(sk, b.hi[2]));
      }
    };
    detail::run_loop_nd<3>("parallel_for_3d", {si.size, sj.size, sk.size}, on_box, s);
  }
}

}  // namespace forkjoin
