// cpu_budget.hpp: one CPU budget per process (DESIGN.md [P-BUDGET]). A counter of the worker
// threads that hold a token (awake in a pool that shares the budget), its capacity
// (default_concurrency() - 1 for the process: one CPU stays for the application thread that
// calls in), and the list of threads waiting for a token. Tokens change hands only when a thread parks, blocks, starts
// or leaves, never per job. cpu_budget itself knows nothing of pools or threads, so tests drive it with plain threads;
// the per-thread functions below bind it to the calling thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "forkjoin/detail/atomic.hpp"

namespace forkjoin::detail {

class cpu_budget {
 public:
  // A thread's place in the waiter list; must stay alive while its thread waits in acquire.
  class waiter {
   private:
    friend class cpu_budget;
    std::atomic<std::uint32_t> state_{0};        // futex word: k_waiting, k_granted or k_cancelled; set under mutex_
    waiter* next_ = nullptr;                     // guarded by mutex_
    waiter* prev_ = nullptr;                     // guarded by mutex_
    bool listed_ = false;                        // guarded by mutex_
    const std::atomic<bool>* cancel_ = nullptr;  // guarded by mutex_
  };

  explicit cpu_budget(std::size_t capacity) noexcept;  // 0 tokens is allowed
  cpu_budget(const cpu_budget&) = delete;
  cpu_budget& operator=(const cpu_budget&) = delete;

  // The process's budget, sized at the first call: default_concurrency() - 1 worker tokens
  // (size() is default_concurrency() itself); never destroyed.
  static cpu_budget& process();
  std::size_t size() const noexcept { return capacity_ + 1; }

  std::size_t capacity() const noexcept { return capacity_; }
  // Diagnostics and tests: relaxed snapshots; peak() is the most tokens held at once since
  // the last reset_peak().
  std::size_t running() const noexcept { return running_.load(std::memory_order_relaxed); }
  std::size_t waiting() const noexcept { return waiting_.load(std::memory_order_relaxed); }
  std::size_t peak() const noexcept { return peak_.load(std::memory_order_relaxed); }
  void reset_peak() noexcept { peak_.store(running_.load(std::memory_order_relaxed), std::memory_order_relaxed); }

  // [P-BUDGET A1] a token if fewer than capacity() are held.
  bool try_acquire() noexcept;
  // A token, waiting as long as it takes ([P-BUDGET A1+A2+A3+A4]); false, without a token, if
  // `cancel` (may be null) is set when the thread enlists or cancel_waiters(cancel) runs
  // while it waits.
  bool acquire(waiter& w, const std::atomic<bool>* cancel) noexcept;
  // Give one token back and hand it to the first waiter ([P-BUDGET R1+R2+R3]).
  void release() noexcept;
  // Wake every waiter enlisted with `cancel`, without a token ([P-BUDGET C1]).
  void cancel_waiters(const std::atomic<bool>* cancel) noexcept;

  // [P-BUDGET Fork] in a fork() child only the forking thread exists: it keeps its own token
  // (if it held one), every other token and waiter is dropped.
  void reset_in_child(bool caller_holds_token) noexcept;

 private:
  static constexpr std::uint32_t k_waiting = 0, k_granted = 1, k_cancelled = 2;
  void note_peak(std::uint32_t held) noexcept;
  void unlink_locked(waiter& w) noexcept;

  const std::uint32_t capacity_;
  alignas(k_cache_line) std::atomic<std::uint32_t> running_{0};  // tokens held
  std::atomic<std::uint32_t> peak_{0};
  alignas(k_cache_line) std::atomic<std::uint32_t> waiting_{0};  // threads in the list
  std::mutex mutex_;
  waiter* head_ = nullptr;  // guarded by mutex_: FIFO, so no pool's workers starve
  waiter* tail_ = nullptr;
};

// The calling thread's token in the process budget. A thread holds at most one, whatever
// pools it works for at once; threads that call into a pool from outside hold none.
bool thread_holds_token() noexcept;
// [P-BUDGET Start] a worker of a budgeted pool: wait for a token unless the thread holds one.
// False if cancelled by `cancel` (its pool's shutdown flag): the thread runs without one.
bool take_worker_token(const std::atomic<bool>* cancel) noexcept;
// [P-BUDGET Park] give the thread's token back (before parking, blocking or leaving);
// returns whether it held one, for retake_token.
bool give_back_token() noexcept;
// Take the token again if `held` (waiting for it; cancellable as in take_worker_token).
void retake_token(bool held, const std::atomic<bool>* cancel) noexcept;

// [P-BUDGET Block] a thread that blocks (waiting for a job injected into another pool, for a
// pool's slot) holds no token meanwhile.
class token_pause {
 public:
  token_pause() noexcept : held_(give_back_token()) {}
  ~token_pause() { retake_token(held_, nullptr); }
  token_pause(const token_pause&) = delete;
  token_pause& operator=(const token_pause&) = delete;

 private:
  bool held_;
};

}  // namespace forkjoin::detail
