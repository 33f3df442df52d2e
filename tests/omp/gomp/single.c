/* single, copyprivate, master and masked: exactly one thread runs each encounter (also with
   nowait, many encounters in a row), copyprivate broadcasts the executing thread's values. */
#include <omp.h>
#include <string.h>

#include "check.h"

int main(void) {
  int count[200];
  memset(count, 0, sizeof count);
  int bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    for (int k = 0; k < 100; ++k) {
#pragma omp single
      count[k]++;
      /* after the implied barrier everybody sees it */
      if (count[k] != 1) bad++;
    }
    for (int k = 100; k < 200; ++k) {
#pragma omp single nowait
      {
#pragma omp atomic
        count[k]++;
      }
    }
#pragma omp barrier
    for (int k = 100; k < 200; ++k)
      if (count[k] != 1) bad++;

    for (int k = 0; k < 50; ++k) {
      int a, b;
      double d;
#pragma omp single copyprivate(a, b, d)
      {
        a = k;
        b = omp_get_thread_num();
        d = k * 0.5;
      }
      if (a != k || d != k * 0.5 || b < 0 || b >= omp_get_num_threads()) bad++;
    }
    int m = 0;
#pragma omp master
    m = 1;
    if (m != (omp_get_thread_num() == 0)) bad++;
    int f = 0;
#pragma omp masked filter(1)
    f = 1;
    if (f != (omp_get_thread_num() == 1)) bad++;
  }
  CHECK(bad == 0);
  /* orphaned single outside any region */
  int once = 0;
#pragma omp single
  once++;
  CHECK(once == 1);
  puts("single: ok");
  return 0;
}
