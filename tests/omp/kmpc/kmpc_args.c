/* kmpc_args: parallel regions capturing 0, 1, 16, 17, 40 and 100 variables: clang passes each
   captured variable as one argument of the region's function, and the runtime must call it
   with all of them, whatever their number. Plain C. */
#include <omp.h>

#include "check.h"

#define V10(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9
#define ADD10(p) \
  p##0 += 1, p##1 += 1, p##2 += 1, p##3 += 1, p##4 += 1, p##5 += 1, p##6 += 1, p##7 += 1, p##8 += 1, p##9 += 1
#define SUM10(p) (p##0 + p##1 + p##2 + p##3 + p##4 + p##5 + p##6 + p##7 + p##8 + p##9)

static int ran;

int main(void) {
#pragma omp parallel
  {
#pragma omp atomic
    ran++;
  }
  CHECK(ran >= 1);

  int one = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp atomic
    one++;
  }
  CHECK(one >= 1);

  int V10(a), V10(b), V10(c), V10(d), V10(e), V10(f), V10(g), V10(h), V10(i), V10(j);
  a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = a9 = 0;
  b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = b8 = b9 = 0;
  c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = c8 = c9 = 0;
  d0 = d1 = d2 = d3 = d4 = d5 = d6 = d7 = d8 = d9 = 0;
  e0 = e1 = e2 = e3 = e4 = e5 = e6 = e7 = e8 = e9 = 0;
  f0 = f1 = f2 = f3 = f4 = f5 = f6 = f7 = f8 = f9 = 0;
  g0 = g1 = g2 = g3 = g4 = g5 = g6 = g7 = g8 = g9 = 0;
  h0 = h1 = h2 = h3 = h4 = h5 = h6 = h7 = h8 = h9 = 0;
  i0 = i1 = i2 = i3 = i4 = i5 = i6 = i7 = i8 = i9 = 0;
  j0 = j1 = j2 = j3 = j4 = j5 = j6 = j7 = j8 = j9 = 0;
  int team = 0;

  /* 16 captured: the last exact arity */
#pragma omp parallel
#pragma omp single
  {
    ADD10(a);
    b0 += 1, b1 += 1, b2 += 1, b3 += 1, b4 += 1, b5 += 1;
  }
  CHECK(SUM10(a) == 10 && b0 + b1 + b2 + b3 + b4 + b5 == 6);

  /* 17: the first padded arity */
#pragma omp parallel
#pragma omp single
  {
    ADD10(a);
    b0 += 1, b1 += 1, b2 += 1, b3 += 1, b4 += 1, b5 += 1, b6 += 1;
  }
  CHECK(SUM10(a) == 20 && b0 + b1 + b2 + b3 + b4 + b5 + b6 == 13);

  /* 40 and 101 (every variable and team) */
#pragma omp parallel
#pragma omp single
  {
    ADD10(a);
    ADD10(b);
    ADD10(c);
    ADD10(d);
  }
  CHECK(SUM10(a) == 30 && SUM10(b) == 23 && SUM10(c) == 10 && SUM10(d) == 10);
#pragma omp parallel
  {
#pragma omp single
    {
      team = omp_get_num_threads();
      ADD10(a);
      ADD10(b);
      ADD10(c);
      ADD10(d);
      ADD10(e);
      ADD10(f);
      ADD10(g);
      ADD10(h);
      ADD10(i);
      ADD10(j);
    }
  }
  CHECK(team >= 1 && SUM10(a) == 40 && SUM10(b) == 33 && SUM10(c) == 20 && SUM10(d) == 20);
  CHECK(SUM10(e) == 10 && SUM10(f) == 10 && SUM10(g) == 10 && SUM10(h) == 10 && SUM10(i) == 10 && SUM10(j) == 10);
  printf("kmpc_args: ok\n");
  return 0;
}
