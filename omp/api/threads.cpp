// api/threads.cpp: the omp_* routines of threads, levels, schedules and time. ICVs live in
// the current task ([P-OMP ICV]); teams answer the level queries.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../abi/export.hpp"
#include "../core/internal.hpp"
#include "api.hpp"

using namespace forkjoin::omp;

FORKJOIN_OMP_EXPORT int omp_get_thread_num() { return static_cast<int>(self().id); }
FORKJOIN_OMP_EXPORT int omp_get_num_threads() { return static_cast<int>(self().cur_team->nthreads); }
FORKJOIN_OMP_EXPORT int omp_get_max_threads() { return static_cast<int>(self().cur_task->icvs.nthreads); }
FORKJOIN_OMP_EXPORT void omp_set_num_threads(int n) {
  if (n > 0) self().cur_task->icvs.nthreads = static_cast<unsigned>(n);
}
FORKJOIN_OMP_EXPORT int omp_get_num_procs() { return static_cast<int>(config().num_procs); }
FORKJOIN_OMP_EXPORT int omp_in_parallel() { return self().cur_team->active_level > 0 ? 1 : 0; }
FORKJOIN_OMP_EXPORT void omp_set_dynamic(int v) { self().cur_task->icvs.dyn = v != 0; }
FORKJOIN_OMP_EXPORT int omp_get_dynamic() { return self().cur_task->icvs.dyn ? 1 : 0; }
FORKJOIN_OMP_EXPORT void omp_set_nested(int v) { self().cur_task->icvs.max_active_levels = v != 0 ? k_max_levels : 1; }
FORKJOIN_OMP_EXPORT int omp_get_nested() { return self().cur_task->icvs.max_active_levels > 1 ? 1 : 0; }

FORKJOIN_OMP_EXPORT double omp_get_wtime() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
FORKJOIN_OMP_EXPORT double omp_get_wtick() {
  timespec t;
  clock_getres(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// omp_sched_t: static 1, dynamic 2, guided 3, auto 4 (libomp's trapezoidal 101), | omp_sched_monotonic (0x80000000)
FORKJOIN_OMP_EXPORT void omp_set_schedule(int kind, int chunk) {
  icv& v = self().cur_task->icvs;
  unsigned k = static_cast<unsigned>(kind) & ~k_sched_monotonic;
  const bool trapezoidal = k == k_sched_trapezoidal;  // [P-OMP KMP] libomp's kind: run as guided
  if (trapezoidal) k = k_sched_guided;
  if (k < k_sched_static || k > k_sched_auto) return;
  v.run_trapezoidal = trapezoidal;
  v.run_sched = static_cast<int>(k);
  v.run_monotonic = (static_cast<unsigned>(kind) & k_sched_monotonic) != 0;
  v.run_chunk = chunk >= 1 ? chunk : (k == k_sched_static ? 0 : 1);
}
FORKJOIN_OMP_EXPORT void omp_get_schedule(int* kind, int* chunk) {
  const icv& v = self().cur_task->icvs;
  const int k = v.run_trapezoidal ? k_sched_trapezoidal : v.run_sched;
  *kind = static_cast<int>(static_cast<unsigned>(k) | (v.run_monotonic ? k_sched_monotonic : 0u));
  *chunk = static_cast<int>(v.run_chunk);
}

unsigned forkjoin::omp::thread_limit_of(const icv& v) noexcept {
  const unsigned clause = v.thread_limit;  // a teams or target thread_limit clause
  if (clause != 0 && (config().thread_limit == 0 || clause < config().thread_limit)) return clause;
  return config().thread_limit;
}

FORKJOIN_OMP_EXPORT int omp_get_thread_limit() {
  const unsigned limit = thread_limit_of(self().cur_task->icvs);
  return limit != 0 ? static_cast<int>(limit) : 0x7fffffff;
}
FORKJOIN_OMP_EXPORT void omp_set_max_active_levels(int n) {
  if (n >= 0)
    self().cur_task->icvs.max_active_levels =
        static_cast<unsigned>(n) > k_max_levels ? k_max_levels : static_cast<unsigned>(n);
}
FORKJOIN_OMP_EXPORT int omp_get_max_active_levels() {
  return static_cast<int>(self().cur_task->icvs.max_active_levels);
}
FORKJOIN_OMP_EXPORT int omp_get_supported_active_levels() { return static_cast<int>(k_max_levels); }
FORKJOIN_OMP_EXPORT int omp_get_level() { return static_cast<int>(self().cur_team->level); }
FORKJOIN_OMP_EXPORT int omp_get_active_level() { return static_cast<int>(self().cur_team->active_level); }
FORKJOIN_OMP_EXPORT int omp_get_ancestor_thread_num(int level) { return ancestor_thread_num(self(), level); }
FORKJOIN_OMP_EXPORT int omp_get_team_size(int level) {
  const team* t = team_at_level(self(), level, nullptr);
  return t != nullptr ? static_cast<int>(t->nthreads) : -1;
}
FORKJOIN_OMP_EXPORT int omp_in_final() { return self().cur_task->final_task ? 1 : 0; }
FORKJOIN_OMP_EXPORT int omp_get_cancellation() { return config().cancellation ? 1 : 0; }
FORKJOIN_OMP_EXPORT int omp_get_proc_bind() { return static_cast<int>(self().cur_task->icvs.bind); }
FORKJOIN_OMP_EXPORT int omp_get_max_task_priority() { return config().max_task_priority; }
