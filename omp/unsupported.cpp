// unsupported.cpp: entry points of constructs this library does not implement yet. Each is
// exported under libgomp's version node so that a program never silently binds it to
// another runtime; calling one stops the program with "forkjoin-omp: <construct> is not
// supported". Also the trivial memory-allocator routines (omp_alloc and friends).
#include <cstdlib>
#include <cstring>

#include "api.hpp"
#include "internal.hpp"

using namespace forkjoin::omp;
using forkjoin::omp::ull;

#define FJ_UNSUPPORTED(ret, name, params, construct) \
  FORKJOIN_OMP_EXPORT ret name params { unsupported(construct); }

// Registering offload images for devices this library does not have is harmless.
FORKJOIN_OMP_EXPORT void GOMP_offload_register(const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_unregister(const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}

// ---- memory allocators: every allocator is the default (malloc) one ----------------------

FORKJOIN_OMP_EXPORT void* omp_aligned_alloc(std::size_t alignment, std::size_t size, std::uintptr_t) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* p = nullptr;
  return posix_memalign(&p, alignment, size == 0 ? 1 : size) == 0 ? p : nullptr;
}
FORKJOIN_OMP_EXPORT void* omp_alloc(std::size_t size, std::uintptr_t a) { return omp_aligned_alloc(16, size, a); }
FORKJOIN_OMP_EXPORT void* omp_aligned_calloc(std::size_t alignment, std::size_t n, std::size_t size, std::uintptr_t a) {
  if (size != 0 && n > static_cast<std::size_t>(-1) / size) return nullptr;
  void* p = omp_aligned_alloc(alignment, n * size, a);
  if (p != nullptr) std::memset(p, 0, n * size);
  return p;
}
FORKJOIN_OMP_EXPORT void* omp_calloc(std::size_t n, std::size_t size, std::uintptr_t a) {
  return omp_aligned_calloc(16, n, size, a);
}
FORKJOIN_OMP_EXPORT void* omp_realloc(void* p, std::size_t size, std::uintptr_t, std::uintptr_t) {
  return std::realloc(p, size);  // omp_alloc's 16-byte alignment is malloc's on x86-64 glibc
}
FORKJOIN_OMP_EXPORT void omp_free(void* p, std::uintptr_t) { std::free(p); }
FJ_UNSUPPORTED(std::uintptr_t, omp_init_allocator, (std::uintptr_t, int, const void*), "omp_init_allocator")
FJ_UNSUPPORTED(void, omp_destroy_allocator, (std::uintptr_t), "omp_destroy_allocator")
FORKJOIN_OMP_EXPORT void omp_set_default_allocator(std::uintptr_t) {}
FORKJOIN_OMP_EXPORT std::uintptr_t omp_get_default_allocator() { return 1; }  // omp_default_mem_alloc
