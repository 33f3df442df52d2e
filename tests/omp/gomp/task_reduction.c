/* task reductions: taskgroup task_reduction with in_reduction tasks (int and double, nested
   tasks, an enclosing group's variable from an inner group), taskloop reduction, and
   parallel reduction(task, ...). Results are compared with the serial sums. */
#include <omp.h>

#include "check.h"

enum { k_tasks = 10000, k_reps = 5 };

static long serial_isum(int n) { return (long)n * (n - 1) / 2; }

/* one taskgroup, 10^4 tasks, an int and a double */
static void taskgroup_flat(void) {
  int isum = 0;
  double dsum = 0.0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup task_reduction(+ : isum, dsum)
    {
      for (int i = 0; i < k_tasks; ++i) {
#pragma omp task in_reduction(+ : isum, dsum)
        {
          isum += i % 7;
          dsum += 0.5;
        }
      }
    }
  }
  long want = 0;
  for (int i = 0; i < k_tasks; ++i) want += i % 7;
  CHECK(isum == want);
  CHECK(dsum == 0.5 * k_tasks);
}

/* in_reduction in nested tasks, and an inner taskgroup with its own reduction whose tasks
   also contribute to the outer one */
static void taskgroup_nested(void) {
  long outer = 0, inner = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup task_reduction(+ : outer)
    {
      for (int i = 0; i < 100; ++i) {
#pragma omp task in_reduction(+ : outer)
        {
          outer += i;
          for (int j = 0; j < 10; ++j) {
#pragma omp task in_reduction(+ : outer)
            outer += j;
          }
        }
      }
#pragma omp task in_reduction(+ : outer) shared(inner)
      {
#pragma omp taskgroup task_reduction(+ : inner)
        {
          for (int k = 0; k < 50; ++k) {
#pragma omp task in_reduction(+ : inner, outer)
            {
              inner += k;
              outer += 1;
            }
          }
        }
      }
    }
  }
  CHECK(inner == serial_isum(50));
  CHECK(outer == serial_isum(100) + 100 * serial_isum(10) + 50);
}

/* orphaned: outside every parallel region */
static void taskgroup_initial(void) {
  int s = 0;
#pragma omp taskgroup task_reduction(+ : s)
  {
    for (int i = 0; i < 100; ++i) {
#pragma omp task in_reduction(+ : s)
      s += i;
    }
  }
  CHECK(s == serial_isum(100));
}

static void taskloop_reduction(void) {
  long s = 0;
  double d = 0.0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop reduction(+ : s, d) grainsize(64)
    for (int i = 0; i < k_tasks; ++i) {
      s += i;
      d += 0.25;
    }
  }
  CHECK(s == serial_isum(k_tasks));
  CHECK(d == 0.25 * k_tasks);
}

static void parallel_task_reduction(void) {
  long s = 0;
#pragma omp parallel reduction(task, + : s)
  {
#pragma omp single
    for (int i = 0; i < 1000; ++i) {
#pragma omp task in_reduction(+ : s)
      s += i;
    }
    s += 1; /* every implicit task adds one too */
  }
  CHECK(s == serial_isum(1000) + omp_get_max_threads());
}

int main(void) {
  for (int rep = 0; rep < k_reps; ++rep) {
    taskgroup_flat();
    taskgroup_nested();
    taskloop_reduction();
    parallel_task_reduction();
  }
  taskgroup_initial(); /* last: libgomp keeps the team it makes for it, and later regions hang */
  printf("task_reduction: ok\n");
  return 0;
}
