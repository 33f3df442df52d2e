/* unsupported: a construct the library does not implement yet (selected by argv[1]) must
   stop the program with "forkjoin-omp: <construct> is not supported", not run wrong. */
#include <omp.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  int x = 0, y = 0;
  if (strcmp(argv[1], "detach") == 0) {
#pragma omp parallel
#pragma omp single
    {
      omp_event_handle_t ev;
#pragma omp task detach(ev)
      x = 1;
#pragma omp taskwait
    }
  }
  printf("ran %d %d\n", x, y);
  return 0;
}
