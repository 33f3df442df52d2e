/* kmpc_teams: host teams (__kmpc_fork_teams): num_teams, the league queries in each team,
   thread_limit applied to the teams' parallel regions, distribute with dist_schedule (static
   blocks and chunks, each iteration in exactly one team and static chunks by team number),
   distribute parallel for with an inner dynamic schedule and a reduction; Intel's combined
   entry points (__kmpc_dist_for_static_init, __kmpc_team_static_init, __kmpc_dist_dispatch_init)
   called directly. Plain C. */
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 1000

void __kmpc_dist_for_static_init_4(void*, int, int, int*, int*, int*, int*, int*, int, int);
void __kmpc_team_static_init_8(void*, int, int*, long long*, long long*, long long*, long long, long long);
void __kmpc_dist_dispatch_init_4u(void*, int, int, int*, unsigned, unsigned, int, int);
int __kmpc_dispatch_next_4u(void*, int, int*, unsigned*, unsigned*, int*);

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

  /* the combined entry points: every iteration once, one last part */
  static int dist_hits[N];
  int lasts = 0, team_lasts = 0, dyn_lasts = 0;
#pragma omp teams num_teams(3)
#pragma omp parallel num_threads(2)
  {
    int last = 0, lo = 0, hi = N - 1, hi_team = 0, stride = 0;
    __kmpc_dist_for_static_init_4(NULL, 0, 33, &last, &lo, &hi, &hi_team, &stride, 1, 7);
    for (; lo <= hi_team; lo += stride, hi += stride)
      for (int i = lo; i <= (hi < hi_team ? hi : hi_team); ++i) {
#pragma omp atomic
        dist_hits[i]++;
      }
    if (last) {
#pragma omp atomic
      lasts++;
    }
  }
  for (int i = 0; i < N; ++i) CHECK(dist_hits[i] == 1);
  CHECK(lasts == 1);
#pragma omp teams num_teams(4)
  {
    int last = 0;
    long long lo = 0, hi = N - 1, stride = 0;
    __kmpc_team_static_init_8(NULL, 0, &last, &lo, &hi, &stride, 1, 9);
    for (; lo <= N - 1; lo += stride, hi += stride)
      for (long long i = lo; i <= (hi < N - 1 ? hi : N - 1); ++i) dist_hits[i]++;
    team_lasts += last;
  }
  for (int i = 0; i < N; ++i) CHECK(dist_hits[i] == 2);
  CHECK(team_lasts == 1);
#pragma omp teams num_teams(2)
#pragma omp parallel num_threads(3)
  {
    int team_last = 0, last = 0, st = 0;
    unsigned lo, hi;
    __kmpc_dist_dispatch_init_4u(NULL, 0, 35, &team_last, 0, N - 1, 1, 5);
    while (__kmpc_dispatch_next_4u(NULL, 0, &last, &lo, &hi, &st))
      for (unsigned i = lo; i <= hi; ++i) {
#pragma omp atomic
        dist_hits[i]++;
        if (team_last && last && i == hi) { /* the team's last chunk of the last team's part */
#pragma omp atomic
          dyn_lasts++;
        }
      }
  }
  for (int i = 0; i < N; ++i) CHECK(dist_hits[i] == 3);
  CHECK(dyn_lasts == 1);

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
