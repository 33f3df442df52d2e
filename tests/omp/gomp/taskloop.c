/* taskloop: default, grainsize, strict grainsize, num_tasks, nogroup (then taskwait), if(0),
   negative steps, unsigned long long up and down, and firstprivate data next to the bounds.
   Every iteration runs exactly once. */
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define N 999
static int hits[N + 1];

static void expect(long lo, long hi, long step) { /* i in [lo, hi] with (i - lo) % step == 0 */
  for (long i = 0; i <= N; ++i) {
    int want = i >= lo && i <= hi && (i - lo) % step == 0;
    if (hits[i] != want) {
      fprintf(stderr, "iteration %ld ran %d times, expected %d\n", i, hits[i], want);
      exit(1);
    }
  }
}

static int tasks_made; /* each task counts itself once, through its own copy of `first` */

#define TASKLOOP(CLAUSES, TYPE, INIT, COND, STEP)        \
  do {                                                   \
    memset(hits, 0, sizeof hits);                        \
    tasks_made = 0;                                      \
    int first = 1;                                       \
    _Pragma("omp parallel") _Pragma("omp single") {      \
      _Pragma(CLAUSES) for (TYPE i = INIT; COND; STEP) { \
        if (first) {                                     \
          first = 0;                                     \
          _Pragma("omp atomic") tasks_made++;            \
        }                                                \
        _Pragma("omp atomic") hits[i]++;                 \
      }                                                  \
      _Pragma("omp taskwait")                            \
    }                                                    \
  } while (0)

int main(void) {
  TASKLOOP("omp taskloop firstprivate(first)", long, 0, i < N, ++i);
  expect(0, N - 1, 1);
  TASKLOOP("omp taskloop firstprivate(first) grainsize(16)", long, 0, i < N, ++i);
  expect(0, N - 1, 1);
  CHECK(tasks_made == N / 16);
#ifndef __clang__ /* clang 14 does not parse the strict modifier */
  TASKLOOP("omp taskloop firstprivate(first) grainsize(strict: 10)", long, 3, i < N, i += 2);
  expect(3, N - 1, 2);
  CHECK(tasks_made == 50); /* 498 iterations in strict chunks of 10 */
#endif
  TASKLOOP("omp taskloop firstprivate(first) num_tasks(7)", long, 0, i <= N, ++i);
  expect(0, N, 1);
  CHECK(tasks_made == 7);
  TASKLOOP("omp taskloop firstprivate(first) num_tasks(4)", long, N, i >= 0, i -= 2); /* negative step */
  expect(1, N, 2);
  CHECK(tasks_made == 4);
  TASKLOOP("omp taskloop firstprivate(first) nogroup num_tasks(5)", long, 0, i < N, i += 3);
  expect(0, N - 1, 3);
  TASKLOOP("omp taskloop firstprivate(first) if(0) grainsize(100)", long, 10, i < 20, ++i);
  expect(10, 19, 1);
  TASKLOOP("omp taskloop firstprivate(first) num_tasks(2000)", long, 0, i < 5, ++i); /* more tasks than iterations */
  expect(0, 4, 1);
  CHECK(tasks_made == 5);
  TASKLOOP("omp taskloop firstprivate(first)", long, 5, i < 5, ++i); /* empty */
  expect(1, 0, 1);
  TASKLOOP("omp taskloop firstprivate(first) untied mergeable grainsize(7)", unsigned long long, 0, i < N, ++i);
  expect(0, N - 1, 1);
  TASKLOOP("omp taskloop firstprivate(first) num_tasks(3)", unsigned long long, N, i > 0, --i); /* ull down */
  expect(1, N, 1);
  CHECK(tasks_made == 3);
#ifndef __clang__
  TASKLOOP("omp taskloop firstprivate(first) grainsize(strict: 9)", unsigned long long, N, i >= 5, i -= 5);
  expect(9, N, 5);
#endif

  /* without nogroup the taskloop waits for its tasks (an implicit taskgroup) */
  memset(hits, 0, sizeof hits);
  int early = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop num_tasks(8)
    for (long i = 0; i < 64; ++i) {
      usleep(200);
#pragma omp atomic
      hits[i]++;
    }
    for (int i = 0; i < 64; ++i)
      if (__atomic_load_n(&hits[i], __ATOMIC_RELAXED) != 1) early++;
  }
  CHECK(early == 0);

  /* firstprivate data travels with the bounds */
  long base = 1000, sum = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop firstprivate(base) grainsize(50)
  for (long i = 0; i < 500; ++i) {
#pragma omp atomic
    sum += base + i;
  }
  CHECK(sum == 500 * 1000 + 124750);
  puts("taskloop: ok");
  return 0;
}
