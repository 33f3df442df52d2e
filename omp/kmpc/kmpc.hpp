// kmpc.hpp: the KMPC front-end, LLVM's OpenMP ABI (the __kmpc_* entry points of libomp.so.5
// that clang, icx, AOCC and flang-new emit), exported under libomp's version node VERSION.
// The front-end is thin: its constructs run on the same core as the GOMP one (teams, work
// shares, barriers, tasks, locks of internal.hpp), so a process that mixes gcc- and
// clang-compiled OpenMP code has one runtime and one pool. Design: omp/DESIGN.md,
// [P-OMP KMPC].
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "../abi/export.hpp"
#include "../core/internal.hpp"

namespace forkjoin::omp::kmpc {

using kmp_int32 = std::int32_t;
using kmp_uint32 = std::uint32_t;
using kmp_int64 = std::int64_t;
using kmp_uint64 = std::uint64_t;

// A source location (libomp's ident_t); only `flags` is read.
struct ident {
  kmp_int32 reserved_1;
  kmp_int32 flags;
  kmp_int32 reserved_2;
  kmp_int32 reserved_3;
  const char* psource;
};
inline constexpr kmp_int32 k_ident_atomic_reduce = 0x10;  // the compiler emitted the atomic reduction path

// A critical section's name: 32 zero-initialised bytes per name, shared by every object of the
// process (.gomp_critical_user_<name>.var); the first word serves as the futex mutex ([P-OMP Lock]).
using critical_name = kmp_int32[8];

// The body of a parallel or teams region: microtask(&gtid, &tid, captured...), every captured
// argument a pointer-sized value.
using microtask_t = void (*)(kmp_int32*, kmp_int32*, ...);
// A task's body (and its destructors thunk): routine(gtid, the kmp_task).
using routine_t = kmp_int32 (*)(kmp_int32, void*);

// The compiler's view of a task (libomp's kmp_task_t); its private data follows, then (at
// `shareds`) the block of pointers to shared variables.
struct kmp_task {
  void* shareds;
  routine_t routine;
  kmp_int32 part_id;  // an untied task's resume point, advanced by the compiler's code
  union cmplrdata {
    kmp_int32 priority;
    routine_t destructors;
  } data1, data2;  // data1: the destructors thunk; data2: the priority
};

// Task flags the compiler passes to __kmpc_omp_task_alloc.
inline constexpr kmp_int32 k_task_tied = 0x1;
inline constexpr kmp_int32 k_task_final = 0x2;
inline constexpr kmp_int32 k_task_destructors = 0x8;
inline constexpr kmp_int32 k_task_proxy = 0x10;
inline constexpr kmp_int32 k_task_detachable = 0x40;

// libomp's schedule numbers (sched_type) and the two modifier bits.
enum : kmp_int32 {
  k_sch_static_chunked = 33,
  k_sch_static = 34,
  k_sch_dynamic_chunked = 35,
  k_sch_guided_chunked = 36,
  k_sch_runtime = 37,
  k_sch_auto = 38,
  k_sch_trapezoidal = 39,
  k_sch_static_greedy = 40,
  k_sch_static_balanced = 41,
  k_sch_guided_iterative = 42,
  k_sch_guided_analytical = 43,
  k_sch_static_steal = 44,
  k_sch_static_balanced_chunked = 45,
  k_sch_guided_simd = 46,
  k_sch_runtime_simd = 47,
  k_ord_lower = 64,
  k_ord_upper = 72,
  k_distribute_static_chunked = 91,
  k_distribute_static = 92,
  k_nm_lower = 160,  // "nomerge" forms: the same schedules 128 higher
  k_nm_upper = 200,
  k_sch_nonmonotonic = 1 << 30,
  k_sch_modifiers = (1 << 29) | k_sch_nonmonotonic,  // monotonic, nonmonotonic
};

// libomp's cancellation kinds.
enum : kmp_int32 { k_cancel_parallel = 1, k_cancel_loop = 2, k_cancel_sections = 3, k_cancel_taskgroup = 4 };

// The argument list of a parallel or teams region, read from the caller's varargs.
struct microtask_call {
  microtask_t fn;
  kmp_int32 argc;
  void** args;
};
// Calls the microtask for thread `tid` of the current team.
void invoke_microtask(const microtask_call& c, kmp_int32 gtid, kmp_int32 tid);

}  // namespace forkjoin::omp::kmpc

// An omp_* user-API entry point under libomp's version node as well: clang programs bind
// `omp_get_thread_num@VERSION`. The thunk forwards to api/'s routine (declared in
// api/api.hpp, which the using file includes, so the thunk's parameters are checked against
// it), which carries libgomp's version; the thunk's own name stays local (the map's
// `local: *`), only the versioned alias is exported. (A .symver alias of the same address
// would replace the libgomp-versioned name.)
#define FORKJOIN_KMPC_OMP_ALIAS(ret, name, params, args)                    \
  static_assert(std::is_same_v<decltype(&(name)), ret(*) params>, #name);   \
  FORKJOIN_OMP_EXPORT ret forkjoin_kmpc_##name params { return name args; } \
  __asm__(".symver forkjoin_kmpc_" #name ", " #name "@VERSION")
// The same, for a routine whose conventions differ in a libomp program ([P-OMP KMPC K15]): the
// call marks the process one first.
#define FORKJOIN_KMPC_OMP_ALIAS_MARK(ret, name, params, args)             \
  static_assert(std::is_same_v<decltype(&(name)), ret(*) params>, #name); \
  FORKJOIN_OMP_EXPORT ret forkjoin_kmpc_##name params {                   \
    forkjoin::omp::mark_kmpc_program();                                   \
    return name args;                                                     \
  }                                                                       \
  __asm__(".symver forkjoin_kmpc_" #name ", " #name "@VERSION")
