/* kmpc_constructs: what clang's OpenMP code asks of the runtime beyond the other construct
   programs: worksharing loops over int, unsigned, long long and unsigned long long, up and
   down, with strides, in every schedule clang names (simd, monotonic and nonmonotonic forms,
   runtime, auto), each iteration run exactly once and lastprivate from the last one; the
   same static schedule for the same loop; ordered under every schedule; single, copyprivate,
   master, masked, critical with a hint; reductions of every operator and type, user-defined
   ones, nowait and orphaned; sections with lastprivate; num_threads and proc_bind. Compared
   with the serial answers. Plain C (also compiled by gcc). */
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 1000
static int hits[N];
static const char* current; /* the loop's pragma, for the message */

static void clear(void) { memset(hits, 0, sizeof hits); }
static void expect_once(int lo, int hi, int step) {
  for (int i = 0; i < N; ++i) {
    int want = i >= lo && i <= hi && (i - lo) % step == 0;
    if (hits[i] != want) {
      fprintf(stderr, "%s: iteration %d ran %d times (range %d..%d step %d)\n", current, i, hits[i], lo, hi, step);
      exit(1);
    }
  }
}

#define LOOP(PRAGMA, TYPE, INIT, COND, STEP, LO, HI, ST) \
  do {                                                   \
    clear();                                             \
    current = PRAGMA;                                    \
    TYPE last = 0, want = 0;                             \
    int any = 0;                                         \
    for (TYPE i = INIT; COND; STEP) {                    \
      want = i;                                          \
      any = 1;                                           \
    }                                                    \
    _Pragma(PRAGMA) for (TYPE i = INIT; COND; STEP) {    \
      _Pragma("omp atomic") hits[i]++;                   \
      last = i;                                          \
    }                                                    \
    expect_once(LO, HI, ST);                             \
    CHECK(!any || last == want);                         \
  } while (0)

/* gcc 12 runs no iteration of a down-counting unsigned loop under a dynamic schedule (on
   libgomp too): those run only in the clang build, which this program is for */
#ifdef __clang__
#define DOWN_UNSIGNED(x) x
#else
#define DOWN_UNSIGNED(x) (void)0
#endif

#define EVERY_TYPE(PRAGMA)                                                               \
  do {                                                                                   \
    LOOP(PRAGMA, int, 0, i < N, ++i, 0, N - 1, 1);                                       \
    LOOP(PRAGMA, int, N - 1, i >= 3, i -= 7, 3 + (N - 1 - 3) % 7, N - 1, 7);             \
    LOOP(PRAGMA, unsigned, 5, i < N, i += 3, 5, N - 1, 3);                               \
    DOWN_UNSIGNED(LOOP(PRAGMA, unsigned, N - 1, i > 10, i -= 2, 11, N - 1, 2));          \
    LOOP(PRAGMA, long long, 2, i <= N - 1, i += 5, 2, N - 1, 5);                         \
    LOOP(PRAGMA, long long, N - 1, i >= 0, --i, 0, N - 1, 1);                            \
    LOOP(PRAGMA, unsigned long long, 1, i < N, i += 11, 1, N - 1, 11);                   \
    DOWN_UNSIGNED(LOOP(PRAGMA, unsigned long long, N - 1, i >= 7, i -= 4, 7, N - 1, 4)); \
    LOOP(PRAGMA, int, 10, i < 10, ++i, 1, 0, 1); /* empty */                             \
  } while (0)

/* the last value of a down-counting lastprivate is the lowest visited: checked apart */
static void down_lastprivate(void) {
  int last = -1;
#pragma omp parallel for schedule(dynamic, 3) lastprivate(last)
  for (int i = 100; i > 0; i -= 3) last = i;
  CHECK(last == 1);
  unsigned long long ulast = 0;
#pragma omp parallel for schedule(static, 2) lastprivate(ulast)
  for (unsigned long long i = 77; i >= 7; i -= 7) ulast = i;
  CHECK(ulast == 7);
}

typedef struct {
  int a;
  double b;
  char name[8];
} record;

#pragma omp declare reduction(rmax:record                                          \
                              : omp_out = omp_in.a > omp_out.a ? omp_in : omp_out) \
    initializer(omp_priv = (record){-1, 0, "none"})

static long orphaned_total;
static void orphaned_sum(int n) {
#pragma omp for reduction(+ : orphaned_total) schedule(guided, 2)
  for (int i = 0; i < n; ++i) orphaned_total += i;
}

int main(void) {
  /* every schedule, every index type */
  EVERY_TYPE("omp parallel for schedule(static) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(static, 1) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(static, 7) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(monotonic: static, 3) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(simd: static, 4) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(dynamic) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(dynamic, 13) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(nonmonotonic: dynamic, 2) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(monotonic: dynamic) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(guided) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(guided, 9) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(simd: guided, 8) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(runtime) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(simd: runtime) lastprivate(last)");
  EVERY_TYPE("omp parallel for schedule(auto) lastprivate(last)");
  down_lastprivate();

  /* collapse(2) with a dynamic schedule */
  {
    static int grid[20][30];
    memset(grid, 0, sizeof grid);
#pragma omp parallel for collapse(2) schedule(dynamic, 7)
    for (int i = 0; i < 20; ++i)
      for (int j = 0; j < 30; ++j) grid[i][j]++;
    for (int i = 0; i < 20; ++i)
      for (int j = 0; j < 30; ++j) CHECK(grid[i][j] == 1);
  }

  /* two nowait loops with the same static schedule give iteration i to the same thread */
  {
    /* one array per schedule: with nowait, a thread may write the second pair's owners while
       another still reads the first pair's */
    static int owner[N], owner5[N];
    int mismatch = 0;
#pragma omp parallel reduction(+ : mismatch)
    {
#pragma omp for schedule(static) nowait
      for (int i = 0; i < N; ++i) owner[i] = omp_get_thread_num();
#pragma omp for schedule(static) nowait
      for (int i = 0; i < N; ++i)
        if (owner[i] != omp_get_thread_num()) mismatch++;
#pragma omp for schedule(static, 5) nowait
      for (int i = 0; i < N; ++i) owner5[i] = omp_get_thread_num();
#pragma omp for schedule(static, 5) nowait
      for (int i = 0; i < N; ++i)
        if (owner5[i] != omp_get_thread_num()) mismatch++;
    }
    CHECK(mismatch == 0);
  }

  /* ordered under every schedule */
  {
    int next = 0, bad = 0;
#define ORDERED(PRAGMA)                           \
  next = 0;                                       \
  _Pragma(PRAGMA) for (int i = 0; i < 200; ++i) { \
    _Pragma("omp ordered") {                      \
      if (next != i) bad++;                       \
      next = i + 1;                               \
    }                                             \
  }                                               \
  CHECK(next == 200 && bad == 0);
    ORDERED("omp parallel for ordered schedule(static)")
    ORDERED("omp parallel for ordered schedule(static, 3)")
    ORDERED("omp parallel for ordered schedule(dynamic)")
    ORDERED("omp parallel for ordered schedule(dynamic, 4)")
    ORDERED("omp parallel for ordered schedule(guided)")
    ORDERED("omp parallel for ordered schedule(runtime)")
    long long lnext = 1000;
#pragma omp parallel for ordered schedule(dynamic, 2)
    for (long long i = 1000; i > 0; i -= 10) {
#pragma omp ordered
      {
        if (lnext != i) bad++;
        lnext = i - 10;
      }
    }
    CHECK(lnext == 0 && bad == 0);
  }

  /* single, nowait, copyprivate (several variables, a struct), master, masked, critical */
  {
    int singles = 0, masters = 0, masked1 = 0, masked_by = -1, crit = 0, named = 0, copied_ok = 0;
    int team = 1;
#pragma omp parallel reduction(+ : copied_ok)
    {
#pragma omp single
      team = omp_get_num_threads();
      for (int k = 0; k < 50; ++k) {
#pragma omp single nowait
        {
#pragma omp atomic
          singles++;
        }
      }
#pragma omp barrier
      int x;
      double y;
      record r;
#pragma omp single copyprivate(x, y, r)
      {
        x = 42 + omp_get_thread_num() * 0;
        y = 2.5;
        r = (record){7, 1.5, "copied"};
      }
      if (x == 42 && y == 2.5 && r.a == 7 && r.b == 1.5 && strcmp(r.name, "copied") == 0) copied_ok++;
      for (int k = 0; k < 10; ++k) {
#pragma omp single copyprivate(x)
        x = k;
        if (x != k) copied_ok -= 1000;
      }
#pragma omp master
      masters++;
#pragma omp masked filter(1)
      {
        masked1++;
        masked_by = omp_get_thread_num();
      }
      for (int k = 0; k < 500; ++k) {
#pragma omp critical(counted) hint(omp_sync_hint_contended)
        {
          int v = crit;
          crit = v + 1;
        }
#pragma omp critical(other) hint(omp_sync_hint_speculative)
        named++;
      }
    }
    CHECK(singles == 50);
    CHECK(copied_ok == team);
    CHECK(masters == 1);
    CHECK(masked1 == (team > 1 ? 1 : 0) && masked_by == (team > 1 ? 1 : -1));
    CHECK(crit == 500 * team && named == 500 * team);
  }

  /* reductions: every operator, every type; nowait; in an orphaned loop; user-defined */
  {
    long s = 0, prod = 1, diff = 0;
    unsigned band = ~0u, bor = 0, bxor = 0;
    int land = 1, lor = 0, mn = N, mx = -1;
    double ds = 0, dmin = 1e30;
    float fs = 0;
    long double lds = 0;
    _Complex double cs = 0;
    unsigned long long us = 0;
    short sh = 0;
    char ch = 0;
#pragma omp parallel for reduction(+ : s, ds, fs, lds, cs, us, sh) reduction(* : prod) reduction(- : diff) \
    reduction(& : band) reduction(| : bor) reduction(^ : bxor) reduction(&& : land) reduction(|| : lor)        \
    reduction(min : mn, dmin) reduction(max : mx) reduction(+ : ch)
    for (int i = 0; i < N; ++i) {
      s += i;
      ds += i;
      fs += 1.0f;
      lds += i;
      cs += i;
      us += (unsigned long long)i;
      sh += 1;
      prod *= (i % 100 == 0) ? 2 : 1;
      diff -= 1;
      band &= ~(1u << (i % 20));
      bor |= 1u << (i % 20);
      bxor ^= (unsigned)i;
      land = land && (i >= 0);
      lor = lor || (i == 500);
      if (i < mn) mn = i;
      if (i > mx) mx = i;
      if (i + 0.5 < dmin) dmin = i + 0.5;
      ch += (i % 2);
    }
    long want = (long)N * (N - 1) / 2;
    unsigned x = 0;
    for (int i = 0; i < N; ++i) x ^= (unsigned)i;
    CHECK(s == want && ds == (double)want && fs == (float)N && lds == (long double)want);
    CHECK(__real__ cs == (double)want && __imag__ cs == 0);
    CHECK(us == (unsigned long long)want && sh == N && prod == 1024 && diff == -N);
    CHECK(band == ~0xFFFFFu && bor == 0xFFFFFu && bxor == x && land == 1 && lor == 1);
    CHECK(mn == 0 && mx == N - 1 && dmin == 0.5 && ch == (char)(N / 2));

    long s2 = 0;
#pragma omp parallel
    {
#pragma omp for reduction(+ : s2) nowait
      for (int i = 0; i < N; ++i) s2 += i;
      orphaned_sum(N);
    }
    CHECK(s2 == want);
    CHECK(orphaned_total == want);

    record best = {-1, 0, "none"};
#pragma omp parallel for reduction(rmax : best)
    for (int i = 0; i < N; ++i) {
      if ((i * 37) % N > best.a) {
        best.a = (i * 37) % N;
        best.b = i;
        strcpy(best.name, "found");
      }
    }
    CHECK(best.a == N - 1 && strcmp(best.name, "found") == 0);
    CHECK(((int)best.b * 37) % N == N - 1);

    int arr[5] = {0};
#pragma omp parallel for reduction(+ : arr[:5])
    for (int i = 0; i < N; ++i) arr[i % 5] += 1;
    for (int k = 0; k < 5; ++k) CHECK(arr[k] == N / 5);
  }

  /* sections with lastprivate and a reduction; nowait sections */
  {
    int last = -1, ran[4] = {0, 0, 0, 0}, sum = 0;
#pragma omp parallel sections lastprivate(last) reduction(+ : sum)
    {
#pragma omp section
      {
        ran[0]++;
        last = 0;
        sum += 1;
      }
#pragma omp section
      {
        ran[1]++;
        last = 1;
        sum += 2;
      }
#pragma omp section
      {
        ran[2]++;
        last = 2;
        sum += 4;
      }
    }
    CHECK(ran[0] == 1 && ran[1] == 1 && ran[2] == 1 && last == 2 && sum == 7);
#pragma omp parallel
    {
#pragma omp sections nowait
      {
#pragma omp section
        ran[3]++;
      }
    }
    CHECK(ran[3] == 1);
  }

  /* num_threads, proc_bind, if(false), nested levels */
  {
    int seen = 0, level = -1, in_par = -1;
#pragma omp parallel num_threads(3) proc_bind(close)
    {
#pragma omp atomic
      seen++;
    }
    CHECK(seen == 3);
#pragma omp parallel if (0)
    {
      level = omp_get_level();
      in_par = omp_in_parallel();
    }
    CHECK(level == 1 && in_par == 0);
  }

  /* barriers: every thread reaches phase k before any leaves it */
  {
    int phase[64] = {0}, bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
      int me = omp_get_thread_num(), n = omp_get_num_threads();
      for (int k = 1; k <= 20; ++k) {
        phase[me] = k;
#pragma omp barrier
        for (int t = 0; t < n; ++t)
          if (phase[t] < k) bad++;
#pragma omp barrier
      }
    }
    CHECK(bad == 0);
  }
  printf("kmpc_constructs: ok\n");
  return 0;
}
