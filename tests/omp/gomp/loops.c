/* loops: every schedule (static, static chunk, dynamic, guided, runtime, monotonic and
   nonmonotonic), up and down, steps other than one, empty and reversed ranges, nowait
   chains longer than the work-share ring, collapse(2), combined parallel for, orphaned
   loops, and long ranges near the type's limits. Every iteration must run exactly once. */
#include <limits.h>
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 1000
static int hits[N + 1];

static void reset(void) { memset(hits, 0, sizeof hits); }
/* each i in [lo, hi) with (i - lo) % step == 0 exactly once, nothing else */
static void expect_up(long lo, long hi, long step) {
  for (long i = 0; i <= N; ++i) {
    int want = (i >= lo && i < hi && (i - lo) % step == 0) ? 1 : 0;
    if (hits[i] != want) {
      fprintf(stderr, "iteration %ld ran %d times, expected %d\n", i, hits[i], want);
      exit(1);
    }
  }
}

#define LOOP_UP(SCHED, LO, HI, STEP)                                                                 \
  do {                                                                                               \
    reset();                                                                                         \
    _Pragma("omp parallel") {                                                                        \
      _Pragma(SCHED) for (long i = (LO); i < (HI); i += (STEP)) { _Pragma("omp atomic") hits[i]++; } \
    }                                                                                                \
    expect_up((LO), (HI), (STEP));                                                                   \
  } while (0)

#define LOOP_DOWN(SCHED, HI, LO, STEP)                                                                           \
  do {                                                                                                           \
    reset();                                                                                                     \
    _Pragma("omp parallel") {                                                                                    \
      _Pragma(SCHED) for (long i = (HI); i > (LO); i -= (STEP)) { _Pragma("omp atomic") hits[i]++; }             \
    }                                                                                                            \
    for (long i = 0; i <= N; ++i) CHECK(hits[i] == ((i <= (HI) && i > (LO) && ((HI)-i) % (STEP) == 0) ? 1 : 0)); \
  } while (0)

#define ALL_SCHEDULES(M, A, B, C)                        \
  M("omp for schedule(static)", A, B, C);                \
  M("omp for schedule(static, 7)", A, B, C);             \
  M("omp for schedule(dynamic)", A, B, C);               \
  M("omp for schedule(dynamic, 13)", A, B, C);           \
  M("omp for schedule(monotonic: dynamic, 5)", A, B, C); \
  M("omp for schedule(guided)", A, B, C);                \
  M("omp for schedule(guided, 9)", A, B, C);             \
  M("omp for schedule(monotonic: guided)", A, B, C);     \
  M("omp for schedule(runtime)", A, B, C);               \
  M("omp for schedule(monotonic: runtime)", A, B, C);    \
  M("omp for schedule(nonmonotonic: runtime)", A, B, C); \
  M("omp for schedule(auto)", A, B, C)

/* an orphaned loop: *acc is shared by the calling team; the loop's barrier completes it */
static long orphan(long n, long* acc) {
#pragma omp for schedule(guided, 2)
  for (long i = 0; i < n; ++i) {
#pragma omp atomic
    *acc += i;
  }
  return *acc;
}

int main(void) {
  ALL_SCHEDULES(LOOP_UP, 0, N, 1);
  ALL_SCHEDULES(LOOP_UP, 3, 998, 3);
  ALL_SCHEDULES(LOOP_UP, 5, 5, 1); /* empty */
  ALL_SCHEDULES(LOOP_UP, 9, 2, 1); /* reversed: empty */
  ALL_SCHEDULES(LOOP_UP, 0, 1, 1); /* one iteration */
  ALL_SCHEDULES(LOOP_DOWN, N, 0, 1);
  ALL_SCHEDULES(LOOP_DOWN, N, -1, 4);
  ALL_SCHEDULES(LOOP_DOWN, 3, 3, 1); /* empty */
  ALL_SCHEDULES(LOOP_DOWN, 2, 9, 1); /* reversed: empty */

  static const int kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided, omp_sched_auto};
  for (int k = 0; k < 4; ++k) {
    for (int chunk = 0; chunk < 3; ++chunk) {
      omp_set_schedule((omp_sched_t)kinds[k], chunk * 4);
      LOOP_UP("omp for schedule(runtime)", 1, N, 2);
      LOOP_DOWN("omp for schedule(runtime)", N - 1, 0, 3);
    }
  }

  /* the runtime's chunk mapping itself: static,4 through schedule(runtime) gives chunk c to
     thread c % nthreads, counting down with step 3 */
  static int owner[N];
  omp_set_schedule(omp_sched_static, 4);
  int nthr = 1;
#pragma omp parallel
  {
#pragma omp single
    nthr = omp_get_num_threads();
#pragma omp for schedule(runtime)
    for (long i = 3 * N - 1; i >= 0; i -= 3) owner[(3 * N - 1 - i) / 3] = omp_get_thread_num();
  }
  for (long k = 0; k < N; ++k) CHECK(owner[k] == (int)((k / 4) % nthr));

  /* combined parallel for, dynamic and runtime (GOMP_parallel_loop_*) */
  reset();
#pragma omp parallel for schedule(dynamic, 4)
  for (long i = 0; i < N; ++i) {
#pragma omp atomic
    hits[i]++;
  }
  expect_up(0, N, 1);
  reset();
#pragma omp parallel for schedule(runtime)
  for (long i = 10; i < N; i += 10) {
#pragma omp atomic
    hits[i]++;
  }
  expect_up(10, N, 10);
  reset();
#pragma omp parallel for schedule(monotonic : guided, 3)
  for (long i = N; i > 0; --i) {
#pragma omp atomic
    hits[i]++;
  }
  for (long i = 0; i <= N; ++i) CHECK(hits[i] == (i > 0));

  /* 40 nowait loops in a row: fast threads run many work shares ahead of slow ones */
  static int grid[40][64];
  memset(grid, 0, sizeof grid);
#pragma omp parallel
  {
    for (int k = 0; k < 40; ++k) {
#pragma omp for schedule(dynamic) nowait
      for (int i = 0; i < 64; ++i) {
#pragma omp atomic
        grid[k][i]++;
      }
    }
  }
  for (int k = 0; k < 40; ++k)
    for (int i = 0; i < 64; ++i) CHECK(grid[k][i] == 1);

  /* collapse(2) over a flattened space */
  static int sq[31][17];
  memset(sq, 0, sizeof sq);
#pragma omp parallel for collapse(2) schedule(dynamic, 5)
  for (int i = 0; i < 31; ++i)
    for (int j = 0; j < 17; ++j) {
#pragma omp atomic
      sq[i][j]++;
    }
  for (int i = 0; i < 31; ++i)
    for (int j = 0; j < 17; ++j) CHECK(sq[i][j] == 1);

  /* orphaned loops: outside any region, and called from inside one */
  long acc = 0;
  CHECK(orphan(1000, &acc) == 499500);
  acc = 0;
  int bad = 0;
#pragma omp parallel reduction(+ : bad)
  if (orphan(1000, &acc) != 499500) bad++;
  CHECK(bad == 0);

  /* long ranges near LONG_MAX / LONG_MIN (the bounds leave room for the last increment, or
     the serial loop itself would overflow): the last chunk must end exactly at the bound */
  long cnt = 0;
#pragma omp parallel for schedule(dynamic, 1000) reduction(+ : cnt)
  for (long i = LONG_MAX - 10000; i < LONG_MAX - 2; i += 3) cnt++;
  CHECK(cnt == 3333);
  cnt = 0;
#pragma omp parallel for schedule(guided) reduction(+ : cnt)
  for (long i = LONG_MIN + 9999; i > LONG_MIN + 6; i -= 7) cnt++;
  CHECK(cnt == 1428);
  puts("loops: ok");
  return 0;
}
