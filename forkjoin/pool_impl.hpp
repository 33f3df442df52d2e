// pool_impl.hpp: the compiled side of a pool: its worker slots, threads, idle word,
// sleepers, injection queue and lifecycle flags. Declares the scheduler's edges; the
// bodies live in worker.cpp (finding and running work), sleep.cpp (spinning, parking,
// waking), injector.cpp (external submissions) and pool.cpp (creation and shutdown).
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/pool.hpp"
#include "injector.hpp"

namespace forkjoin::detail {

class pool_impl {
 public:
  explicit pool_impl(const pool_options& options);
  ~pool_impl();

  std::size_t num_threads() const noexcept { return slots_.size(); }
  const pool_options& options() const noexcept { return options_; }
  worker& slot(std::size_t i) noexcept { return *slots_[i]; }

  // worker.cpp
  void worker_main(worker& w) noexcept;
  job_header* find_work_idle(worker& w) noexcept;
  // One pass over the injector and every other deque (from a random start, `preferred`
  // first); repeated while some steal lost a race. `batch`: take len/N + 1 injected jobs
  // and keep the rest on w's deque (top-level workers only; waiters take one).
  job_header* steal_sweep(worker& w, std::int32_t preferred, bool batch) noexcept;
  job_header* take_injected(worker& w, bool batch) noexcept;
  void steal_more(worker& w, worker& victim) noexcept;
  bool any_work_visible() const noexcept;
  template <class Done, class Announce>
  void help_until(worker& w, std::int32_t preferred, Done done, Announce announce) noexcept;

  // sleep.cpp: the idle protocol, DESIGN.md [P-SLEEP].
  bool try_start_searching(worker& w) noexcept;
  void stop_searching(worker& w) noexcept;
  // Parks w until it is woken or until `still_needed` is false after the announcement;
  // returns with w counted as searching.
  // `wanted(ctx)` is re-checked after the announcement (a join latch not yet set, say).
  void fall_asleep(worker& w, bool (*wanted)(const void*), const void* ctx) noexcept;
  void wake_one() noexcept;  // at most one sleeper, only if nobody searches [INV-WAKE]
  void wake_specific(worker& w) noexcept;
  void wake_all() noexcept;
  void notify_external_work() noexcept;  // [P-POST] PushFence then ReadSleepers
  std::size_t num_sleeping() const noexcept { return sleeping_of(idle_.load(std::memory_order_relaxed)); }
  std::size_t num_parked() const noexcept { return parked_.load(std::memory_order_relaxed); }

  // injector.cpp
  void inject(job_header* j);

  // pool.cpp
  void run_external(job_header& job, void (*wait)(job_header&));
  // Acquire pairs with [P-TERM Close]: a worker that sees the flag sees everything before it.
  bool shutting_down() const noexcept { return shutdown_.load(std::memory_order_acquire); }

 private:
  void remove_sleeper_locked(worker& w) noexcept;

  pool_options options_;
  std::vector<std::unique_ptr<worker>> slots_;
  std::vector<pthread_t> threads_;

  alignas(k_cache_line) std::atomic<std::uint64_t> idle_{0};  // searching | sleeping << 32
  alignas(k_cache_line) std::mutex sleep_mutex_;
  std::vector<worker*> sleepers_;  // guarded by sleep_mutex_
  alignas(k_cache_line) std::atomic<bool> shutdown_{false};
  std::uint32_t fork_generation_ = 0;     // [P-FORK] the process generation that owns the threads
  std::atomic<std::uint32_t> parked_{0};  // workers inside futex_wait now (diagnostics)
  std::mutex external_slot_;              // held by the external thread bound to slot 0
  injector injector_;
};

// [P-FORK] incremented in every fork() child.
std::uint32_t current_fork_generation() noexcept;

// The stack bounds of the calling thread, cached per thread (pthread_getattr_np reads
// /proc on the main thread).
std::uintptr_t steal_limit_of_this_thread() noexcept;

}  // namespace forkjoin::detail
