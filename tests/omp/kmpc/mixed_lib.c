/* mixed_lib: the gcc-built OpenMP library of the mixed-process test (mixed_main.c, built by
   clang): a parallel loop with a reduction that records which OS thread ran each team
   thread's part. Built by gcc -fopenmp: it calls the libgomp ABI. */
#define _GNU_SOURCE
#include <omp.h>
#include <unistd.h>

/* sum of 0..n-1; tids[k] = the OS thread of team thread k (up to max); returns the team size */
int gcc_sum(int n, long* sum, int* tids, int max) {
  long s = 0;
  int team = 0;
#pragma omp parallel reduction(+ : s)
  {
    int me = omp_get_thread_num();
    if (me < max) tids[me] = (int)gettid();
#pragma omp single
    team = omp_get_num_threads();
#pragma omp for schedule(dynamic, 16)
    for (int i = 0; i < n; ++i) s += i;
  }
  *sum = s;
  return team;
}
