/* locks_v1: the lock routines at version OMP_1.0, which binaries of gcc < 4.4 reference (the
   OpenMP 2.5 ABI: a 4-byte lock, an 8-byte, 4-aligned nest lock owned by threads), through
   both their C names and their Fortran names. The references are bound to that version with
   .symver, as such a binary's are. */
#include <omp.h>
#include <string.h>

#include "check.h"

typedef struct {
  int word[2];
} old_nest_lock; /* 8 bytes, 4-aligned, as gcc < 4.4's omp_nest_lock_t */

#define OLD_C(ret, name, params) \
  ret name##_v1 params;          \
  __asm__(".symver " #name "_v1, " #name "@OMP_1.0");
#define OLD_F(ret, name, params) \
  ret name##_f_v1 params;        \
  __asm__(".symver " #name "_f_v1, " #name "_@OMP_1.0");
#define OLD(ret, name, params) OLD_C(ret, name, params) OLD_F(ret, name, params)

OLD(void, omp_init_lock, (int*))
OLD(void, omp_destroy_lock, (int*))
OLD(void, omp_set_lock, (int*))
OLD(void, omp_unset_lock, (int*))
OLD(int, omp_test_lock, (int*))
OLD(void, omp_init_nest_lock, (old_nest_lock*))
OLD(void, omp_destroy_nest_lock, (old_nest_lock*))
OLD(void, omp_set_nest_lock, (old_nest_lock*))
OLD(void, omp_unset_nest_lock, (old_nest_lock*))
OLD(int, omp_test_nest_lock, (old_nest_lock*))

/* the C names (fortran = 0) or the Fortran names (1) of the same routines */
static void check_locks(int fortran) {
  void (*init)(int*) = fortran ? omp_init_lock_f_v1 : omp_init_lock_v1;
  void (*destroy)(int*) = fortran ? omp_destroy_lock_f_v1 : omp_destroy_lock_v1;
  void (*set)(int*) = fortran ? omp_set_lock_f_v1 : omp_set_lock_v1;
  void (*unset)(int*) = fortran ? omp_unset_lock_f_v1 : omp_unset_lock_v1;
  int (*test)(int*) = fortran ? omp_test_lock_f_v1 : omp_test_lock_v1;
  void (*ninit)(old_nest_lock*) = fortran ? omp_init_nest_lock_f_v1 : omp_init_nest_lock_v1;
  void (*ndestroy)(old_nest_lock*) = fortran ? omp_destroy_nest_lock_f_v1 : omp_destroy_nest_lock_v1;
  void (*nset)(old_nest_lock*) = fortran ? omp_set_nest_lock_f_v1 : omp_set_nest_lock_v1;
  void (*nunset)(old_nest_lock*) = fortran ? omp_unset_nest_lock_f_v1 : omp_unset_nest_lock_v1;
  int (*ntest)(old_nest_lock*) = fortran ? omp_test_nest_lock_f_v1 : omp_test_nest_lock_v1;

  int lock;
  init(&lock);
  long counter = 0;
#pragma omp parallel
  for (int i = 0; i < 2000; ++i) {
    set(&lock);
    counter++;
    unset(&lock);
  }
  CHECK(counter == 2000L * omp_get_max_threads());
  CHECK(test(&lock) == 1 && test(&lock) == 0);
  unset(&lock);
  destroy(&lock);

  /* the 8-byte nest lock, at a 4-aligned but not 8-aligned address */
  struct {
    int pad;
    old_nest_lock l;
    int guard;
  } slot;
  memset(&slot, 0, sizeof slot);
  slot.guard = 12345;
  old_nest_lock* nl = &slot.l;
  ninit(nl);
  int bad = 0;
  counter = 0;
#pragma omp parallel reduction(+ : bad)
  for (int i = 0; i < 500; ++i) {
    nset(nl);
    nset(nl);
    bad += ntest(nl) != 3;
    counter++;
    nunset(nl);
    nunset(nl);
    nunset(nl);
  }
  CHECK(bad == 0 && counter == 500L * omp_get_max_threads());
  /* OpenMP 2.5: the owner is the thread, so an included task of the owner may nest it */
  nset(nl);
  int depth = 0;
#pragma omp task if (0) shared(depth)
  depth = ntest(nl);
  CHECK(depth == 2);
  nunset(nl);
  /* another thread cannot take it while it is held */
  int taken = 0;
#pragma omp parallel num_threads(2) reduction(+ : taken)
  if (omp_get_thread_num() == 1) {
    taken += ntest(nl) != 0;
    if (taken) nunset(nl);
  }
  CHECK(taken == 0);
  nunset(nl);
  ndestroy(nl);
  CHECK(slot.pad == 0 && slot.guard == 12345);
}

int main(void) {
  check_locks(0);
  check_locks(1);
  return 0;
}
