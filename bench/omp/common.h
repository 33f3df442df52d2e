/* common.h: what the OpenMP layer benchmarks share: a monotonic clock, the answer check, and
   the line that names the OpenMP runtime really serving the process (the runner checks it). */
#ifndef FORKJOIN_BENCH_OMP_COMMON_H
#define FORKJOIN_BENCH_OMP_COMMON_H
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __clang__ /* LLVM's ABI: the entry point that starts a parallel region */
void __kmpc_fork_call(void* loc, int argc, void* microtask, ...);
#define FORKJOIN_BENCH_FORK ((void*)&__kmpc_fork_call)
#else
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
#define FORKJOIN_BENCH_FORK ((void*)&GOMP_parallel)
#endif

static inline double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A wrong answer ends the run with a non-zero status: a fast wrong runtime must not win. */
#define BENCH_CHECK(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: wrong answer: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* The shared object that defines the entry points this binary calls: libgomp.so.1 when run
   plainly, libomp.so.5 or libforkjoin-omp.so when one of them is preloaded (a clang build:
   libomp.so.5 when run plainly). */
static inline void print_runtime(void) {
  Dl_info a, b;
  const char* pa = dladdr(FORKJOIN_BENCH_FORK, &a) != 0 && a.dli_fname != NULL ? a.dli_fname : "?";
  const char* pb = dladdr((void*)&omp_get_thread_num, &b) != 0 && b.dli_fname != NULL ? b.dli_fname : "?";
  const char* sa = strrchr(pa, '/');
  const char* sb = strrchr(pb, '/');
  printf("runtime %s %s\n", sa != NULL ? sa + 1 : pa, sb != NULL ? sb + 1 : pb);
}
#endif
