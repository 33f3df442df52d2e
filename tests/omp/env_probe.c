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
  printf("max_threads=%d team=%d schedule=%d,%d dynamic=%d max_active_levels=%d nested=%d thread_limit=%d\n",
         omp_get_max_threads(), team, (int)k, chunk, omp_get_dynamic(), omp_get_max_active_levels(), omp_get_nested(),
         omp_get_thread_limit());
  return 0;
}
