// api/lock.cpp: the omp_*_lock routines on the core's futex mutex and nest locks
// (core/lock.cpp, [P-OMP Lock]).
#include <cstdint>
#include <type_traits>

#include "../abi/export.hpp"
#include "../core/lock.hpp"
#include "../core/task.hpp"
#include "../core/team.hpp"
#include "api.hpp"

using namespace forkjoin::omp;

static_assert(sizeof(nest_slot) == 8, "omp_nest_lock_t is 8 bytes in libomp's omp.h and gfortran's omp_lib");

namespace {
void* current_task() noexcept { return self().cur_task; }  // OpenMP 3.0 on: tasks own nest locks
}  // namespace

// The lock routines exist in two versions, as in libgomp: OMP_3.0 (the default, defined here)
// and OMP_1.0 for binaries of gcc < 4.4 (lock_compat.cpp), both given by FORKJOIN_OMP_SYMVER.
// api.hpp's declarations (omp_init_lock, ...) bind to the default ones, as the checks below
// keep them in step.
#define FJ_OMP_3_0(name, impl, ret, params)                                                \
  FORKJOIN_OMP_EXPORT ret impl params;                                                     \
  FORKJOIN_OMP_SYMVER(impl, #name "@@OMP_3.0");                                            \
  static_assert(std::is_same_v<decltype(&(impl)), decltype(&(name))>, #impl " is " #name); \
  ret impl params

FJ_OMP_3_0(omp_init_lock, forkjoin_omp_init_lock, void, (std::uint32_t * l)) { *l = 0; }
FJ_OMP_3_0(omp_destroy_lock, forkjoin_omp_destroy_lock, void, (std::uint32_t*)) {}
FJ_OMP_3_0(omp_set_lock, forkjoin_omp_set_lock, void, (std::uint32_t * l)) { mutex_lock(l); }
FJ_OMP_3_0(omp_unset_lock, forkjoin_omp_unset_lock, void, (std::uint32_t * l)) { mutex_unlock(l); }
FJ_OMP_3_0(omp_test_lock, forkjoin_omp_test_lock, int, (std::uint32_t * l)) { return mutex_try_lock(l) ? 1 : 0; }
FJ_OMP_3_0(omp_init_nest_lock, forkjoin_omp_init_nest_lock, void, (nest_slot * s)) { nest_init(s); }
FJ_OMP_3_0(omp_destroy_nest_lock, forkjoin_omp_destroy_nest_lock, void, (nest_slot * s)) { nest_destroy(s); }
FJ_OMP_3_0(omp_set_nest_lock, forkjoin_omp_set_nest_lock, void, (nest_slot * s)) {
  nest_set(nest_record(s), current_task());
}
FJ_OMP_3_0(omp_unset_nest_lock, forkjoin_omp_unset_nest_lock, void, (nest_slot * s)) { nest_unset(nest_record(s)); }
FJ_OMP_3_0(omp_test_nest_lock, forkjoin_omp_test_nest_lock, int, (nest_slot * s)) {
  return nest_test(nest_record(s), current_task());
}

FORKJOIN_OMP_EXPORT void omp_init_lock_with_hint(std::uint32_t* l, int) { *l = 0; }
FORKJOIN_OMP_EXPORT void omp_init_nest_lock_with_hint(nest_slot* s, int) { nest_init(s); }
