// parallel.cpp: GOMP_parallel and its combined (loop, sections) and legacy (gcc < 4.9
// _start/_end) forms. The team machinery is in team.cpp ([P-OMP Team]).
#include "../abi/export.hpp"
#include "../core/team.hpp"

using namespace forkjoin::omp;

namespace {
// The combined loop forms; a legacy (_start) one returns after starting the team: the caller
// runs fn and calls GOMP_parallel_end.
void parallel_loop(fn_t fn, void* data, unsigned nthr, long start, long end, long incr, long chunk, int kind,
                   bool runtime, unsigned flags, bool legacy) {
  thread_state& ts = self();
  begin_parallel_loop(ts, fn, data, resolve_num_threads(ts, nthr), start, end, incr, chunk, kind, runtime, flags);
  if (legacy) return;
  fn(data);
  end_region(ts);
}
}  // namespace

FORKJOIN_OMP_EXPORT void GOMP_parallel(fn_t fn, void* data, unsigned num_threads, unsigned flags) {
  thread_state& ts = self();
  begin_region(ts, fn, data, resolve_num_threads(ts, num_threads), flags);
  fn(data);
  end_region(ts);
}

FORKJOIN_OMP_EXPORT void GOMP_parallel_start(fn_t fn, void* data, unsigned num_threads) {
  thread_state& ts = self();
  begin_region(ts, fn, data, resolve_num_threads(ts, num_threads), 0);
}

FORKJOIN_OMP_EXPORT void GOMP_parallel_end() { end_region(self()); }

#define FJ_PARALLEL_LOOP(name, kind)                                                                             \
  FORKJOIN_OMP_EXPORT void name(fn_t fn, void* data, unsigned nthr, long start, long end, long incr, long chunk, \
                                unsigned flags) {                                                                \
    parallel_loop(fn, data, nthr, start, end, incr, chunk, kind, false, flags, false);                           \
  }
#define FJ_PARALLEL_LOOP_RUNTIME(name)                                                                                 \
  FORKJOIN_OMP_EXPORT void name(fn_t fn, void* data, unsigned nthr, long start, long end, long incr, unsigned flags) { \
    parallel_loop(fn, data, nthr, start, end, incr, 0, k_sched_static, true, flags, false);                            \
  }
#define FJ_PARALLEL_LOOP_LEGACY(name, kind)                                                                        \
  FORKJOIN_OMP_EXPORT void name(fn_t fn, void* data, unsigned nthr, long start, long end, long incr, long chunk) { \
    parallel_loop(fn, data, nthr, start, end, incr, chunk, kind, false, 0, true);                                  \
  }

FJ_PARALLEL_LOOP(GOMP_parallel_loop_static, k_sched_static)
FJ_PARALLEL_LOOP(GOMP_parallel_loop_dynamic, k_sched_dynamic)
FJ_PARALLEL_LOOP(GOMP_parallel_loop_guided, k_sched_guided)
FJ_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, k_sched_dynamic | k_sched_any_order)
FJ_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, k_sched_guided)
FJ_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
FJ_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
FJ_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
FJ_PARALLEL_LOOP_LEGACY(GOMP_parallel_loop_static_start, k_sched_static)
FJ_PARALLEL_LOOP_LEGACY(GOMP_parallel_loop_dynamic_start, k_sched_dynamic)
FJ_PARALLEL_LOOP_LEGACY(GOMP_parallel_loop_guided_start, k_sched_guided)

FORKJOIN_OMP_EXPORT void GOMP_parallel_loop_runtime_start(fn_t fn, void* data, unsigned nthr, long start, long end,
                                                          long incr) {
  parallel_loop(fn, data, nthr, start, end, incr, 0, k_sched_static, true, 0, true);
}

FORKJOIN_OMP_EXPORT void GOMP_parallel_sections(fn_t fn, void* data, unsigned nthr, unsigned count, unsigned flags) {
  thread_state& ts = self();
  begin_parallel_sections(ts, fn, data, resolve_num_threads(ts, nthr), count, flags);
  fn(data);
  end_region(ts);
}

FORKJOIN_OMP_EXPORT void GOMP_parallel_sections_start(fn_t fn, void* data, unsigned nthr, unsigned count) {
  thread_state& ts = self();
  begin_parallel_sections(ts, fn, data, resolve_num_threads(ts, nthr), count, 0);
}

// [P-OMP Reduce R4] parallel reduction(task, ...); returns the team's size: the compiler
// combines that many copies.
FORKJOIN_OMP_EXPORT unsigned GOMP_parallel_reductions(fn_t fn, void* data, unsigned num_threads, unsigned flags) {
  thread_state& ts = self();
  const unsigned n = resolve_num_threads(ts, num_threads);
  parallel_with_reductions(ts, fn, data, n, flags);
  return n;
}
