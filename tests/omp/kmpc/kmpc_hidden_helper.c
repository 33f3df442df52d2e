/* kmpc_hidden_helper: libomp's global thread ids with hidden helper tasks, as a clang program
   sees them ([P-OMP KMPC K18] in omp/DESIGN.md). With N hidden helpers
   (LIBOMP_NUM_HIDDEN_HELPER_THREADS, default 8, at most 16; 0: none) the initial thread is gtid
   0, every other thread's gtid is above N, and a hidden helper task (a `target nowait` task,
   which clang allocates with __kmpc_omp_target_task_alloc) and the tasks it creates run under a
   gtid of 1..N, distinct while no more threads than N run them at once. Checked: the ranges;
   depend(inout) order and data flow between ordinary and hidden helper tasks; taskwait,
   taskgroup and the region's end barrier waiting for hidden helper tasks; a parallel region
   started inside one (its primary keeps the hidden gtid); the identity given back after each
   task. With LIBOMP_USE_HIDDEN_HELPER_TASK=false (or N = 0) target tasks are ordinary tasks,
   and the range stays reserved unless N = 0. Plain C. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "check.h"

int __kmpc_global_thread_num(void* loc);

static int helpers;   /* N: the gtids 1..N are the hidden helpers' */
static int hidden_on; /* target tasks are hidden helper tasks */

/* libomp's reading of the two variables */
static void read_environment(void) {
  helpers = 8;
  const char* s = getenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS");
  if (s != NULL) {
    char* end;
    long v = strtol(s, &end, 10);
    if (end != s && *end == '\0' && v >= 0) helpers = v > 16 ? 16 : (int)v;
  }
  hidden_on = helpers > 0;
  const char* use = getenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
  if (use != NULL && (strcasecmp(use, "false") == 0 || strcmp(use, "0") == 0)) hidden_on = 0;
}

/* through a volatile pointer: clang's OpenMP optimisation merges the calls of
   __kmpc_global_thread_num within a function, which would hide a gtid that changed */
static int (*volatile gtid_of)(void*) = __kmpc_global_thread_num;
static int gid(void) { return gtid_of(NULL); }
static int ordinary_gtid(int g) { return g == 0 || g > helpers; }
static int hidden_gtid(int g) { return hidden_on ? g >= 1 && g <= helpers : ordinary_gtid(g); }

static void pause_us(long us) {
  struct timespec t = {0, us * 1000};
  nanosleep(&t, NULL);
}

#define ITERS 1024

/* per iteration: the three tasks' gtids */
static int g1[ITERS], g2[ITERS], g3[ITERS];

/* What went wrong, counted by a function: a scalar that a target region names is firstprivate
   there, so the region's own increment would be lost. */
enum { k_order, k_flow, k_gtid, k_child, k_overlap, k_kinds };
static int bad[k_kinds];
static void count_bad(int kind) { __atomic_fetch_add(&bad[kind], 1, __ATOMIC_RELAXED); }

/* hidden helper gtids held now, to check that concurrent hidden helper tasks hold distinct ones */
static int holder[17];
static void hold(int g) {
  if (__atomic_exchange_n(&holder[g], 1, __ATOMIC_RELAXED) != 0) count_bad(k_overlap);
  pause_us(200);
  __atomic_store_n(&holder[g], 0, __ATOMIC_RELAXED);
}

int main(void) {
  read_environment();
  CHECK(gid() == 0);

  /* team threads: distinct gtids, 0 for the initial thread, above N for the others */
  int team_gtids[64];
  int team_n = 0;
#pragma omp parallel
  {
    const int g = gid();
    const int t = omp_get_thread_num();
    if (t < 64) team_gtids[t] = g;
#pragma omp single
    team_n = omp_get_num_threads();
  }
  for (int i = 0; i < team_n && i < 64; ++i) {
    CHECK(i == 0 ? team_gtids[i] == 0 : team_gtids[i] > helpers);
    for (int j = 0; j < i; ++j) CHECK(team_gtids[i] != team_gtids[j]);
  }

  /* depend(inout) chains ordinary -> hidden helper -> ordinary, as LLVM's
     tasking/hidden_helper_task/gtid.cpp; each task checks that its predecessor ran before it and
     extends the value it left */
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < ITERS; ++i) {
    int x = 0, step = 0;
#pragma omp task shared(x, step) depend(inout : x)
    {
      g1[i] = gid();
      if (step != 0) count_bad(k_order);
      step = 1;
      x = 1;
    }
#pragma omp target nowait map(tofrom : x, step) depend(inout : x)
    {
      g2[i] = gid();
      if (step != 1) count_bad(k_order);
      step = 2;
      x = x * 10 + 2;
    }
#pragma omp task shared(x, step) depend(inout : x)
    {
      g3[i] = gid();
      if (step != 2) count_bad(k_order);
      step = 3;
      x = x * 10 + 3;
    }
#pragma omp taskwait
    if (step != 3 || x != 123) count_bad(k_flow);
  }
  CHECK(bad[k_order] == 0);
  CHECK(bad[k_flow] == 0);
  for (int i = 0; i < ITERS; ++i) {
    CHECK(ordinary_gtid(g1[i]));
    CHECK(hidden_gtid(g2[i]));
    CHECK(ordinary_gtid(g3[i]));
  }

  /* taskwait, taskgroup and the region's end wait for hidden helper tasks without dependences;
     concurrent ones hold distinct gtids while there are no more threads than helpers; a task a
     hidden helper task creates is one too */
  int after_taskwait = 0, after_taskgroup = 0, at_end = 0;
#pragma omp parallel reduction(+ : after_taskwait, after_taskgroup)
  {
    int done = 0;
    for (int k = 0; k < 4; ++k) {
#pragma omp target nowait map(tofrom : done)
      {
        const int g = gid();
        if (!hidden_gtid(g)) count_bad(k_gtid);
        if (hidden_on && g >= 1 && g <= helpers && team_n <= helpers)
          hold(g);
        else
          pause_us(200);
        int child = -1;
#pragma omp task shared(child)
        child = gid();
#pragma omp taskwait
        if (!hidden_gtid(child)) count_bad(k_child);
        __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp taskwait
    after_taskwait += __atomic_load_n(&done, __ATOMIC_RELAXED) == 4;

    int grouped = 0;
#pragma omp taskgroup
    {
      for (int k = 0; k < 4; ++k) {
#pragma omp target nowait map(tofrom : grouped)
        {
          pause_us(200);
          __atomic_fetch_add(&grouped, 1, __ATOMIC_RELAXED);
        }
      }
    }
    after_taskgroup += __atomic_load_n(&grouped, __ATOMIC_RELAXED) == 4;

    /* none waited for here: the region's end barrier waits */
#pragma omp target nowait map(tofrom : at_end)
    {
      pause_us(500);
      __atomic_fetch_add(&at_end, 1, __ATOMIC_RELAXED);
    }
    /* an ordinary task after the hidden helper tasks: its thread's own gtid again */
#pragma omp task
    {
      if (!ordinary_gtid(gid())) count_bad(k_gtid);
    }
  }
  CHECK(after_taskwait == team_n);
  CHECK(after_taskgroup == team_n);
  CHECK(at_end == team_n);
  CHECK(bad[k_gtid] == 0);
  CHECK(bad[k_child] == 0);
  CHECK(bad[k_overlap] == 0);

  /* a parallel region inside a hidden helper task: its primary keeps the hidden gtid, the other
     threads have their own */
  int inner[2] = {-1, -1}, inner_n = 0;
#pragma omp target nowait map(tofrom : inner, inner_n)
  {
#pragma omp parallel num_threads(2)
    {
      inner[omp_get_thread_num()] = gid();
#pragma omp single
      inner_n = omp_get_num_threads();
    }
  }
#pragma omp taskwait
  CHECK(hidden_gtid(inner[0]));
  if (inner_n == 2) CHECK(inner[1] > helpers);
  CHECK(gid() == 0);

  printf("kmpc_hidden_helper: N=%d hidden=%d threads=%d\n", helpers, hidden_on, team_n);
  return 0;
}
