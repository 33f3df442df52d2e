// alloc.hpp: OpenMP memory allocators on the host (alloc.cpp): allocator handles as the ABI
// passes them (omp_allocator_handle_t: the predefined allocators 1-8 by number, a user
// allocator by address), their traits, allocation with the fallbacks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace forkjoin::omp {

using allocator_handle = std::uintptr_t;

struct allocator_trait {  // omp_alloctrait_t
  int key;
  std::uintptr_t value;
};

// omp_init_allocator: a user allocator for the memory space (omp_memspace_handle_t) with
// those traits, or 0 (omp_null_allocator) when they cannot be honoured.
allocator_handle init_allocator(std::uintptr_t memspace, int ntraits, const allocator_trait* traits);
void destroy_allocator(allocator_handle a);
void set_default_allocator(allocator_handle a);  // the null allocator: back to OMP_ALLOCATOR's
allocator_handle default_allocator();            // def-allocator-var of the current task
// A block from a (null: def-allocator-var) following its fallback traits; size 0 and every
// failure that the fallbacks allow: NULL. caller names the entry point in error messages.
void* allocate_from(allocator_handle a, std::size_t alignment, std::size_t size, bool zeroed, const char* caller);
void release_block(void* p) noexcept;  // NULL: nothing
// omp_realloc (a null: the block's own allocator).
void* reallocate(void* p, std::size_t size, allocator_handle a);

}  // namespace forkjoin::omp
