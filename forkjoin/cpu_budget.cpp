// cpu_budget.cpp: the process's CPU tokens and the threads waiting for them. Protocol and
// proof sketch: DESIGN.md [P-BUDGET]. The per-thread token functions live here too.
#include "cpu_budget.hpp"

#include <pthread.h>

#include <algorithm>
#include <new>

#include "forkjoin/concurrency.hpp"
#include "forkjoin/detail/config.hpp"
#include "futex.hpp"

namespace forkjoin::detail {

cpu_budget::cpu_budget(std::size_t capacity) noexcept
    : capacity_(static_cast<std::uint32_t>(std::min<std::size_t>(capacity, UINT32_MAX / 2))) {}

void cpu_budget::note_peak(std::uint32_t held) noexcept {
  std::uint32_t seen = peak_.load(std::memory_order_relaxed);  // relaxed: a statistic
  while (held > seen && !peak_.compare_exchange_weak(seen, held, std::memory_order_relaxed)) {
  }
}

bool cpu_budget::try_acquire() noexcept {
  // [P-BUDGET A1] (and A3, R3) seq_cst: pairs with R1's decrement in release (the Dekker pair
  // A2/A3 against R1/R2).
  std::uint32_t held = running_.load(std::memory_order_seq_cst);
  do {
    if (held >= capacity_) return false;
  } while (!running_.compare_exchange_weak(held, held + 1, std::memory_order_seq_cst, std::memory_order_seq_cst));
  note_peak(held + 1);
  return true;
}

void cpu_budget::unlink_locked(waiter& w) noexcept {
  (w.prev_ != nullptr ? w.prev_->next_ : head_) = w.next_;
  (w.next_ != nullptr ? w.next_->prev_ : tail_) = w.prev_;
  w.prev_ = w.next_ = nullptr;
  w.listed_ = false;
  waiting_.fetch_sub(1, std::memory_order_relaxed);  // relaxed: under mutex_; a stale count only costs R3 a lock
}

bool cpu_budget::acquire(waiter& w, const std::atomic<bool>* cancel) noexcept {
  if (try_acquire()) return true;  // [P-BUDGET A1]
  perturb_point();                 // widen the window a release can slip into (A1-A2)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // acquire: pairs with the owner's seq_cst store of the flag before it calls cancel_waiters
    // [P-BUDGET C1]; the mutex orders that call before or after this enlistment.
    if (cancel != nullptr && cancel->load(std::memory_order_acquire)) return false;
    w.state_.store(k_waiting, std::memory_order_relaxed);  // under mutex_, like every write of it
    w.cancel_ = cancel;
    w.prev_ = tail_;
    w.next_ = nullptr;
    (tail_ != nullptr ? tail_->next_ : head_) = &w;
    tail_ = &w;
    w.listed_ = true;
    // [P-BUDGET A2] Enlist, seq_cst RMW: pairs with R2's load (the Dekker pair with R1/A3).
    waiting_.fetch_add(1, std::memory_order_seq_cst);
  }
  if (try_acquire()) {  // [P-BUDGET A3] Recheck: a release that missed the enlistment freed a token
    bool granted_too = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (w.listed_)
        unlink_locked(w);
      else
        granted_too = w.state_.load(std::memory_order_relaxed) == k_granted;  // under mutex_
    }
    if (granted_too) release();  // R3 also handed this thread a token: pass it on
    return true;
  }
  // [P-BUDGET A4] Park until R3 or C1 changes the state; acquire pairs with their release store.
  std::uint32_t state;
  while ((state = w.state_.load(std::memory_order_acquire)) == k_waiting) futex_wait(w.state_, k_waiting);
  // The waker wakes the futex under mutex_: once this returns, it no longer touches w.
  { std::lock_guard<std::mutex> lock(mutex_); }
  return state == k_granted;
}

void cpu_budget::release() noexcept {
  // [P-BUDGET R1] seq_cst: pairs with A3's load in try_acquire (the Dekker pair with A2/R2).
  running_.fetch_sub(1, std::memory_order_seq_cst);
  // [P-BUDGET R2] ReadWaiters, seq_cst: pairs with A2's enlistment.
  if (waiting_.load(std::memory_order_seq_cst) == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // [P-BUDGET R3] Grant: take a token for the first waiter, if one is still free.
  if (head_ == nullptr || !try_acquire()) return;
  waiter& w = *head_;
  unlink_locked(w);
  w.state_.store(k_granted, std::memory_order_release);  // pairs with A4's acquire load
  futex_wake_all(w.state_);                              // under mutex_: see the end of acquire
}

void cpu_budget::cancel_waiters(const std::atomic<bool>* cancel) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  for (waiter* w = head_; w != nullptr;) {
    waiter* next = w->next_;
    if (w->cancel_ == cancel) {
      unlink_locked(*w);
      w->state_.store(k_cancelled, std::memory_order_release);  // [P-BUDGET C1] pairs with A4's acquire load
      futex_wake_all(w->state_);
    }
    w = next;
  }
}

void cpu_budget::reset_in_child(bool caller_holds_token) noexcept {
  new (&mutex_) std::mutex;  // a parent thread may have held it: it does not exist here
  head_ = tail_ = nullptr;
  waiting_.store(0, std::memory_order_relaxed);  // relaxed: the child has one thread
  running_.store(caller_holds_token ? 1 : 0, std::memory_order_relaxed);
  peak_.store(caller_holds_token ? 1 : 0, std::memory_order_relaxed);
}

// The per-thread side.
namespace {

thread_local bool t_holds_token = false;
thread_local cpu_budget::waiter t_waiter;
cpu_budget* g_process_budget = nullptr;  // set once, before any thread can hold a token

void on_fork_child() noexcept { g_process_budget->reset_in_child(t_holds_token); }

}  // namespace

cpu_budget& cpu_budget::process() {
  static cpu_budget* const budget = [] {
    // One CPU stays for the application thread inside pool::run [P-BUDGET].
    auto* b = new cpu_budget(default_concurrency() - 1);  // never deleted: threads may use it at exit
    g_process_budget = b;
    pthread_atfork(nullptr, nullptr, &on_fork_child);  // [P-BUDGET Fork]
    return b;
  }();
  return *budget;
}

bool thread_holds_token() noexcept { return t_holds_token; }

bool take_worker_token(const std::atomic<bool>* cancel) noexcept {
  if (t_holds_token) return true;
  t_holds_token = cpu_budget::process().acquire(t_waiter, cancel);
  return t_holds_token;
}

bool give_back_token() noexcept {
  if (!t_holds_token) return false;
  t_holds_token = false;
  cpu_budget::process().release();
  return true;
}

void retake_token(bool held, const std::atomic<bool>* cancel) noexcept {
  if (held) take_worker_token(cancel);
}

}  // namespace forkjoin::detail
