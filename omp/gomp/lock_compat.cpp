// lock_compat.cpp: the lock routines of the OpenMP 2.5 ABI, version node OMP_1.0, which
// binaries built by gcc < 4.4 reference (C and Fortran alike: both pass the lock's address).
// There, omp_lock_t is the same 4-byte word as today and omp_nest_lock_t 8 bytes that hold a
// nest lock record's address, as today's, but only 4-aligned: too little for an atomic access,
// so the address is copied in and out, and init is required (no record made on first use).
// Nest locks of OpenMP 2.5 are owned by threads, not tasks. [P-OMP Lock]
#include <cstdint>
#include <cstring>

#include "../abi/export.hpp"
#include "../api/api.hpp"
#include "../core/internal.hpp"
#include "../core/lock.hpp"

using namespace forkjoin::omp;

namespace {
// the calling thread: its state lives until the process ends, so no other thread reuses it
void* current_thread() noexcept { return &self(); }

nest_lock* nest_in(const void* slot) noexcept {
  nest_lock* l = nullptr;
  std::memcpy(&l, slot, sizeof l);
  return l;
}
}  // namespace

// Each defines the C name and the Fortran name at OMP_1.0 (neither is the default version).
#define FJ_OMP_1_0(name, ret, params)                           \
  FORKJOIN_OMP_EXPORT ret forkjoin_##name##_25 params;          \
  FORKJOIN_OMP_SYMVER(forkjoin_##name##_25, #name "@OMP_1.0");  \
  FORKJOIN_OMP_SYMVER(forkjoin_##name##_25, #name "_@OMP_1.0"); \
  ret forkjoin_##name##_25 params

FJ_OMP_1_0(omp_init_lock, void, (std::uint32_t * l)) { omp_init_lock(l); }
FJ_OMP_1_0(omp_destroy_lock, void, (std::uint32_t * l)) { omp_destroy_lock(l); }
FJ_OMP_1_0(omp_set_lock, void, (std::uint32_t * l)) { omp_set_lock(l); }
FJ_OMP_1_0(omp_unset_lock, void, (std::uint32_t * l)) { omp_unset_lock(l); }
FJ_OMP_1_0(omp_test_lock, int, (std::uint32_t * l)) { return omp_test_lock(l); }

FJ_OMP_1_0(omp_init_nest_lock, void, (void* slot)) {
  auto* l = new nest_lock{0, 0, nullptr};
  std::memcpy(slot, &l, sizeof l);
}
FJ_OMP_1_0(omp_destroy_nest_lock, void, (void* slot)) {
  delete nest_in(slot);
  std::memset(slot, 0, sizeof(nest_lock*));
}
FJ_OMP_1_0(omp_set_nest_lock, void, (void* slot)) { nest_set(nest_in(slot), current_thread()); }
FJ_OMP_1_0(omp_unset_nest_lock, void, (void* slot)) { nest_unset(nest_in(slot)); }
FJ_OMP_1_0(omp_test_nest_lock, int, (void* slot)) { return nest_test(nest_in(slot), current_thread()); }
