/* ws_task_reduction: reduction(task, ...) on worksharing constructs: loops of every schedule
   (long and unsigned long long, GOMP_loop_start and GOMP_loop_ull_start with a descriptor),
   ordered loops (GOMP_loop_ordered_start),
   sections (GOMP_sections2_start) and scope (GOMP_scope_start); tasks created in
   them with in_reduction combine into the copy of whichever team thread runs them. Also
   nested inside parallel reduction(task, ...), orphaned, and repeated past the work-share
   ring. Every result is compared with the serial answer. */
#include <omp.h>

#include "check.h"

#define N 300
#define PRAGMA(x) _Pragma(#x)

static long o; /* shared: an orphaned construct's variable */

static long serial_sum(long n) { return n * (n - 1) / 2; }

/* the body of each iteration: a task adds i, a nested task adds 1, the iteration itself 2 */
#define BODY(VAR, I)                                   \
  do {                                                 \
    PRAGMA(omp task in_reduction(+ : VAR)) {           \
      VAR += (long)(I);                                \
      PRAGMA(omp task in_reduction(+ : VAR)) VAR += 1; \
    }                                                  \
    VAR += 2;                                          \
  } while (0)

#define LOOP(SCHED)                                                                     \
  do {                                                                                  \
    long x = 0;                                                                         \
    _Pragma("omp parallel") { _Pragma(SCHED) for (long i = 0; i < N; ++i) BODY(x, i); } \
    CHECK(x == serial_sum(N) + 3 * N);                                                  \
  } while (0)

int main(void) {
  LOOP("omp for reduction(task, + : x) schedule(static)");
  LOOP("omp for reduction(task, + : x) schedule(static, 4)");
  LOOP("omp for reduction(task, + : x) schedule(dynamic)");
  LOOP("omp for reduction(task, + : x) schedule(dynamic, 7)");
  LOOP("omp for reduction(task, + : x) schedule(guided)");
  LOOP("omp for reduction(task, + : x) schedule(runtime)");

  /* unsigned long long, counting down; two variables of two types, one of them a max */
  {
    long s = 0;
    int m = -1;
    static volatile unsigned long long n_ull = N;
#pragma omp parallel
    {
#pragma omp for reduction(task, + : s) reduction(task, max : m) schedule(dynamic, 3)
      for (unsigned long long i = n_ull; i > 0; --i) {
#pragma omp task in_reduction(+ : s) in_reduction(max : m)
        {
          s += (long)i;
          if ((int)i > m) m = (int)i;
        }
      }
    }
    CHECK(s == serial_sum(N + 1));
    CHECK(m == N);
  }

  /* sections and scope */
  {
    long y = 0, z = 0;
#pragma omp parallel
    {
#pragma omp sections reduction(task, + : y)
      {
#pragma omp section
        BODY(y, 10);
#pragma omp section
        BODY(y, 20);
#pragma omp section
        {
          for (int k = 0; k < 50; ++k) BODY(y, k);
        }
      }
#pragma omp scope reduction(task, + : z)
      {
        /* read here: inside BODY's task it would be the number of whichever thread runs it */
        const long me = omp_get_thread_num();
        BODY(z, me);
      }
      /* scope again, with no task from this thread's part but one */
#pragma omp scope reduction(task, + : z)
      {
#pragma omp task in_reduction(+ : z)
        z += 100;
      }
    }
    CHECK(y == 10 + 20 + serial_sum(50) + 3 * 52);
    /* every thread of the team runs both scopes: its thread number plus 3, and 100 */
    long team = 0;
#pragma omp parallel reduction(+ : team)
    team = 1;
    CHECK(z == serial_sum(team) + 3 * team + 100 * team);
  }

  /* nested inside parallel reduction(task, ...): tasks add to both lists' variables */
  {
    long p = 0, q = 0;
#pragma omp parallel reduction(task, + : p)
    {
#pragma omp for reduction(task, + : q) schedule(guided, 2)
      for (long i = 0; i < N; ++i) {
#pragma omp task in_reduction(+ : p) in_reduction(+ : q)
        {
          p += 1;
          q += i;
        }
      }
    }
    CHECK(q == serial_sum(N));
    CHECK(p == N);
  }

  /* an ordered loop (GOMP_loop_ordered_start with a descriptor): the ordered regions still
     run in iteration order */
  {
    long x = 0;
    static long order[N];
    int pos = 0;
#pragma omp parallel
    {
#pragma omp for ordered reduction(task, + : x) schedule(dynamic, 2)
      for (long i = 0; i < N; ++i) {
#pragma omp task in_reduction(+ : x)
        x += i;
#pragma omp ordered
        order[pos++] = i;
      }
    }
    CHECK(x == serial_sum(N));
    CHECK(pos == N);
    for (int k = 0; k < N; ++k) CHECK(order[k] == k);
  }

  /* more constructs than the work-share ring holds, in one region */
  {
    long r = 0;
#pragma omp parallel
    for (int round = 0; round < 20; ++round) {
#pragma omp for reduction(task, + : r) schedule(dynamic, 16)
      for (long i = 0; i < 64; ++i) {
#pragma omp task in_reduction(+ : r)
        r += i;
      }
    }
    CHECK(r == 20 * serial_sum(64));
  }

  /* orphaned: outside any region (a team of one) */
  {
#pragma omp for reduction(task, + : o) schedule(dynamic)
    for (long i = 0; i < N; ++i) BODY(o, i);
    CHECK(o == serial_sum(N) + 3 * N);
  }
  puts("ws_task_reduction: ok");
  return 0;
}
