/* iomp5 forkjoin|native: a clang -fopenmp program linked against Intel's runtime name,
 * libiomp5.so. A team of 3 sums 1..100000 in a worksharing loop with a reduction, counts the
 * tasks its members create and run, and names its threads. Right answers either way;
 * "forkjoin" (under the launcher): the other two members are forkjoin's threads (forkjoin-*)
 * and /proc/self/maps holds libforkjoin-omp (or its replace folder's hard link) and no file of
 * LLVM's or Intel's runtime (libomp*, libiomp5*); "native": the opposite. Exit status 0 when all of that holds. */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int maps_contain(const char* what) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  while (maps && !found && fgets(line, sizeof line, maps)) found = strstr(line, what) != NULL;
  if (maps) fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "forkjoin") != 0 && strcmp(argv[1], "native") != 0)) {
    fprintf(stderr, "usage: iomp5 forkjoin|native\n");
    return 2;
  }
  const int want_forkjoin = strcmp(argv[1], "forkjoin") == 0;
  long sum = 0;
  int team = 0, named = 0, tasks = 0;
#pragma omp parallel num_threads(3) reduction(+ : named)
  {
#pragma omp single
    {
      team = omp_get_num_threads();
      for (int i = 0; i < 10; ++i) {
#pragma omp task
        {
#pragma omp atomic
          ++tasks;
        }
      }
    }
#pragma omp for reduction(+ : sum)
    for (long i = 1; i <= 100000; ++i) sum += i;
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    if (omp_get_thread_num() != 0 && strncmp(name, "forkjoin", 8) == 0) ++named;
  }
  /* libforkjoin-omp, by its name or its replace folder's libgomp.so.1 (a hard link to it) */
  const int ours = maps_contain("libforkjoin-omp") || maps_contain("forkjoin-omp-replace/");
  const int theirs = maps_contain("/libomp") || maps_contain("/libiomp5");
  printf(
      "iomp5: team %d, sum %ld, %d tasks, %d of the 2 others named forkjoin-*, libforkjoin-omp %s, "
      "LLVM's or Intel's runtime %s\n",
      team, sum, tasks, named, ours ? "mapped" : "absent", theirs ? "mapped" : "absent");
  int failed = team != 3 || sum != 100000L * 100001L / 2 || tasks != 10;
  if (want_forkjoin)
    failed |= named != 2 || !ours || theirs;
  else
    failed |= named != 0 || ours || !theirs;
  printf("iomp5: %s (expected %s)\n", failed ? "FAILED" : "ok", argv[1]);
  return failed;
}
