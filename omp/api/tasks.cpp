// api/tasks.cpp: the omp_* routine of tasks: fulfilling a detached task's event
// (core/detach.cpp, [P-OMP Detach]).
#include "../abi/export.hpp"
#include "../core/task.hpp"
#include "api.hpp"

FORKJOIN_OMP_EXPORT void omp_fulfill_event(void* event) { forkjoin::omp::fulfill_event(event); }
