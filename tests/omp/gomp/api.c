/* api: the omp_* queries and setters outside and inside regions; ICVs set inside a task do
   not leak to its parent. */
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  double t0 = omp_get_wtime();
  CHECK(omp_get_wtick() > 0 && omp_get_wtick() < 0.01);
  CHECK(omp_get_num_procs() >= 1);
  CHECK(omp_get_level() == 0 && omp_get_active_level() == 0);
  CHECK(omp_get_ancestor_thread_num(0) == 0 && omp_get_team_size(0) == 1);
  CHECK(omp_get_ancestor_thread_num(1) == -1 && omp_get_team_size(1) == -1);
  CHECK(!omp_in_final());
  CHECK(omp_get_thread_limit() >= 1);
  CHECK(omp_get_cancellation() == 0);
  CHECK(omp_get_dynamic() == 0);
  omp_set_dynamic(1);
  CHECK(omp_get_dynamic() == 1);
  omp_set_dynamic(0);
  CHECK(omp_get_nested() == 0);
  omp_set_nested(1);
  CHECK(omp_get_nested() == 1 && omp_get_max_active_levels() > 1);
  omp_set_nested(0);
  CHECK(omp_get_max_active_levels() == 1);

  omp_set_schedule(omp_sched_guided, 7);
  omp_sched_t k;
  int chunk;
  omp_get_schedule(&k, &chunk);
  CHECK(k == omp_sched_guided && chunk == 7);
  omp_set_schedule((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 3);
  omp_get_schedule(&k, &chunk);
  CHECK(k == (omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic) && chunk == 3);

  int saved = omp_get_max_threads();
  omp_set_num_threads(5);
  CHECK(omp_get_max_threads() == 5);
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  CHECK(team == 5);
  /* an ICV set inside a task stays in that task */
#pragma omp task if (0)
  {
    omp_set_num_threads(2);
    CHECK(omp_get_max_threads() == 2);
  }
  CHECK(omp_get_max_threads() == 5);
  omp_set_num_threads(saved);

  usleep(2000);
  CHECK(omp_get_wtime() - t0 >= 0.001);
  puts("api: ok");
  return 0;
}
