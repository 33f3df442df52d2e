/* preload_probe: built and linked the ordinary way (gcc -fopenmp, libgomp). Prints which
   shared object defines omp_get_thread_num and GOMP_parallel in this process, then checks a
   parallel region and a dynamic loop. Under the forkjoin-omp launcher both must resolve into
   libforkjoin-omp. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <string.h>

#include "check.h"

void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);

static const char* owner(void* fn) {
  Dl_info info;
  if (dladdr(fn, &info) == 0 || info.dli_fname == NULL) return "?";
  const char* slash = strrchr(info.dli_fname, '/');
  return slash != NULL ? slash + 1 : info.dli_fname;
}

int main(void) {
  printf("omp_get_thread_num: %s\n", owner((void*)&omp_get_thread_num));
  printf("GOMP_parallel: %s\n", owner((void*)&GOMP_parallel));
  long sum = 0;
#pragma omp parallel for schedule(dynamic, 7) reduction(+ : sum)
  for (long i = 0; i < 10000; ++i) sum += i;
  CHECK(sum == 49995000L);
  int n = 0;
#pragma omp parallel num_threads(3)
#pragma omp atomic
  n++;
  CHECK(n == 3);
  puts("preload_probe: ok");
  return 0;
}
