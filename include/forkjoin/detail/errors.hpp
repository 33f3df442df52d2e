// errors.hpp: the argument checks of the public API (thread counts, chunks, loop bounds,
// reduction identities).
// The throw itself is compiled (forkjoin/errors.cpp), so these headers need no <string>; its
// message names the value as the caller wrote it: a negative int stays -5, and a size_t that
// a negative number wrapped to is shown with the number it came from.
#pragma once

#include <concepts>
#include <limits>
#include <type_traits>

namespace forkjoin::detail {

// True for a negative value, and for an unsigned one above its signed type's maximum (a
// negative number converted to unsigned: no thread count or chunk is that large).
template <std::integral I>
constexpr bool negative_or_wrapped(I v) noexcept {
  if constexpr (std::is_signed_v<I>)
    return v < 0;
  else
    return v > static_cast<I>(std::numeric_limits<std::make_signed_t<I>>::max());
}

// Throw std::invalid_argument("forkjoin: <where>: <name> = <value>: <rule>").
[[noreturn]] void throw_bad_argument(const char* where, const char* name, long long value, const char* rule);
[[noreturn]] void throw_bad_argument(const char* where, const char* name, unsigned long long value, const char* rule);
[[noreturn]] void throw_bad_argument(const char* where, const char* name, long double value, const char* rule);

// Not constexpr on purpose: reached during constant evaluation (a constexpr schedule with
// a negative literal), it makes the call a compile error that names it.
template <class V>
requires std::is_arithmetic_v<V>
[[noreturn]] void bad_argument(const char* where, const char* name, V value, const char* rule) {
  if constexpr (std::is_floating_point_v<V>)
    throw_bad_argument(where, name, static_cast<long double>(value), rule);
  else if constexpr (std::is_signed_v<V>)
    throw_bad_argument(where, name, static_cast<long long>(value), rule);
  else
    throw_bad_argument(where, name, static_cast<unsigned long long>(value), rule);
}

}  // namespace forkjoin::detail
