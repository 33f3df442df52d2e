/* An OpenMP C program built against libforkjoin-omp by the installed-package test: compiled
   with -fopenmp, linked without it, so every GOMP_ and omp_ call resolves to forkjoin-omp.
   Exits 0 only if the answers match. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  long sum = 0;
  int threads = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
  {
#pragma omp single
    threads = omp_get_num_threads();
#pragma omp for schedule(dynamic, 7)
    for (int i = 0; i < 1000; ++i) sum += i;
  }
  if (sum != 499500 || threads != 2) {
    printf("prog: wrong answers sum=%ld threads=%d\n", sum, threads);
    return 1;
  }
  printf("prog: ok\n");
  return 0;
}
