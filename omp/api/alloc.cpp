// api/alloc.cpp: the omp_* memory allocator routines (OpenMP 5.0/5.1 "Memory Management"),
// on the core's allocators (core/alloc.cpp). Zero sizes and overflowing counts return NULL,
// as libgomp's.
#include <cstddef>
#include <cstdint>

#include "../abi/export.hpp"
#include "../core/alloc.hpp"
#include "api.hpp"

using namespace forkjoin::omp;

FORKJOIN_OMP_EXPORT std::uintptr_t omp_init_allocator(std::uintptr_t memspace, int ntraits, const void* traits) {
  return init_allocator(memspace, ntraits, static_cast<const allocator_trait*>(traits));
}
FORKJOIN_OMP_EXPORT void omp_destroy_allocator(std::uintptr_t a) { destroy_allocator(a); }
FORKJOIN_OMP_EXPORT void omp_set_default_allocator(std::uintptr_t a) { set_default_allocator(a); }
FORKJOIN_OMP_EXPORT std::uintptr_t omp_get_default_allocator() { return default_allocator(); }

FORKJOIN_OMP_EXPORT void* omp_aligned_alloc(std::size_t alignment, std::size_t size, std::uintptr_t a) {
  return allocate_from(a, alignment, size, false, "omp_aligned_alloc");
}
FORKJOIN_OMP_EXPORT void* omp_alloc(std::size_t size, std::uintptr_t a) {
  return allocate_from(a, 1, size, false, "omp_alloc");
}
FORKJOIN_OMP_EXPORT void* omp_aligned_calloc(std::size_t alignment, std::size_t n, std::size_t size, std::uintptr_t a) {
  if (n == 0 || size == 0 || n > ~std::size_t{0} / size) return nullptr;
  return allocate_from(a, alignment, n * size, true, "omp_aligned_calloc");
}
FORKJOIN_OMP_EXPORT void* omp_calloc(std::size_t n, std::size_t size, std::uintptr_t a) {
  if (n == 0 || size == 0 || n > ~std::size_t{0} / size) return nullptr;
  return allocate_from(a, 1, n * size, true, "omp_calloc");
}
FORKJOIN_OMP_EXPORT void omp_free(void* p, std::uintptr_t) { release_block(p); }
FORKJOIN_OMP_EXPORT void* omp_realloc(void* p, std::size_t size, std::uintptr_t a, std::uintptr_t) {
  return reallocate(p, size, a);
}
