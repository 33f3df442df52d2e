/* end_early_nested: a team larger than its CPUs and larger than the pool, whose members leave
 * the end barrier early ([P-OMP Team E4]), keeps one OS thread per thread number and its
 * threadprivate copies ([P-OMP Team E5]):
 * - within a region every thread number runs on its own OS thread (a thread that left early
 *   is never handed a second turn of the same region);
 * - copyin gives every thread the primary's value, and the next region with as many threads
 *   finds each thread number's copy as it left it, also when a member started an active nested
 *   region after the others left (the nested team must not run on the outer team's threads).
 * The team is sized from omp_get_num_procs(), so the case holds on any machine. Built with gcc
 * -fopenmp, linked against libforkjoin-omp. */
#include <omp.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum { k_rounds = 200, k_max_team = 256 };

static int tp = 32;
#pragma omp threadprivate(tp)

static pthread_t owner[k_max_team];

static void pause_us(long us) {
  struct timespec t = {0, us * 1000};
  nanosleep(&t, NULL);
}

static void expect_distinct_threads(int n, int round) {
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (pthread_equal(owner[i], owner[j])) {
        fprintf(stderr, "round %d: thread numbers %d and %d ran on one OS thread\n", round, i, j);
        exit(1);
      }
}

int main(void) {
  omp_set_dynamic(0);
  int n = 3 * omp_get_num_procs() + 1;
  if (n > k_max_team) n = k_max_team;
  for (int round = 0; round < k_rounds; ++round) {
    int bad = 0;
    tp = 32 + round;
    memset(owner, 0, sizeof owner);
    /* copyin, then each thread number marks its copy */
#pragma omp parallel num_threads(n) copyin(tp) reduction(+ : bad)
    {
      const int id = omp_get_thread_num();
      if (omp_get_num_threads() != n) bad += 1000;
      owner[id] = pthread_self();
      bad += tp != 32 + round;
      tp = 1000 * (round + 1) + id;
      /* member 1 starts an active nested region once the others probably left */
      if (id == 1 && round % 4 == 0) {
        pause_us(200);
        omp_set_max_active_levels(2);
#pragma omp parallel num_threads(3) reduction(+ : bad)
        {
          if (omp_get_active_level() != 2) bad += 100000;
          if (omp_get_thread_num() != 0) tp = -1; /* a nested thread's own copy */
        }
      }
    }
    CHECK(bad == 0);
    expect_distinct_threads(n, round);
    /* the same thread numbers find their copies */
#pragma omp parallel num_threads(n) reduction(+ : bad)
    {
      const int id = omp_get_thread_num();
      if (tp != 1000 * (round + 1) + id) bad += 1;
      owner[id] = pthread_self();
    }
    if (bad != 0) {
      fprintf(stderr, "round %d: %d thread numbers lost their threadprivate copy\n", round, bad);
      return 1;
    }
    expect_distinct_threads(n, round);
  }
  printf("end_early_nested: %d rounds of %d threads\n", k_rounds, n);
  return 0;
}
