// config.hpp: build switches and assertion macros shared by every forkjoin header.
// Owns FORKJOIN_TSAN detection, FORKJOIN_ASSERT / FORKJOIN_DEBUG_ASSERT and the
// schedule-perturbation hook FORKJOIN_PERTURB. Nothing here allocates or synchronises.
#pragma once

// Every public header includes this one before any forkjoin code, so that a build in an
// older language mode stops on this line first (g++ 12 and clang 14 default to C++17).
#if __cplusplus < 202002L
#error "forkjoin needs C++20 or later: compile with -std=c++20 (CMake: forkjoin::forkjoin carries cxx_std_20)"
#endif

#include <cstdio>
#include <cstdlib>

#if defined(__SANITIZE_THREAD__)
#define FORKJOIN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FORKJOIN_TSAN 1
#endif
#endif
#ifndef FORKJOIN_TSAN
#define FORKJOIN_TSAN 0
#endif

#define FORKJOIN_ASSERT(cond, msg)                                                        \
  do {                                                                                    \
    if (!(cond)) [[unlikely]] {                                                           \
      std::fprintf(stderr, "forkjoin: %s (%s:%d: %s)\n", msg, __FILE__, __LINE__, #cond); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (false)

#ifndef NDEBUG
#define FORKJOIN_DEBUG_ASSERT(cond, msg) FORKJOIN_ASSERT(cond, msg)
#else
#define FORKJOIN_DEBUG_ASSERT(cond, msg) \
  do {                                   \
  } while (false)
#endif

#define FORKJOIN_NOINLINE __attribute__((noinline))
#define FORKJOIN_COLD __attribute__((noinline, cold))

// Schedule perturbation (FORKJOIN_PERTURB=1, a CMake option): at the protocols' critical
// points the runtime sometimes yields or sleeps a few microseconds, seeded by
// FORKJOIN_PERTURB_SEED, to widen race windows in tests. A no-op otherwise.
#ifndef FORKJOIN_PERTURB
#define FORKJOIN_PERTURB 0
#endif
namespace forkjoin::detail {
#if FORKJOIN_PERTURB
void perturb_point() noexcept;
#else
inline void perturb_point() noexcept {}
#endif
}  // namespace forkjoin::detail
