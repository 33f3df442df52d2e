// sleep.cpp: when idle workers search, when they park, and who wakes whom. Owns the idle
// word and the sleeper list; not the queues (worker.cpp, injector.cpp) nor the futex
// (futex.cpp). Protocol and proof sketch: DESIGN.md [P-SLEEP] and [P-POST].
#include "sleep.hpp"

#include <algorithm>

#include "forkjoin/detail/config.hpp"
#include "futex.hpp"

namespace forkjoin::detail {

sleep_controller::sleep_controller(std::size_t num_threads, work_monitor& monitor, std::size_t extra_sleepers)
    : searcher_cap_(std::max<std::uint32_t>(1, static_cast<std::uint32_t>(num_threads / 2))), monitor_(monitor) {
  sleepers_.reserve(num_threads + extra_sleepers);  // fall_asleep's push_back never allocates, so never throws
  woken_.reserve(num_threads + extra_sleepers);     // nor does wake_all's copy (it runs in the pool's destructor)
}

void sleep_controller::start_searching_at_launch(sleeper& s) noexcept {
  s.searching_ = true;
  idle_.fetch_add(k_one_searching,
                  std::memory_order_relaxed);  // relaxed: thread creation orders it before the thread runs
}

void sleep_controller::cancel_launch(sleeper& s) noexcept {
  s.searching_ = false;
  idle_.fetch_sub(k_one_searching, std::memory_order_relaxed);
}

bool sleep_controller::try_start_searching(sleeper& s) noexcept {
  if (s.searching_) return true;
  // [INV-SEARCH] searching <= max(1, N/2): more searchers only contend on the same deques.
  std::uint64_t word = idle_.load(std::memory_order_relaxed);
  do {
    if (idle_count::decode(word).searching >= searcher_cap_) return false;
  } while (!idle_.compare_exchange_weak(word, word + k_one_searching, std::memory_order_relaxed));
  s.searching_ = true;
  return true;
}

void sleep_controller::stop_searching(sleeper& s) noexcept {
  if (!s.searching_) return;
  s.searching_ = false;
  // [P-SLEEP LastSearcher] seq_cst RMW: the last searcher to find work wakes a replacement,
  // so a burst of work ramps the pool up one worker at a time [INV-WAKE].
  const idle_count prev = idle_count::decode(idle_.fetch_sub(k_one_searching, std::memory_order_seq_cst));
  FORKJOIN_DEBUG_ASSERT(prev.searching >= 1, "idle word: searching underflow [INV-COUNT]");
  if (prev.searching == 1 && prev.sleeping != 0) wake_one();
}

void sleep_controller::remove_locked(sleeper& s) noexcept {
  FORKJOIN_DEBUG_ASSERT(s.listed_ && sleepers_[s.pos_] == &s, "sleeper list corrupt");
  sleeper* last = sleepers_.back();
  sleepers_[s.pos_] = last;
  last->pos_ = s.pos_;
  sleepers_.pop_back();
  s.listed_ = false;
  // [INV-COUNT] the remover (waker or the sleeper itself) moves s from sleeping to searching;
  // seq_cst like [P-SLEEP IncSleepers], so ReadSleepers after PushFence sees a consistent count.
  [[maybe_unused]] const idle_count prev =
      idle_count::decode(idle_.fetch_add(k_one_searching - k_one_sleeping, std::memory_order_seq_cst));
  FORKJOIN_DEBUG_ASSERT(prev.sleeping >= 1, "idle word: sleeping underflow [INV-COUNT]");
}

bool sleep_controller::wake_locked(sleeper& s) noexcept {
  // Under mutex_: a stale wake cannot reach a later sleep of s, whose announcement resets
  // the flag under the same mutex.
  s.wake_flag_.store(1, std::memory_order_release);  // pairs with the acquire load in fall_asleep
  wakes_.fetch_add(1, std::memory_order_relaxed);    // statistics only
  const bool away = s.away_;
  if (away) {
    s.away_ = false;
    // [P-LENT W2] the thread summoned for s starts as a woken sleeper does: counted as
    // searching (remove_locked) and marked so; nobody else owns s meanwhile (W1 left it)
    s.searching_ = true;
  }
  return away;
}

void sleep_controller::finish_wake(sleeper& s, bool away) noexcept {
  if (away)
    monitor_.summon(s.away_index_);  // [P-LENT W2] nobody parks on its flag
  else
    futex_wake_all(s.wake_flag_);
}

void sleep_controller::announce_locked(sleeper& s) noexcept {
  s.wake_flag_.store(0, std::memory_order_relaxed);
  s.pos_ = sleepers_.size();
  sleepers_.push_back(&s);  // capacity reserved for every thread at construction: no throw
  s.listed_ = true;
  // [P-SLEEP IncSleepers] one RMW: sleeping+1, and searching-1 if s was searching.
  idle_.fetch_add(k_one_sleeping - (s.searching_ ? k_one_searching : 0), std::memory_order_seq_cst);
  s.searching_ = false;
}

void sleep_controller::start_away(sleeper& s, std::uint32_t index) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  announce_locked(s);
  s.away_index_ = index;
  s.away_ = true;  // [P-LENT W0]
}

bool sleep_controller::announce_and_recheck(sleeper& s, bool (*wanted)(const void*), const void* ctx) noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    announce_locked(s);
  }
  perturb_point();
  seq_cst_fence();  // [P-SLEEP SleepFence] pairs with [P-POST PushFence]
  // [P-SLEEP ReadJob] every source: the caller's latch, then (through the monitor) the
  // injector, every deque and shutdown.
  return (wanted != nullptr && !wanted(ctx)) || monitor_.work_or_shutdown_visible();
}

bool sleep_controller::fall_asleep_or_leave(sleeper& s, bool (*wanted)(const void*), const void* ctx) noexcept {
  const bool cancel = announce_and_recheck(s, wanted, ctx);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!s.listed_) {  // a waker counted s as searching already: it stays [INV-COUNT]
    s.searching_ = true;
    return false;
  }
  if (cancel) {
    remove_locked(s);
    s.searching_ = true;
    return false;
  }
  // [P-LENT W1] still listed, nothing seen: the slot goes away with s listed; a waker that
  // removes it from now on summons a thread (W2). Under mutex_, as every wake.
  s.away_ = true;
  return true;
}

void sleep_controller::fall_asleep(sleeper& s, bool (*wanted)(const void*), const void* ctx) noexcept {
  if (announce_and_recheck(s, wanted, ctx)) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (s.listed_) remove_locked(s);  // else a waker already counted s as searching
    s.searching_ = true;
    return;
  }
  s.parks_.store(s.parks_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  parked_.fetch_add(1, std::memory_order_relaxed);           // diagnostics only (pool::num_parked)
  while (s.wake_flag_.load(std::memory_order_acquire) == 0)  // pairs with the release store in wake_locked
    futex_wait(s.wake_flag_, 0);
  parked_.fetch_sub(1, std::memory_order_relaxed);
  s.searching_ = true;  // the waker moved s to searching [INV-COUNT]
}

void sleep_controller::wake_one() noexcept {
  sleeper* target = nullptr;
  bool away = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!counts().wants_wake() || sleepers_.empty()) return;  // [INV-WAKE] someone already searches
    target = sleepers_.back();
    remove_locked(*target);
    away = wake_locked(*target);
  }
  finish_wake(*target, away);
}

void sleep_controller::wake_specific(sleeper& s) noexcept {
  bool away = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!s.listed_) return;  // awake: it re-checks its latch before it sleeps again
    remove_locked(s);
    away = wake_locked(s);
  }
  finish_wake(s, away);
}

void sleep_controller::wake_all() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    woken_.clear();
    while (!sleepers_.empty()) {
      sleeper* s = sleepers_.back();
      remove_locked(*s);
      // [P-LENT W3] only the pool's destructor wakes all: an away sleeper summons nobody
      // then (it stays counted as searching, which nothing reads any more)
      if (!wake_locked(*s)) woken_.push_back(s);  // within the reserved capacity: no allocation
    }
  }
  for (sleeper* s : woken_) futex_wake_all(s->wake_flag_);
}

void sleep_controller::notify_external_work() noexcept {
  std::uint64_t word;
  if constexpr (FORKJOIN_TSAN) {
    word = idle_.fetch_add(0, std::memory_order_seq_cst);  // [P-POST PushFence+ReadSleepers] as one RMW under TSan
  } else {
    seq_cst_fence();                               // [P-POST PushFence] pairs with [P-SLEEP SleepFence]
    word = idle_.load(std::memory_order_relaxed);  // [P-POST ReadSleepers]
  }
  if (idle_count::decode(word).wants_wake()) wake_one();
}

}  // namespace forkjoin::detail
