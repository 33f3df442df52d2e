/* loops_ull: unsigned long long loops (GOMP_loop_ull_*), up and down (the runtime gets
   up=false and the increment as a two's-complement value), every dynamic schedule, empty
   ranges, and bounds at 0 and ULLONG_MAX. */
#include <limits.h>
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 600ULL
static int hits[N + 1];

#define ULL_LOOP(SCHED, INIT, COND, STEP, EXPECT)                    \
  do {                                                               \
    memset(hits, 0, sizeof hits);                                    \
    unsigned long long cnt = 0;                                      \
    _Pragma("omp parallel reduction(+ : cnt)") {                     \
      _Pragma(SCHED) for (unsigned long long i = INIT; COND; STEP) { \
        if (i <= N) {                                                \
          _Pragma("omp atomic") hits[i]++;                           \
        }                                                            \
        cnt++;                                                       \
      }                                                              \
    }                                                                \
    CHECK(cnt == (EXPECT));                                          \
  } while (0)

#define SCHEDS(M, INIT, COND, STEP, EXPECT)                               \
  M("omp for schedule(dynamic)", INIT, COND, STEP, EXPECT);               \
  M("omp for schedule(dynamic, 7)", INIT, COND, STEP, EXPECT);            \
  M("omp for schedule(monotonic: dynamic, 3)", INIT, COND, STEP, EXPECT); \
  M("omp for schedule(guided)", INIT, COND, STEP, EXPECT);                \
  M("omp for schedule(monotonic: guided, 4)", INIT, COND, STEP, EXPECT);  \
  M("omp for schedule(runtime)", INIT, COND, STEP, EXPECT);               \
  M("omp for schedule(monotonic: runtime)", INIT, COND, STEP, EXPECT);    \
  M("omp for schedule(static)", INIT, COND, STEP, EXPECT);                \
  M("omp for schedule(static, 5)", INIT, COND, STEP, EXPECT)

int main(void) {
  SCHEDS(ULL_LOOP, 0, i < N, ++i, N);
  for (unsigned long long i = 0; i <= N; ++i) CHECK(hits[i] == (i < N));
  SCHEDS(ULL_LOOP, N, i > 0, --i, N); /* down to (not including) 0 */
  for (unsigned long long i = 0; i <= N; ++i) CHECK(hits[i] == (i > 0));
  SCHEDS(ULL_LOOP, N, i >= 3, i -= 3, N / 3);
  for (unsigned long long i = 0; i <= N; ++i) CHECK(hits[i] == (i >= 3 && i % 3 == 0));
  SCHEDS(ULL_LOOP, 5, i < 5, ++i, 0); /* empty */
  SCHEDS(ULL_LOOP, 5, i > 9, --i, 0); /* reversed: empty */
  /* near the top of the range */
  SCHEDS(ULL_LOOP, ULLONG_MAX - 1000, i < ULLONG_MAX - 6, i += 7, 142); /* no wrap after the last */
  SCHEDS(ULL_LOOP, ULLONG_MAX, i > ULLONG_MAX - 1000, i -= 9, 112);
  /* the runtime's chunk mapping itself: schedule(runtime) with static,5 gives chunk c (five
     iterations, counted from the start) to thread c % nthreads, also counting down */
  static int owner[N];
  omp_set_schedule(omp_sched_static, 5);
  int nthr = 1;
#pragma omp parallel
  {
#pragma omp single
    nthr = omp_get_num_threads();
#pragma omp for schedule(runtime)
    for (unsigned long long i = N; i > 0; --i) owner[N - i] = omp_get_thread_num();
  }
  for (unsigned long long k = 0; k < N; ++k) CHECK(owner[k] == (int)((k / 5) % (unsigned long long)nthr));

  /* combined parallel for over ull */
  unsigned long long s = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : s)
  for (unsigned long long i = 1000; i > 0; --i) s += i;
  CHECK(s == 500500);
  puts("loops_ull: ok");
  return 0;
}
