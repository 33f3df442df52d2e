// unsupported.cpp: entry points this library exports but has nothing to do for. Each is
// exported under libgomp's version node so that a program never silently binds it to
// another runtime. An entry point of a construct not implemented would stop the program
// here with unsupported() ("forkjoin-omp: <construct> is not supported"); none is left.
#include "../core/internal.hpp"

// Registering offload images for devices this library does not have is harmless.
FORKJOIN_OMP_EXPORT void GOMP_offload_register(const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_unregister(const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}
