// parallel.cpp: GOMP_parallel and its combined (loop, sections) and legacy (gcc < 4.9
// _start/_end) forms. The team machinery is in team.cpp ([P-OMP Team]).
#include "../core/internal.hpp"

namespace forkjoin::omp {
void init_loop_ws(team& t, work_share& w, bool is_ull, bool up, std::uint64_t start, std::uint64_t end,
                  std::uint64_t incr, std::uint64_t chunk, int kind);
void init_sections_ws(team& t, work_share& w, unsigned count);

namespace {
struct loop_args {
  long start, end, incr, chunk;
  int kind;
  bool runtime;
};

void init_loop_arg(team& t, work_share& w, const void* arg) {
  const auto& a = *static_cast<const loop_args*>(arg);
  int kind = a.kind;
  long chunk = a.chunk;
  if (a.runtime) {  // run-sched-var of the implicit tasks, inherited from the encountering task
    kind = t.icvs.run_sched;
    chunk = t.icvs.run_chunk;
  }
  init_loop_ws(t, w, false, true, static_cast<std::uint64_t>(a.start), static_cast<std::uint64_t>(a.end),
               static_cast<std::uint64_t>(a.incr), static_cast<std::uint64_t>(chunk), kind);
}

void init_sections_arg(team& t, work_share& w, const void* arg) {
  init_sections_ws(t, w, *static_cast<const unsigned*>(arg));
}

void parallel_loop(fn_t fn, void* data, unsigned nthr, long start, long end, long incr, long chunk, int kind,
                   bool runtime, unsigned flags, bool legacy) {
  thread_state& ts = self();
  unsigned n = resolve_num_threads(ts, nthr);
  loop_args a{start, end, incr, chunk, kind, runtime};
  begin_region(ts, fn, data, n, flags, &init_loop_arg, &a);
  if (legacy) return;  // the caller runs fn and calls GOMP_parallel_end
  fn(data);
  end_region(ts);
}
}  // namespace
}  // namespace forkjoin::omp

using namespace forkjoin::omp;

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
FJ_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, k_sched_dynamic)
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
  begin_region(ts, fn, data, resolve_num_threads(ts, nthr), flags, &init_sections_arg, &count);
  fn(data);
  end_region(ts);
}

FORKJOIN_OMP_EXPORT void GOMP_parallel_sections_start(fn_t fn, void* data, unsigned nthr, unsigned count) {
  thread_state& ts = self();
  begin_region(ts, fn, data, resolve_num_threads(ts, nthr), 0, &init_sections_arg, &count);
}

// [P-OMP Reduce R4] parallel reduction(task, ...): data starts with the descriptor list; the
// copies are registered for the team's size, and one taskgroup that every implicit task
// starts in holds them. Returns the team's size: the compiler combines that many copies.
FORKJOIN_OMP_EXPORT unsigned GOMP_parallel_reductions(fn_t fn, void* data, unsigned num_threads, unsigned flags) {
  thread_state& ts = self();
  const unsigned n = resolve_num_threads(ts, num_threads);
  auto* group = new taskgroup;
  group->pending.owner = &ts;  // counts the region's tasks; the region's end waits for them instead
  register_reductions(*static_cast<std::uintptr_t**>(data), nullptr, n);
  group->reductions = *static_cast<std::uintptr_t**>(data);
  begin_region(ts, fn, data, n, flags, nullptr, nullptr, group);
  fn(data);
  end_region(ts);
  delete group;
  return n;
}
