// api.hpp: the C signatures of the omp_* user API as api/ defines them (one file per topic,
// named below), for the bindings that call them (kmpc/kmpc_api.cpp's libomp-versioned names,
// fortran/fortran.cpp). The defining files include it too, so a definition that drifts from
// its declaration does not compile.
#pragma once

#include <cstddef>
#include <cstdint>

namespace forkjoin::omp {
struct nest_slot;  // lock.hpp
}

extern "C" {
// threads, teams and levels (threads.cpp, teams.cpp)
void omp_set_num_threads(int n);
int omp_get_num_threads();
int omp_get_max_threads();
int omp_get_thread_num();
int omp_get_num_procs();
int omp_in_parallel();
void omp_set_dynamic(int v);
int omp_get_dynamic();
void omp_set_nested(int v);
int omp_get_nested();
void omp_set_schedule(int kind, int chunk);
void omp_get_schedule(int* kind, int* chunk);
int omp_get_thread_limit();
int omp_get_supported_active_levels();
void omp_set_max_active_levels(int n);
int omp_get_max_active_levels();
int omp_get_level();
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);
int omp_get_active_level();
int omp_in_final();
int omp_get_cancellation();
int omp_get_proc_bind();
int omp_get_max_task_priority();
void omp_set_num_teams(int n);
int omp_get_max_teams();
void omp_set_teams_thread_limit(int n);
int omp_get_teams_thread_limit();
int omp_get_num_teams();
int omp_get_team_num();
double omp_get_wtime();
double omp_get_wtick();

// places (places.cpp)
int omp_get_num_places();
int omp_get_place_num_procs(int place);
void omp_get_place_proc_ids(int place, int* ids);
int omp_get_place_num();
int omp_get_partition_num_places();
void omp_get_partition_place_nums(int* nums);

// devices (device.cpp): the host is the only one
void omp_set_default_device(int device);
int omp_get_default_device();
int omp_get_num_devices();
int omp_get_device_num();
int omp_is_initial_device();
int omp_get_initial_device();
int omp_pause_resource(int kind, int device);
int omp_pause_resource_all(int kind);

// locks (lock.cpp): omp_lock_t is the 4-byte mutex word, omp_nest_lock_t a nest_slot
void omp_init_lock(std::uint32_t* l);
void omp_init_lock_with_hint(std::uint32_t* l, int hint);
void omp_destroy_lock(std::uint32_t* l);
void omp_set_lock(std::uint32_t* l);
void omp_unset_lock(std::uint32_t* l);
int omp_test_lock(std::uint32_t* l);
void omp_init_nest_lock(forkjoin::omp::nest_slot* l);
void omp_init_nest_lock_with_hint(forkjoin::omp::nest_slot* l, int hint);
void omp_destroy_nest_lock(forkjoin::omp::nest_slot* l);
void omp_set_nest_lock(forkjoin::omp::nest_slot* l);
void omp_unset_nest_lock(forkjoin::omp::nest_slot* l);
int omp_test_nest_lock(forkjoin::omp::nest_slot* l);

// tasks (tasks.cpp)
void omp_fulfill_event(void* event);

// allocators (alloc.cpp): omp_allocator_handle_t and omp_memspace_handle_t are uintptr_t
std::uintptr_t omp_init_allocator(std::uintptr_t memspace, int ntraits, const void* traits);
void omp_destroy_allocator(std::uintptr_t allocator);
void omp_set_default_allocator(std::uintptr_t allocator);
std::uintptr_t omp_get_default_allocator();
void* omp_alloc(std::size_t size, std::uintptr_t allocator);
void* omp_aligned_alloc(std::size_t alignment, std::size_t size, std::uintptr_t allocator);
void* omp_calloc(std::size_t n, std::size_t size, std::uintptr_t allocator);
void* omp_aligned_calloc(std::size_t alignment, std::size_t n, std::size_t size, std::uintptr_t allocator);
void* omp_realloc(void* p, std::size_t size, std::uintptr_t allocator, std::uintptr_t free_allocator);
void omp_free(void* p, std::uintptr_t allocator);

// device memory on the host device (device.cpp)
void* omp_target_alloc(std::size_t size, int device);
void omp_target_free(void* p, int device);
int omp_target_is_present(const void* p, int device);
int omp_target_memcpy(void* dst, const void* src, std::size_t length, std::size_t dst_offset, std::size_t src_offset,
                      int dst_device, int src_device);
int omp_target_memcpy_rect(void* dst, const void* src, std::size_t element_size, int num_dims,
                           const std::size_t* volume, const std::size_t* dst_offsets, const std::size_t* src_offsets,
                           const std::size_t* dst_dimensions, const std::size_t* src_dimensions, int dst_device,
                           int src_device);
int omp_target_associate_ptr(const void* host_ptr, const void* device_ptr, std::size_t size, std::size_t device_offset,
                             int device);
int omp_target_disassociate_ptr(const void* ptr, int device);

// affinity display and the environment report (display.cpp)
void omp_set_affinity_format(const char* format);
std::size_t omp_get_affinity_format(char* buffer, std::size_t size);
void omp_display_affinity(const char* format);
std::size_t omp_capture_affinity(char* buffer, std::size_t size, const char* format);
void omp_display_env(int verbose);
}
