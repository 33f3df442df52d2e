// fortran.cpp: the Fortran binding of the omp_* API, as gfortran's omp_lib module and omp_lib.h
// call it: the name with a trailing underscore, every argument by reference (integer(4) and
// logical(4) as int32_t, integer(8) and logical(8) as int64_t), results by value; the `_8_`
// variants take integer(8)/logical(8) arguments (the module's generic interfaces pick them, and
// -fdefault-integer-8 programs call them). Each is a thin front-end over the C entry point.
//
// Kinds (gfortran 12's omp_lib_kinds): omp_lock_kind 4 is the C omp_lock_t itself, and
// omp_nest_lock_kind 8 the C omp_nest_lock_t's slot (lock.hpp's nest_slot). Character arguments are passed
// as an address plus a hidden length (size_t) after the explicit arguments, not NUL-terminated:
// results are blank-padded. omp_fulfill_event takes its handle by value (the module's VALUE).
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "../abi/export.hpp"
#include "../api/api.hpp"
#include "../core/internal.hpp"
#include "../core/lock.hpp"

using forkjoin::omp::nest_slot;

namespace {

// An integer(8) argument where the C API takes an int: saturated, never wrapped.
int to_int(std::int64_t v) noexcept { return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : static_cast<int>(v); }
std::int32_t to_int32(std::size_t v) noexcept { return v > INT32_MAX ? INT32_MAX : static_cast<std::int32_t>(v); }

constexpr unsigned k_monotonic = 0x80000000u;  // omp_sched_monotonic: gfortran 12's omp_lib has no such kind

}  // namespace

// Queries without arguments: the C result as integer(4), logical(4) or double precision.
#define FJ_FORTRAN_GET(type, name) \
  FORKJOIN_OMP_EXPORT type name##_() { return name(); }

FJ_FORTRAN_GET(std::int32_t, omp_get_num_threads)
FJ_FORTRAN_GET(std::int32_t, omp_get_max_threads)
FJ_FORTRAN_GET(std::int32_t, omp_get_thread_num)
FJ_FORTRAN_GET(std::int32_t, omp_get_num_procs)
FJ_FORTRAN_GET(std::int32_t, omp_in_parallel)
FJ_FORTRAN_GET(std::int32_t, omp_get_dynamic)
FJ_FORTRAN_GET(std::int32_t, omp_get_nested)
FJ_FORTRAN_GET(std::int32_t, omp_get_thread_limit)
FJ_FORTRAN_GET(std::int32_t, omp_get_supported_active_levels)
FJ_FORTRAN_GET(std::int32_t, omp_get_max_active_levels)
FJ_FORTRAN_GET(std::int32_t, omp_get_level)
FJ_FORTRAN_GET(std::int32_t, omp_get_active_level)
FJ_FORTRAN_GET(std::int32_t, omp_in_final)
FJ_FORTRAN_GET(std::int32_t, omp_get_cancellation)
FJ_FORTRAN_GET(std::int32_t, omp_get_proc_bind)
FJ_FORTRAN_GET(std::int32_t, omp_get_max_task_priority)
FJ_FORTRAN_GET(std::int32_t, omp_get_max_teams)
FJ_FORTRAN_GET(std::int32_t, omp_get_teams_thread_limit)
FJ_FORTRAN_GET(std::int32_t, omp_get_num_teams)
FJ_FORTRAN_GET(std::int32_t, omp_get_team_num)
FJ_FORTRAN_GET(std::int32_t, omp_get_num_places)
FJ_FORTRAN_GET(std::int32_t, omp_get_place_num)
FJ_FORTRAN_GET(std::int32_t, omp_get_partition_num_places)
FJ_FORTRAN_GET(std::int32_t, omp_get_default_device)
FJ_FORTRAN_GET(std::int32_t, omp_get_num_devices)
FJ_FORTRAN_GET(std::int32_t, omp_get_device_num)
FJ_FORTRAN_GET(std::int32_t, omp_is_initial_device)
FJ_FORTRAN_GET(std::int32_t, omp_get_initial_device)
FJ_FORTRAN_GET(double, omp_get_wtime)
FJ_FORTRAN_GET(double, omp_get_wtick)
FJ_FORTRAN_GET(std::intptr_t, omp_get_default_allocator)

// Setters and queries of one integer argument, in both kinds.
#define FJ_FORTRAN_INT_ARG(ret, name)                                         \
  FORKJOIN_OMP_EXPORT ret name##_(const std::int32_t* v) { return name(*v); } \
  FORKJOIN_OMP_EXPORT ret name##_8_(const std::int64_t* v) { return name(to_int(*v)); }

FJ_FORTRAN_INT_ARG(void, omp_set_num_threads)
FJ_FORTRAN_INT_ARG(void, omp_set_max_active_levels)
FJ_FORTRAN_INT_ARG(void, omp_set_num_teams)
FJ_FORTRAN_INT_ARG(void, omp_set_teams_thread_limit)
FJ_FORTRAN_INT_ARG(void, omp_set_default_device)
FJ_FORTRAN_INT_ARG(std::int32_t, omp_get_ancestor_thread_num)
FJ_FORTRAN_INT_ARG(std::int32_t, omp_get_team_size)
FJ_FORTRAN_INT_ARG(std::int32_t, omp_get_place_num_procs)

// logical(4) and logical(8) arguments: any nonzero value is true.
#define FJ_FORTRAN_LOGICAL_ARG(name)                                                 \
  FORKJOIN_OMP_EXPORT void name##_(const std::int32_t* v) { name(*v != 0 ? 1 : 0); } \
  FORKJOIN_OMP_EXPORT void name##_8_(const std::int64_t* v) { name(*v != 0 ? 1 : 0); }

FJ_FORTRAN_LOGICAL_ARG(omp_set_dynamic)
FJ_FORTRAN_LOGICAL_ARG(omp_set_nested)
FJ_FORTRAN_LOGICAL_ARG(omp_display_env)

FORKJOIN_OMP_EXPORT void omp_set_schedule_(const std::int32_t* kind, const std::int32_t* chunk) {
  omp_set_schedule(*kind, *chunk);
}
FORKJOIN_OMP_EXPORT void omp_set_schedule_8_(const std::int32_t* kind, const std::int64_t* chunk) {
  omp_set_schedule(*kind, to_int(*chunk));
}
FORKJOIN_OMP_EXPORT void omp_get_schedule_(std::int32_t* kind, std::int32_t* chunk) {
  int k = 0, c = 0;
  omp_get_schedule(&k, &c);
  *kind = static_cast<std::int32_t>(static_cast<unsigned>(k) & ~k_monotonic);
  *chunk = c;
}
FORKJOIN_OMP_EXPORT void omp_get_schedule_8_(std::int32_t* kind, std::int64_t* chunk) {
  int k = 0, c = 0;
  omp_get_schedule(&k, &c);
  *kind = static_cast<std::int32_t>(static_cast<unsigned>(k) & ~k_monotonic);
  *chunk = c;
}

// ---- places: integer(8) arrays are filled from the C API's int arrays -------------------------

FORKJOIN_OMP_EXPORT void omp_get_place_proc_ids_(const std::int32_t* place, std::int32_t* ids) {
  omp_get_place_proc_ids(*place, ids);
}
FORKJOIN_OMP_EXPORT void omp_get_place_proc_ids_8_(const std::int64_t* place, std::int64_t* ids) {
  const int p = to_int(*place);
  std::vector<int> v(static_cast<std::size_t>(omp_get_place_num_procs(p)));
  if (v.empty()) return;
  omp_get_place_proc_ids(p, v.data());
  for (int c : v) *ids++ = c;
}
FORKJOIN_OMP_EXPORT void omp_get_partition_place_nums_(std::int32_t* nums) { omp_get_partition_place_nums(nums); }
FORKJOIN_OMP_EXPORT void omp_get_partition_place_nums_8_(std::int64_t* nums) {
  std::vector<int> v(static_cast<std::size_t>(omp_get_partition_num_places()));
  if (v.empty()) return;
  omp_get_partition_place_nums(v.data());
  for (int p : v) *nums++ = p;
}

// ---- locks ------------------------------------------------------------------------------------

// The lock routines without hints exist in two versions (lock.cpp): these are OMP_3.0's, the
// default; lock_compat.cpp has OMP_1.0's.
#define FJ_FORTRAN_LOCK(name, ret, params)                      \
  FORKJOIN_OMP_EXPORT ret forkjoin_##name##_f params;           \
  FORKJOIN_OMP_SYMVER(forkjoin_##name##_f, #name "_@@OMP_3.0"); \
  ret forkjoin_##name##_f params

FJ_FORTRAN_LOCK(omp_init_lock, void, (std::uint32_t * l)) { omp_init_lock(l); }
FJ_FORTRAN_LOCK(omp_destroy_lock, void, (std::uint32_t * l)) { omp_destroy_lock(l); }
FJ_FORTRAN_LOCK(omp_set_lock, void, (std::uint32_t * l)) { omp_set_lock(l); }
FJ_FORTRAN_LOCK(omp_unset_lock, void, (std::uint32_t * l)) { omp_unset_lock(l); }
FJ_FORTRAN_LOCK(omp_test_lock, std::int32_t, (std::uint32_t * l)) { return omp_test_lock(l); }
FJ_FORTRAN_LOCK(omp_init_nest_lock, void, (nest_slot * s)) { omp_init_nest_lock(s); }
FJ_FORTRAN_LOCK(omp_destroy_nest_lock, void, (nest_slot * s)) { omp_destroy_nest_lock(s); }
FJ_FORTRAN_LOCK(omp_set_nest_lock, void, (nest_slot * s)) { omp_set_nest_lock(s); }
FJ_FORTRAN_LOCK(omp_unset_nest_lock, void, (nest_slot * s)) { omp_unset_nest_lock(s); }
FJ_FORTRAN_LOCK(omp_test_nest_lock, std::int32_t, (nest_slot * s)) { return omp_test_nest_lock(s); }

FORKJOIN_OMP_EXPORT void omp_init_lock_with_hint_(std::uint32_t* l, const std::int32_t* hint) {
  omp_init_lock_with_hint(l, *hint);
}
FORKJOIN_OMP_EXPORT void omp_init_nest_lock_with_hint_(nest_slot* s, const std::int32_t* hint) {
  omp_init_nest_lock_with_hint(s, *hint);
}

// ---- tasks, resources, allocators ---------------------------------------------------------------

FORKJOIN_OMP_EXPORT void omp_fulfill_event_(std::intptr_t event) { omp_fulfill_event(reinterpret_cast<void*>(event)); }
FORKJOIN_OMP_EXPORT std::int32_t omp_pause_resource_(const std::int32_t* kind, const std::int32_t* device) {
  return omp_pause_resource(*kind, *device);
}
FORKJOIN_OMP_EXPORT std::int32_t omp_pause_resource_all_(const std::int32_t* kind) {
  return omp_pause_resource_all(*kind);
}
FORKJOIN_OMP_EXPORT std::intptr_t omp_init_allocator_(const std::intptr_t* memspace, const std::int32_t* ntraits,
                                                      const void* traits) {
  return static_cast<std::intptr_t>(omp_init_allocator(static_cast<std::uintptr_t>(*memspace), *ntraits, traits));
}
FORKJOIN_OMP_EXPORT std::intptr_t omp_init_allocator_8_(const std::intptr_t* memspace, const std::int64_t* ntraits,
                                                        const void* traits) {
  return static_cast<std::intptr_t>(
      omp_init_allocator(static_cast<std::uintptr_t>(*memspace), to_int(*ntraits), traits));
}
FORKJOIN_OMP_EXPORT void omp_destroy_allocator_(const std::intptr_t* a) {
  omp_destroy_allocator(static_cast<std::uintptr_t>(*a));
}
FORKJOIN_OMP_EXPORT void omp_set_default_allocator_(const std::intptr_t* a) {
  omp_set_default_allocator(static_cast<std::uintptr_t>(*a));
}

// ---- affinity format: character arguments with hidden lengths -------------------------------

FORKJOIN_OMP_EXPORT void omp_set_affinity_format_(const char* format, std::size_t format_len) {
  forkjoin::omp::set_affinity_format(format, format_len);
}
FORKJOIN_OMP_EXPORT std::int32_t omp_get_affinity_format_(char* buffer, std::size_t buffer_len) {
  return to_int32(forkjoin::omp::get_affinity_format(buffer, buffer_len, true));
}
FORKJOIN_OMP_EXPORT void omp_display_affinity_(const char* format, std::size_t format_len) {
  forkjoin::omp::display_affinity(std::string(format, format_len).c_str());
}
FORKJOIN_OMP_EXPORT std::int32_t omp_capture_affinity_(char* buffer, const char* format, std::size_t buffer_len,
                                                       std::size_t format_len) {
  return to_int32(forkjoin::omp::capture_affinity(buffer, buffer_len, std::string(format, format_len).c_str(), true));
}
