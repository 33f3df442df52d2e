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
  /* a host teams construct without clauses: nteams-var's teams (3 when unset), each with
     teams-thread-limit-var as its thread limit */
  int league = 0, league_limit = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 0) league = omp_get_num_teams();
#pragma omp parallel num_threads(1)
    if (omp_get_team_num() == 0) league_limit = omp_get_thread_limit();
  }
  printf(
      "max_threads=%d team=%d schedule=%d,%d dynamic=%d max_active_levels=%d nested=%d thread_limit=%d "
      "max_task_priority=%d proc_bind=%d num_places=%d num_procs=%d max_teams=%d teams_thread_limit=%d league=%d "
      "league_thread_limit=%d\n",
      omp_get_max_threads(), team, (int)k, chunk, omp_get_dynamic(), omp_get_max_active_levels(), omp_get_nested(),
      omp_get_thread_limit(), omp_get_max_task_priority(), (int)omp_get_proc_bind(), omp_get_num_places(),
      omp_get_num_procs(), omp_get_max_teams(), omp_get_teams_thread_limit(), league, league_limit);
  return 0;
}
