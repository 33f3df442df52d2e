/* thread_limit: OMP_THREAD_LIMIT (run with 6) bounds a contention group: the initial thread
   and every team thread of the regions it starts, nested ones included, however they are
   nested. A host team's thread_limit clause starts a group of its own. */
#include <omp.h>

#include "check.h"

enum { k_limit = 6 };

/* Every inner team of an outer team of `outer` threads is alive at once: each waits (with a
   deadline: a failure, not a hang) until all `outer` of them started. Returns the number of
   threads they had in all, the outer team's included. */
static int nested_threads(int outer, int inner) {
  int started = 0, total = 0;
#pragma omp parallel num_threads(outer)
  {
#pragma omp parallel num_threads(inner)
    {
      if (omp_get_thread_num() == 0) {
#pragma omp atomic
        started++;
#pragma omp atomic
        total += omp_get_num_threads() - 1;
      }
      const double deadline = omp_get_wtime() + 10.0;
      int seen = 0;
      while (seen < outer && omp_get_wtime() < deadline) {
#pragma omp atomic read
        seen = started;
      }
      CHECK(seen == outer);
    }
    CHECK(omp_get_num_threads() == outer);
  }
  return outer + total;
}

int main(void) {
  CHECK(omp_get_thread_limit() == k_limit);
  omp_set_dynamic(0);
  omp_set_max_active_levels(3);

  /* one level: the limit caps a team, and a finished team gives its threads back */
  for (int round = 0; round < 3; ++round) {
    int size = 0;
#pragma omp parallel num_threads(8)
    if (omp_get_thread_num() == 0) size = omp_get_num_threads();
    CHECK(size == k_limit);
#pragma omp parallel num_threads(k_limit)
    if (omp_get_thread_num() == 0) size = omp_get_num_threads();
    CHECK(size == k_limit);
  }

  /* nested: an outer team of 5 leaves one thread for all five inner teams together, an outer
     team of 2 leaves four; an outer team of 6 leaves none */
  CHECK(nested_threads(5, 5) == k_limit);
  CHECK(nested_threads(2, 3) == k_limit);
  CHECK(nested_threads(2, 2) == 4);
  CHECK(nested_threads(k_limit, 2) == k_limit);

  /* three levels: never more than the limit inside the innermost regions */
  int live = 0, most = 0;
#pragma omp parallel num_threads(3)
#pragma omp parallel num_threads(3)
#pragma omp parallel num_threads(2)
  {
    int now;
#pragma omp atomic capture
    now = ++live;
#pragma omp critical
    if (now > most) most = now;
#pragma omp atomic
    live--;
  }
  CHECK(most <= k_limit);

  /* a host team's thread_limit is its own group's: each team of the league may use 3
     threads, nested regions included, whatever the others do */
  int bad = 0;
#pragma omp teams num_teams(2) thread_limit(3) reduction(+ : bad)
  {
    int size = 0, limit = 0;
#pragma omp parallel num_threads(5)
    if (omp_get_thread_num() == 0) {
      size = omp_get_num_threads();
      limit = omp_get_thread_limit();
    }
    if (size != 3 || limit != 3) bad++;
    if (nested_threads(2, 2) != 3) bad++;
  }
  CHECK(bad == 0);

  /* after all of it the group is whole again */
  int size = 0;
#pragma omp parallel num_threads(k_limit)
  if (omp_get_thread_num() == 0) size = omp_get_num_threads();
  CHECK(size == k_limit);
  puts("thread_limit: ok");
  return 0;
}
