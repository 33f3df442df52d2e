/* duplicate_late region|noregion LIBRARY: linked against libforkjoin-omp, opens LIBRARY (a
 * native OpenMP runtime, by absolute path) with dlopen after the start, then runs a parallel
 * region of its own on forkjoin ("region") or none ("noregion"). The duplicate check names
 * LIBRARY at the pool's start, or at exit. Prints the region's sum, unbuffered. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0); /* what it printed is out before any check at exit stops it */
  if (argc != 3 || (strcmp(argv[1], "region") != 0 && strcmp(argv[1], "noregion") != 0)) {
    fprintf(stderr, "usage: duplicate_late region|noregion LIBRARY\n");
    return 2;
  }
  if (!dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  long sum = 0;
  if (strcmp(argv[1], "region") == 0) {
#pragma omp parallel for reduction(+ : sum)
    for (long i = 1; i <= 1000; ++i) sum += i;
  }
  printf("duplicate_late: sum %ld\n", sum);
  return 0;
}
