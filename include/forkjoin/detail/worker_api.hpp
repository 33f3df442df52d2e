// worker_api.hpp: the one door between the inline templates (join, task_group, loops) and
// the compiled runtime in forkjoin/. Holds the per-worker state the hot path touches, the
// latches that waiters sleep on, and the declarations of every cold entry point.
// Protocols: forkjoin/DESIGN.md [P-POST], [P-SLEEP], [P-JOIN]. Review every addition.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/deque.hpp"
#include "forkjoin/detail/job.hpp"
#include "forkjoin/detail/trace_hooks.hpp"

namespace forkjoin::detail {

class pool_impl;

// The idle word of a pool (DESIGN.md [P-SLEEP]): the workers that search in the low half,
// those that sleep in the high half, so that one read-modify-write moves a worker from one
// count to the other. Its edges are forkjoin/sleep.hpp's; the hot path only reads it.
struct idle_count {
  std::uint32_t searching = 0;
  std::uint32_t sleeping = 0;

  static constexpr idle_count decode(std::uint64_t word) noexcept {
    return {static_cast<std::uint32_t>(word), static_cast<std::uint32_t>(word >> 32)};
  }
  constexpr std::uint64_t encode() const noexcept { return std::uint64_t{sleeping} << 32 | searching; }
  // [INV-WAKE] new work needs a wake-up only when nobody searches and somebody sleeps.
  constexpr bool wants_wake() const noexcept { return searching == 0 && sleeping != 0; }
};
// The hot-path form (push, loop splitting): one relaxed load of the word and this compare.
inline constexpr bool wants_wake(std::uint64_t word) noexcept { return idle_count::decode(word).wants_wake(); }

void wake_join_waiter(std::uint32_t waiter_index) noexcept;  // J2 saw that waiter asleep

// The part of a join frame ([P-JOIN]) that the deque and the runtime's slow paths see: the
// job header and the latch of the second branch. The join's common path constructs only
// the header's execute pointer (and the frame's reference to g): the latch and stolen_by
// are constructed by share(), when the frame leaves its deque's private part, published or
// popped ([P-JOIN Share]). Until then the deque holds the frame in its private form,
// `private_form()`, which only its owner's take-back matches.
class join_frame_base : public job_header {
 public:
  // The latch word: k_done once the branch has run (k_failed too if it threw); before that,
  // k_sleeping with the sleeping waiter's slot index above k_index_shift.
  static constexpr std::uint32_t k_unset = 0, k_done = 1, k_failed = 2, k_sleeping = 4;
  static constexpr unsigned k_index_shift = 3;
  static constexpr std::uintptr_t k_private_bit = 1;  // set in a slot value: a frame's private form

  job_header* private_form() noexcept {
    // + rather than |: the same bits (frames are aligned), one lea from the frame's address;
    // by pointer arithmetic, so the result keeps the frame's provenance (never dereferenced)
    return reinterpret_cast<job_header*>(reinterpret_cast<char*>(this) + k_private_bit);
  }
  // The slot value x in its shared form; shares the frame first if x is a private form.
  static job_header* shared(job_header* x) noexcept {
    const auto bits = reinterpret_cast<std::uintptr_t>(x);
    if ((bits & k_private_bit) == 0) [[likely]]
      return x;
    auto* frame = reinterpret_cast<join_frame_base*>(reinterpret_cast<char*>(x) - k_private_bit);
    frame->share();
    return frame;
  }

  bool probe() const noexcept {
    return (state_.load(std::memory_order_acquire) & k_done) != 0;  // [P-JOIN J3] pairs with J2 in set()
  }
  // After probe() returned true: whether the branch threw.
  bool failed() const noexcept {
    return (state_.load(std::memory_order_relaxed) & k_failed) != 0;  // relaxed: read after J3's acquire
  }
  // Waiter only: announce that it is about to sleep. False if the latch is already set.
  bool try_announce_sleep(std::uint32_t waiter_index) noexcept {
    std::uint32_t expected = k_unset;
    return state_.compare_exchange_strong(expected, k_sleeping | (waiter_index << k_index_shift),
                                          std::memory_order_acq_rel,
                                          std::memory_order_acquire)  // [P-JOIN J4] pairs with J2
           || (expected & k_done) == 0;                               // announced in an earlier round
  }

 protected:
  explicit join_frame_base(execute_fn fn) noexcept : job_header(fn, unshared_tag{}) {}
  // Called by whoever ran the branch as a job, as its very last access to the frame.
  // `how`: k_done, or k_done | k_failed.
  void set(std::uint32_t how) noexcept {
    // [P-JOIN J1] the waiter's index comes back in J2's old value, and the pool is the
    // setter's own: nothing of the frame is read after J2, when it may be gone.
    const std::uint32_t old =
        state_.exchange(how, std::memory_order_acq_rel);  // [P-JOIN J2] release pairs with J3; acquire with J4
    if ((old & k_sleeping) != 0) wake_join_waiter(old >> k_index_shift);
  }

 private:
  // [P-JOIN Share] on the owner, before the frame can be seen by anyone else: P3's fence
  // publishes these stores with the slot, and a private pop runs the job on this thread.
  void share() noexcept {
    ::new (static_cast<void*>(&stolen_by)) std::atomic<std::int32_t>(-1);
    ::new (static_cast<void*>(&state_)) std::atomic<std::uint32_t>(k_unset);
  }

  union {
    std::atomic<std::uint32_t> state_;
  };
};

// The deque's Share for jobs ([P-DEQUE Share]): join frames leave the private part shared.
struct job_slots {
  static constexpr bool k_rewrites = true;
  static job_header* shared(job_header* x) noexcept { return join_frame_base::shared(x); }
  // Written as the slot's distance from the frame's address rather than as a comparison
  // with private_form(): gcc then keeps one register (the frame's address, which the slow
  // paths need anyway) live across f, not two.
  static bool is_private_form_of(job_header* slot_value, job_header* frame) noexcept {
    return reinterpret_cast<std::uintptr_t>(slot_value) - reinterpret_cast<std::uintptr_t>(frame) ==
           join_frame_base::k_private_bit;
  }
};
using job_deque = chase_lev_deque<job_header*, job_slots>;

// One slot of a pool as the inline templates see it: only what join, task_group, the loop
// engine and push_job read. The compiled runtime keeps the rest of a slot's state (steal
// and sleep bookkeeping, statistics) in forkjoin/pool_impl.hpp's worker_slot, derived from
// this. Lives as long as the pool, so latches may point at it.
struct alignas(k_cache_line) worker {
  worker(pool_impl* p, std::uint32_t index, std::uint32_t pool_size, const std::atomic<std::uint64_t>* idle_word,
         const std::atomic<std::size_t>* injected = nullptr)
      : pool_(p),
        idle_word_(idle_word),
        injected_(injected),
        index_(index),
        pool_size_(pool_size),
        outside_(index == 0) {}

  job_deque deque_;
  pool_impl* const pool_;
  const std::atomic<std::uint64_t>* const idle_word_;  // the pool's idle_count word, read relaxed
  const std::atomic<std::size_t>* const injected_;     // the pool's injected-job count, read relaxed [P-FAIR]
  const std::uint32_t index_;
  const std::uint32_t pool_size_;
  // [P-SLOT X2] held by a thread from outside the pool: slot 0 always, a spare slot while an
  // outside caller works in it. Written by that holder before it binds the slot, read by the
  // thread bound to it (the spare slot's flag: the spare_in_use_ handover orders it).
  bool outside_;
  trace_ring* trace_ = nullptr;  // this slot's trace ring; null unless tracing (set before any thread runs)
};

// The slot bound to the current thread, or nullptr outside every pool. Constant-initialised,
// so reading it costs one TLS load and no wrapper call.
inline thread_local worker* tls_worker = nullptr;

// Cold entry points of the compiled runtime.
void on_new_internal_work(worker& w) noexcept;  // [P-POST] publish, wake one if nobody searches
// on_new_internal_work for the job j just pushed as itself (not in a private form): also
// records its spawn when tracing ([P-TRACE Join]). on_new_split: the same for a loop split
// (join_published), pushed in its private form.
void on_new_job(worker& w, job_header* j) noexcept;
void on_new_split(worker& w, job_header* j) noexcept;
// push_job's slow path, on tls_worker: returns the slot written (before any publication).
std::atomic<job_header*>* push_job_slow(job_header* slot_value, job_header* j);
void wake_worker(worker& w) noexcept;  // wake w if it sleeps (a latch it waits on is set)

// Owner thread only. Push a job the current thread will eventually run itself if nobody
// steals it: no fence, no read-modify-write, and a wake-up only when [INV-WAKE] asks for one.
// [P-POST Publish] the job stays private only while thieves still have an older public job
// of this deque to take and nobody asked (idle workers ask: X1 when searching, X5 before
// they park). `slot_value`: what the slot holds, j or its private form ([P-JOIN Share]).
// The request is read before the push: both are the owner's, and a request raised in
// between is served at the next push as one raised just after. Every slow case (a request,
// no room at hand) is one out-of-line call that finds the worker again itself, so the
// caller keeps nothing in a register for it.
inline std::atomic<job_header*>* push_job(worker& w, job_header* slot_value, job_header* j) {
  if (w.deque_.publish_requested() || !w.deque_.can_push_fast()) [[unlikely]]
    return push_job_slow(slot_value, j);
  return w.deque_.push_fast(slot_value);
}
// Latch for a task_group: pending children in the high 48 bits, the sleeping waiter's slot
// index + 1 in the low 16 (0 = nobody sleeps). Once done() is true every child has finished
// and its writes are visible.
class count_latch {
 public:
  static constexpr std::uint64_t k_child = std::uint64_t{1} << 16;
  static constexpr std::uint64_t k_waiter_mask = k_child - 1;

  void add_child() noexcept {
    // Relaxed: the child is published afterwards by push/inject, whose release orders this.
    state_.fetch_add(k_child, std::memory_order_relaxed);
  }
  void remove_child_never_started() noexcept { state_.fetch_sub(k_child, std::memory_order_relaxed); }
  bool done() const noexcept {
    return state_.load(std::memory_order_acquire) < k_child;  // [P-JOIN G3] pairs with G2
  }
  // A child's last access to its group. Returns the previous state: if it held exactly one
  // child and a waiter index, the caller must wake that waiter (without touching the group).
  std::uint64_t finish_child() noexcept {
    return state_.fetch_sub(k_child, std::memory_order_acq_rel);  // [P-JOIN G2] release pairs with G3; acquire with G4
  }
  // False when every child has finished; then, as after done(), their writes are visible
  // (the waiter returns and may read them): hence acquire on every load here.
  bool try_announce_sleep(std::uint32_t waiter_index) noexcept {
    std::uint64_t s = state_.load(std::memory_order_acquire);  // [P-JOIN G3] pairs with G2
    for (;;) {
      if (s < k_child) return false;
      if ((s & k_waiter_mask) != 0) return true;
      if (state_.compare_exchange_weak(s, s | (waiter_index + 1), std::memory_order_acq_rel,
                                       std::memory_order_acquire))  // [P-JOIN G4] pairs with G2
        return true;
    }
  }
  // Waiter only, after done(): forget the sleeping mark so the group can be reused.
  void reset_waiter() noexcept { state_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> state_{0};
};

// join's slow path, when take_back_unshared failed: runs the jobs above `frame` that f left
// behind, then takes `frame` back (true: the caller runs g inline) or, if it ran as a job
// (stolen, or popped by a wait inside f), helps until its latch is set (false).
bool reclaim_join_job(worker& w, join_frame_base& frame) noexcept;
void wait_for_group(worker& w, count_latch& latch) noexcept;
void wake_group_waiter(pool_impl& p, std::uint32_t waiter_index) noexcept;
// Runs jobs from w's own deque, newest first, until done(ctx) or none is left that this wait
// may run (in an isolated region, only the region's own [P-ISO Mark]); true when done. A
// wait that must register to be woken tries this first: its children are usually still there.
bool run_own_until(worker& w, bool (*done)(const void*), const void* ctx) noexcept;

// task_group child blocks: per-thread free lists by size class, operator new beyond.
void* allocate_job(std::size_t size);
void deallocate_job(void* p, std::size_t size) noexcept;

}  // namespace forkjoin::detail
