/* unsupported: a construct the library does not implement yet (selected by argv[1]) must
   stop the program with "forkjoin-omp: <construct> is not supported", not run wrong. */
#include <omp.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  int x = 0, y = 0;
  if (strcmp(argv[1], "doacross") == 0) {
    int a[100] = {0};
#pragma omp parallel for ordered(1)
    for (int i = 1; i < 100; ++i) {
#pragma omp ordered depend(sink : i - 1)
      a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
    }
    y = a[99];
  } else if (strcmp(argv[1], "for_task_reduction") == 0) {
#pragma omp parallel
    {
#pragma omp for reduction(task, + : x)
      for (int i = 0; i < 10; ++i) {
#pragma omp task in_reduction(+ : x)
        x++;
      }
    }
  }
  printf("ran %d %d\n", x, y);
  return 0;
}
