// gomp/task.cpp: libgomp's task entry points (task, taskloop, taskwait, taskyield,
// taskgroup), each a call into the core's tasks (core/task.cpp, [P-OMP Task]).
#include <cstdint>

#include "../abi/export.hpp"
#include "../core/task.hpp"
#include "../core/team.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

// flags: 1 untied, 2 final, 4 mergeable, 8 depend, 0x10 priority, 0x2000 detach
FORKJOIN_OMP_EXPORT void GOMP_task(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                                   bool if_clause, unsigned flags, void** depend, int priority, void* detach) {
  (void)priority;  // a hint; every task is scheduled alike
  task_create(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach);
}

FORKJOIN_OMP_EXPORT void GOMP_taskloop(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                                       unsigned flags, unsigned long num_tasks, int priority, long start, long end,
                                       long step) {
  (void)priority;
  taskloop_long(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, start, end, step);
}

FORKJOIN_OMP_EXPORT void GOMP_taskloop_ull(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size,
                                           long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                                           ull start, ull end, ull step) {
  (void)priority;
  taskloop_ull(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, start, end, step);
}

FORKJOIN_OMP_EXPORT void GOMP_taskwait() { taskwait(self()); }
FORKJOIN_OMP_EXPORT void GOMP_taskwait_depend(void** depend) { taskwait_depend(depend); }
FORKJOIN_OMP_EXPORT void GOMP_taskyield() {}

FORKJOIN_OMP_EXPORT void GOMP_taskgroup_start() { taskgroup_start(self()); }
FORKJOIN_OMP_EXPORT void GOMP_taskgroup_end() { taskgroup_end(self()); }
