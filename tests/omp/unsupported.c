/* unsupported: a construct the library does not implement yet (selected by argv[1]) must
   stop the program with "forkjoin-omp: <construct> is not supported", not run wrong. */
#include <omp.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  int x = 0, y = 0;
  if (strcmp(argv[1], "allocator") == 0) {
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 0, NULL);
    x = a != omp_null_allocator;
  }
  printf("ran %d %d\n", x, y);
  return 0;
}
