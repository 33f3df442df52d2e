// parallel_reduce.hpp: parallel_reduce with OpenMP-style schedules, and
// parallel_deterministic_reduce, whose split tree depends only on the range and the grain.
#pragma once

#include <algorithm>
#include <concepts>
#include <functional>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/join.hpp"
#include "forkjoin/parallel_for.hpp"

namespace forkjoin {
namespace detail {
// The chunk function of both reduces: the body's chunk form, or its element form folded
// left to right with combine.
template <class T, class Space, class Body, class Combine>
auto reduce_chunk(const Space& space, Body& body, Combine& combine) {
  using index = typename Space::index;
  using offset = typename Space::offset;
  return [&space, &body, &combine](offset lo, offset hi, T acc) -> T {
    if constexpr (std::invocable<Body&, index, index, T>) {
      (void)combine;  // the chunk form folds by itself
      return std::invoke(body, space.at(lo), space.at(hi), std::move(acc));
    } else {
      const index end = space.at(hi);
      for (index i = space.at(lo); i != end; ++i) acc = std::invoke(combine, std::move(acc), std::invoke(body, i));
      return acc;
    }
  };
}

// The identity starts every chunk, so it is folded in once per chunk, and the answer is
// independent of the schedule only if extra copies change nothing: combine(e, e) == e. For
// arithmetic T that is checked under + and ^ (e must be 0) and * (0 or 1), which catches
// OpenMP's reduction(+ : sum) with sum's start value passed as the identity. Compared, not
// computed (e + e could overflow); std::equal_to keeps -Wfloat-equal quiet in user code; a
// NaN is left alone.
template <class C>
inline constexpr int k_identity_rule = 0;  // 0: not checked, 1: must be 0, 2: must be 0 or 1
template <class U>
inline constexpr int k_identity_rule<std::plus<U>> = 1;
template <class U>
inline constexpr int k_identity_rule<std::bit_xor<U>> = 1;
template <class U>
inline constexpr int k_identity_rule<std::multiplies<U>> = 2;

template <class T, class Combine>
void check_identity(const char* where, const T& identity) {
  constexpr int rule = k_identity_rule<std::remove_cvref_t<Combine>>;
  if constexpr (std::is_arithmetic_v<T> && rule != 0) {
    const std::equal_to<> eq;
    if (!eq(identity, T{0}) && !(rule == 2 && eq(identity, T{1})) && eq(identity, identity))
      bad_argument(where, "identity", identity,
                   "not the identity of combine (0 for + and ^, 1 for *). It starts every chunk, so the answer "
                   "would depend on the schedule: pass the identity and combine a start value with the result");
  }
}

// What is wrong with a reduce's body and combine, if anything: each misuse is one
// static_assert in check_reduce, and the reduce is instantiated only when there is none.
enum class reduce_misuse { none, body_arity, chunk_without_acc, chunk_result, combine_args, combine_result };

template <class T, class Body, class Combine, class Index>
constexpr reduce_misuse diagnose_reduce() {
  constexpr bool chunk_form = std::invocable<Body&, Index, Index, T>;
  if constexpr (!chunk_form && !std::invocable<Body&, Index>) {
    return std::invocable<Body&, Index, Index> ? reduce_misuse::chunk_without_acc : reduce_misuse::body_arity;
  } else {
    if constexpr (chunk_form) {
      if (!std::convertible_to<std::invoke_result_t<Body&, Index, Index, T>, T>) return reduce_misuse::chunk_result;
    } else {
      using element = std::invoke_result_t<Body&, Index>;
      if constexpr (!std::invocable<Combine&, T, element>)
        return reduce_misuse::combine_args;
      else if (!std::convertible_to<std::invoke_result_t<Combine&, T, element>, T>)
        return reduce_misuse::combine_result;
    }
    if constexpr (!std::invocable<Combine&, T, T>)
      return reduce_misuse::combine_args;
    else if (!std::convertible_to<std::invoke_result_t<Combine&, T, T>, T>)
      return reduce_misuse::combine_result;
    return reduce_misuse::none;
  }
}

template <reduce_misuse M>
constexpr bool check_reduce() {
  static_assert(M != reduce_misuse::body_arity,
                "parallel_reduce: body must accept (index) and return a value, or (begin, end, T acc) and return acc "
                "combined with the chunk");
  static_assert(M != reduce_misuse::chunk_without_acc,
                "parallel_reduce: a chunk body takes the accumulator too: body(begin, end, T acc) returns acc "
                "combined with the chunk's elements");
  static_assert(M != reduce_misuse::chunk_result,
                "parallel_reduce: body(begin, end, acc) must return the reduction type T");
  static_assert(M != reduce_misuse::combine_args,
                "parallel_reduce: combine must accept two arguments, (T, T) and (T, body(i)) for an element body");
  static_assert(M != reduce_misuse::combine_result, "parallel_reduce: combine(T, T) must return the reduction type T");
  return M == reduce_misuse::none;
}
}  // namespace detail

/// Reduces [first, last): body(i) -> T combined in index order, or body(begin, end, acc)
/// -> T for a chunk (lets the inner loop vectorise). combine must be associative; it need
/// not be commutative: partial results are always combined left to right. identity is the
/// value combine leaves unchanged (0 for +, 1 for *), not a start value: it starts every
/// chunk (OpenMP's reduction(+ : s) with s = 100 is 100 + parallel_reduce(..., 0L, ...)).
/// For arithmetic T, an identity other than 0 under std::plus or std::bit_xor, or other
/// than 0 or 1 under std::multiplies, throws std::invalid_argument naming it. An empty
/// range returns identity. Exceptions from body or combine are rethrown once; no partial
/// result escapes.
template <detail::loop_index I1, detail::loop_index I2, class T, class Body, class Combine>
T parallel_reduce(I1 first, I2 last, T identity, Body&& body, Combine&& combine, schedule s = schedule::auto_()) {
  using index = std::common_type_t<I1, I2>;
  if constexpr (!detail::check_reduce<detail::diagnose_reduce<T, Body, Combine, index>()>()) {
    return identity;  // not reached: check_reduce stopped the compilation
  } else {
    detail::index_space<I1, I2> space(first, last);
    detail::check_identity<T, Combine>("parallel_reduce", identity);
    auto chunk = detail::reduce_chunk<T>(space, body, combine);
    auto join_results = [&](T a, T b) -> T { return std::invoke(combine, std::move(a), std::move(b)); };
    return detail::run_loop(space.size, identity, chunk, join_results, s);
  }
}

namespace detail {
template <class Offset, class T, class Chunk, class Combine>
T deterministic_tree(Offset lo, Offset hi, Offset grain, const T& identity, Chunk& chunk, Combine& combine) {
  if (hi - lo <= grain) return chunk(lo, hi, T(identity));
  const Offset mid = lo + (hi - lo) / 2;
  auto [a, b] = join([&] { return deterministic_tree(lo, mid, grain, identity, chunk, combine); },
                     [&] { return deterministic_tree(mid, hi, grain, identity, chunk, combine); });
  return std::invoke(combine, std::move(a), std::move(b));
}
}  // namespace detail

/// Like parallel_reduce, but bitwise-identical on every run and every thread count: the
/// range is halved until pieces hold at most `grain` iterations (0: 1024), each piece
/// starts from identity (checked as for parallel_reduce), and pieces combine in a fixed tree.
template <detail::loop_index I1, detail::loop_index I2, class T, class Body, class Combine>
T parallel_deterministic_reduce(I1 first, I2 last, T identity, Body&& body, Combine&& combine, std::size_t grain = 0) {
  using index = std::common_type_t<I1, I2>;
  if constexpr (!detail::check_reduce<detail::diagnose_reduce<T, Body, Combine, index>()>()) {
    return identity;  // not reached: check_reduce stopped the compilation
  } else {
    detail::index_space<I1, I2> space(first, last);
    using offset = typename decltype(space)::offset;
    detail::check_identity<T, Combine>("parallel_deterministic_reduce", identity);
    if (space.size == 0) return identity;
    const offset g = static_cast<offset>(std::clamp<std::size_t>(grain == 0 ? 1024 : grain, 1, space.size));
    auto chunk = detail::reduce_chunk<T>(space, body, combine);
    auto run = [&] { return detail::deterministic_tree(offset{0}, space.size, g, identity, chunk, combine); };
    if (detail::tls_worker == nullptr) return default_pool().run(run);
    return run();
  }
}

}  // namespace forkjoin
