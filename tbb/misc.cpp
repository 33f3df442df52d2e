// misc.cpp: the entry points with little or nothing to do on forkjoin: memory
// (cache-aligned blocks, tbb_allocator's), the version queries, the assertion handler,
// topology queries (one NUMA node, one core type: forkjoin reads no hwloc), the ITT
// instrumentation hooks (no tool is attached: they do nothing), and refuse(), the loud stop
// for a call no correct program makes (set_end_of_input outside its pipeline's input filter).
// constraints as the preview extension lays them out (core_type, max_threads_per_core), so
// that constraints_threads_per_core can read what such a program passes.
#define TBB_PREVIEW_TASK_ARENA_CONSTRAINTS_EXTENSION 1
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/profiling.h>
#include <oneapi/tbb/version.h>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

void refuse(const char* what) noexcept {
  std::fprintf(stderr, "libforkjoin-tbb: %s is not supported\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace forkjoin::detail::tbb_layer

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;

namespace {
// oneTBB's own figure for the line size it pads to (two 64-byte lines: adjacent-line prefetch).
constexpr std::size_t k_cache_line_size = 128;
}  // namespace

std::size_t cache_line_size() { return k_cache_line_size; }

void* cache_aligned_allocate(std::size_t size) {
  const std::size_t rounded = (size + k_cache_line_size - 1) & ~(k_cache_line_size - 1);
  if (rounded < size) throw std::bad_alloc();
  void* p = std::aligned_alloc(k_cache_line_size, rounded == 0 ? k_cache_line_size : rounded);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void cache_aligned_deallocate(void* p) { std::free(p); }

void* allocate_memory(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void deallocate_memory(void* p) { std::free(p); }

bool is_tbbmalloc_used() { return false; }

void assertion_failure(const char* location, int line, const char* expression, const char* comment) {
  std::fprintf(stderr, "libforkjoin-tbb: assertion %s failed (%s:%d)%s%s\n", expression, location, line,
               comment != nullptr ? ": " : "", comment != nullptr ? comment : "");
  std::fflush(stderr);
  std::abort();
}

// Topology: one NUMA node and one core type, both "any" (-1), as oneTBB reports without hwloc.
unsigned numa_node_count() { return 1; }
void fill_numa_indices(int* index_array) { index_array[0] = -1; }
int numa_default_concurrency(int) { return tl::implicit_concurrency(); }
unsigned core_type_count(intptr_t) { return 1; }
void fill_core_type_indices(int* index_array, intptr_t) { index_array[0] = -1; }
int constraints_default_concurrency(const d1::constraints& c, intptr_t) {
  return c.max_concurrency > 0 ? c.max_concurrency : tl::implicit_concurrency();
}
int constraints_threads_per_core(const d1::constraints& c, intptr_t) {
  return c.max_threads_per_core > 0 ? c.max_threads_per_core : 1;
}

// ITT instrumentation: no collector is ever attached, so every hook is a no-op.
void create_itt_sync(void*, const char*, const char*) {}
void call_itt_notify(int, void*) {}
void itt_set_sync_name(void*, const char*) {}
void itt_make_task_group(d1::itt_domain_enum, void*, unsigned long long, void*, unsigned long long,
                         d0::string_resource_index) {}
void itt_metadata_str_add(d1::itt_domain_enum, void*, unsigned long long, d0::string_resource_index, const char*) {}
void itt_metadata_ptr_add(d1::itt_domain_enum, void*, unsigned long long, d0::string_resource_index, void*) {}
void itt_relation_add(d1::itt_domain_enum, void*, unsigned long long, d0::itt_relation, void*, unsigned long long) {}
void itt_task_begin(d1::itt_domain_enum, void*, unsigned long long, void*, unsigned long long,
                    d0::string_resource_index) {}
void itt_task_end(d1::itt_domain_enum) {}
void itt_region_begin(d1::itt_domain_enum, void*, unsigned long long, void*, unsigned long long,
                      d0::string_resource_index) {}
void itt_region_end(d1::itt_domain_enum, void*, unsigned long long) {}

}  // namespace tbb::detail::r1

extern "C" {

const char* TBB_runtime_version() { return TBB_VERSION_STRING " (libforkjoin-tbb)"; }

int TBB_runtime_interface_version() { return TBB_INTERFACE_VERSION; }

}  // extern "C"
