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
// duplicate.cpp ([P-OMP Load D2]): reports, once per process, a native OpenMP or oneTBB
// runtime mapped beside this library (and stops the process under FORKJOIN_STRICT)
void check_duplicate_runtimes() noexcept;

// [P-OMP KMPC K15] a libomp program: set by the first libomp-ABI entry that picks a convention
// (a region's fork, the schedule and affinity-format routines under VERSION); gcc programs
// never set it. Relaxed: it only selects conventions, never publishes data.
extern std::atomic<bool> g_kmpc_program;
inline bool kmpc_program() noexcept { return g_kmpc_program.load(std::memory_order_relaxed); }
void mark_kmpc_program() noexcept;  // env.cpp: also reads OMP_SCHEDULE now, as libomp would

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
