// trace_hooks.hpp: the recording side of the worker timeline trace (FORKJOIN_TRACE): one
// bounded ring of events per worker, written by its owner thread only, with no lock and no
// allocation. The rings are allocated and read (snapshotted into JSON) by forkjoin/trace.cpp.
// Protocol between the owner and a snapshot: forkjoin/DESIGN.md [P-TRACE].
//
// Cost when tracing is off: worker::trace_ is null, and every hook is a test of that pointer
// (join tests it once and then runs its untraced body; a chunk or a task_group child tests
// it before and after, trace_scope).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/config.hpp"

namespace forkjoin::detail {

class pool_impl;

// What an event records. Spans carry a begin and an end time; instants the same time twice.
enum class trace_kind : std::uint8_t {
  run,          // span: pool::run's callable on the external slot
  join_f,       // span: a join's first branch (a = 1 for the loop engine's splits)
  join_g,       // span: a join's second branch (a = 1 when it ran as a job, stolen or popped)
  task,         // span: a task_group child
  chunk,        // span: a loop chunk [a, b)
  spin,         // span: an idle or helping worker spinning and yielding without finding work
  park,         // span: announced asleep, until woken or cancelled (a = 1 if it blocked on its futex)
  spawn,        // instant: a job was pushed (a = its address); becomes a flow start if stolen
  steal,        // instant: this worker stole job a from worker b
  split,        // instant: the loop engine split [a, b) in half on demand
  blocking,     // span: a blocking() call, the outermost of nested ones
  spare_start,  // instant: blocking() started a spare thread (a = the spare's slot index)
  yield,        // span: a worker offered itself to outside work (yield_now, the loop budget; a = jobs run)
  omp_region,   // span: one team thread's turn in an OpenMP region (a = region number, b = id | size << 32)
  omp_task,     // span: an explicit OpenMP task's body (a = its function, b = 1 if undeferred)
  omp_barrier,  // span: waiting in an OpenMP team barrier (a = region number, b = 1 at the region's end)
};
inline constexpr std::size_t k_trace_kinds = 16;

// Any pool traces (set once, never cleared): the OpenMP layer's hooks test this one flag
// before they look for the calling thread's ring.
inline std::atomic<bool> g_tracing{false};

// steady_clock (CLOCK_MONOTONIC through the vDSO on Linux), in nanoseconds since its epoch.
inline std::uint64_t steady_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// One worker's ring: `capacity` events of four words each (begin, kind << 56 | duration, a,
// b), in ticks of the ring's clock: the time-stamp counter on x86-64 when the kernel uses
// it as its clocksource (so it is invariant and synchronised across cores; ~10-25 ns a read
// where steady_clock takes 20-90 ns), else steady_clock nanoseconds. The snapshot converts
// ticks to nanoseconds against steady_clock readings taken at pool start and at the snapshot.
// When full, a new event overwrites the oldest. The words are accessed through atomic_ref
// (relaxed: plain moves on x86) so that a snapshot may read them while the owner writes.
class alignas(k_cache_line) trace_ring {
 public:
  static constexpr int k_kind_shift = 56;
  static constexpr std::uint64_t k_time_mask = (std::uint64_t{1} << k_kind_shift) - 1;

  trace_ring(std::uint64_t* words, std::uint64_t capacity, bool tsc) noexcept
      : words_(words), capacity_(capacity), tsc_(tsc) {}
  trace_ring(const trace_ring&) = delete;
  trace_ring& operator=(const trace_ring&) = delete;

  std::uint64_t now() const noexcept {
#if defined(__x86_64__)
    // The compiler's builtin, not __rdtsc() from <x86intrin.h>: that header alone is some
    // 50,000 lines that every user of forkjoin's headers would compile.
    if (tsc_) return __builtin_ia32_rdtsc();
#endif
    return steady_ns();
  }

  // Owner thread only. t1 >= t0, both from now().
  void record(trace_kind k, std::uint64_t t0, std::uint64_t t1, std::uint64_t a, std::uint64_t b) noexcept {
    const std::uint64_t n = done_.load(std::memory_order_relaxed) + 1;  // owner-written
    begun_.store(n, std::memory_order_relaxed);                         // [P-TRACE R1]
    if constexpr (!FORKJOIN_TSAN)
      std::atomic_thread_fence(std::memory_order_release);  // [P-TRACE R2] pairs with the snapshot's S3 fence
    std::uint64_t* e = words_ + pos_ * 4;
    std::atomic_ref<std::uint64_t>(e[0]).store(t0, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(e[1]).store(
        std::uint64_t{static_cast<std::uint8_t>(k)} << k_kind_shift | ((t1 - t0) & k_time_mask),
        std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(e[2]).store(a, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(e[3]).store(b, std::memory_order_relaxed);
    if (++pos_ == capacity_) pos_ = 0;
    done_.store(n, std::memory_order_release);  // [P-TRACE R3] pairs with the snapshot's S1 acquire
  }
  void span(trace_kind k, std::uint64_t t0, std::uint64_t a = 0, std::uint64_t b = 0) noexcept {
    record(k, t0, now(), a, b);
  }

  // A span that a snapshot taken before it ends still shows (closed at the snapshot, marked
  // open): open() notes its start on the ring's stack of open spans and returns the start
  // time; close() takes it off and records the span. Owner only, strictly nested. Spans
  // nested deeper than k_max_open are recorded when they end but not shown while open.
  static constexpr std::uint64_t k_max_open = 64;
  std::uint64_t open(trace_kind k, std::uint64_t a = 0, std::uint64_t b = 0) noexcept {
    return open_at(k, now(), a, b);
  }
  std::uint64_t open_at(trace_kind k, std::uint64_t t0, std::uint64_t a = 0, std::uint64_t b = 0) noexcept {
    const std::uint64_t d = depth_;
    if (d < k_max_open) {
      begin_change();
      std::atomic_ref<std::uint64_t>(open_[d * 4]).store(t0, std::memory_order_relaxed);
      std::atomic_ref<std::uint64_t>(open_[d * 4 + 1])
          .store(std::uint64_t{static_cast<std::uint8_t>(k)} << k_kind_shift, std::memory_order_relaxed);
      std::atomic_ref<std::uint64_t>(open_[d * 4 + 2]).store(a, std::memory_order_relaxed);
      std::atomic_ref<std::uint64_t>(open_[d * 4 + 3]).store(b, std::memory_order_relaxed);
      open_depth_.store(d + 1, std::memory_order_relaxed);
      end_change();
    }
    depth_ = d + 1;
    return t0;
  }
  void close(trace_kind k, std::uint64_t t0, std::uint64_t a = 0, std::uint64_t b = 0) noexcept {
    close_at(k, t0, now(), a, b);
  }
  void close_at(trace_kind k, std::uint64_t t0, std::uint64_t t1, std::uint64_t a = 0, std::uint64_t b = 0) noexcept {
    const std::uint64_t d = --depth_;
    if (d < k_max_open) {
      begin_change();
      open_depth_.store(d, std::memory_order_relaxed);
      end_change();
    }
    record(k, t0, t1, a, b);
  }
  void instant(trace_kind k, std::uint64_t a, std::uint64_t b) noexcept {
    const std::uint64_t t = now();
    record(k, t, t, a, b);
  }

  // Snapshot side (forkjoin/trace.cpp).
  std::uint64_t capacity() const noexcept { return capacity_; }
  bool tsc() const noexcept { return tsc_; }
  const std::uint64_t* words() const noexcept { return words_; }
  std::uint64_t done(std::memory_order o) const noexcept { return done_.load(o); }
  std::uint64_t begun(std::memory_order o) const noexcept { return begun_.load(o); }
  // [P-TRACE O3, O4, O5] the spans open now, outermost first, as (t0, kind << 56, a, b) words;
  // false if the owner kept changing them.
  bool open_spans(std::uint64_t* out, std::uint64_t& n) const noexcept {
    for (int attempt = 0; attempt < 1000; ++attempt) {
      const std::uint64_t v1 = open_version_.load(std::memory_order_acquire);  // [P-TRACE O3] pairs with O2
      if ((v1 & 1) != 0) continue;
      n = std::min(open_depth_.load(std::memory_order_relaxed), k_max_open);
      for (std::uint64_t i = 0; i < n * 4; ++i)
        out[i] = std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(open_[i])).load(std::memory_order_relaxed);
      if constexpr (!FORKJOIN_TSAN)
        std::atomic_thread_fence(std::memory_order_acquire);  // [P-TRACE O4] pairs with the owner's O1 fence
      if (open_version_.load(std::memory_order_relaxed) == v1) return true;  // [P-TRACE O5]
    }
    return false;
  }

 private:
  std::uint64_t* const words_;
  const std::uint64_t capacity_;
  const bool tsc_;
  std::uint64_t pos_ = 0;                // owner only: the slot the next event goes to
  std::atomic<std::uint64_t> begun_{0};  // events whose writing has started
  std::atomic<std::uint64_t> done_{0};   // events completely written

  // [P-TRACE O1, O2] the open-span stack's sequence lock: odd while the owner changes it.
  void begin_change() noexcept {
    open_version_.store(open_version_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // [P-TRACE O1]
    if constexpr (!FORKJOIN_TSAN)
      std::atomic_thread_fence(std::memory_order_release);  // [P-TRACE O1] pairs with the snapshot's O4 fence
  }
  void end_change() noexcept {
    open_version_.store(open_version_.load(std::memory_order_relaxed) + 1,
                        std::memory_order_release);  // [P-TRACE O2] pairs with the snapshot's O3 acquire
  }
  std::uint64_t depth_ = 0;  // owner only: open spans, also those deeper than k_max_open
  std::atomic<std::uint64_t> open_version_{0};
  std::atomic<std::uint64_t> open_depth_{0};  // min(depth_, k_max_open), for the snapshot
  std::uint64_t open_[k_max_open * 4] = {};   // the open spans' words, accessed through atomic_ref
};

// A span around a scope, recorded at its end (normal or by exception) when r is not null.
// Off, it costs two tests of r, which the caller already holds in a register: used where the
// traced code must not be a second copy of the scope's body (a second call site of a user
// callable changes what the compiler inlines into the untraced one).
class trace_scope {
 public:
  trace_scope(trace_ring* r, trace_kind k, std::uint64_t a = 0, std::uint64_t b = 0) noexcept
      : r_(r), k_(k), a_(a), b_(b) {
    if (r_ != nullptr) [[unlikely]]
      t0_ = r_->open(k_, a_, b_);
  }
  trace_scope(const trace_scope&) = delete;
  trace_scope& operator=(const trace_scope&) = delete;
  ~trace_scope() {
    if (r_ != nullptr) [[unlikely]]
      r_->close(k_, t0_, a_, b_);
  }

 private:
  trace_ring* const r_;
  const trace_kind k_;
  const std::uint64_t a_, b_;
  std::uint64_t t0_;  // set and read only when r_ is not null: no store on the untraced path
};

struct worker;
// The calling thread's ring for a pool's trace: its slot's when the thread is bound to a
// slot (a worker, a spare, the external thread inside pool::run), else a ring of its own
// in pool p's trace, made on the thread's first call (a track named after the thread).
// Null when p does not trace. Cold: callers test g_tracing first.
trace_ring* this_thread_ring(pool_impl& p) noexcept;
// The loop engine split on demand: counts it (pool::statistics) and traces it.
void note_split_served(worker& w, std::uint64_t lo, std::uint64_t hi) noexcept;

}  // namespace forkjoin::detail
