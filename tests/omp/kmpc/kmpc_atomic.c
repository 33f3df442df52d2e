/* kmpc_atomic: libomp's __kmpc_atomic_* entry points, which Intel's compilers call for omp
   atomic (clang 14 emits native atomics instead), called directly: concurrent updates of
   every size class (CAS on 1, 2, 4, 8 bytes; the lock for long double and complex double and
   long double), captures before and after, reverse forms, mixed types, read/write/swap,
   compare-and-swap and the generic sized forms, each against its serial meaning. Also the
   reduction entry points in the method for code without the atomic path (clang always emits
   it): every thread combines, one at a time. */
#include <complex.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

typedef struct ident ident;
void __kmpc_atomic_fixed4_add(ident*, int, int32_t*, int32_t);
int64_t __kmpc_atomic_fixed8_add_cpt(ident*, int, int64_t*, int64_t, int);
void __kmpc_atomic_fixed2_add(ident*, int, short*, short);
void __kmpc_atomic_fixed1_add(ident*, int, signed char*, signed char);
void __kmpc_atomic_float8_add(ident*, int, double*, double);
void __kmpc_atomic_float10_add(ident*, int, long double*, long double);
void __kmpc_atomic_cmplx4_add_cpt(ident*, int, float _Complex*, float _Complex, float _Complex*, int);
void __kmpc_atomic_cmplx8_add(ident*, int, double _Complex*, double _Complex);
long double _Complex __kmpc_atomic_cmplx10_sub_cpt(ident*, int, long double _Complex*, long double _Complex, int);
void __kmpc_atomic_fixed4_max(ident*, int, int32_t*, int32_t);
double __kmpc_atomic_float8_min_cpt(ident*, int, double*, double, int);
void __kmpc_atomic_fixed4u_div_rev(ident*, int, uint32_t*, uint32_t);
int32_t __kmpc_atomic_fixed4_sub_cpt_rev(ident*, int, int32_t*, int32_t, int);
void __kmpc_atomic_fixed8_shl(ident*, int, int64_t*, int64_t);
void __kmpc_atomic_fixed2_eqv(ident*, int, short*, short);
void __kmpc_atomic_fixed4_andl(ident*, int, int32_t*, int32_t);
void __kmpc_atomic_fixed4_mul_float8(ident*, int, int32_t*, double);
void __kmpc_atomic_float4_add_float8(ident*, int, float*, double);
int64_t __kmpc_atomic_fixed8_rd(ident*, int, int64_t*);
void __kmpc_atomic_float8_wr(ident*, int, double*, double);
long double __kmpc_atomic_float10_swp(ident*, int, long double*, long double);
bool __kmpc_atomic_bool_4_cas(ident*, int, int32_t*, int32_t, int32_t);
int64_t __kmpc_atomic_val_8_cas_cpt(ident*, int, int64_t*, int64_t, int64_t, int64_t*);
void __kmpc_atomic_4(ident*, int, void*, void*, void (*)(void*, void*, void*));
void __kmpc_atomic_16(ident*, int, void*, void*, void (*)(void*, void*, void*));
void __kmpc_atomic_start(void);
void __kmpc_atomic_end(void);
struct ident {
  int reserved_1, flags, reserved_2, reserved_3;
  const char* psource;
};
int __kmpc_reduce_nowait(ident*, int, int, size_t, void*, void (*)(void*, void*), int (*)[8]);
void __kmpc_end_reduce_nowait(ident*, int, int (*)[8]);
int __kmpc_reduce(ident*, int, int, size_t, void*, void (*)(void*, void*), int (*)[8]);
void __kmpc_end_reduce(ident*, int, int (*)[8]);

#define ROUNDS 20000

static void add_float(void* out, void* a, void* b) { *(float*)out = *(float*)a + *(float*)b; }
static void add_pair(void* out, void* a, void* b) {
  const int64_t* x = a;
  const int64_t* y = b;
  int64_t r[2] = {x[0] + y[0], x[1] + y[1]};
  ((int64_t*)out)[0] = r[0];
  ((int64_t*)out)[1] = r[1];
}

static void no_combine(void* a, void* b) {
  (void)a;
  (void)b;
}

/* __kmpc_reduce without the atomic flag: 1 (combine here, then end) for every thread, never
   two at once; the blocking form's end is a barrier */
static void reduce_methods(void) {
  static ident plain = {0, 2, 0, 0, ";unknown;unknown;0;0;;"};
  static int lock_name[8];
  long combined = 0, after_barrier_bad = 0;
  int inside = 0, overlap = 0, wrong = 0, team = 1;
#pragma omp parallel reduction(+ : after_barrier_bad)
  {
#pragma omp single
    team = omp_get_num_threads();
    long mine = 1;
    for (int k = 0; k < 2000; ++k) {
      void* data[1] = {&mine};
      int r = __kmpc_reduce_nowait(&plain, 0, 1, sizeof data, data, no_combine, &lock_name);
      if (r != 1) {
#pragma omp atomic
        wrong++;
        continue;
      }
      if (__atomic_fetch_add(&inside, 1, __ATOMIC_RELAXED) != 0) __atomic_fetch_add(&overlap, 1, __ATOMIC_RELAXED);
      volatile long* c = &combined; /* a read-modify-write with a window that only the lock closes */
      long v = *c;
      for (volatile int d = 0; d < 2000; ++d) {
      }
      *c = v + mine;
      __atomic_fetch_sub(&inside, 1, __ATOMIC_RELAXED);
      __kmpc_end_reduce_nowait(&plain, 0, &lock_name);
    }
    void* data[1] = {&mine};
    if (__kmpc_reduce(&plain, 0, 1, sizeof data, data, no_combine, &lock_name) == 1) {
      combined += 1000;
      __kmpc_end_reduce(&plain, 0, &lock_name);
    }
    if (combined != 2000L * team + 1000L * team) after_barrier_bad++; /* every combine visible */
  }
  CHECK(wrong == 0 && overlap == 0);
  CHECK(combined == 2000L * team + 1000L * team);
  CHECK(after_barrier_bad == 0);
}

int main(void) {
  reduce_methods();
  int32_t i4 = 0;
  int64_t i8 = 0;
  short i2 = 0;
  signed char i1 = 0;
  double d = 0;
  long double ld = 0;
  float _Complex c4 = 0;
  double _Complex c8 = 0;
  long double _Complex c10 = 0;
  float fg = 0;
  int64_t pair[2] = {0, 0};
  long plain = 0;
  static unsigned char seen[64 * ROUNDS];
  int team = 1, bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
#pragma omp single
    team = omp_get_num_threads();
    /* the single's barrier: every thread starts its updates at once */
    for (int k = 0; k < ROUNDS; ++k) {
      __kmpc_atomic_fixed4_add(NULL, 0, &i4, 1);
      int64_t before = __kmpc_atomic_fixed8_add_cpt(NULL, 0, &i8, 1, 0);
      if (before < 0 || before >= 64 * ROUNDS || seen[before]++ != 0) bad++; /* each old value once */
      __kmpc_atomic_fixed2_add(NULL, 0, &i2, 1);
      __kmpc_atomic_fixed1_add(NULL, 0, &i1, 1);
      __kmpc_atomic_float8_add(NULL, 0, &d, 0.5);
      __kmpc_atomic_float10_add(NULL, 0, &ld, 0.25L);
      float _Complex out;
      __kmpc_atomic_cmplx4_add_cpt(NULL, 0, &c4, 1.0f + 2.0f * I, &out, 1);
      if (crealf(out) < 1.0f) bad++; /* the value after an update of this thread */
      __kmpc_atomic_cmplx8_add(NULL, 0, &c8, 1.0 - 1.0 * I);
      (void)__kmpc_atomic_cmplx10_sub_cpt(NULL, 0, &c10, 1.0L, 0);
      float one = 1.0f;
      __kmpc_atomic_4(NULL, 0, &fg, &one, add_float);
      int64_t inc[2] = {1, 2};
      __kmpc_atomic_16(NULL, 0, pair, inc, add_pair);
      __kmpc_atomic_start();
      plain++;
      __kmpc_atomic_end();
    }
  }
  const long total = (long)team * ROUNDS;
  CHECK(bad == 0);
  CHECK(i4 == total && i8 == total && i2 == (short)total && i1 == (signed char)total);
  CHECK(d == 0.5 * (double)total && ld == 0.25L * (long double)total);
  CHECK(crealf(c4) == (float)total && cimagf(c4) == 2.0f * (float)total);
  CHECK(creal(c8) == (double)total && cimag(c8) == -(double)total);
  CHECK(creall(c10) == -(long double)total);
  CHECK(fg == (float)total && pair[0] == total && pair[1] == 2 * total && plain == total);

  /* the meaning of each form, one thread */
  int32_t m = 5;
  __kmpc_atomic_fixed4_max(NULL, 0, &m, 3);
  CHECK(m == 5);
  __kmpc_atomic_fixed4_max(NULL, 0, &m, 9);
  CHECK(m == 9);
  double dm = 4.0;
  CHECK(__kmpc_atomic_float8_min_cpt(NULL, 0, &dm, 1.5, 0) == 4.0 && dm == 1.5);
  CHECK(__kmpc_atomic_float8_min_cpt(NULL, 0, &dm, 0.5, 1) == 0.5);
  uint32_t u = 4;
  __kmpc_atomic_fixed4u_div_rev(NULL, 0, &u, 100); /* u = 100 / u */
  CHECK(u == 25);
  int32_t r = 3;
  CHECK(__kmpc_atomic_fixed4_sub_cpt_rev(NULL, 0, &r, 10, 1) == 7 && r == 7); /* r = 10 - r */
  CHECK(__kmpc_atomic_fixed4_sub_cpt_rev(NULL, 0, &r, 10, 0) == 7 && r == 3);
  int64_t sh = 3;
  __kmpc_atomic_fixed8_shl(NULL, 0, &sh, 4);
  CHECK(sh == 48);
  short e = 0x0F0F;
  __kmpc_atomic_fixed2_eqv(NULL, 0, &e, 0x00FF); /* e ^ ~rhs */
  CHECK(e == (short)(0x0F0F ^ ~0x00FF));
  int32_t l = 7;
  __kmpc_atomic_fixed4_andl(NULL, 0, &l, 0);
  CHECK(l == 0);
  int32_t mi = 10;
  __kmpc_atomic_fixed4_mul_float8(NULL, 0, &mi, 2.5);
  CHECK(mi == 25);
  float f4 = 1.0f;
  __kmpc_atomic_float4_add_float8(NULL, 0, &f4, 0.5);
  CHECK(f4 == 1.5f);
  int64_t rd = 77;
  CHECK(__kmpc_atomic_fixed8_rd(NULL, 0, &rd) == 77);
  double wr = 0;
  __kmpc_atomic_float8_wr(NULL, 0, &wr, 6.5);
  CHECK(wr == 6.5);
  long double sw = 1.0L;
  CHECK(__kmpc_atomic_float10_swp(NULL, 0, &sw, 2.0L) == 1.0L && sw == 2.0L);
  int32_t c = 5;
  CHECK(!__kmpc_atomic_bool_4_cas(NULL, 0, &c, 4, 9) && c == 5);
  CHECK(__kmpc_atomic_bool_4_cas(NULL, 0, &c, 5, 9) && c == 9);
  int64_t v = 10, pv = 0;
  CHECK(__kmpc_atomic_val_8_cas_cpt(NULL, 0, &v, 3, 4, &pv) == 10 && v == 10 && pv == 10);
  CHECK(__kmpc_atomic_val_8_cas_cpt(NULL, 0, &v, 10, 4, &pv) == 10 && v == 4 && pv == 4);
  printf("kmpc_atomic: ok\n");
  return 0;
}
