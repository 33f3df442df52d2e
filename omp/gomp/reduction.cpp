// gomp/reduction.cpp: libgomp's task-reduction entry points, calls into core/reduction.cpp
// ([P-OMP Reduce]).
#include "../abi/export.hpp"
#include "../core/task.hpp"
#include "../core/team.hpp"
#include "../core/work_share.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

FORKJOIN_OMP_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled) {
  workshare_task_reduction_unregister(cancelled);
}
FORKJOIN_OMP_EXPORT void GOMP_scope_start(std::uintptr_t* reductions) { scope_start(reductions); }
FORKJOIN_OMP_EXPORT void GOMP_taskgroup_reduction_register(std::uintptr_t* data) { taskgroup_reduction_register(data); }
FORKJOIN_OMP_EXPORT void GOMP_taskgroup_reduction_unregister(std::uintptr_t* data) {
  taskgroup_reduction_unregister(data);
}
FORKJOIN_OMP_EXPORT void GOMP_task_reduction_remap(std::size_t cnt, std::size_t cntorig, void** ptrs) {
  task_reduction_remap(cnt, cntorig, ptrs);
}
