/* kmpc_teams_places: the places of a libomp program's host league ([P-OMP Teams M4]). Each
   team's initial thread gets a place and a place partition of the encountering thread's
   partition by KMP_TEAMS_PROC_BIND, as libomp assigns them: spread (unset, spread, true),
   close, primary (or master), and false (the teams stay where the encountering thread is).
   Each team's thread runs pinned to its place, a parallel region inside a team partitions the
   team's partition, and the encountering thread gets its place and CPU mask back after the
   league. Leagues of 1 to 2P + 1 teams over P = 7 places, each twice.

   Usage: kmpc_teams_places VALUE, VALUE being KMP_TEAMS_PROC_BIND's value or "unset". The
   program sets OMP_PLACES (seven places over the first two CPUs it may use, so that they exist
   on any machine), OMP_PROC_BIND=close, KMP_TEAMS_PROC_BIND and KMP_TEAMS_THREAD_LIMIT (libomp
   caps a league at the processor count otherwise) and runs itself again with them. Plain C. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"

#define K_PLACES 7
#define K_MAX_TEAMS (2 * K_PLACES + 1)

enum { k_false = 0, k_primary = 2, k_close = 3, k_spread = 4 };

/* What team k's initial thread saw. */
struct seen {
  int team_num, num_teams;
  int place;  /* omp_get_place_num */
  int nparts; /* its partition */
  int parts[K_PLACES];
  int pinned;     /* its CPU mask is its place's CPUs */
  int nested_bad; /* wrong places or partitions in its parallel region */
};
static struct seen seen[K_MAX_TEAMS];
/* clang -O2 treats omp_get_place_num as a getter without side effects and would reuse main's
   first answer after the league: called through this pointer it is asked again */
static int (*volatile place_num)(void) = omp_get_place_num;
static int g_policy, g_teams, g_team; /* what a failed check reports */

#define LCHECK(cond)                                                                                    \
  do {                                                                                                  \
    if (!(cond)) {                                                                                      \
      fprintf(stderr, "KMP_TEAMS_PROC_BIND policy %d, %d teams, team %d: ", g_policy, g_teams, g_team); \
      CHECK(cond);                                                                                      \
    }                                                                                                   \
  } while (0)

static int policy_of(const char* v) {
  if (v == NULL) return k_spread;
  if (strcasecmp(v, "close") == 0) return k_close;
  if (strcasecmp(v, "primary") == 0 || strcasecmp(v, "master") == 0) return k_primary;
  if (strcasecmp(v, "false") == 0) return k_false;
  return k_spread; /* spread, true, and a bad value's fallback */
}

/* The calling thread's CPU mask is exactly place's CPUs. */
static int mask_is_place(int place) {
  int n = omp_get_place_num_procs(place);
  int* ids = malloc(sizeof(int) * (n > 0 ? n : 1));
  cpu_set_t want, mask;
  CPU_ZERO(&want);
  omp_get_place_proc_ids(place, ids);
  for (int i = 0; i < n; ++i) CPU_SET(ids[i], &want);
  free(ids);
  return n > 0 && sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_EQUAL(&mask, &want);
}

static int index_in(const int* parts, int n, int place) {
  for (int i = 0; i < n; ++i)
    if (parts[i] == place) return i;
  return -1;
}

/* In team s: what it sees, then a parallel region of two threads (bind-var close): its
   threads' partition is the team's and thread i sits i places after the team's place in it. */
static void record(struct seen* s) {
  s->team_num = omp_get_team_num();
  s->num_teams = omp_get_num_teams();
  s->place = omp_get_place_num();
  s->nparts = omp_get_partition_num_places();
  if (s->nparts < 0 || s->nparts > K_PLACES) s->nparts = 0;
  if (s->nparts > 0) omp_get_partition_place_nums(s->parts);
  s->pinned = s->place >= 0 && mask_is_place(s->place);
  const int rel = index_in(s->parts, s->nparts, s->place);
  int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
  {
    const int n = omp_get_num_threads(), i = omp_get_thread_num();
    int parts[K_PLACES];
    const int np = omp_get_partition_num_places();
    if (np != s->nparts) {
      bad++;
    } else {
      omp_get_partition_place_nums(parts);
      if (memcmp(parts, s->parts, sizeof(int) * (size_t)np) != 0) bad++;
      if (rel >= 0 && omp_get_place_num() != s->parts[(rel + (n <= np ? i : i * np / n)) % np]) bad++;
    }
  }
  s->nested_bad = bad;
}

/* close with more teams than places, and spread's: team 0 on p0, then runs of T/P or T/P + 1
   teams per place, each run on the place after the previous one's, over all P places. */
static void check_runs(int P, int p0, int T) {
  const int lo = T / P, hi = (T + P - 1) / P;
  int count = 1, runs = 1, cur = p0;
  g_team = 0;
  LCHECK(seen[0].place == p0);
  for (int k = 1; k < T; ++k) {
    g_team = k;
    if (seen[k].place == cur) {
      LCHECK(++count <= hi);
    } else {
      LCHECK(count >= lo);
      cur = (cur + 1) % P;
      LCHECK(seen[k].place == cur);
      count = 1;
      runs++;
    }
  }
  LCHECK(count >= lo && runs == P);
}

static void check_league(int policy, int P, int parent, int T) {
  const int p0 = parent >= 0 ? parent : 0; /* an unbound thread's league starts at place 0 */
  g_teams = T;
  for (int k = 0; k < T; ++k) {
    const struct seen* s = &seen[k];
    g_team = k;
    LCHECK(s->team_num == k && s->num_teams == T);
    LCHECK(s->nested_bad == 0);
    LCHECK(s->nparts >= 1);
    for (int j = 1; j < s->nparts; ++j) LCHECK(s->parts[j] == (s->parts[j - 1] + 1) % P); /* consecutive */
    if (policy == k_false) { /* an unbound thread stays where its last parallel region left it */
      LCHECK(s->nparts == P && s->parts[0] == 0);
      LCHECK(parent < 0 || (s->place == parent && s->pinned));
      continue;
    }
    LCHECK(s->pinned);
    LCHECK(index_in(s->parts, s->nparts, s->place) >= 0);
    if (policy == k_primary) LCHECK(s->place == p0);
    if (policy != k_spread) LCHECK(s->nparts == P && s->parts[0] == 0); /* the parent's partition */
    if (policy == k_close && T <= P) LCHECK(s->place == (p0 + k) % P);
    if (policy == k_spread && T > P) LCHECK(s->nparts == 1);
    if (policy == k_spread && T <= P) {
      LCHECK(s->nparts == P / T || s->nparts == P / T + (P % T != 0));
      LCHECK(k == 0 ? s->place == p0 : s->place == s->parts[0]);
      if (k > 0) { /* the sub-partition after team k - 1's */
        const struct seen* prev = &seen[k - 1];
        LCHECK(s->parts[0] == (prev->parts[prev->nparts - 1] + 1) % P);
      }
    }
  }
  if ((policy == k_close && T > P) || (policy == k_spread && T > P)) check_runs(P, p0, T);
  if (policy == k_spread && T <= P) { /* T sub-partitions cover the P places once */
    int total = 0;
    for (int k = 0; k < T; ++k) total += seen[k].nparts;
    g_team = -1;
    LCHECK(total == P);
  }
}

/* Sets the environment and runs the program again with it. */
static int run_again(char** argv) {
  cpu_set_t usable;
  int cpus[2], n = 0, len = 0;
  char places[256];
  CHECK(sched_getaffinity(0, sizeof usable, &usable) == 0);
  for (int c = 0; c < CPU_SETSIZE && n < 2; ++c)
    if (CPU_ISSET(c, &usable)) cpus[n++] = c;
  CHECK(n > 0);
  for (int p = 0; p < K_PLACES; ++p)
    len += snprintf(places + len, sizeof places - (size_t)len, "%s{%d}", p > 0 ? "," : "", cpus[p % n]);
  setenv("OMP_PLACES", places, 1);
  setenv("OMP_PROC_BIND", "close", 1);
  setenv("KMP_TEAMS_THREAD_LIMIT", "256", 1);
  if (strcmp(argv[1], "unset") == 0)
    unsetenv("KMP_TEAMS_PROC_BIND");
  else
    setenv("KMP_TEAMS_PROC_BIND", argv[1], 1);
  setenv("KMPC_TEAMS_PLACES_SET", "1", 1);
  execv("/proc/self/exe", argv);
  perror("kmpc_teams_places: execv");
  return 1;
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  if (getenv("KMPC_TEAMS_PLACES_SET") == NULL) return run_again(argv);
  g_policy = policy_of(getenv("KMP_TEAMS_PROC_BIND"));
  const int P = omp_get_num_places();
  CHECK(P == K_PLACES);
  const int parent = place_num();
  cpu_set_t before, after;
  CHECK(sched_getaffinity(0, sizeof before, &before) == 0);
  for (int T = 1; T <= K_MAX_TEAMS; ++T) {
    for (int round = 0; round < 2; ++round) {
      memset(seen, 0, sizeof seen);
#pragma omp teams num_teams(T)
      record(&seen[omp_get_team_num()]);
      check_league(g_policy, P, parent, T);
      /* the encountering thread is back on its place, with its mask (an unbound one, under
         false, stays where its last parallel region left it, as after any parallel region) */
      if (g_policy == k_false && parent < 0) continue;
      CHECK(place_num() == parent);
      CHECK(sched_getaffinity(0, sizeof after, &after) == 0 && CPU_EQUAL(&before, &after));
    }
  }
  printf("kmpc_teams_places: ok\n");
  return 0;
}
