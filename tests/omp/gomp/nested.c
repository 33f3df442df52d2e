/* nested: inactive nesting by default (inner teams of one that still count levels), then
   active nesting with real inner teams, ancestor thread numbers and team sizes, barriers and
   work shares inside inner teams, an orphaned loop called at every level, and inner teams
   sized by nthreads-var when dynamic adjustment is off. */
#include <omp.h>
#include <string.h>

#include "check.h"

/* an orphaned loop: *acc is shared by the calling team; the loop's barrier completes it */
static long orphan_sum(long n, long* acc) {
#pragma omp for schedule(dynamic, 3)
  for (long i = 0; i < n; ++i) {
#pragma omp atomic
    *acc += i;
  }
  return *acc;
}

int main(void) {
  CHECK(omp_get_level() == 0 && omp_get_active_level() == 0);
  CHECK(omp_get_max_active_levels() == 1 || getenv("OMP_NUM_THREADS") == NULL ||
        strchr(getenv("OMP_NUM_THREADS"), ',') != NULL);
  long acc0 = 0;
  CHECK(orphan_sum(100, &acc0) == 4950); /* orphaned: one thread does everything */

  int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
      if (omp_get_num_threads() != 1) bad++;
      if (omp_get_level() != 2) bad++;
      if (omp_get_active_level() != 1) bad++;
      if (omp_get_ancestor_thread_num(1) != outer) bad++;
      if (omp_get_team_size(1) != 2 || omp_get_team_size(2) != 1) bad++;
#pragma omp barrier
      long acc1 = 0;
      if (orphan_sum(50, &acc1) != 1225) bad++;
    }
  }
  CHECK(bad == 0);

  omp_set_max_active_levels(2);
  CHECK(omp_get_max_active_levels() == 2);
  int pairs[3][4];
  memset(pairs, 0, sizeof pairs);
  bad = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad)
  {
    int outer = omp_get_thread_num();
    long acc2 = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
    {
      if (omp_get_num_threads() != 4) bad++;
      if (omp_get_active_level() != 2 || omp_get_level() != 2) bad++;
      if (omp_get_ancestor_thread_num(1) != outer) bad++;
      if (omp_get_ancestor_thread_num(2) != omp_get_thread_num()) bad++;
      if (omp_get_ancestor_thread_num(0) != 0 || omp_get_ancestor_thread_num(3) != -1) bad++;
      if (omp_get_team_size(0) != 1 || omp_get_team_size(1) != 3 || omp_get_team_size(2) != 4) bad++;
#pragma omp atomic
      pairs[outer][omp_get_thread_num()]++;
#pragma omp barrier
      if (orphan_sum(1000, &acc2) != 499500) bad++;
        /* a third level is inactive again */
#pragma omp parallel num_threads(2)
      {
        if (omp_get_num_threads() != 1 || omp_get_level() != 3) {
#pragma omp atomic
          bad++;
        }
      }
    }
  }
  CHECK(bad == 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(pairs[i][j] == 1);
  /* nesting on, dynamic adjustment off, no num_threads clause: every inner team has
     nthreads-var threads, whichever thread (the initial thread, a pool worker or a spare)
     starts it */
  omp_set_dynamic(0);
  omp_set_num_threads(4);
  int inner_size[4] = {0, 0, 0, 0}, outer_size = 0;
#pragma omp parallel
  {
    int outer = omp_get_thread_num();
    if (outer == 0) outer_size = omp_get_num_threads();
#pragma omp parallel
    {
      if (omp_get_thread_num() == 0) inner_size[outer] = omp_get_num_threads();
    }
  }
  CHECK(outer_size == 4);
  for (int i = 0; i < 4; ++i) CHECK(inner_size[i] == 4);
  puts("nested: ok");
  return 0;
}
