/* bind: OMP_PROC_BIND / OMP_PLACES applied. The program checks what the environment asked
   for (it reads OMP_PROC_BIND itself): unbound, every thread keeps the process's CPUs and has
   no place; bound, every team thread runs exactly on the CPUs of its place (sched_getaffinity),
   its place lies in its partition, and the places follow the policy: close and spread give
   distinct places while there are at least as many places as threads, and spread gives
   each thread a partition of its own; primary keeps the team on the primary's place. Also
   the proc_bind clause, a nested bound team, and the place queries. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { k_max = 64 };
static int place[k_max], part_len[k_max], part_first[k_max];
static int affinity_ok[k_max];
static cpu_set_t initial;

static void same_as_place(int tid) {
  cpu_set_t now, want;
  CHECK(sched_getaffinity(0, sizeof now, &now) == 0);
  int p = omp_get_place_num();
  if (p < 0) {
    affinity_ok[tid] = CPU_EQUAL(&now, &initial);
    return;
  }
  CPU_ZERO(&want);
  int n = omp_get_place_num_procs(p);
  int ids[CPU_SETSIZE];
  omp_get_place_proc_ids(p, ids);
  for (int i = 0; i < n; ++i) CPU_SET(ids[i], &want);
  affinity_ok[tid] = CPU_EQUAL(&now, &want);
}

static void record(void) {
  int tid = omp_get_thread_num();
  if (tid >= k_max) return;
  place[tid] = omp_get_place_num();
  part_len[tid] = omp_get_partition_num_places();
  int nums[CPU_SETSIZE];
  omp_get_partition_place_nums(nums);
  part_first[tid] = part_len[tid] > 0 ? nums[0] : -1;
  int inside = place[tid] < 0;
  for (int k = 0; k < part_len[tid]; ++k) inside |= nums[k] == place[tid];
  CHECK(inside);
  same_as_place(tid);
}

/* checks the team just recorded against `policy` (0 false, 2 primary, 3 close, 4 spread) */
static void check_team(int team, int policy, int places) {
  for (int i = 0; i < team && i < k_max; ++i) {
    CHECK(affinity_ok[i]);
    if (policy == 0) CHECK(place[i] == -1);
    if (policy != 0) CHECK(place[i] >= 0 && place[i] < places);
    if (policy == 2) CHECK(place[i] == place[0]);
    for (int j = 0; j < i; ++j)
      if ((policy == 3 || policy == 4) && team <= places) CHECK(place[i] != place[j]);
    if (policy == 4 && team <= places) {
      CHECK(part_len[i] >= 1 && part_len[i] <= places / team + 1);
      for (int j = 0; j < i; ++j) CHECK(part_first[i] != part_first[j]);
    }
    if (policy == 4 && team > places) CHECK(part_len[i] == 1);
  }
}

static int policy_of(const char* v) {
  if (v == NULL || strncmp(v, "false", 5) == 0) return 0;
  if (strncmp(v, "true", 4) == 0 || strncmp(v, "close", 5) == 0) return 3;
  if (strncmp(v, "spread", 6) == 0) return 4;
  return 2; /* master / primary */
}

int main(void) {
  CHECK(sched_getaffinity(0, sizeof initial, &initial) == 0);
  const char* env = getenv("OMP_PROC_BIND");
  int policy = policy_of(env);
  if (env == NULL && getenv("OMP_PLACES") != NULL) policy = 3; /* places alone turn binding on */
  int places = omp_get_num_places();
  if (policy == 0) {
    CHECK(omp_get_proc_bind() == omp_proc_bind_false);
    CHECK(omp_get_place_num() == -1);
  } else {
    CHECK(places >= 1);
    CHECK(omp_get_place_num() == 0); /* the initial thread takes the first place */
    int total = 0;
    for (int p = 0; p < places; ++p) total += omp_get_place_num_procs(p);
    CHECK(total >= places);
    CPU_ZERO(&initial); /* an unbound team would run on every place's CPUs */
    for (int p = 0; p < places; ++p) {
      int ids[CPU_SETSIZE];
      omp_get_place_proc_ids(p, ids);
      for (int i = 0; i < omp_get_place_num_procs(p); ++i) CPU_SET(ids[i], &initial);
    }
  }
  CHECK(omp_get_place_num_procs(-1) == 0 && omp_get_place_num_procs(places) == 0);

  int team = 0;
#pragma omp parallel
  {
    record();
#pragma omp single
    team = omp_get_num_threads();
  }
  check_team(team, policy, places);

  /* the clause wins over the ICV, unless binding is off altogether */
  for (int clause = 2; clause <= 4; ++clause) {
#pragma omp parallel proc_bind(master) if (clause == 2)
    record();
    if (clause == 2) check_team(omp_get_max_threads(), policy == 0 ? 0 : 2, places);
  }
#pragma omp parallel proc_bind(spread)
  {
    record();
#pragma omp single
    team = omp_get_num_threads();
  }
  check_team(team, policy == 0 ? 0 : 4, places);
#pragma omp parallel proc_bind(close)
  {
    record();
#pragma omp single
    team = omp_get_num_threads();
  }
  check_team(team, policy == 0 ? 0 : 3, places);

  /* a nested team: its threads stay inside the partition of their primary */
  omp_set_max_active_levels(2);
  int nested_ok = 1;
#pragma omp parallel num_threads(2) proc_bind(spread) reduction(&& : nested_ok)
  {
    int outer_first = -1, outer_len = omp_get_partition_num_places();
    int nums[CPU_SETSIZE];
    omp_get_partition_place_nums(nums);
    if (outer_len > 0) outer_first = nums[0];
#pragma omp parallel num_threads(2) proc_bind(close) reduction(&& : nested_ok)
    {
      int p = omp_get_place_num();
      if (policy != 0)
        nested_ok = p >= outer_first && p < outer_first + outer_len;
      else
        nested_ok = p == -1;
    }
  }
  CHECK(nested_ok);
  puts("bind: ok");
  return 0;
}
