// gomp/sync.cpp: libgomp's barrier, single, copyprivate, sections, critical and atomic entry
// points, calls into core/sync.cpp and core/team.cpp.
#include "../abi/export.hpp"
#include "../core/lock.hpp"
#include "../core/team.hpp"
#include "../core/work_share.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

FORKJOIN_OMP_EXPORT void* GOMP_single_copy_start() { return single_copy_start(); }
FORKJOIN_OMP_EXPORT void GOMP_single_copy_end(void* data) { single_copy_end(data); }
FORKJOIN_OMP_EXPORT unsigned GOMP_sections_start(unsigned count) { return sections_start(count); }
FORKJOIN_OMP_EXPORT unsigned GOMP_sections2_start(unsigned count, std::uintptr_t* reductions, void** mem) {
  return sections2_start(count, reductions, mem);
}
FORKJOIN_OMP_EXPORT void GOMP_barrier() { barrier(self()); }
FORKJOIN_OMP_EXPORT bool GOMP_single_start() { return single_start(self()); }
FORKJOIN_OMP_EXPORT unsigned GOMP_sections_next() { return sections_next(self()); }
FORKJOIN_OMP_EXPORT void GOMP_sections_end() {
  thread_state& ts = self();
  ws_leave(ts);
  barrier(ts);
}
FORKJOIN_OMP_EXPORT void GOMP_sections_end_nowait() { ws_leave(self()); }
FORKJOIN_OMP_EXPORT bool GOMP_sections_end_cancel() {
  thread_state& ts = self();
  ws_leave(ts);
  return cancel_barrier(ts);  // [P-OMP Cancel K4]
}
// pptr points to an 8-byte, zero-initialised common symbol (.gomp_critical_user_<name>)
// shared by every object of the process; its first 4 bytes serve as the futex mutex.
FORKJOIN_OMP_EXPORT void GOMP_critical_name_start(void** pptr) { mutex_lock(reinterpret_cast<std::uint32_t*>(pptr)); }
FORKJOIN_OMP_EXPORT void GOMP_critical_name_end(void** pptr) { mutex_unlock(reinterpret_cast<std::uint32_t*>(pptr)); }
FORKJOIN_OMP_EXPORT void GOMP_critical_start() { critical_start(); }
FORKJOIN_OMP_EXPORT void GOMP_critical_end() { critical_end(); }
FORKJOIN_OMP_EXPORT void GOMP_atomic_start() { atomic_start(); }
FORKJOIN_OMP_EXPORT void GOMP_atomic_end() { atomic_end(); }
