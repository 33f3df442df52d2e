// gomp/cancel.cpp: libgomp's cancellation entry points, calls into core/cancel.cpp
// ([P-OMP Cancel]).
#include "../abi/export.hpp"
#include "../core/task.hpp"
#include "../core/team.hpp"
#include "../core/work_share.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

FORKJOIN_OMP_EXPORT bool GOMP_cancellation_point(int which) { return cancellation_point(which); }
FORKJOIN_OMP_EXPORT bool GOMP_cancel(int which, bool do_cancel) { return cancel(which, do_cancel); }
FORKJOIN_OMP_EXPORT bool GOMP_barrier_cancel() { return cancel_barrier(self()); }
