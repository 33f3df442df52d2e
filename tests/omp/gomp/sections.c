/* sections and parallel sections: every section runs exactly once per encounter, with and
   without nowait, more sections than threads and fewer. */
#include <omp.h>
#include <string.h>

#include "check.h"

static int ran[8];

int main(void) {
  for (int rep = 0; rep < 20; ++rep) {
    memset(ran, 0, sizeof ran);
#pragma omp parallel sections
    {
#pragma omp section
      ran[0]++;
#pragma omp section
      ran[1]++;
#pragma omp section
      ran[2]++;
#pragma omp section
      ran[3]++;
#pragma omp section
      ran[4]++;
    }
    for (int i = 0; i < 5; ++i) CHECK(ran[i] == 1);
  }
  int bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    for (int rep = 0; rep < 20; ++rep) {
#pragma omp sections
      {
#pragma omp section
        {
#pragma omp atomic
          ran[5]++;
        }
#pragma omp section
        {
#pragma omp atomic
          ran[6]++;
        }
      }
      if (ran[5] != rep + 1 || ran[6] != rep + 1) bad++;
#pragma omp barrier
    }
#pragma omp sections nowait
    {
#pragma omp section
      {
#pragma omp atomic
        ran[7]++;
      }
    }
  }
  CHECK(bad == 0);
  CHECK(ran[7] == 1);
  puts("sections: ok");
  return 0;
}
