// export.hpp: how libforkjoin-omp exports an entry point. The version map
// (libforkjoin-omp.map) names what is exported and under which version node; these macros
// give a definition default visibility (the library is built with hidden visibility) or a
// versioned name of its own.
#pragma once

// An extern "C" entry point of the library's ABI.
#define FORKJOIN_OMP_EXPORT extern "C" __attribute__((visibility("default")))

// Exports the function `impl` as the symbol `versioned` ("name@@NODE": the default version,
// "name@NODE": an older one). The lock routines exist in two versions, as in libgomp, and a
// name in two version nodes takes neither from the version script. (An assembler directive:
// clang 14 has no symver attribute.)
#define FORKJOIN_OMP_SYMVER(impl, versioned) __asm__(".symver " #impl ", " versioned)
