// gomp/loop.cpp: libgomp's worksharing-loop entry points, long and unsigned long long, every
// schedule, ordered, doacross, and the generic GOMP_loop_start: each a call into the core's
// work shares (core/loop.cpp, [P-OMP WS]).
#include <cstdint>

#include "../abi/export.hpp"
#include "../core/team.hpp"
#include "../core/work_share.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

// ---- long loops --------------------------------------------------------------------------

#define FJ_LONG_START(name, kind, ordered)                                                               \
  FORKJOIN_OMP_EXPORT bool name(long start, long end, long incr, long chunk, long* istart, long* iend) { \
    return loop_start<long>(true, start, end, incr, chunk, kind, ordered, false, istart, iend);          \
  }
#define FJ_LONG_RUNTIME_START(name, ordered)                                                         \
  FORKJOIN_OMP_EXPORT bool name(long start, long end, long incr, long* istart, long* iend) {         \
    return loop_start<long>(true, start, end, incr, 0, k_sched_static, ordered, true, istart, iend); \
  }
#define FJ_LONG_NEXT(name) \
  FORKJOIN_OMP_EXPORT bool name(long* istart, long* iend) { return loop_next_as(self(), istart, iend); }

FORKJOIN_OMP_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long* istart,
                                         long* iend, std::uintptr_t* reductions, void** mem) {
  return loop_start_sched<long>(true, start, end, incr, sched, chunk, istart, iend, false, {reductions, mem});
}
FORKJOIN_OMP_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk, long* istart,
                                                 long* iend, std::uintptr_t* reductions, void** mem) {
  return loop_start_sched<long>(true, start, end, incr, sched, chunk, istart, iend, true, {reductions, mem});
}

// ---- unsigned long long loops ------------------------------------------------------------

#define FJ_ULL_START(name, kind, ordered)                                                                   \
  FORKJOIN_OMP_EXPORT bool name(bool up, ull start, ull end, ull incr, ull chunk, ull* istart, ull* iend) { \
    return loop_start<ull>(up, start, end, incr, chunk, kind, ordered, false, istart, iend);                \
  }
#define FJ_ULL_RUNTIME_START(name, ordered)                                                       \
  FORKJOIN_OMP_EXPORT bool name(bool up, ull start, ull end, ull incr, ull* istart, ull* iend) {  \
    return loop_start<ull>(up, start, end, incr, 0, k_sched_static, ordered, true, istart, iend); \
  }
#define FJ_ULL_NEXT(name) \
  FORKJOIN_OMP_EXPORT bool name(ull* istart, ull* iend) { return loop_next_as(self(), istart, iend); }

FORKJOIN_OMP_EXPORT bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk, ull* istart,
                                             ull* iend, std::uintptr_t* reductions, void** mem) {
  return loop_start_sched<ull>(up, start, end, incr, sched, chunk, istart, iend, false, {reductions, mem});
}
FORKJOIN_OMP_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                                     ull* istart, ull* iend, std::uintptr_t* reductions, void** mem) {
  return loop_start_sched<ull>(up, start, end, incr, sched, chunk, istart, iend, true, {reductions, mem});
}

// Both index types of every schedule entry point: GOMP_loop_<x> and GOMP_loop_ull_<x>.
#define FJ_BOTH_START(x, kind, ordered) \
  FJ_LONG_START(GOMP_loop_##x##_start, kind, ordered) FJ_ULL_START(GOMP_loop_ull_##x##_start, kind, ordered)
#define FJ_BOTH_RUNTIME_START(x, ordered) \
  FJ_LONG_RUNTIME_START(GOMP_loop_##x##_start, ordered) FJ_ULL_RUNTIME_START(GOMP_loop_ull_##x##_start, ordered)
#define FJ_BOTH_NEXT(x) FJ_LONG_NEXT(GOMP_loop_##x##_next) FJ_ULL_NEXT(GOMP_loop_ull_##x##_next)

FJ_BOTH_START(static, k_sched_static, false)
FJ_BOTH_START(dynamic, k_sched_dynamic, false)
FJ_BOTH_START(guided, k_sched_guided, false)
FJ_BOTH_START(nonmonotonic_dynamic, k_sched_dynamic | k_sched_any_order, false)
FJ_BOTH_START(nonmonotonic_guided, k_sched_guided, false)
FJ_BOTH_START(ordered_static, k_sched_static, true)
FJ_BOTH_START(ordered_dynamic, k_sched_dynamic, true)
FJ_BOTH_START(ordered_guided, k_sched_guided, true)
FJ_BOTH_RUNTIME_START(runtime, false)
FJ_BOTH_RUNTIME_START(nonmonotonic_runtime, false)
FJ_BOTH_RUNTIME_START(maybe_nonmonotonic_runtime, false)
FJ_BOTH_RUNTIME_START(ordered_runtime, true)
FJ_BOTH_NEXT(static)
FJ_BOTH_NEXT(dynamic)
FJ_BOTH_NEXT(guided)
FJ_BOTH_NEXT(runtime)
FJ_BOTH_NEXT(nonmonotonic_dynamic)
FJ_BOTH_NEXT(nonmonotonic_guided)
FJ_BOTH_NEXT(nonmonotonic_runtime)
FJ_BOTH_NEXT(maybe_nonmonotonic_runtime)
FJ_BOTH_NEXT(ordered_static)
FJ_BOTH_NEXT(ordered_dynamic)
FJ_BOTH_NEXT(ordered_guided)
FJ_BOTH_NEXT(ordered_runtime)

// ---- doacross loops ([P-OMP Doacross]) --------------------------------------------------

// GOMP_loop_start's schedule numbers: 1 static, 2 dynamic, 3 guided, 0 runtime
#define FJ_DOACROSS(x, sched)                                                                                        \
  FORKJOIN_OMP_EXPORT bool GOMP_loop_doacross_##x##_start(unsigned ncounts, long* counts, long chunk, long* istart,  \
                                                          long* iend) {                                              \
    return doacross_loop_start<long>(ncounts, counts, sched, chunk, istart, iend, nullptr, nullptr);                 \
  }                                                                                                                  \
  FORKJOIN_OMP_EXPORT bool GOMP_loop_ull_doacross_##x##_start(unsigned ncounts, ull* counts, ull chunk, ull* istart, \
                                                              ull* iend) {                                           \
    return doacross_loop_start<ull>(ncounts, counts, sched, chunk, istart, iend, nullptr, nullptr);                  \
  }
FJ_DOACROSS(static, 1)
FJ_DOACROSS(dynamic, 2)
FJ_DOACROSS(guided, 3)

FORKJOIN_OMP_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long* counts, long* istart, long* iend) {
  return doacross_loop_start<long>(ncounts, counts, 0, 0, istart, iend, nullptr, nullptr);
}
FORKJOIN_OMP_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ull* counts, ull* istart, ull* iend) {
  return doacross_loop_start<ull>(ncounts, counts, 0, 0, istart, iend, nullptr, nullptr);
}
FORKJOIN_OMP_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long* counts, long sched, long chunk, long* istart,
                                                  long* iend, std::uintptr_t* reductions, void** mem) {
  return doacross_loop_start<long>(ncounts, counts, sched, chunk, istart, iend, reductions, mem);
}
FORKJOIN_OMP_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, ull* counts, long sched, ull chunk, ull* istart,
                                                      ull* iend, std::uintptr_t* reductions, void** mem) {
  return doacross_loop_start<ull>(ncounts, counts, sched, chunk, istart, iend, reductions, mem);
}

// ---- end of a loop, ordered --------------------------------------------------------------

FORKJOIN_OMP_EXPORT void GOMP_loop_end() {
  thread_state& ts = self();
  end_loop(ts);
  barrier(ts);
}
FORKJOIN_OMP_EXPORT void GOMP_loop_end_nowait() { end_loop(self()); }
FORKJOIN_OMP_EXPORT bool GOMP_loop_end_cancel() {
  thread_state& ts = self();
  end_loop(ts);
  return cancel_barrier(ts);  // [P-OMP Cancel K4]
}

FORKJOIN_OMP_EXPORT void GOMP_ordered_start() { ordered_start(self()); }
FORKJOIN_OMP_EXPORT void GOMP_ordered_end() {}
