/* kmpc_teams: host teams (__kmpc_fork_teams): num_teams, the league queries in each team,
   thread_limit applied to the teams' parallel regions, distribute with dist_schedule (static
   blocks and chunks, each iteration in exactly one team and static chunks by team number),
   distribute parallel for with an inner dynamic schedule and a reduction. Plain C. */
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 1000

int main(void) {
  int team_seen[16] = {0}, league = -1, bad = 0;
#pragma omp teams num_teams(4)
  {
    if (omp_get_team_num() == 0) league = omp_get_num_teams();
    team_seen[omp_get_team_num()]++; /* one slot per team */
  }
  CHECK(league == 4);
  for (int t = 0; t < 4; ++t) CHECK(team_seen[t] == 1);

  /* thread_limit caps every parallel region of the league */
  int widest = 0;
#pragma omp teams num_teams(2) thread_limit(2)
  {
#pragma omp parallel
    {
      int n = omp_get_num_threads();
#pragma omp critical
      if (n > widest) widest = n;
    }
  }
  CHECK(widest >= 1 && widest <= 2);

  static int owner[N], hits[N];
  memset(hits, 0, sizeof hits);
#pragma omp teams distribute num_teams(3) dist_schedule(static, 10)
  for (int i = 0; i < N; ++i) {
    hits[i]++;
    owner[i] = omp_get_team_num();
  }
  for (int i = 0; i < N; ++i) {
    CHECK(hits[i] == 1);
    if (owner[i] != (i / 10) % 3) bad++;
  }
  CHECK(bad == 0);

  memset(hits, 0, sizeof hits);
#pragma omp teams distribute num_teams(3)
  for (long long i = N - 1; i >= 0; --i) hits[i]++;
  for (int i = 0; i < N; ++i) CHECK(hits[i] == 1);

  memset(hits, 0, sizeof hits);
  long sum = 0;
#pragma omp teams distribute parallel for num_teams(2) schedule(dynamic, 7) reduction(+ : sum)
  for (int i = 0; i < N; ++i) {
#pragma omp atomic
    hits[i]++;
    sum += i;
  }
  for (int i = 0; i < N; ++i) CHECK(hits[i] == 1);
  CHECK(sum == (long)N * (N - 1) / 2);

  /* without num_teams: nteams-var, or one team */
  int n_default = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 0) n_default = omp_get_num_teams();
  }
  CHECK(n_default >= 1);
  printf("kmpc_teams: ok\n");
  return 0;
}
