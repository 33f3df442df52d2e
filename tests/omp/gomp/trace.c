/* trace: a program whose OpenMP trace (FORKJOIN_TRACE) has a known shape. It prints what it
   did, for check_trace.py to compare with the trace: "region <team size>" per parallel region
   in the order the initial thread starts them, then "tasks <explicit tasks run>". Regions:
   a plain one with a barrier, one that makes explicit tasks (some undeferred), one with a
   taskloop, and one with more threads than nthreads-var (spare team threads). */
#include <omp.h>
#include <stdio.h>

#include "check.h"

#define K_TASKS 40
#define K_LOOP_TASKS 12

static int tasks_run;

static void work(void) {
  volatile int x = 0;
  for (int i = 0; i < 20000; ++i) x = x + i;
}

int main(void) {
  int sizes[4];
  int r = 0;

  /* num_threads: the first region starts before the default pool exists (no idle workers to
     reserve first), so its primary's turn is traced only because FORKJOIN_TRACE was seen at load */
#pragma omp parallel num_threads(omp_get_max_threads())
  {
#pragma omp single
    sizes[r] = omp_get_num_threads();
    work();
#pragma omp barrier
    work();
  }
  ++r;

#pragma omp parallel
  {
#pragma omp single
    {
      sizes[r] = omp_get_num_threads();
      for (int i = 0; i < K_TASKS; ++i) {
#pragma omp task if (i % 5 != 0)
        {
          work();
#pragma omp atomic
          ++tasks_run;
        }
      }
    }
  }
  ++r;

#pragma omp parallel
  {
#pragma omp single
    {
      sizes[r] = omp_get_num_threads();
#pragma omp taskloop num_tasks(K_LOOP_TASKS)
      for (int i = 0; i < 10 * K_LOOP_TASKS; ++i) {
        work();
        if (i % 10 == 0) {
#pragma omp atomic
          ++tasks_run;
        }
      }
    }
  }
  ++r;

#pragma omp parallel num_threads(omp_get_max_threads() + 2)
  {
#pragma omp single
    sizes[r] = omp_get_num_threads();
    work();
  }
  ++r;

  CHECK(tasks_run == K_TASKS + K_LOOP_TASKS);
  for (int i = 0; i < r; ++i) printf("region %d\n", sizes[i]);
  printf("tasks %d\n", tasks_run);
  return 0;
}
