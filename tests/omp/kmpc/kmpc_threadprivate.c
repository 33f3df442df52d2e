/* kmpc_threadprivate: threadprivate variables (an int with an initial value, a struct, an
   array) with copyin, built with clang's -fnoopenmp-use-tls so that they go through
   __kmpc_threadprivate_cached: each thread's copy starts from the initial value, keeps its
   value across regions (team thread k is the same thread), and copyin copies the primary's.
   Plain C. */
#include <omp.h>
#include <string.h>

#include "check.h"

static int counter = 7;
static struct {
  int a;
  double b;
} rec = {1, 2.5};
static long arr[16];
#pragma omp threadprivate(counter, rec, arr)

int main(void) {
  int bad = 0, team = 1;
#pragma omp parallel reduction(+ : bad)
  {
#pragma omp single
    team = omp_get_num_threads();
    if (counter != 7 || rec.a != 1 || rec.b != 2.5) bad++;
    counter = 100 + omp_get_thread_num();
    rec.a = omp_get_thread_num();
    arr[3] = omp_get_thread_num() * 10;
  }
  CHECK(bad == 0);
#pragma omp parallel reduction(+ : bad)
  {
    if (omp_get_num_threads() == team) {
      int me = omp_get_thread_num();
      if (counter != 100 + me || rec.a != me || arr[3] != me * 10) bad++;
    }
  }
  CHECK(bad == 0);
  counter = 55;
  arr[5] = 9;
#pragma omp parallel copyin(counter, arr) reduction(+ : bad)
  {
    if (counter != 55 || arr[5] != 9) bad++;
  }
  CHECK(bad == 0);
  printf("kmpc_threadprivate: ok\n");
  return 0;
}
