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

// A full StoreLoad barrier (T2, S2, PushFence, SleepFence in DESIGN.md).
//
// Under TSan, which ignores std::atomic_thread_fence, the fence becomes a seq_cst
// read-modify-write of one process-wide word: RMWs on one location are totally ordered and
// TSan models them, so each fence site synchronises with the previous one. That is
// stronger than a fence (it can hide a race between two fence sites, never invent one).
inline void seq_cst_fence() noexcept {
#if FORKJOIN_TSAN
  static std::atomic<int> fence_word{0};
  fence_word.fetch_add(0, std::memory_order_seq_cst);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// Ordering for a store that a fence would otherwise publish: release under TSan (which
// cannot see the fence), relaxed otherwise, where the preceding release fence does the job.
inline constexpr std::memory_order k_fenced_store =
    FORKJOIN_TSAN ? std::memory_order_release : std::memory_order_relaxed;

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
