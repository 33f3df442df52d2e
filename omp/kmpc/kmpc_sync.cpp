// kmpc_sync.cpp: KMPC synchronisation: barrier, single and copyprivate, master and masked,
// critical (with hints), flush, cancellation, and the reductions in every method clang emits
// code for (__kmpc_reduce*), on the core's barrier, work shares, futex mutex and
// cancellation flags. [P-OMP KMPC]
#include <cstdio>
#include <cstdlib>

#include "../core/lock.hpp"
#include "kmpc.hpp"

using namespace forkjoin::omp;
using namespace forkjoin::omp::kmpc;

namespace {
std::uint32_t* word_of(critical_name* crit) noexcept { return reinterpret_cast<std::uint32_t*>(*crit); }
}  // namespace

FORKJOIN_OMP_EXPORT void __kmpc_barrier(ident*, kmp_int32) { barrier(self()); }
FORKJOIN_OMP_EXPORT void __kmpc_flush(ident*) { forkjoin::detail::seq_cst_fence(); }

// ---- single, master, masked --------------------------------------------------------------

FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_single(ident*, kmp_int32) { return single_start(self()) ? 1 : 0; }
FORKJOIN_OMP_EXPORT void __kmpc_end_single(ident*, kmp_int32) {}
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_master(ident*, kmp_int32) { return self().id == 0 ? 1 : 0; }
FORKJOIN_OMP_EXPORT void __kmpc_end_master(ident*, kmp_int32) {}
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_masked(ident*, kmp_int32, kmp_int32 filter) {
  return static_cast<kmp_int32>(self().id) == filter ? 1 : 0;
}
FORKJOIN_OMP_EXPORT void __kmpc_end_masked(ident*, kmp_int32) {}
FORKJOIN_OMP_EXPORT void __kmpc_scope(ident*, kmp_int32, void*) {}
FORKJOIN_OMP_EXPORT void __kmpc_end_scope(ident*, kmp_int32, void*) {}

// The split barrier of Intel's compilers: the primary thread runs the code between
// __kmpc_barrier_master and __kmpc_end_barrier_master while the others wait in the former.
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_barrier_master(ident*, kmp_int32) {
  thread_state& ts = self();
  barrier(ts);
  if (ts.id == 0) return 1;
  barrier(ts);  // completed by the primary's __kmpc_end_barrier_master
  return 0;
}
FORKJOIN_OMP_EXPORT void __kmpc_end_barrier_master(ident*, kmp_int32) { barrier(self()); }
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_barrier_master_nowait(ident*, kmp_int32) {
  thread_state& ts = self();
  barrier(ts);
  return ts.id == 0 ? 1 : 0;
}

// [P-OMP KMPC K6] copyprivate: every thread of the team calls it after the single (the one
// that ran it with didit); they meet in a work share, whose copy_data the runner publishes
// (CP1) and the others copy from with the compiler's function; the barrier after it is the
// single's own, and keeps the runner's variables alive until every copy is made.
FORKJOIN_OMP_EXPORT void __kmpc_copyprivate(ident*, kmp_int32, std::size_t, void* data, void (*copy)(void*, void*),
                                            kmp_int32 didit) {
  thread_state& ts = self();
  if (ts.cur_team->nthreads == 1) return;
  if (ws_enter(ts)) ws_publish(ts);
  work_share& w = *ts.cur_ws;
  if (didit != 0) {
    w.copy_data.store(data, std::memory_order_relaxed);
    w.copy_ready.store(1, std::memory_order_release);  // [P-OMP WS CP1] publishes copy_data and the block's writes
    ts.cur_team->wakeup.notify();
  } else {
    ts.cur_team->wakeup.wait_until([&] { return w.copy_ready.load(std::memory_order_acquire) != 0; },  // pairs with CP1
                                   [] { return false; });
    copy(data, w.copy_data.load(std::memory_order_relaxed));
  }
  ws_leave(ts);
  barrier(ts);
}

// ---- critical ----------------------------------------------------------------------------

FORKJOIN_OMP_EXPORT void __kmpc_critical(ident*, kmp_int32, critical_name* crit) { mutex_lock(word_of(crit)); }
FORKJOIN_OMP_EXPORT void __kmpc_critical_with_hint(ident*, kmp_int32, critical_name* crit, std::uintptr_t) {
  mutex_lock(word_of(crit));  // every hint is a correct choice of the one futex mutex
}
FORKJOIN_OMP_EXPORT void __kmpc_end_critical(ident*, kmp_int32, critical_name* crit) { mutex_unlock(word_of(crit)); }

// ---- cancellation ([P-OMP Cancel]) -------------------------------------------------------

namespace {
int gomp_which(kmp_int32 kind) {
  switch (kind) {
    case k_cancel_parallel:
      return 1;
    case k_cancel_loop:
      return 2;
    case k_cancel_sections:
      return 4;
    case k_cancel_taskgroup:
      return 8;
    default:
      fatal("__kmpc_cancel: unknown construct kind");
  }
}
}  // namespace

FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_cancel(ident*, kmp_int32, kmp_int32 kind) {
  return cancel(gomp_which(kind), true) ? 1 : 0;
}
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_cancellationpoint(ident*, kmp_int32, kmp_int32 kind) {
  return cancellation_point(gomp_which(kind)) ? 1 : 0;
}
// [P-OMP KMPC K7] true when the region is cancelled (the compiler then leaves it); a cancelled
// loop or sections only ends that construct, as OpenMP specifies, so the region goes on.
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_cancel_barrier(ident*, kmp_int32) { return cancel_barrier(self()) ? 1 : 0; }

// ---- reductions --------------------------------------------------------------------------

// [P-OMP KMPC K8] the method, chosen the same way by every thread of the team: a team of one
// combines alone (1, no lock); when the compiler emitted the atomic path (ident flag 0x10)
// every thread adds its copy atomically (2: no lock, no barrier: the construct's barrier or
// the blocking form's publishes the result); otherwise each thread combines under the
// clause's critical-section lock (1). The blocking forms end with the team barrier.
namespace {
enum : int { k_method_alone = 1, k_method_critical = 2, k_method_atomic = 3 };

kmp_int32 reduce_start(ident* loc, critical_name* lock) {
  thread_state& ts = self();
  if (ts.cur_team->nthreads == 1) {
    ts.kmpc.reduce_method = k_method_alone;
    return 1;
  }
  if (loc != nullptr && (loc->flags & k_ident_atomic_reduce) != 0) {
    ts.kmpc.reduce_method = k_method_atomic;
    return 2;
  }
  ts.kmpc.reduce_method = k_method_critical;
  mutex_lock(word_of(lock));
  return 1;
}

thread_state& reduce_end(critical_name* lock) {
  thread_state& ts = self();
  if (ts.kmpc.reduce_method == k_method_critical) mutex_unlock(word_of(lock));
  ts.kmpc.reduce_method = 0;
  return ts;
}
}  // namespace

FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_reduce_nowait(ident* loc, kmp_int32, kmp_int32, std::size_t, void*,
                                                   void (*)(void*, void*), critical_name* lock) {
  return reduce_start(loc, lock);
}
FORKJOIN_OMP_EXPORT void __kmpc_end_reduce_nowait(ident*, kmp_int32, critical_name* lock) { reduce_end(lock); }
FORKJOIN_OMP_EXPORT kmp_int32 __kmpc_reduce(ident* loc, kmp_int32, kmp_int32, std::size_t, void*,
                                            void (*)(void*, void*), critical_name* lock) {
  return reduce_start(loc, lock);
}
FORKJOIN_OMP_EXPORT void __kmpc_end_reduce(ident*, kmp_int32, critical_name* lock) { barrier(reduce_end(lock)); }

// ---- the error directive (OpenMP 5.1) ----------------------------------------------------

FORKJOIN_OMP_EXPORT void __kmpc_error(ident*, int severity, const char* message) {
  std::fprintf(stderr, "forkjoin-omp: error directive encountered%s%s\n", message != nullptr ? ": " : "",
               message != nullptr ? message : "");
  std::fflush(stderr);
  if (severity == 2) std::abort();  // fatal
}
