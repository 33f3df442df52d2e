/* locks: omp_lock_t and omp_nest_lock_t in user memory (4 and 16 bytes in libgomp's omp.h, 8 and 8 in
   libomp's), test_lock, nesting depth, lock with hint, and nest locks owned by tasks rather than threads. */
#define _POSIX_C_SOURCE 200809L /* sched_yield */
#include <omp.h>
#include <sched.h>

#include "check.h"

/* libgomp 12 lacks it although omp.h declares it: weak, so that the copy of this test linked
   against libgomp (run under the forkjoin-omp launcher) links too and binds it at run time */
#pragma weak omp_init_lock_with_hint

int main(void) {
#ifdef __clang__ /* libomp's omp.h: one pointer each */
  CHECK(sizeof(omp_lock_t) == 8 && sizeof(omp_nest_lock_t) == 8);
#else
  CHECK(sizeof(omp_lock_t) == 4 && sizeof(omp_nest_lock_t) == 16);
#endif
  omp_lock_t l;
  omp_init_lock(&l);
  long counter = 0;
#pragma omp parallel
  for (int i = 0; i < 5000; ++i) {
    omp_set_lock(&l);
    long v = counter;
    counter = v + 1;
    omp_unset_lock(&l);
  }
  CHECK(counter == 5000L * omp_get_max_threads());
  CHECK(omp_test_lock(&l) == 1);
  CHECK(omp_test_lock(&l) == 0);
  omp_unset_lock(&l);
  omp_destroy_lock(&l);

  omp_lock_t h;
  omp_init_lock_with_hint(&h, omp_sync_hint_contended);
  long c2 = 0;
#pragma omp parallel
  for (int i = 0; i < 1000; ++i) {
    /* a polite spin, as a user's would be with more threads than CPUs: a bare one (8 threads
       on 2 CPUs) keeps the holder off the CPUs, 26 s under ThreadSanitizer against 1.5 s */
    while (!omp_test_lock(&h)) sched_yield();
    c2++;
    omp_unset_lock(&h);
  }
  CHECK(c2 == 1000L * omp_get_max_threads());

  omp_nest_lock_t nl;
  omp_init_nest_lock(&nl);
  long c3 = 0;
  int bad = 0;
#pragma omp parallel reduction(+ : bad)
  for (int i = 0; i < 500; ++i) {
    omp_set_nest_lock(&nl);
    omp_set_nest_lock(&nl);
    if (omp_test_nest_lock(&nl) != 3) bad++;
    c3++;
    omp_unset_nest_lock(&nl);
    omp_unset_nest_lock(&nl);
    omp_unset_nest_lock(&nl);
  }
  CHECK(bad == 0);
  CHECK(c3 == 500L * omp_get_max_threads());

  /* owned by the task: a task of the same thread cannot re-enter the implicit task's lock */
  int reentered = -1;
  omp_set_nest_lock(&nl);
#pragma omp task if (0) shared(reentered)
  reentered = omp_test_nest_lock(&nl);
  CHECK(reentered == 0);
  CHECK(omp_test_nest_lock(&nl) == 2);
  omp_unset_nest_lock(&nl);
  omp_unset_nest_lock(&nl);
  omp_destroy_nest_lock(&nl);
  puts("locks: ok");
  return 0;
}
