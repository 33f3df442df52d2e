/* scan: reduction(inscan, ...) with `#pragma omp scan` in `parallel for` and in a
   worksharing loop inside a region, inclusive and exclusive, several variables and
   operators, repeated past the work-share ring, orphaned; gcc asks GOMP_loop_start for a
   team-shared buffer (its `mem` argument). Also lastprivate(conditional:) on sections, which
   takes the same buffer from GOMP_sections2_start. Results are compared with serial loops. */
#include <omp.h>

#include "check.h"

#define N 1000
static long in[N];
static long out[N];
static double outd[N];
static long outm[N];

static void fill(void) {
  for (int i = 0; i < N; ++i) in[i] = (i * 37) % 101 - 50;
}

static void check_inclusive(void) {
  long s = 0;
  for (int i = 0; i < N; ++i) {
    s += in[i];
    CHECK(out[i] == s);
  }
}

static void check_exclusive(void) {
  long s = 0;
  for (int i = 0; i < N; ++i) {
    CHECK(out[i] == s);
    s += in[i];
  }
}

static long total(void) {
  long s = 0;
  for (int i = 0; i < N; ++i) s += in[i];
  return s;
}

static long orphan_s; /* an orphaned scan's variable must be shared */

int main(void) {
  fill();
  /* parallel for, inclusive */
  long s = 0;
#pragma omp parallel for reduction(inscan, + : s)
  for (int i = 0; i < N; ++i) {
    s += in[i];
#pragma omp scan inclusive(s)
    out[i] = s;
  }
  check_inclusive();
  CHECK(s == total());

  /* parallel for, exclusive */
  s = 0;
#pragma omp parallel for reduction(inscan, + : s)
  for (int i = 0; i < N; ++i) {
    out[i] = s;
#pragma omp scan exclusive(s)
    s += in[i];
  }
  check_exclusive();
  CHECK(s == total());

  /* a worksharing loop in a region, many times (more than the work-share ring holds), with
     two more variables: a double sum and a running maximum */
  long t, m;
  double d;
#pragma omp parallel
  for (int round = 0; round < 12; ++round) {
#pragma omp single
    {
      t = 0;
      m = -1000;
      d = 0.5;
    }
#pragma omp for reduction(inscan, + : t, d) reduction(inscan, max : m)
    for (int i = 0; i < N; ++i) {
      t += in[i];
      d += 1.0;
      m = in[i] > m ? in[i] : m;
#pragma omp scan inclusive(t, d, m)
      out[i] = t;
      outd[i] = d;
      outm[i] = m;
    }
    /* the loop's barrier makes every element visible */
    long e = 0, em = -1000;
    for (int i = 0; i < N; ++i) {
      e += in[i];
      em = in[i] > em ? in[i] : em;
      CHECK(out[i] == e);
      CHECK(outd[i] == 0.5 + i + 1);
      CHECK(outm[i] == em);
    }
#pragma omp barrier
  }

  /* exclusive in a worksharing loop; the result reaches the shared variable */
  long x = 100;
#pragma omp parallel
  {
#pragma omp for reduction(inscan, + : x)
    for (int i = 0; i < N; ++i) {
      out[i] = x - 100;
#pragma omp scan exclusive(x)
      x += in[i];
    }
  }
  check_exclusive();
  CHECK(x == 100 + total());

  /* orphaned: a team of one */
#pragma omp for reduction(inscan, + : orphan_s)
  for (int i = 0; i < N; ++i) {
    orphan_s += in[i];
#pragma omp scan inclusive(orphan_s)
    out[i] = orphan_s;
  }
  check_inclusive();

  /* an empty scan loop */
  long z = 7;
  static volatile int zero = 0;
#pragma omp parallel for reduction(inscan, + : z)
  for (int i = 0; i < zero; ++i) {
    z += in[i];
#pragma omp scan inclusive(z)
    out[i] = z;
  }
  CHECK(z == 7);

  /* lastprivate(conditional:) on sections: the value of the last section that assigned */
  for (int which = 0; which < 4; ++which) {
    int y = -1;
#pragma omp parallel
    {
#pragma omp sections lastprivate(conditional : y)
      {
#pragma omp section
        if (which >= 1) y = 1;
#pragma omp section
        if (which >= 2) y = 2;
#pragma omp section
        if (which >= 3) y = 3;
      }
    }
    CHECK(y == (which == 0 ? -1 : which));
  }
  puts("scan: ok");
  return 0;
}
