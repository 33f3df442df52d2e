// combined.cpp: the combined parallel constructs, a region that starts with its first work
// share already set up (parallel loop, parallel sections: [P-OMP WS]) or with a taskgroup
// every implicit task starts in (parallel reduction(task, ...): [P-OMP Reduce R4]).
#include "internal.hpp"

namespace forkjoin::omp {
namespace {

struct loop_args {
  long start, end, incr, chunk;
  int kind;
  bool runtime;
};

void init_loop_arg(team& t, work_share& w, const void* arg) {
  const auto& a = *static_cast<const loop_args*>(arg);
  int kind = a.kind & ~k_sched_any_order;
  long chunk = a.chunk;
  if (a.runtime) {  // run-sched-var of the implicit tasks, inherited from the encountering task
    kind = t.icvs.run_sched;
    chunk = t.icvs.run_chunk;
  }
  init_loop_ws(t, w, false, true, static_cast<std::uint64_t>(a.start), static_cast<std::uint64_t>(a.end),
               static_cast<std::uint64_t>(a.incr), static_cast<std::uint64_t>(chunk), kind);
  if ((a.kind & k_sched_any_order) != 0 && !a.runtime) allow_any_order(w, t.nthreads);  // [P-LOOP Steal]
}

void init_sections_arg(team& t, work_share& w, const void* arg) {
  init_sections_ws(t, w, *static_cast<const unsigned*>(arg));
}

}  // namespace

void begin_parallel_loop(thread_state& ts, fn_t fn, void* data, unsigned n, long start, long end, long incr, long chunk,
                         int kind, bool runtime, unsigned flags) {
  loop_args a{start, end, incr, chunk, kind, runtime};
  begin_region(ts, fn, data, n, flags, &init_loop_arg, &a);
}

void begin_parallel_sections(thread_state& ts, fn_t fn, void* data, unsigned n, unsigned count, unsigned flags) {
  begin_region(ts, fn, data, n, flags, &init_sections_arg, &count);
}

// [P-OMP Reduce R4] data starts with the descriptor list; the copies are registered for the
// team's size, and one taskgroup that every implicit task starts in holds them.
void parallel_with_reductions(thread_state& ts, fn_t fn, void* data, unsigned n, unsigned flags) {
  auto* group = new taskgroup;
  group->pending.owner = &ts;  // counts the region's tasks; the region's end waits for them instead
  register_reductions(*static_cast<std::uintptr_t**>(data), nullptr, n);
  group->reductions = *static_cast<std::uintptr_t**>(data);
  begin_region(ts, fn, data, n, flags, nullptr, nullptr, group);
  fn(data);
  end_region(ts);
  delete group;
}

}  // namespace forkjoin::omp
