// common.hpp: what every part of libforkjoin-omp's core uses: the body type of regions and
// tasks, the diagnostics that end the process, and the stores that spare a hot team's cache
// lines. Protocols: omp/DESIGN.md, one section per protocol, steps tagged P-OMP.
#pragma once

#include <atomic>

namespace forkjoin {
class pool;
}

namespace forkjoin::omp {

using fn_t = void (*)(void*);
using ull = unsigned long long;

// ---- diagnostics -------------------------------------------------------------------------

// Prints "forkjoin-omp: <construct> is not supported" and aborts: an unimplemented
// construct must stop, never run wrong.
[[noreturn]] void unsupported(const char* construct) noexcept;
// Prints "forkjoin-omp: <message>" and aborts.
[[noreturn]] void fatal(const char* message) noexcept;

// [P-OMP Hot H3] stores v unless x already holds it: a hot team's fields mostly keep their
// values from region to region, and a line that is not written stays valid in the members'
// caches.
template <class T, class V>
inline void set_if_changed(T& x, const V& v) noexcept {
  if (!(x == v)) x = v;
}
template <class T, class V>
inline void set_if_changed(std::atomic<T>& x, const V& v) noexcept {
  if (x.load(std::memory_order_relaxed) != static_cast<T>(v)) x.store(static_cast<T>(v), std::memory_order_relaxed);
}
}  // namespace forkjoin::omp
