// pool_impl.hpp: the compiled side of a pool: its slots and threads, the injection queue,
// the sleep controller and the lifecycle flags. pool_impl's own bodies live in two files:
// worker.cpp (the scheduler: finding and running work, helping waits) and pool.cpp
// (creation, external callers, shutdown). The idle protocol is a class of its own
// (sleep.hpp), and so is the injection queue (injector.hpp).
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "cpu_budget.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/detail/xorshift.hpp"
#include "forkjoin/pool.hpp"
#include "injector.hpp"
#include "sleep.hpp"

namespace forkjoin::detail {

// A slot's state that only the compiled runtime touches; detail::worker, its base, holds
// what the inline templates read. Every slot is allocated as a worker_slot (slot_of).
struct worker_slot : worker {
  worker_slot(pool_impl* p, std::uint32_t index, std::uint32_t pool_size, const std::atomic<std::uint64_t>* idle_word)
      : worker(p, index, pool_size, idle_word), rng_(xorshift64::for_stream(index)) {}

  // Owner-thread state (the thread currently bound to the slot).
  std::uint32_t ticks_ = 0;          // local jobs since the injection queue was last polled
  xorshift64 rng_;                   // victim selection
  std::uintptr_t steal_limit_ = 0;   // below this stack address a waiting worker stops stealing
  sleep_controller::sleeper sleep_;  // searching mark, futex word, place in the sleeper list

  // Statistics, written only by the owner (relaxed load + store, never a read-modify-write).
  alignas(k_cache_line) std::atomic<std::uint64_t> steals_{0};
  std::atomic<std::uint64_t> steal_attempts_{0};
  std::atomic<std::uint64_t> lost_races_{0};
};

inline worker_slot& slot_of(worker& w) noexcept { return static_cast<worker_slot&>(w); }

class pool_impl final : private work_monitor {
 public:
  explicit pool_impl(const pool_options& options);
  ~pool_impl();

  std::size_t num_threads() const noexcept { return slots_.size(); }
  const pool_options& options() const noexcept { return options_; }
  worker_slot& slot(std::size_t i) noexcept { return *slots_[i]; }
  const worker_slot& slot(std::size_t i) const noexcept { return *slots_[i]; }
  sleep_controller& sleep() noexcept { return sleep_; }
  const sleep_controller& sleep() const noexcept { return sleep_; }

  // worker.cpp: the scheduler.
  void worker_main(worker_slot& w) noexcept;
  job_header* find_work_idle(worker_slot& w) noexcept;
  // One pass over the injector and every other deque (from a random start, `preferred`
  // first); repeated while some steal lost a race. `batch`: take len/N + 1 injected jobs
  // and keep the rest on w's deque (top-level workers only; waiters take one).
  job_header* steal_sweep(worker_slot& w, std::int32_t preferred, bool batch) noexcept;
  job_header* take_injected(worker_slot& w, bool batch) noexcept;
  void steal_more(worker_slot& w, worker& victim) noexcept;
  bool any_work_visible() const noexcept;
  template <class Done, class Announce>
  void help_until(worker_slot& w, std::int32_t preferred, Done done, Announce announce) noexcept;
  // [P-BUDGET Park] sleep_.fall_asleep without the thread's CPU token meanwhile.
  void fall_asleep(worker_slot& w, bool (*wanted)(const void*), const void* ctx) noexcept {
    const bool held = give_back_token();
    sleep_.fall_asleep(w.sleep_, wanted, ctx);
    retake_token(held, &shutdown_);
  }

  // pool.cpp: submissions from outside and the lifecycle.
  void inject(job_header* j);
  void run_external(job_header& job, void (*wait)(job_header&));
  // Acquire pairs with [P-TERM Close]: a worker that sees the flag sees everything before it.
  bool shutting_down() const noexcept { return shutdown_.load(std::memory_order_acquire); }

 private:
  // [P-SLEEP ReadJob]'s question to the pool, asked by sleep_ after SleepFence.
  bool work_or_shutdown_visible() const noexcept override { return any_work_visible() || shutting_down(); }

  pool_options options_;  // num_threads resolved (never 0)
  std::vector<std::unique_ptr<worker_slot>> slots_;
  std::vector<pthread_t> threads_;
  sleep_controller sleep_;
  alignas(k_cache_line) std::atomic<bool> shutdown_{false};
  std::uint32_t fork_generation_ = 0;  // [P-FORK] the process generation that owns the threads
  bool budgeted_ = false;              // [P-BUDGET] its threads share the process's CPU budget
  std::mutex external_slot_;           // held by the external thread bound to slot 0
  injector injector_;
};

// [P-FORK] incremented in every fork() child.
std::uint32_t current_fork_generation() noexcept;

// The stack bounds of the calling thread, cached per thread (pthread_getattr_np reads
// /proc on the main thread).
std::uintptr_t steal_limit_of_this_thread() noexcept;

}  // namespace forkjoin::detail
