/* env_probe: prints the ICVs the environment produced, for the env tests' regexes. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  omp_sched_t k;
  int chunk;
  omp_get_schedule(&k, &chunk);
  int team = 0;
#pragma omp parallel
#pragma omp single
  team = omp_get_num_threads();
  printf(
      "max_threads=%d team=%d schedule=%d,%d dynamic=%d max_active_levels=%d nested=%d thread_limit=%d "
      "max_task_priority=%d proc_bind=%d num_places=%d\n",
      omp_get_max_threads(), team, (int)k, chunk, omp_get_dynamic(), omp_get_max_active_levels(), omp_get_nested(),
      omp_get_thread_limit(), omp_get_max_task_priority(), (int)omp_get_proc_bind(), omp_get_num_places());
  return 0;
}
