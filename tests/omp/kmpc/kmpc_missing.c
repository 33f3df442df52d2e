/* kmpc_missing: calls an entry point of LLVM's libomp that libforkjoin-omp does not provide.
   Under the forkjoin-omp launcher it must stop before running on libomp. */
#include <stdio.h>

int kmp_get_num_known_threads(void);

int main(void) {
  printf("kmpc_missing: ran with %d threads known\n", kmp_get_num_known_threads());
  return 0;
}
