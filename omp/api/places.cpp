// api/places.cpp: the omp_* place queries (OMP_PLACES and the binding of the current team:
// core/places.cpp, [P-OMP Bind]).
#include "../core/places.hpp"
#include "../abi/export.hpp"
#include "../core/team.hpp"
#include "api.hpp"

using namespace forkjoin::omp;

FORKJOIN_OMP_EXPORT int omp_get_num_places() { return num_places(); }
FORKJOIN_OMP_EXPORT int omp_get_place_num_procs(int place) { return place_num_procs(place); }
FORKJOIN_OMP_EXPORT void omp_get_place_proc_ids(int place, int* ids) { place_proc_ids(place, ids); }
FORKJOIN_OMP_EXPORT int omp_get_place_num() { return current_place(); }
FORKJOIN_OMP_EXPORT int omp_get_partition_num_places() {
  thread_state& ts = self();
  int lo = 0, len = 0;
  partition_of(*ts.cur_team, ts.id, lo, len);
  return len;
}
FORKJOIN_OMP_EXPORT void omp_get_partition_place_nums(int* nums) {
  thread_state& ts = self();
  int lo = 0, len = 0;
  partition_of(*ts.cur_team, ts.id, lo, len);
  for (int k = 0; k < len; ++k) nums[k] = lo + k;
}
