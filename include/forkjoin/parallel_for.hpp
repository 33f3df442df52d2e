// parallel_for.hpp: parallel_for over an integer range and parallel_for_each over random
// access iterators, with OpenMP-style schedules. Index arithmetic: bounds convert to their
// common type C; lengths are taken in make_unsigned_t<C> and never overflow.
#pragma once

#include <concepts>
#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/errors.hpp"
#include "forkjoin/detail/loop.hpp"
#include "forkjoin/schedule.hpp"

namespace forkjoin {
namespace detail {

template <class I>
concept loop_index = std::integral<I> && !std::same_as<std::remove_cv_t<I>, bool>;

inline constexpr const char* k_bound_rule =
    "is negative, but the other bound is unsigned and the loop runs in their common, unsigned type";

// The loop's index type and its offset range; throws when a bound does not fit.
template <class I1, class I2>
struct index_space {
  using index = std::common_type_t<I1, I2>;
  using offset = std::make_unsigned_t<index>;
  index first;
  offset size;
  index_space(I1 f, I2 l) {
    // Each bound is reported in its own type: -1 against a size_t is named -1.
    if (!std::in_range<index>(f)) bad_argument("loop", "first", f, k_bound_rule);
    if (!std::in_range<index>(l)) bad_argument("loop", "last", l, k_bound_rule);
    first = static_cast<index>(f);
    const auto last = static_cast<index>(l);
    size = first < last ? static_cast<offset>(static_cast<offset>(last) - static_cast<offset>(first)) : offset{0};
  }
  index at(offset k) const noexcept { return static_cast<index>(static_cast<offset>(static_cast<offset>(first) + k)); }
};

// parallel_for's loop, once the body is known to fit (body: index or chunk form).
template <class I1, class I2, class Body>
void for_loop(I1 first, I2 last, Body&& body, const schedule& s) {
  index_space<I1, I2> space(first, last);
  using index = typename decltype(space)::index;
  using offset = typename decltype(space)::offset;
  auto chunk = [&](offset lo, offset hi, no_result acc) {
    if constexpr (std::invocable<Body&, index>) {
      const index end = space.at(hi);
      for (index i = space.at(lo); i != end; ++i) std::invoke(body, i);
    } else {
      std::invoke(body, space.at(lo), space.at(hi));
    }
    return acc;
  };
  auto combine = [](no_result a, no_result) { return a; };
  run_loop(space.size, no_result{}, chunk, combine, s);
}

}  // namespace detail

/// Calls body(i) for every i in [first, last), or body(begin, end) for disjoint chunks
/// covering it (the form is chosen by what body accepts; one index argument wins). Bounds
/// of different integral types run in their common type; a bound that type cannot hold
/// (a negative int against a size_t) throws std::invalid_argument. first >= last calls
/// nothing. An exception from body stops new chunks and is rethrown once.
template <detail::loop_index I1, detail::loop_index I2, class Body>
void parallel_for(I1 first, I2 last, Body&& body, schedule s = schedule::auto_()) {
  using index = std::common_type_t<I1, I2>;
  // Misuse is one static_assert, and nothing more: the loop is instantiated only if it holds.
  constexpr bool k_body_ok = std::invocable<Body&, index> || std::invocable<Body&, index, index>;
  static_assert(k_body_ok, "parallel_for: body must accept (index) or (begin, end)");
  if constexpr (k_body_ok) detail::for_loop(first, last, body, s);
}

/// Calls body(*it) for every iterator in [first, last).
template <std::random_access_iterator It, class Body>
void parallel_for_each(It first, It last, Body&& body, schedule s = schedule::auto_()) {
  constexpr bool k_body_ok = std::invocable<Body&, std::iter_reference_t<It>>;
  static_assert(k_body_ok, "parallel_for_each: body must accept an element (*it)");
  if constexpr (k_body_ok) {
    using diff = std::iter_difference_t<It>;
    const diff n = last - first;
    detail::for_loop(
        diff{0}, n < 0 ? diff{0} : n,
        [&](diff b, diff e) {
          for (It it = first + b, end = first + e; it != end; ++it) std::invoke(body, *it);
        },
        s);
  }
}

}  // namespace forkjoin
