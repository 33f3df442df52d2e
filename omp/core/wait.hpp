// wait.hpp: the waiting primitives ([P-OMP Wait], [P-OMP Count]): futex words, the event
// count every team waiter parks on, the spin ladder, and the latch with one waiting owner.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "../../forkjoin/crowding.hpp"
#include "forkjoin/detail/atomic.hpp"
#include "icv.hpp"

namespace forkjoin::omp {

// ---- waiting ([P-OMP Wait]) --------------------------------------------------------------

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept;
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept;
void futex_wait_u32(std::uint32_t* word, std::uint32_t expected) noexcept;
void futex_wake_u32(std::uint32_t* word, int count) noexcept;

// An event count: waiters spin, yield, then park until pred() holds; whoever changes what a
// pred depends on calls notify(). notify costs one fence and a load when nobody sleeps.
struct event {
  std::atomic<std::uint32_t> seq{0};
  std::atomic<std::uint32_t> sleepers{0};

  void notify() noexcept {
    forkjoin::detail::seq_cst_fence();  // [P-OMP Wait W2] pairs with W1 in wait_until
    if (sleepers.load(std::memory_order_relaxed) != 0) {
      seq.fetch_add(1, std::memory_order_release);  // [P-OMP Wait W3] a parked waiter's expected value is stale
      futex_wake_all(seq);
    }
  }
  // step() is called on every round; it returns true when it did useful work (ran a task),
  // which restarts the spin ladder.
  template <class Pred, class Step>
  void wait_until(Pred pred, Step step) noexcept;
};

// Spin-then-yield rounds before parking ([P-OMP Wait W0]). The PAUSE phase is short (a few
// microseconds): when the awaited thread shares this CPU (a busy machine, or more team threads
// than cores) every spin is lost, while sched_yield hands it the CPU and costs under a
// microsecond when nothing else is runnable.
inline constexpr int k_spin_rounds = 4;
inline constexpr int k_spin_burst = 16;  // PAUSEs per spin round
inline constexpr int k_yield_rounds = 64;
void spin_pause(int round) noexcept;  // a burst of PAUSEs for small rounds, sched_yield for larger ones
// [P-OMP Hot H1] PAUSEs a pool worker whose turn ended waits for its primary's next region
// (polling its mailbox) before it enters the pool's idle loop: a few microseconds.
inline constexpr int k_hot_spins = 64;
// [P-OMP Hot H6] how long a worker whose turn ended docks for the next region's post before
// it enters the pool's idle loop: a region and the serial code between two regions, and not
// so long that pool work pushed meanwhile waits for it (a docked worker counts as busy).
inline constexpr std::chrono::milliseconds k_dock_time{1};
// [P-OMP Hot H7] how long such a worker yield-polls its mailbox on CPUs free of neighbours:
// about the span of a short loop of its team, whose other members it lets run meanwhile.
inline constexpr std::chrono::microseconds k_yield_poll{200};

// [P-OMP Wait W0] a wait whose team fits its CPUs spins this long (PAUSEs, re-checking its
// predicate) before it yields: the imbalance at a barrier of a regular loop is tens of
// microseconds, and a parked thread wakes that much later than a spinning one notices.
inline constexpr std::chrono::microseconds k_active_spin{200};
// [P-OMP KMP] how long the active spin lasts: k_active_spin, or the blocktime's milliseconds
// (infinite: until the CPUs are crowded or the thread is preempted).
inline std::int64_t active_spin_ns() noexcept {
  const int b = g_settings.blocktime.load(std::memory_order_relaxed);
  if (b == k_blocktime_ladder) return std::chrono::nanoseconds(k_active_spin).count();
  if (b == k_blocktime_infinite) return INT64_MAX;
  return std::int64_t{b} * 1000000;
}
// True when this thread's waits may spin k_active_spin: the wait policy is active and its
// team is not nested in another active one and has no more threads than the CPUs (team.cpp).
bool waits_spin_active() noexcept;

// The ladder that every wait climbs before it parks ([P-OMP Wait W0]); a passive wait policy
// starts at the top. climb() pauses once (one PAUSE in the spin phases, so that the caller
// re-checks its predicate after each: a PAUSE costs tens of nanoseconds on some CPUs, and a
// burst would delay every hand-over by its length; one sched_yield after them) and is false
// when it is time to park; restart() after useful work. The phases: k_fine PAUSEs; while
// waits_spin_active(), PAUSEs up to k_active_spin (left early when the CPUs are crowded or
// when a gap in the spin shows the thread was preempted, [P-SLEEP Crowd]); yields.
class wait_ladder {
 public:
  // Only round_ is set here and in restart(): most waits end before their first climb, and
  // the performance gate counts the ones in a region's start and end.
  wait_ladder() noexcept : round_(waits_park_at_once() ? k_top : 0) {}
  void restart() noexcept { round_ = 0; }
  bool climb() noexcept {
    if (round_ >= k_top) return false;
    if (round_ < k_fine) {
      ++round_;
      forkjoin::detail::cpu_relax();
      return true;
    }
    if (round_ == k_fine) start_active_spin();
    if (round_ == k_active) {
      if (spin_longer()) return true;
      round_ = k_yields;
    }
    ++round_;
    // [P-SLEEP Crowd] a yield that handed the CPU away, or any yield while the CPUs are
    // crowded: park now rather than queue behind other threads' time slices
    if (forkjoin::detail::yield_if_uncrowded()) return true;
    round_ = k_top;
    return false;
  }

 private:
  static constexpr int k_fine = k_spin_rounds * k_spin_burst;  // rounds [0, k_fine): PAUSEs
  static constexpr int k_active = k_fine + 1;                  // the active spin
  static constexpr int k_yields = k_fine + 2;                  // rounds (k_yields, k_top]: yields
  static constexpr int k_top = k_yields + k_yield_rounds;
  static constexpr unsigned k_clock_every = 32;  // PAUSEs between two reads of the clock
  // The active spin's state: per thread, not per ladder (see the constructor). A wait nested
  // in this one runs inside its step(), which then reports work done: this ladder restarts
  // and sets the state again before it reads it.
  struct active_spin {
    unsigned spins;
    std::int64_t start_ns, last_ns, limit_ns;
  };
  static inline thread_local active_spin t_spin{};
  void start_active_spin() noexcept {
    round_ = k_yields;
    if (!waits_spin_active()) return;
    active_spin& a = t_spin;
    a.spins = 0;
    a.start_ns = a.last_ns = forkjoin::detail::crowd_clock_ns();
    a.limit_ns = active_spin_ns();
    if (!forkjoin::detail::crowded(a.start_ns)) round_ = k_active;
  }
  // One PAUSE of the active spin; false when it is over.
  static bool spin_longer() noexcept {
    forkjoin::detail::cpu_relax();
    active_spin& a = t_spin;
    if (++a.spins % k_clock_every != 0) return true;
    const std::int64_t now = forkjoin::detail::crowd_clock_ns();
    if (now - a.last_ns > std::chrono::nanoseconds(forkjoin::detail::k_crowd_spin_gap).count()) {
      forkjoin::detail::note_crowded(now);  // preempted while spinning: the CPUs are taken
      return false;
    }
    if (now - a.start_ns > a.limit_ns || forkjoin::detail::crowded(now)) return false;
    a.last_ns = now;
    return true;
  }
  int round_;
};

template <class Pred, class Step>
void event::wait_until(Pred pred, Step step) noexcept {
  wait_ladder ladder;
  for (;;) {
    if (pred()) return;
    if (step()) {
      ladder.restart();
      continue;
    }
    if (ladder.climb()) continue;
    std::uint32_t s = seq.load(std::memory_order_acquire);  // [P-OMP Wait W3] pairs with notify's increment
    sleepers.fetch_add(1, std::memory_order_relaxed);
    forkjoin::detail::seq_cst_fence();  // [P-OMP Wait W1] pairs with W2 in notify
    if (pred()) {
      sleepers.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
    if (!step()) futex_wait(seq, s);
    sleepers.fetch_sub(1, std::memory_order_relaxed);
  }
}

struct thread_state;
void wake_thread(thread_state& ts) noexcept;

// A count that one owner thread waits to see at zero ([P-OMP Count]): children of a task,
// members of a taskgroup, team threads still attached to a finished team. The word holds the
// count times two plus a "the owner sleeps" bit.
struct count_latch {
  std::atomic<std::uint64_t> word{0};
  thread_state* owner = nullptr;  // set before the first add, constant while the count is non-zero

  void add(std::uint64_t n = 1) noexcept {
    word.fetch_add(2 * n, std::memory_order_relaxed);  // published by the push that follows
  }
  // The caller's last access to this latch's memory (unless it holds a reference to it).
  void done() noexcept {
    thread_state* o = owner;  // [P-OMP Count C1] read before C2: afterwards the latch may be gone
    if (word.fetch_sub(2, std::memory_order_acq_rel) == 3)  // [P-OMP Count C2] pairs with C3 and C4
      wake_thread(*o);
  }
  bool zero() const noexcept {
    return word.load(std::memory_order_acquire) < 2;  // [P-OMP Count C3] pairs with C2
  }
  // False when the count is zero; then, as after zero(), every done() happened before
  // (the owner may free what the members used): hence acquire on every load here.
  bool try_announce_sleep() noexcept {
    std::uint64_t v = word.load(std::memory_order_acquire);  // [P-OMP Count C3] pairs with C2
    while (v >= 2) {
      if ((v & 1) != 0) return true;
      if (word.compare_exchange_weak(v, v | 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire))  // [P-OMP Count C4] pairs with C2
        return true;
    }
    return false;
  }
  void reset() noexcept { word.store(0, std::memory_order_relaxed); }  // owner, after zero()
};
}  // namespace forkjoin::omp
