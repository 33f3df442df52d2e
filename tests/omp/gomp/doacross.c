/* doacross: ordered(n) loops with depend(sink: ...) / depend(source), 1-D and 2-D nests and a
   collapsed one, every schedule, long and unsigned long long, up and down. Each iteration
   checks that the iterations it waits for have finished (their flag), and the results are
   compared with the serial loop. A wait on an iteration outside the space returns at once. */
#include <omp.h>
#include <string.h>

#include "check.h"

/* the runtime entry point itself: gcc checks the sink's bounds inline, a direct call does not */
void GOMP_doacross_wait(long first, ...);

#define N 300
#define NI 24
#define NJ 30
static long a[N + 1];
static volatile unsigned long long n_ull = N;
static int done1[N + 1];
static long g[NI][NJ];
static int done2[NI][NJ];

/* some work before the iteration's result appears, so that a missing wait reads stale data.
   Uneven: a thread that runs fast iterations right behind a slow one waits at every step,
   which exposes a wait that returns too early (in lockstep, being late would hide it). */
static void delay(int slow) {
  const int n = slow ? 2000 : 50;
  for (volatile int k = 0; k < n; ++k) {
  }
}

static int is_done(int* flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }
static void set_done(int* flag) { __atomic_store_n(flag, 1, __ATOMIC_RELEASE); }

/* a[k] = a[k - 1] + k + 1 over k = 1..N (KEY gives k from the induction variable), running
   through the loop in the order of its own induction variable (up or down) */
#define CHAIN_1D(SCHED, TYPE, INIT, COND, STEP, KEY, SINK)         \
  do {                                                             \
    memset(a, 0, sizeof a);                                        \
    memset(done1, 0, sizeof done1);                                \
    done1[0] = 1;                                                  \
    _Pragma(SCHED) for (TYPE i = INIT; COND; STEP) {               \
      _Pragma(SINK) {                                              \
        long k = (long)(KEY);                                      \
        CHECK(is_done(&done1[k - 1]));                             \
        long v = a[k - 1] + k + 1;                                 \
        delay(k % 5 == 0);                                         \
        a[k] = v;                                                  \
        set_done(&done1[k]);                                       \
      }                                                            \
      _Pragma("omp ordered depend(source)")                        \
    }                                                              \
    for (long k = 1; k <= N; ++k) CHECK(a[k] == a[k - 1] + k + 1); \
  } while (0)

#define UP_SINK "omp ordered depend(sink : i - 1)"
#define DOWN_SINK "omp ordered depend(sink : i + 1)"

#define ALL_1D(T, I, C, S, K, SINK)                                                  \
  CHAIN_1D("omp parallel for ordered(1) schedule(static)", T, I, C, S, K, SINK);     \
  CHAIN_1D("omp parallel for ordered(1) schedule(static, 7)", T, I, C, S, K, SINK);  \
  CHAIN_1D("omp parallel for ordered(1) schedule(dynamic)", T, I, C, S, K, SINK);    \
  CHAIN_1D("omp parallel for ordered(1) schedule(dynamic, 5)", T, I, C, S, K, SINK); \
  CHAIN_1D("omp parallel for ordered(1) schedule(guided)", T, I, C, S, K, SINK);     \
  CHAIN_1D("omp parallel for ordered(1) schedule(guided, 3)", T, I, C, S, K, SINK);  \
  CHAIN_1D("omp parallel for ordered(1) schedule(runtime)", T, I, C, S, K, SINK)

/* a wavefront: g[i][j] depends on g[i-1][j] and g[i][j-1] */
static long wave_expect(int i, int j) {
  static long e[NI][NJ];
  static int ready;
  if (!ready) {
    for (int x = 0; x < NI; ++x)
      for (int y = 0; y < NJ; ++y) e[x][y] = (x > 0 ? e[x - 1][y] : 0) + (y > 0 ? e[x][y - 1] % 1000 : 0) + x + y;
    ready = 1;
  }
  return e[i][j];
}

#define WAVE_BODY                                                                  \
  {                                                                                \
    if (i > 0) CHECK(is_done(&done2[i - 1][j]));                                   \
    if (j > 0) CHECK(is_done(&done2[i][j - 1]));                                   \
    long v = (i > 0 ? g[i - 1][j] : 0) + (j > 0 ? g[i][j - 1] % 1000 : 0) + i + j; \
    delay(i % 2 == 1); /* odd rows slow: the next row's thread catches up */       \
    g[i][j] = v;                                                                   \
    set_done(&done2[i][j]);                                                        \
  }

#define WAVE_CHECK                                                    \
  for (int x = 0; x < NI; ++x)                                        \
    for (int y = 0; y < NJ; ++y) CHECK(g[x][y] == wave_expect(x, y)); \
  memset(g, 0, sizeof g);                                             \
  memset(done2, 0, sizeof done2)

/* ordered(2): the outer loop is shared out, the inner one runs in order in each iteration */
#define WAVE_2D(SCHED)                                                         \
  do {                                                                         \
    _Pragma(SCHED) for (int i = 0; i < NI; ++i) for (int j = 0; j < NJ; ++j){  \
        _Pragma("omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)") \
            WAVE_BODY _Pragma("omp ordered depend(source)")} WAVE_CHECK;       \
  } while (0)

/* the same nest with the inner loop counting down: the wavefront runs from the right */
static long h[NI][NJ];
static int done3[NI][NJ];

int main(void) {
  /* long, up and down (a negative step) */
  ALL_1D(long, 1, i <= N, ++i, i, UP_SINK);
  ALL_1D(long, N, i >= 1, --i, N + 1 - i, DOWN_SINK);
  /* a step of 3 over an uneven range */
  ALL_1D(long, 2, i < 3 * N + 1, i += 3, (i + 1) / 3, "omp ordered depend(sink : i - 3)");
  /* unsigned long long with a bound known only at run time: gcc uses the _ull_ entry points
     (down-counting unsigned doacross loops are left out: gcc 12 computes their sink
     iteration with the wrong sign, and they hang on libgomp too) */
  ALL_1D(unsigned long long, 1, i <= n_ull, ++i, i, UP_SINK);

  /* 2-D nests */
  WAVE_2D("omp parallel for ordered(2) schedule(static)");
  WAVE_2D("omp parallel for ordered(2) schedule(static, 2)");
  WAVE_2D("omp parallel for ordered(2) schedule(dynamic)");
  WAVE_2D("omp parallel for ordered(2) schedule(guided)");
  WAVE_2D("omp parallel for ordered(2) schedule(runtime)");
  /* collapsed: both loops shared out as one, the sinks in the original dimensions */
#pragma omp parallel for collapse(2) ordered(2) schedule(dynamic, 3)
  for (int i = 0; i < NI; ++i)
    for (int j = 0; j < NJ; ++j) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
      WAVE_BODY
#pragma omp ordered depend(source)
    }
  WAVE_CHECK;

  /* an orphaned doacross loop inside a region, the inner loop counting down */
#pragma omp parallel
  {
#pragma omp for ordered(2) schedule(static, 1) nowait
    for (int i = 0; i < NI; ++i)
      for (int j = NJ - 1; j >= 0; --j) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j + 1)
        {
          if (i > 0) CHECK(is_done(&done3[i - 1][j]));
          if (j < NJ - 1) CHECK(is_done(&done3[i][j + 1]));
          long v = (i > 0 ? h[i - 1][j] : 0) + (j < NJ - 1 ? h[i][j + 1] % 1000 : 0) + i + j;
          delay(i % 2 == 1); /* odd rows slow: the next row's thread catches up */
          h[i][j] = v;
          set_done(&done3[i][j]);
        }
#pragma omp ordered depend(source)
      }
  }
  for (int i = 0; i < NI; ++i)
    for (int j = NJ - 1; j >= 0; --j)
      CHECK(h[i][j] == (i > 0 ? h[i - 1][j] : 0) + (j < NJ - 1 ? h[i][j + 1] % 1000 : 0) + i + j);

      /* waits on iterations outside the space return at once (gcc tests the bounds inline;
         the runtime ignores such a wait too): iteration i waits on -1, N and the last one */
#ifndef __clang__ /* clang emits __kmpc_doacross_wait, and the entry point is gcc's ABI */
  int hits = 0;
#pragma omp parallel for ordered(1) schedule(dynamic) reduction(+ : hits)
  for (long i = 0; i < N; ++i) {
    GOMP_doacross_wait(-1);
    GOMP_doacross_wait(N);
    GOMP_doacross_wait(N + 1000);
    ++hits;
#pragma omp ordered depend(source)
  }
  CHECK(hits == N);
#endif

  /* a doacross loop with reduction(task, ...) (GOMP_loop_doacross_start with a descriptor) */
  {
    long y = 0;
    memset(a, 0, sizeof a);
    memset(done1, 0, sizeof done1);
    done1[0] = 1;
#pragma omp parallel
    {
#pragma omp for ordered(1) reduction(task, + : y) schedule(guided)
      for (long k = 1; k <= N; ++k) {
#pragma omp ordered depend(sink : k - 1)
        {
          CHECK(is_done(&done1[k - 1]));
          a[k] = a[k - 1] + 1;
          set_done(&done1[k]);
        }
#pragma omp task in_reduction(+ : y)
        y += k;
#pragma omp ordered depend(source)
      }
    }
    CHECK(y == (long)N * (N + 1) / 2);
    CHECK(a[N] == N);
  }

  /* an empty doacross loop */
#pragma omp parallel for ordered(1) schedule(dynamic)
  for (long i = 5; i < 5; ++i) {
#pragma omp ordered depend(sink : i - 1)
    CHECK(0);
#pragma omp ordered depend(source)
  }
  puts("doacross: ok");
  return 0;
}
