/* ordered: ordered regions of static, static-chunk, dynamic, guided and runtime loops (long
   and unsigned long long, up and down) run in iteration order; the rest of the body runs in
   parallel. Iterations that skip their ordered region must not stall the others. */
#include <omp.h>

#include "check.h"

#define N 500
static long seq[N];
static int pos;

#define ORDERED(SCHED, TYPE, INIT, COND, STEP, KEY)            \
  do {                                                         \
    pos = 0;                                                   \
    _Pragma("omp parallel") {                                  \
      _Pragma(SCHED) for (TYPE i = INIT; COND; STEP) {         \
        if ((KEY) % 5 != 3) {                                  \
          _Pragma("omp ordered") { seq[pos++] = (long)(KEY); } \
        }                                                      \
      }                                                        \
    }                                                          \
    long prev = -1;                                            \
    int expect = 0;                                            \
    for (int k = 0; k < N; ++k)                                \
      if (k % 5 != 3) expect++;                                \
    CHECK(pos == expect);                                      \
    for (int k = 0; k < pos; ++k) {                            \
      CHECK(seq[k] > prev);                                    \
      CHECK(seq[k] % 5 != 3);                                  \
      prev = seq[k];                                           \
    }                                                          \
  } while (0)

#define ALL(M, T, I, C, S, K)                               \
  M("omp for ordered schedule(static)", T, I, C, S, K);     \
  M("omp for ordered schedule(static, 3)", T, I, C, S, K);  \
  M("omp for ordered schedule(dynamic)", T, I, C, S, K);    \
  M("omp for ordered schedule(dynamic, 4)", T, I, C, S, K); \
  M("omp for ordered schedule(guided)", T, I, C, S, K);     \
  M("omp for ordered schedule(runtime)", T, I, C, S, K)

int main(void) {
  ALL(ORDERED, long, 0, i < N, ++i, i);
  ALL(ORDERED, long, N - 1, i >= 0, --i, N - 1 - i);
  ALL(ORDERED, unsigned long long, 0, i < N, ++i, i);
  ALL(ORDERED, unsigned long long, N, i > 0, --i, N - i);
  /* nowait ordered loops back to back: loops r and r+1 may overlap, each stays in order */
  static int seqr[3][100];
  int posr[3] = {0, 0, 0};
#pragma omp parallel
  {
    for (int r = 0; r < 3; ++r) {
#pragma omp for ordered schedule(dynamic, 2) nowait
      for (int i = 0; i < 100; ++i) {
#pragma omp ordered
        seqr[r][posr[r]++] = i;
      }
    }
  }
  for (int r = 0; r < 3; ++r) {
    CHECK(posr[r] == 100);
    for (int k = 0; k < 100; ++k) CHECK(seqr[r][k] == k);
  }
  puts("ordered: ok");
  return 0;
}
