// kmpc_atomic.cpp: libomp's __kmpc_atomic_* entry points, which Intel's compilers (and older
// flang) call for `omp atomic` (clang 14 emits native atomics and libatomic calls instead):
// update, reverse update, capture, read, write and swap for libomp's integer, floating and
// complex types, the mixed-type forms, compare-and-swap, and the generic sized forms.
// [P-OMP KMPC K14]
#include <bit>
#include <cstdint>
#include <cstring>

#include "../core/lock.hpp"
#include "kmpc.hpp"

namespace forkjoin::omp::kmpc {
namespace {

__extension__ typedef _Complex float cmplx4;
__extension__ typedef _Complex double cmplx8;
__extension__ typedef _Complex long double cmplx10;

template <std::size_t N>
struct bits_of;
template <>
struct bits_of<1> {
  using type = std::uint8_t;
};
template <>
struct bits_of<2> {
  using type = std::uint16_t;
};
template <>
struct bits_of<4> {
  using type = std::uint32_t;
};
template <>
struct bits_of<8> {
  using type = std::uint64_t;
};

// [P-OMP KMPC K14] a type of 1, 2, 4 or 8 bytes is updated by a CAS loop on its bits (as
// gcc's native atomics do); a larger one (long double, complex double and long double) under
// the one lock of GOMP_atomic_start (atomic_start), so that gcc- and clang-compiled updates of one
// variable exclude each other. The CAS is seq_cst: the compiler's own fences around the call
// give the construct's memory order, and none is weaker than what the call provides.
template <class T>
inline constexpr bool k_lock_free = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8;

template <class T, class F>
T update(T* x, F f, T* before = nullptr) {
  if constexpr (k_lock_free<T>) {
    using U = typename bits_of<sizeof(T)>::type;
    U* p = reinterpret_cast<U*>(x);
    U old_bits = __atomic_load_n(p, __ATOMIC_RELAXED);  // the CAS below validates it
    for (;;) {
      const T old_value = std::bit_cast<T>(old_bits);
      const T new_value = f(old_value);
      if (__atomic_compare_exchange_n(p, &old_bits, std::bit_cast<U>(new_value), true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {  // [P-OMP KMPC K14]
        if (before != nullptr) *before = old_value;
        return new_value;
      }
    }
  } else {
    atomic_start();
    const T old_value = *x;
    const T new_value = f(old_value);
    *x = new_value;
    atomic_end();
    if (before != nullptr) *before = old_value;
    return new_value;
  }
}

template <class T, class F>
T capture(T* x, F f, int flag) {
  T before;
  const T after = update(x, f, &before);
  return flag != 0 ? after : before;
}

template <class T>
T read(T* x) {
  if constexpr (k_lock_free<T>) {
    using U = typename bits_of<sizeof(T)>::type;
    return std::bit_cast<T>(__atomic_load_n(reinterpret_cast<U*>(x), __ATOMIC_SEQ_CST));  // [P-OMP KMPC K14]
  } else {
    atomic_start();
    const T v = *x;
    atomic_end();
    return v;
  }
}

template <class T>
T swap(T* x, T v) {
  T before;
  update(
      x, [v](T) { return v; }, &before);
  return before;
}

}  // namespace
}  // namespace forkjoin::omp::kmpc

using namespace forkjoin::omp::kmpc;

// ---- one operation on one type -----------------------------------------------------------

// name: __kmpc_atomic_<id>_<op>, the update x = x OP rhs (EXPR over x and rhs), its reverse
// (x = rhs OP x), and their captures (flag: the value after the update, else before).
#define FJ_UPDATE(id, T, op, EXPR)                                                              \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_##op(ident*, int, T* lhs, T rhs) {              \
    update(lhs, [rhs](T x) { return static_cast<T>(EXPR); });                                   \
  }                                                                                             \
  FORKJOIN_OMP_EXPORT T __kmpc_atomic_##id##_##op##_cpt(ident*, int, T* lhs, T rhs, int flag) { \
    return capture(                                                                             \
        lhs, [rhs](T x) { return static_cast<T>(EXPR); }, flag);                                \
  }
#define FJ_REVERSE(id, T, op, EXPR)                                                                 \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_##op##_rev(ident*, int, T* lhs, T rhs) {            \
    update(lhs, [rhs](T x) { return static_cast<T>(EXPR); });                                       \
  }                                                                                                 \
  FORKJOIN_OMP_EXPORT T __kmpc_atomic_##id##_##op##_cpt_rev(ident*, int, T* lhs, T rhs, int flag) { \
    return capture(                                                                                 \
        lhs, [rhs](T x) { return static_cast<T>(EXPR); }, flag);                                    \
  }
// complex float captures through an out parameter (libomp's form on every system)
#define FJ_UPDATE_OUT(id, T, op, EXPR)                                                                     \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_##op(ident*, int, T* lhs, T rhs) {                         \
    update(lhs, [rhs](T x) { return static_cast<T>(EXPR); });                                              \
  }                                                                                                        \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_##op##_cpt(ident*, int, T* lhs, T rhs, T* out, int flag) { \
    *out = capture(                                                                                        \
        lhs, [rhs](T x) { return static_cast<T>(EXPR); }, flag);                                           \
  }
#define FJ_REVERSE_OUT(id, T, op, EXPR)                                                                        \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_##op##_rev(ident*, int, T* lhs, T rhs) {                       \
    update(lhs, [rhs](T x) { return static_cast<T>(EXPR); });                                                  \
  }                                                                                                            \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_##op##_cpt_rev(ident*, int, T* lhs, T rhs, T* out, int flag) { \
    *out = capture(                                                                                            \
        lhs, [rhs](T x) { return static_cast<T>(EXPR); }, flag);                                               \
  }
// x = x OP rhs with a right-hand side of another type R
#define FJ_MIXED(id, T, op, rid, R, EXPR)                                                  \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_##op##_##rid(ident*, int, T* lhs, R rhs) { \
    update(lhs, [rhs](T x) { return static_cast<T>(EXPR); });                              \
  }
#define FJ_READ_WRITE(id, T)                                                                             \
  FORKJOIN_OMP_EXPORT T __kmpc_atomic_##id##_rd(ident*, int, T* loc) { return read(loc); }               \
  FORKJOIN_OMP_EXPORT void __kmpc_atomic_##id##_wr(ident*, int, T* lhs, T rhs) { (void)swap(lhs, rhs); } \
  FORKJOIN_OMP_EXPORT T __kmpc_atomic_##id##_swp(ident*, int, T* lhs, T rhs) { return swap(lhs, rhs); }

// ---- the types ---------------------------------------------------------------------------

#define FJ_ARITH(id, T)                    \
  FJ_UPDATE(id, T, add, x + rhs)           \
  FJ_UPDATE(id, T, sub, x - rhs)           \
  FJ_UPDATE(id, T, mul, x* rhs)            \
  FJ_UPDATE(id, T, div, x / rhs)           \
  FJ_UPDATE(id, T, max, x < rhs ? rhs : x) \
  FJ_UPDATE(id, T, min, rhs < x ? rhs : x) \
  FJ_REVERSE(id, T, sub, rhs - x)          \
  FJ_REVERSE(id, T, div, rhs / x)          \
  FJ_READ_WRITE(id, T)
#define FJ_INTEGER(id, T, UT)                                        \
  FJ_ARITH(id, T)                                                    \
  FJ_UPDATE(id, T, andb, x& rhs)                                     \
  FJ_UPDATE(id, T, orb, x | rhs)                                     \
  FJ_UPDATE(id, T, xor, x ^ rhs)                                     \
  FJ_UPDATE(id, T, shl, x << rhs)                                    \
  FJ_UPDATE(id, T, shr, x >> rhs)                                    \
  FJ_UPDATE(id, T, andl, x&& rhs)                                    \
  FJ_UPDATE(id, T, orl, x || rhs)                                    \
  FJ_UPDATE(id, T, eqv, x ^ ~rhs)                                    \
  FJ_UPDATE(id, T, neqv, x ^ rhs)                                    \
  FJ_REVERSE(id, T, shl, rhs << x)                                   \
  FJ_REVERSE(id, T, shr, rhs >> x)                                   \
  FJ_MIXED(id, T, mul, float8, double, static_cast<double>(x) * rhs) \
  FJ_MIXED(id, T, div, float8, double, static_cast<double>(x) / rhs) \
  FJ_UPDATE(id##u, UT, div, x / rhs)                                 \
  FJ_UPDATE(id##u, UT, shr, x >> rhs)                                \
  FJ_REVERSE(id##u, UT, div, rhs / x)                                \
  FJ_REVERSE(id##u, UT, shr, rhs >> x)

FJ_INTEGER(fixed1, signed char, unsigned char)
FJ_INTEGER(fixed2, short, unsigned short)
FJ_INTEGER(fixed4, std::int32_t, std::uint32_t)
FJ_INTEGER(fixed8, std::int64_t, std::uint64_t)

FJ_ARITH(float4, float)
FJ_MIXED(float4, float, add, float8, double, x + rhs)
FJ_MIXED(float4, float, sub, float8, double, x - rhs)
FJ_MIXED(float4, float, mul, float8, double, x* rhs)
FJ_MIXED(float4, float, div, float8, double, x / rhs)
FJ_ARITH(float8, double)
FJ_ARITH(float10, long double)

FJ_UPDATE_OUT(cmplx4, cmplx4, add, x + rhs)
FJ_UPDATE_OUT(cmplx4, cmplx4, sub, x - rhs)
FJ_UPDATE_OUT(cmplx4, cmplx4, mul, x* rhs)
FJ_UPDATE_OUT(cmplx4, cmplx4, div, x / rhs)
FJ_REVERSE_OUT(cmplx4, cmplx4, sub, rhs - x)
FJ_REVERSE_OUT(cmplx4, cmplx4, div, rhs / x)
FJ_MIXED(cmplx4, cmplx4, add, cmplx8, cmplx8, x + rhs)
FJ_MIXED(cmplx4, cmplx4, sub, cmplx8, cmplx8, x - rhs)
FJ_MIXED(cmplx4, cmplx4, mul, cmplx8, cmplx8, x* rhs)
FJ_MIXED(cmplx4, cmplx4, div, cmplx8, cmplx8, x / rhs)
FORKJOIN_OMP_EXPORT cmplx4 __kmpc_atomic_cmplx4_rd(ident*, int, cmplx4* loc) { return read(loc); }
FORKJOIN_OMP_EXPORT void __kmpc_atomic_cmplx4_wr(ident*, int, cmplx4* lhs, cmplx4 rhs) { (void)swap(lhs, rhs); }
FORKJOIN_OMP_EXPORT void __kmpc_atomic_cmplx4_swp(ident*, int, cmplx4* lhs, cmplx4 rhs, cmplx4* out) {
  *out = swap(lhs, rhs);
}

#define FJ_COMPLEX(id, T)         \
  FJ_UPDATE(id, T, add, x + rhs)  \
  FJ_UPDATE(id, T, sub, x - rhs)  \
  FJ_UPDATE(id, T, mul, x* rhs)   \
  FJ_UPDATE(id, T, div, x / rhs)  \
  FJ_REVERSE(id, T, sub, rhs - x) \
  FJ_REVERSE(id, T, div, rhs / x) \
  FJ_READ_WRITE(id, T)
FJ_COMPLEX(cmplx8, cmplx8)
FJ_COMPLEX(cmplx10, cmplx10)

// ---- compare-and-swap (OpenMP 5.1 atomic compare) -----------------------------------------

#define FJ_CAS(n, T)                                                                                             \
  FORKJOIN_OMP_EXPORT bool __kmpc_atomic_bool_##n##_cas(ident*, int, T* x, T e, T d) {                           \
    return __atomic_compare_exchange_n(x, &e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); /* K14 */           \
  }                                                                                                              \
  FORKJOIN_OMP_EXPORT T __kmpc_atomic_val_##n##_cas(ident*, int, T* x, T e, T d) {                               \
    __atomic_compare_exchange_n(x, &e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); /* K14 */                  \
    return e; /* the value found: the old one */                                                                 \
  }                                                                                                              \
  FORKJOIN_OMP_EXPORT bool __kmpc_atomic_bool_##n##_cas_cpt(ident*, int, T* x, T e, T d, T* pv) {                \
    if (__atomic_compare_exchange_n(x, &e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return true; /* K14 */ \
    *pv = e;                                                                                                     \
    return false;                                                                                                \
  }                                                                                                              \
  FORKJOIN_OMP_EXPORT T __kmpc_atomic_val_##n##_cas_cpt(ident*, int, T* x, T e, T d, T* pv) {                    \
    const bool swapped = __atomic_compare_exchange_n(x, &e, d, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);       \
    *pv = swapped ? d : e; /* K14: the value x holds afterwards */                                               \
    return e;              /* the value found: the old one */                                                    \
  }
FJ_CAS(1, char)
FJ_CAS(2, short)
FJ_CAS(4, std::int32_t)
FJ_CAS(8, std::int64_t)

// ---- the generic forms: f(result, old, rhs) over n bytes -----------------------------------

namespace {
using combiner = void (*)(void*, void*, void*);
template <class U>
void generic_cas(void* lhs, void* rhs, combiner f) {
  U* p = static_cast<U*>(lhs);
  U old_value = __atomic_load_n(p, __ATOMIC_RELAXED);  // the CAS below validates it
  for (;;) {
    U new_value;
    U seen = old_value;
    f(&new_value, &seen, rhs);
    if (__atomic_compare_exchange_n(p, &old_value, new_value, true, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))  // [P-OMP KMPC K14]
      return;
  }
}
void generic_locked(void* lhs, void* rhs, combiner f) {
  forkjoin::omp::atomic_start();
  f(lhs, lhs, rhs);
  forkjoin::omp::atomic_end();
}
}  // namespace

FORKJOIN_OMP_EXPORT void __kmpc_atomic_1(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_cas<std::uint8_t>(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_2(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_cas<std::uint16_t>(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_4(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_cas<std::uint32_t>(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_8(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_cas<std::uint64_t>(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_10(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_locked(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_16(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_locked(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_20(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_locked(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_32(ident*, int, void* lhs, void* rhs, combiner f) {
  generic_locked(lhs, rhs, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_atomic_start() { forkjoin::omp::atomic_start(); }
FORKJOIN_OMP_EXPORT void __kmpc_atomic_end() { forkjoin::omp::atomic_end(); }
