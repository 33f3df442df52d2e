// gomp/alloc.cpp: the allocate clause and directive as gcc emits them, on the core's
// allocators (core/alloc.cpp). A null_fb fallback stops the program instead, as libgomp's:
// the construct has no way to report NULL.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../abi/export.hpp"
#include "../core/alloc.hpp"

using namespace forkjoin::omp;

FORKJOIN_OMP_EXPORT void* GOMP_alloc(std::size_t alignment, std::size_t size, std::uintptr_t a) {
  if (size == 0) return nullptr;
  void* p = allocate_from(a, alignment, size, false, "GOMP_alloc");
  if (p == nullptr) {
    std::fprintf(stderr, "forkjoin-omp: allocate: out of memory allocating %zu bytes\n", size);
    std::abort();
  }
  return p;
}
FORKJOIN_OMP_EXPORT void GOMP_free(void* p, std::uintptr_t) { release_block(p); }
