// api/places.cpp: the omp_* place queries (OMP_PLACES and the binding of the current team:
// core/places.cpp, [P-OMP Bind]).
#include "../core/places.hpp"
#include "../abi/export.hpp"
#include "../core/team.hpp"
#include "api.hpp"

using namespace forkjoin::omp;

// [P-OMP KMPC K17] each query first settles the initial place: a libomp program's first place
// query binds the calling thread, as libomp's middle initialisation does
FORKJOIN_OMP_EXPORT int omp_get_num_places() {
  settle_initial_place();
  return num_places();
}
FORKJOIN_OMP_EXPORT int omp_get_place_num_procs(int place) {
  settle_initial_place();
  return place_num_procs(place);
}
FORKJOIN_OMP_EXPORT void omp_get_place_proc_ids(int place, int* ids) {
  settle_initial_place();
  place_proc_ids(place, ids);
}
FORKJOIN_OMP_EXPORT int omp_get_place_num() {
  settle_initial_place();
  return current_place();
}
FORKJOIN_OMP_EXPORT int omp_get_partition_num_places() {
  settle_initial_place();
  thread_state& ts = self();
  int lo = 0, len = 0;
  partition_of(*ts.cur_team, ts.id, lo, len);
  return len;
}
FORKJOIN_OMP_EXPORT void omp_get_partition_place_nums(int* nums) {
  settle_initial_place();
  thread_state& ts = self();
  int lo = 0, len = 0;
  partition_of(*ts.cur_team, ts.id, lo, len);
  for (int k = 0; k < len; ++k) nums[k] = lo + k;
}
