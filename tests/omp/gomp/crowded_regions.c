/* crowded_regions: back-to-back regions of a team larger than its CPUs while other threads of
 * the process keep every CPU busy, so that the team's workers dock between regions ([P-OMP
 * Hot] H6) and leave the end barrier early ([P-OMP Team] E4). Every region runs each of its
 * thread numbers exactly once, with its full team, and a reduction and a barrier inside give
 * their exact results. Built with gcc -fopenmp, linked against libforkjoin-omp. */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

enum { k_regions = 400, k_max_team = 64 };

static atomic_int stop_spinning;
static void* spin(void* arg) {
  (void)arg;
  volatile unsigned long x = 0;
  while (!atomic_load_explicit(&stop_spinning, memory_order_relaxed)) x = x + 1;
  return NULL;
}

int main(void) {
  const int procs = omp_get_num_procs();
  int team = 2 * procs + 1;
  if (team > k_max_team) team = k_max_team;
  const int spinners = procs;
  pthread_t* busy = malloc(sizeof *busy * (size_t)spinners);
  CHECK(busy != NULL);
  for (int i = 0; i < spinners; ++i) CHECK(pthread_create(&busy[i], NULL, spin, NULL) == 0);

  atomic_int seen[k_max_team];
  for (int r = 0; r < k_regions; ++r) {
    for (int k = 0; k < team; ++k) atomic_store(&seen[k], 0);
    int size = 0;
    long sum = 0;
    int after_barrier = 0;
#pragma omp parallel num_threads(team) reduction(+ : sum) shared(size, after_barrier)
    {
      const int id = omp_get_thread_num();
      atomic_fetch_add(&seen[id], 1);
      if (id == 0) size = omp_get_num_threads();
      sum += id + r;
#pragma omp barrier
      /* after the barrier every thread sees every arrival */
      int all = 1;
      for (int k = 0; k < omp_get_num_threads(); ++k) all &= atomic_load(&seen[k]) == 1;
#pragma omp atomic
      after_barrier += all;
    }
    if (size != team) {
      fprintf(stderr, "region %d: %d threads, want %d\n", r, size, team);
      return 1;
    }
    for (int k = 0; k < team; ++k)
      if (atomic_load(&seen[k]) != 1) {
        fprintf(stderr, "region %d: thread %d ran %d times\n", r, k, atomic_load(&seen[k]));
        return 1;
      }
    const long want = (long)team * (team - 1) / 2 + (long)team * r;
    if (sum != want || after_barrier != team) {
      fprintf(stderr, "region %d: sum %ld (want %ld), %d threads saw all (want %d)\n", r, sum, want, after_barrier,
              team);
      return 1;
    }
  }
  atomic_store(&stop_spinning, 1);
  for (int i = 0; i < spinners; ++i) CHECK(pthread_join(busy[i], NULL) == 0);
  free(busy);
  return 0;
}
