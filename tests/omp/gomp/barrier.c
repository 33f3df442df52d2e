/* barrier: 300 phases; after each barrier every thread sees every other thread's write of
   that phase, and nobody has started the next phase. */
#include <omp.h>

#include "check.h"

static volatile int phase_of[64];

int main(void) {
  int bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads();
    for (int p = 1; p <= 300; ++p) {
      phase_of[me] = p;
#pragma omp barrier
      for (int k = 0; k < n; ++k)
        if (phase_of[k] != p) bad++;
#pragma omp barrier
    }
  }
  CHECK(bad == 0);
  puts("barrier: ok");
  return 0;
}
