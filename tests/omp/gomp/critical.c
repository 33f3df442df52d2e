/* critical (unnamed and named, which must not exclude each other), the GOMP_atomic lock
   (atomic on long double and __int128), and multi-variable reductions that merge under it. */
#include <omp.h>

#include "check.h"

static long plain, named_a, named_b;

int main(void) {
  long double ld = 0;
  __int128 big = 0;
#pragma omp parallel
  {
    for (int i = 0; i < 2000; ++i) {
#pragma omp critical
      plain++;
#pragma omp critical(alpha)
      {
        long v = named_a; /* a read-modify-write with a window that only the lock closes */
        for (volatile int k = 0; k < 20; ++k) {
        }
        named_a = v + 2;
      }
#pragma omp critical(beta)
      {
        long v = named_b;
        for (volatile int k = 0; k < 20; ++k) {
        }
        named_b = v + 3;
      }
#pragma omp atomic
      ld += 1.0L;
#pragma omp atomic
      big += (__int128)1 << 70;
    }
  }
  long t = omp_get_max_threads();
  CHECK(plain == 2000 * t);
  CHECK(named_a == 4000 * t);
  CHECK(named_b == 6000 * t);
  CHECK(ld == 2000.0L * t);
  CHECK(big == ((__int128)1 << 70) * 2000 * t);

  /* nested critical sections with different names */
  long both = 0;
#pragma omp parallel
  for (int i = 0; i < 500; ++i) {
#pragma omp critical(outer_name)
    {
#pragma omp critical(inner_name)
      both++;
    }
  }
  CHECK(both == 500 * t);

  long s = 0, p = 1, mx = -1;
#pragma omp parallel for reduction(+ : s) reduction(* : p) reduction(max : mx)
  for (long i = 1; i <= 20; ++i) {
    s += i;
    if (i % 10 == 0) p *= 2;
    if (i > mx) mx = i;
  }
  CHECK(s == 210 && p == 4 && mx == 20);
  puts("critical: ok");
  return 0;
}
