// sleep.cpp: when idle workers search, when they park, and who wakes whom. Owns the idle
// word and the sleeper list of a pool; not the queues (worker.cpp, injector.cpp) nor the
// futex (futex.cpp). Protocol and proof sketch: DESIGN.md [P-SLEEP] and [P-POST].
#include <algorithm>

#include "forkjoin/detail/atomic.hpp"
#include "futex.hpp"
#include "perturb.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

bool pool_impl::try_start_searching(worker& w) noexcept {
  if (w.searching_) return true;
  // [INV-SEARCH] searching <= max(1, N/2): more searchers only contend on the same deques.
  const std::uint32_t cap = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(num_threads() / 2));
  std::uint64_t s = idle_.load(std::memory_order_relaxed);
  do {
    if (searching_of(s) >= cap) return false;
  } while (!idle_.compare_exchange_weak(s, s + k_searching_one, std::memory_order_relaxed));
  w.searching_ = true;
  return true;
}

void pool_impl::stop_searching(worker& w) noexcept {
  if (!w.searching_) return;
  w.searching_ = false;
  // [P-SLEEP LastSearcher] seq_cst RMW: the last searcher to find work wakes a replacement,
  // so a burst of work ramps the pool up one worker at a time [INV-WAKE].
  std::uint64_t prev = idle_.fetch_sub(k_searching_one, std::memory_order_seq_cst);
  FORKJOIN_DEBUG_ASSERT(searching_of(prev) >= 1, "idle word: searching underflow [INV-COUNT]");
  if (searching_of(prev) == 1 && sleeping_of(prev) != 0) wake_one();
}

void pool_impl::remove_sleeper_locked(worker& w) noexcept {
  FORKJOIN_DEBUG_ASSERT(w.in_sleepers_ && sleepers_[w.sleeper_pos_] == &w, "sleeper list corrupt");
  worker* last = sleepers_.back();
  sleepers_[w.sleeper_pos_] = last;
  last->sleeper_pos_ = w.sleeper_pos_;
  sleepers_.pop_back();
  w.in_sleepers_ = false;
  // [INV-COUNT] the remover (waker or the sleeper itself) moves w from sleeping to searching;
  // seq_cst like [P-SLEEP IncSleepers], so ReadSleepers after PushFence sees a consistent count.
  [[maybe_unused]] std::uint64_t prev = idle_.fetch_add(k_searching_one - k_sleeping_one, std::memory_order_seq_cst);
  FORKJOIN_DEBUG_ASSERT(sleeping_of(prev) >= 1, "idle word: sleeping underflow [INV-COUNT]");
}

void pool_impl::fall_asleep(worker& w, bool (*wanted)(const void*), const void* ctx) noexcept {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    w.wake_flag_.store(0, std::memory_order_relaxed);
    w.sleeper_pos_ = sleepers_.size();
    sleepers_.push_back(&w);  // capacity reserved for every slot at construction: no throw
    w.in_sleepers_ = true;
    // [P-SLEEP IncSleepers] one RMW: sleeping+1, and searching-1 if w was searching.
    idle_.fetch_add(k_sleeping_one - (w.searching_ ? k_searching_one : 0), std::memory_order_seq_cst);
    w.searching_ = false;
  }
  perturb_point();
  seq_cst_fence();  // [P-SLEEP SleepFence] pairs with [P-POST PushFence]
  // [P-SLEEP ReadJob] every source: injector, every deque, the caller's latch, shutdown.
  const bool cancel = (wanted != nullptr && !wanted(ctx)) || any_work_visible() || shutting_down();
  if (cancel) {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    if (w.in_sleepers_) remove_sleeper_locked(w);  // else a waker already counted w as searching
    w.searching_ = true;
    return;
  }
  w.parks_.store(w.parks_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  parked_.fetch_add(1, std::memory_order_relaxed);           // diagnostics only (pool::num_parked)
  while (w.wake_flag_.load(std::memory_order_acquire) == 0)  // pairs with the waker's release store
    futex_wait(w.wake_flag_, 0);
  parked_.fetch_sub(1, std::memory_order_relaxed);
  w.searching_ = true;  // the waker moved w to searching [INV-COUNT]
}

static void wake_locked_sleeper(worker& w) noexcept {
  // Under sleep_mutex_: a stale wake cannot reach a later sleep of w, whose announcement
  // resets the flag under the same mutex.
  w.wake_flag_.store(1, std::memory_order_release);  // pairs with the acquire load in fall_asleep
}

void pool_impl::wake_one() noexcept {
  worker* target = nullptr;
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    std::uint64_t s = idle_.load(std::memory_order_relaxed);
    if (!wants_wake(s) || sleepers_.empty()) return;  // [INV-WAKE] someone already searches
    target = sleepers_.back();
    remove_sleeper_locked(*target);
    wake_locked_sleeper(*target);
  }
  futex_wake_all(target->wake_flag_);
}

void pool_impl::wake_specific(worker& w) noexcept {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    if (!w.in_sleepers_) return;  // awake: it re-checks its latch before it sleeps again
    remove_sleeper_locked(w);
    wake_locked_sleeper(w);
  }
  futex_wake_all(w.wake_flag_);
}

void pool_impl::wake_all() noexcept {
  std::vector<worker*> woken;
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    woken = sleepers_;  // shutdown only; the copy may allocate, outside the hot path
    for (worker* w : woken) {
      remove_sleeper_locked(*w);
      wake_locked_sleeper(*w);
    }
  }
  for (worker* w : woken) futex_wake_all(w->wake_flag_);
}

void pool_impl::notify_external_work() noexcept {
  std::uint64_t s;
  if constexpr (FORKJOIN_TSAN) {
    s = idle_.fetch_add(0, std::memory_order_seq_cst);  // [P-POST PushFence+ReadSleepers] as one RMW under TSan
  } else {
    seq_cst_fence();                            // [P-POST PushFence] pairs with [P-SLEEP SleepFence]
    s = idle_.load(std::memory_order_relaxed);  // [P-POST ReadSleepers]
  }
  if (wants_wake(s)) wake_one();
}

void on_new_internal_work(worker& w) noexcept {
  // [P-POST Internal] no fence: a missed wake-up here only costs parallelism, because the
  // pushing worker is awake and will run the job itself [INV-NOLOSS].
  w.deque_.publish();
  if (wants_wake(w.idle_word_->load(std::memory_order_relaxed))) w.pool_->wake_one();
}

void wake_worker(worker& w) noexcept { w.pool_->wake_specific(w); }

void wake_group_waiter(pool_impl& p, std::uint32_t waiter_index) noexcept { p.wake_specific(p.slot(waiter_index)); }

}  // namespace forkjoin::detail
