// atomic.hpp: the only place that spells a fence, a CPU pause or a sanitizer workaround.
// Every protocol in DESIGN.md reaches the hardware through these functions, so that the
// ThreadSanitizer build (FORKJOIN_TSAN) can swap fence-based pairs for forms TSan models.
#pragma once

#include <atomic>
#include <cstddef>

#include "forkjoin/detail/config.hpp"

namespace forkjoin::detail {

// Destructive-interference distance: 128 bytes covers adjacent-line prefetch on x86 and
// the 128-byte lines of some ARM cores (oneTBB and crossbeam pad to the same figure).
inline constexpr std::size_t k_cache_line = 128;

// A full StoreLoad barrier. Under TSan this is still emitted, but TSan does not model it;
// every pair that relies on it is also expressed through seq_cst read-modify-writes or
// release/acquire operations in FORKJOIN_TSAN mode (see the call sites and DESIGN.md).
inline void seq_cst_fence() noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Ordering for a store that a fence would otherwise publish: release under TSan (which
// cannot see the fence), relaxed otherwise, where the preceding release fence does the job.
inline constexpr std::memory_order k_fenced_store =
    FORKJOIN_TSAN ? std::memory_order_release : std::memory_order_relaxed;
// The load side of the same pairs: acquire under TSan, relaxed before an acquire fence.
inline constexpr std::memory_order k_fenced_load =
    FORKJOIN_TSAN ? std::memory_order_acquire : std::memory_order_relaxed;

inline void release_fence() noexcept {
  if constexpr (!FORKJOIN_TSAN) std::atomic_thread_fence(std::memory_order_release);
}

// One spin-wait hint: PAUSE on x86 (about 10-140 cycles depending on the core), YIELD on ARM.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace forkjoin::detail
