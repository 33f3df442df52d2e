// kmpc_api.cpp: what clang programs bind under libomp's version node VERSION besides the
// constructs: the omp_* user API (the same entry points as libgomp's, reached through
// VERSION-versioned thunks), libomp's allocator and memory-space handles (data objects in
// clang's omp.h), the __kmpc_* lock, allocator and threadprivate entry points. [P-OMP KMPC]
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "../api/api.hpp"
#include "../core/lock.hpp"
#include "kmpc.hpp"

using namespace forkjoin::omp;
using namespace forkjoin::omp::kmpc;

// ---- the user API under VERSION ----------------------------------------------------------

// omp_lock_t is 8 bytes in libomp's omp.h, 4 in libgomp's: the lock uses the first 4 (lock.cpp);
// omp_nest_lock_t is 8 and 16, and the nest lock uses the first 8 (the record's address).
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_thread_num, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_num_threads, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_max_threads, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_num_threads, (int n), (n));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_num_procs, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_in_parallel, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_dynamic, (int v), (v));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_dynamic, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_nested, (int v), (v));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_nested, (), ());
FORKJOIN_KMPC_OMP_ALIAS(double, omp_get_wtime, (), ());
FORKJOIN_KMPC_OMP_ALIAS(double, omp_get_wtick, (), ());
FORKJOIN_KMPC_OMP_ALIAS_MARK(void, omp_set_schedule, (int kind, int chunk), (kind, chunk));
FORKJOIN_KMPC_OMP_ALIAS_MARK(void, omp_get_schedule, (int* kind, int* chunk), (kind, chunk));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_thread_limit, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_max_active_levels, (int n), (n));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_max_active_levels, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_supported_active_levels, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_level, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_active_level, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_ancestor_thread_num, (int level), (level));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_team_size, (int level), (level));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_in_final, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_cancellation, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_proc_bind, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_num_places, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_place_num_procs, (int place), (place));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_get_place_proc_ids, (int place, int* ids), (place, ids));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_place_num, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_partition_num_places, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_get_partition_place_nums, (int* nums), (nums));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_max_task_priority, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_num_teams, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_team_num, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_num_teams, (int n), (n));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_max_teams, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_teams_thread_limit, (int n), (n));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_teams_thread_limit, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_default_device, (), ());
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_default_device, (int d), (d));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_num_devices, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_device_num, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_get_initial_device, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_is_initial_device, (), ());
FORKJOIN_KMPC_OMP_ALIAS(int, omp_pause_resource, (int kind, int device), (kind, device));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_pause_resource_all, (int kind), (kind));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_fulfill_event, (void* event), (event));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_init_lock, (std::uint32_t * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_init_lock_with_hint, (std::uint32_t * l, int hint), (l, hint));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_destroy_lock, (std::uint32_t * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_lock, (std::uint32_t * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_unset_lock, (std::uint32_t * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_test_lock, (std::uint32_t * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_init_nest_lock, (nest_slot * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_init_nest_lock_with_hint, (nest_slot * l, int hint), (l, hint));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_destroy_nest_lock, (nest_slot * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_nest_lock, (nest_slot * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_unset_nest_lock, (nest_slot * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(int, omp_test_nest_lock, (nest_slot * l), (l));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_display_env, (int verbose), (verbose));
FORKJOIN_KMPC_OMP_ALIAS_MARK(void, omp_set_affinity_format, (const char* format), (format));
FORKJOIN_KMPC_OMP_ALIAS_MARK(std::size_t, omp_get_affinity_format, (char* buffer, std::size_t size), (buffer, size));
// clang programs' affinity lines go to stdout, as libomp prints them (internal.hpp)
FORKJOIN_OMP_EXPORT void forkjoin_kmpc_omp_display_affinity(const char* format) {
  mark_kmpc_program();  // [P-OMP KMPC K15]
  kmpc_affinity_to_stdout();
  omp_display_affinity(format);
}
__asm__(".symver forkjoin_kmpc_omp_display_affinity, omp_display_affinity@VERSION");
FORKJOIN_KMPC_OMP_ALIAS_MARK(std::size_t, omp_capture_affinity, (char* buffer, std::size_t size, const char* format),
                             (buffer, size, format));
FORKJOIN_KMPC_OMP_ALIAS(void*, omp_alloc, (std::size_t size, std::uintptr_t a), (size, a));
FORKJOIN_KMPC_OMP_ALIAS(void*, omp_aligned_alloc, (std::size_t align, std::size_t size, std::uintptr_t a),
                        (align, size, a));
FORKJOIN_KMPC_OMP_ALIAS(void*, omp_calloc, (std::size_t n, std::size_t size, std::uintptr_t a), (n, size, a));
FORKJOIN_KMPC_OMP_ALIAS(void*, omp_aligned_calloc,
                        (std::size_t align, std::size_t n, std::size_t size, std::uintptr_t a), (align, n, size, a));
FORKJOIN_KMPC_OMP_ALIAS(void*, omp_realloc, (void* p, std::size_t size, std::uintptr_t a, std::uintptr_t f),
                        (p, size, a, f));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_free, (void* p, std::uintptr_t a), (p, a));
FORKJOIN_KMPC_OMP_ALIAS(std::uintptr_t, omp_init_allocator, (std::uintptr_t space, int n, const void* traits),
                        (space, n, traits));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_destroy_allocator, (std::uintptr_t a), (a));
FORKJOIN_KMPC_OMP_ALIAS(void, omp_set_default_allocator, (std::uintptr_t a), (a));
FORKJOIN_KMPC_OMP_ALIAS(std::uintptr_t, omp_get_default_allocator, (), ());

// libomp's ompc_* forms of setters and queries (its omp.h maps some omp_* names to them):
// the same entry points, called by value.
FORKJOIN_OMP_EXPORT void ompc_set_num_threads(int n) { omp_set_num_threads(n); }
FORKJOIN_OMP_EXPORT void ompc_set_dynamic(int v) { omp_set_dynamic(v); }
FORKJOIN_OMP_EXPORT void ompc_set_nested(int v) { omp_set_nested(v); }
FORKJOIN_OMP_EXPORT void ompc_set_max_active_levels(int n) { omp_set_max_active_levels(n); }
FORKJOIN_OMP_EXPORT void ompc_set_schedule(int kind, int chunk) {
  mark_kmpc_program();  // [P-OMP KMPC K15]
  omp_set_schedule(kind, chunk);
}
FORKJOIN_OMP_EXPORT int ompc_get_ancestor_thread_num(int level) { return omp_get_ancestor_thread_num(level); }
FORKJOIN_OMP_EXPORT int ompc_get_team_size(int level) { return omp_get_team_size(level); }
FORKJOIN_OMP_EXPORT void ompc_set_affinity_format(const char* format) {
  mark_kmpc_program();  // [P-OMP KMPC K15]
  omp_set_affinity_format(format);
}
FORKJOIN_OMP_EXPORT std::size_t ompc_get_affinity_format(char* buffer, std::size_t size) {
  return omp_get_affinity_format(buffer, size);
}
FORKJOIN_OMP_EXPORT void ompc_display_affinity(const char* format) {
  mark_kmpc_program();  // [P-OMP KMPC K15]
  kmpc_affinity_to_stdout();
  omp_display_affinity(format);
}
FORKJOIN_OMP_EXPORT std::size_t ompc_capture_affinity(char* buffer, std::size_t size, const char* format) {
  mark_kmpc_program();  // [P-OMP KMPC K15]
  return omp_capture_affinity(buffer, size, format);
}

// libomp's memory extension (kmp_malloc and friends; kmpc_* are the same for other compilers):
// the C library's heap. kmp_free frees what any of them returned.
namespace {
void* aligned_block(std::size_t size, std::size_t alignment) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return nullptr;  // as posix_memalign
  void* p = nullptr;
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}
}  // namespace
FORKJOIN_OMP_EXPORT void* kmp_malloc(std::size_t size) { return std::malloc(size); }
FORKJOIN_OMP_EXPORT void* kmp_aligned_malloc(std::size_t size, std::size_t alignment) {
  return aligned_block(size, alignment);
}
FORKJOIN_OMP_EXPORT void* kmp_calloc(std::size_t n, std::size_t size) { return std::calloc(n, size); }
FORKJOIN_OMP_EXPORT void* kmp_realloc(void* p, std::size_t size) { return std::realloc(p, size); }
FORKJOIN_OMP_EXPORT void kmp_free(void* p) { std::free(p); }
FORKJOIN_OMP_EXPORT void* kmpc_malloc(std::size_t size) { return std::malloc(size); }
FORKJOIN_OMP_EXPORT void* kmpc_aligned_malloc(std::size_t size, std::size_t alignment) {
  return aligned_block(size, alignment);
}
FORKJOIN_OMP_EXPORT void* kmpc_calloc(std::size_t n, std::size_t size) { return std::calloc(n, size); }
FORKJOIN_OMP_EXPORT void* kmpc_realloc(void* p, std::size_t size) { return std::realloc(p, size); }
FORKJOIN_OMP_EXPORT void kmpc_free(void* p) { std::free(p); }

// libomp's count of dispatch buffers (how many dynamically scheduled nowait loops a thread may
// run ahead of the slowest): a tuning knob with no effect on results. The core's work shares
// are not a fixed ring, so there is nothing to size ([P-OMP WS]).
FORKJOIN_OMP_EXPORT void kmp_set_disp_num_buffers(int) {}
FORKJOIN_OMP_EXPORT void kmpc_set_disp_num_buffers(int) {}

// libomp's OpenMP 5.1 tool and interop queries: no tool is attached, and no interop object
// exists without devices (omp_interop_none is 0).
FORKJOIN_OMP_EXPORT int omp_control_tool(int, int, void*) { return -2; }  // omp_control_tool_notool
FORKJOIN_OMP_EXPORT int omp_get_num_interop_properties(const void*) { return 0; }
FORKJOIN_OMP_EXPORT std::intptr_t omp_get_interop_int(const void*, int, int* rc) {
  if (rc != nullptr) *rc = -1;  // omp_irc_no_value
  return 0;
}
FORKJOIN_OMP_EXPORT void* omp_get_interop_ptr(const void*, int, int* rc) {
  if (rc != nullptr) *rc = -1;
  return nullptr;
}
FORKJOIN_OMP_EXPORT const char* omp_get_interop_str(const void*, int, int* rc) {
  if (rc != nullptr) *rc = -1;
  return nullptr;
}
FORKJOIN_OMP_EXPORT const char* omp_get_interop_name(const void*, int) { return nullptr; }
FORKJOIN_OMP_EXPORT const char* omp_get_interop_type_desc(const void*, int) { return nullptr; }
FORKJOIN_OMP_EXPORT const char* omp_get_interop_rc_desc(const void*, int) { return nullptr; }

// The allocator and memory-space handles are data objects in libomp's omp.h, with libgomp's
// values (which the allocator routines take).
#define FJ_KMPC_HANDLE(name, value) extern "C" FORKJOIN_OMP_EXPORT_DATA const std::uintptr_t name = value
#define FORKJOIN_OMP_EXPORT_DATA __attribute__((visibility("default")))
FJ_KMPC_HANDLE(omp_null_allocator, 0);
FJ_KMPC_HANDLE(omp_default_mem_alloc, 1);
FJ_KMPC_HANDLE(omp_large_cap_mem_alloc, 2);
FJ_KMPC_HANDLE(omp_const_mem_alloc, 3);
FJ_KMPC_HANDLE(omp_high_bw_mem_alloc, 4);
FJ_KMPC_HANDLE(omp_low_lat_mem_alloc, 5);
FJ_KMPC_HANDLE(omp_cgroup_mem_alloc, 6);
FJ_KMPC_HANDLE(omp_pteam_mem_alloc, 7);
FJ_KMPC_HANDLE(omp_thread_mem_alloc, 8);
FJ_KMPC_HANDLE(omp_default_mem_space, 0);
FJ_KMPC_HANDLE(omp_large_cap_mem_space, 1);
FJ_KMPC_HANDLE(omp_const_mem_space, 2);
FJ_KMPC_HANDLE(omp_high_bw_mem_space, 3);
FJ_KMPC_HANDLE(omp_low_lat_mem_space, 4);

// Two words Intel's runtime (and libomp, as libiomp5) defines so that linking two OpenMP
// runtimes into one program fails on a duplicate definition; defined here too, so that an
// object that names them binds to this library under libiomp5.so's name as it would to Intel's.
extern "C" {
FORKJOIN_OMP_EXPORT_DATA int forkjoin_kmpc_one_runtime __asm__("_You_must_link_with_exactly_one_OpenMP_library") = 1;
FORKJOIN_OMP_EXPORT_DATA int forkjoin_kmpc_intel_runtime __asm__("_You_must_link_with_Intel_OpenMP_library") = 1;
}

// ---- locks through the ABI (Intel's and flang's compilers call these) --------------------

namespace {
// The user's lock object (libomp's omp_lock_t and omp_nest_lock_t: one pointer) as the core
// keeps it: the mutex word in its first 4 bytes, or the nest lock's slot.
std::uint32_t* word_of(void** l) noexcept { return reinterpret_cast<std::uint32_t*>(l); }
nest_slot* nest_of(void** l) noexcept { return reinterpret_cast<nest_slot*>(l); }
}  // namespace

FORKJOIN_OMP_EXPORT void __kmpc_init_lock(ident*, kmp_int32, void** l) { forkjoin_kmpc_omp_init_lock(word_of(l)); }
FORKJOIN_OMP_EXPORT void __kmpc_init_lock_with_hint(ident*, kmp_int32, void** l, std::uintptr_t) {
  forkjoin_kmpc_omp_init_lock(word_of(l));
}
FORKJOIN_OMP_EXPORT void __kmpc_destroy_lock(ident*, kmp_int32, void** l) {
  forkjoin_kmpc_omp_destroy_lock(word_of(l));
}
FORKJOIN_OMP_EXPORT void __kmpc_set_lock(ident*, kmp_int32, void** l) { forkjoin_kmpc_omp_set_lock(word_of(l)); }
FORKJOIN_OMP_EXPORT void __kmpc_unset_lock(ident*, kmp_int32, void** l) { forkjoin_kmpc_omp_unset_lock(word_of(l)); }
FORKJOIN_OMP_EXPORT int __kmpc_test_lock(ident*, kmp_int32, void** l) {
  return forkjoin_kmpc_omp_test_lock(word_of(l));
}
FORKJOIN_OMP_EXPORT void __kmpc_init_nest_lock(ident*, kmp_int32, void** l) {
  forkjoin_kmpc_omp_init_nest_lock(nest_of(l));
}
FORKJOIN_OMP_EXPORT void __kmpc_init_nest_lock_with_hint(ident*, kmp_int32, void** l, std::uintptr_t) {
  forkjoin_kmpc_omp_init_nest_lock(nest_of(l));
}
FORKJOIN_OMP_EXPORT void __kmpc_destroy_nest_lock(ident*, kmp_int32, void** l) {
  forkjoin_kmpc_omp_destroy_nest_lock(nest_of(l));
}
FORKJOIN_OMP_EXPORT void __kmpc_set_nest_lock(ident*, kmp_int32, void** l) {
  forkjoin_kmpc_omp_set_nest_lock(nest_of(l));
}
FORKJOIN_OMP_EXPORT void __kmpc_unset_nest_lock(ident*, kmp_int32, void** l) {
  forkjoin_kmpc_omp_unset_nest_lock(nest_of(l));
}
FORKJOIN_OMP_EXPORT int __kmpc_test_nest_lock(ident*, kmp_int32, void** l) {
  return forkjoin_kmpc_omp_test_nest_lock(nest_of(l));
}

// ---- allocation (clang's allocate directive and clause, depobj) --------------------------

FORKJOIN_OMP_EXPORT void* __kmpc_alloc(kmp_int32, std::size_t size, std::uintptr_t a) {
  return forkjoin_kmpc_omp_alloc(size, a);
}
FORKJOIN_OMP_EXPORT void* __kmpc_aligned_alloc(kmp_int32, std::size_t align, std::size_t size, std::uintptr_t a) {
  return forkjoin_kmpc_omp_aligned_alloc(align, size, a);
}
FORKJOIN_OMP_EXPORT void* __kmpc_calloc(kmp_int32, std::size_t n, std::size_t size, std::uintptr_t a) {
  return forkjoin_kmpc_omp_calloc(n, size, a);
}
FORKJOIN_OMP_EXPORT void* __kmpc_realloc(kmp_int32, void* p, std::size_t size, std::uintptr_t a, std::uintptr_t f) {
  return forkjoin_kmpc_omp_realloc(p, size, a, f);
}
FORKJOIN_OMP_EXPORT void __kmpc_free(kmp_int32, void* p, std::uintptr_t a) { forkjoin_kmpc_omp_free(p, a); }
FORKJOIN_OMP_EXPORT std::uintptr_t __kmpc_init_allocator(kmp_int32, std::uintptr_t space, int n, const void* traits) {
  return forkjoin_kmpc_omp_init_allocator(space, n, traits);
}
FORKJOIN_OMP_EXPORT void __kmpc_destroy_allocator(kmp_int32, std::uintptr_t a) {
  forkjoin_kmpc_omp_destroy_allocator(a);
}
FORKJOIN_OMP_EXPORT void __kmpc_set_default_allocator(kmp_int32, std::uintptr_t a) {
  forkjoin_kmpc_omp_set_default_allocator(a);
}
FORKJOIN_OMP_EXPORT std::uintptr_t __kmpc_get_default_allocator(kmp_int32) {
  return forkjoin_kmpc_omp_get_default_allocator();
}
FORKJOIN_OMP_EXPORT int __kmpc_pause_resource(int kind) { return forkjoin_kmpc_omp_pause_resource_all(kind); }
// libomptarget's question: target-offload-var, as OMP_TARGET_OFFLOAD or kmp_set_defaults set it
// (0 disabled, 1 default, 2 mandatory; there are no devices either way)
FORKJOIN_OMP_EXPORT int __kmpc_get_target_offload() {
  return g_settings.target_offload.load(std::memory_order_relaxed);
}

// ---- task identities (for tools) ---------------------------------------------------------

FORKJOIN_OMP_EXPORT kmp_uint64 __kmpc_get_taskid() { return reinterpret_cast<std::uintptr_t>(self().cur_task); }
FORKJOIN_OMP_EXPORT kmp_uint64 __kmpc_get_parent_taskid() {
  const task* p = self().cur_task->parent;
  return reinterpret_cast<std::uintptr_t>(p);
}

// ---- threadprivate without TLS (-fno-openmp-use-tls) -------------------------------------

// [P-OMP KMPC K13] a thread's copy of a threadprivate variable is made on its first access:
// by the registered constructor (or copy constructor from the original), else as a copy of
// the original's bytes as the first access of any thread found them; the initial thread uses
// the original, and its first access counts (it may change the original right after).
namespace {
struct tp_var {
  void* (*ctor)(void*) = nullptr;
  void* (*cctor)(void*, void*) = nullptr;
  void (*dtor)(void*) = nullptr;
  std::size_t size = 0;
  void* initial = nullptr;  // the original's bytes at the first copy
};
struct tp_registry {
  std::mutex lock;
  std::unordered_map<const void*, tp_var> vars;
};
tp_registry& registry() {
  static auto* r = new tp_registry;  // never destroyed: threads may exit after main
  return *r;
}
thread_local std::unordered_map<const void*, void*>* tls_copies = nullptr;

void* thread_copy(void* data, std::size_t size) {
  if (tls_copies == nullptr) tls_copies = new std::unordered_map<const void*, void*>;
  auto it = tls_copies->find(data);
  if (it != tls_copies->end()) return it->second;
  tp_var v;
  // the initial thread's first access takes the snapshot too (when no other thread's did),
  // before the address it returns lets the program change the original
  {
    tp_registry& r = registry();
    std::lock_guard<std::mutex> g(r.lock);
    tp_var& rv = r.vars[data];
    if (rv.ctor == nullptr && rv.cctor == nullptr && rv.initial == nullptr && size != 0) {
      rv.size = size;
      rv.initial = std::malloc(size);
      if (rv.initial == nullptr) fatal("out of memory allocating a threadprivate copy");
      std::memcpy(rv.initial, data, size);
    }
    v = rv;
  }
  if (self().gtid == 0) {
    tls_copies->emplace(data, data);
    return data;
  }
  if (size == 0) size = v.size;
  void* copy = std::calloc(size != 0 ? size : 1, 1);
  if (copy == nullptr) fatal("out of memory allocating a threadprivate copy");
  if (v.ctor != nullptr)
    v.ctor(copy);
  else if (v.cctor != nullptr)
    v.cctor(copy, data);
  else if (v.initial != nullptr)
    std::memcpy(copy, v.initial, size);
  tls_copies->emplace(data, copy);
  return copy;
}
}  // namespace

FORKJOIN_OMP_EXPORT void __kmpc_threadprivate_register(ident*, void* data, void* (*ctor)(void*),
                                                       void* (*cctor)(void*, void*), void (*dtor)(void*)) {
  tp_registry& r = registry();
  std::lock_guard<std::mutex> g(r.lock);
  tp_var& v = r.vars[data];
  v.ctor = ctor;
  v.cctor = cctor;
  v.dtor = dtor;
}
FORKJOIN_OMP_EXPORT void __kmpc_threadprivate_register_vec(ident* loc, void* data, void* (*ctor)(void*),
                                                           void* (*cctor)(void*, void*), void (*dtor)(void*),
                                                           std::size_t) {
  __kmpc_threadprivate_register(loc, data, ctor, cctor, dtor);
}
FORKJOIN_OMP_EXPORT void* __kmpc_threadprivate(ident*, kmp_int32, void* data, std::size_t size) {
  return thread_copy(data, size);
}
FORKJOIN_OMP_EXPORT void* __kmpc_threadprivate_cached(ident*, kmp_int32, void* data, std::size_t size, void***) {
  return thread_copy(data, size);
}
