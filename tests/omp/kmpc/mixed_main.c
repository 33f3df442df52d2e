/* mixed_main: one process, two compilers. This program is built by clang (LLVM's ABI) and
   calls gcc_sum of mixed_lib.c, built by gcc (libgomp's ABI), alternating with its own
   regions. On libforkjoin-omp both run on one pool: every OS thread that runs a team thread's
   part, and (outside sanitizer builds, whose runtimes add threads) every thread of the
   process, is the main thread or one of forkjoin's ("forkjoin-..."); both answers are right.
   Run as two runtimes (libgomp and libomp), the check fails. */
#define _GNU_SOURCE
#include <dirent.h>
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

int gcc_sum(int n, long* sum, int* tids, int max);

#define MAX 64
#define N 100000

/* 1 if thread tid of this process is the main thread or a forkjoin thread */
static int ours(int tid) {
  if (tid == getpid()) return 1;
  char path[64], name[32] = "";
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
  FILE* f = fopen(path, "r");
  if (f == NULL) return 1; /* exited meanwhile: it ran our turn, and our threads do not exit */
  if (fgets(name, sizeof name, f) == NULL) name[0] = 0;
  fclose(f);
  return strncmp(name, "forkjoin", 8) == 0;
}

int main(void) {
  int foreign = 0;
  for (int round = 0; round < 20; ++round) {
    int tids[MAX] = {0};
    long s = 0;
    int team = 0;
#pragma omp parallel reduction(+ : s)
    {
      int me = omp_get_thread_num();
      if (me < MAX) tids[me] = (int)gettid();
#pragma omp single
      team = omp_get_num_threads();
#pragma omp for schedule(static)
      for (int i = 0; i < N; ++i) s += i;
    }
    CHECK(s == (long)N * (N - 1) / 2);
    for (int k = 0; k < team && k < MAX; ++k) foreign += !ours(tids[k]);

    int gtids[MAX] = {0};
    long gs = 0;
    const int gteam = gcc_sum(N, &gs, gtids, MAX);
    CHECK(gs == (long)N * (N - 1) / 2);
    CHECK(gteam == team);
    for (int k = 0; k < gteam && k < MAX; ++k) foreign += !ours(gtids[k]);
  }
  if (foreign != 0) {
    fprintf(stderr, "mixed: %d team parts ran on threads of another runtime\n", foreign);
    return 1;
  }
#ifndef FORKJOIN_TEST_SANITIZED
  int threads = 0, others = 0;
  DIR* d = opendir("/proc/self/task");
  CHECK(d != NULL);
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    ++threads;
    others += !ours(atoi(e->d_name));
  }
  closedir(d);
  if (others != 0) {
    fprintf(stderr, "mixed: %d of the process's %d threads belong to another runtime\n", others, threads);
    return 1;
  }
  printf("mixed: ok, %d threads in the process\n", threads);
#else
  printf("mixed: ok\n");
#endif
  return 0;
}
