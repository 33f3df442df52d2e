// pool_impl.hpp: the compiled side of a pool: its slots and threads, the injection queue,
// the sleep controller and the lifecycle flags. pool_impl's own bodies live in two files:
// worker.cpp (the scheduler: finding and running work, helping waits) and pool.cpp
// (creation, external callers, shutdown). The idle protocol is a class of its own
// (sleep.hpp), and so is the injection queue (injector.hpp).
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
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
#include "trace.hpp"

namespace forkjoin::detail {

// A slot's state that only the compiled runtime touches; detail::worker, its base, holds
// what the inline templates read. Every slot is allocated as a worker_slot (slot_of).
struct worker_slot : worker {
  worker_slot(pool_impl* p, std::uint32_t index, std::uint32_t pool_size, const std::atomic<std::uint64_t>* idle_word,
              const std::atomic<std::size_t>* injected = nullptr)
      : worker(p, index, pool_size, idle_word, injected),
        rng_(xorshift64::for_stream(index)),
        available_(index != 0 ? 1 : 0) {}

  // Owner-thread state (the thread currently bound to the slot).
  std::uint32_t ticks_ = 0;           // local jobs since the injection queue was last polled
  xorshift64 rng_;                    // victim selection
  std::uintptr_t steal_limit_ = 0;    // below this stack address a waiting worker stops stealing
  sleep_controller::sleeper sleep_;   // searching mark, futex word, place in the sleeper list
  std::int64_t iso_mark_ = 0;         // [P-ISO Mark] an isolated wait pops only above it
  std::uint32_t found_tag_ = 0;       // [P-ISO Adopt] the tag of the job steal_sweep returned
  std::int64_t spin_window_ns_ = 0;   // [P-SLEEP Window] how long this worker spins before it parks
  std::uint32_t blocking_depth_ = 0;  // [P-BLOCK] nested blocking() calls of the thread
  bool blocking_token_ = false;       // [P-BUDGET Block] the CPU token given back by the outermost blocking()
  std::uint64_t blocking_t0_ = 0;     // [P-TRACE] the outermost blocking()'s start, when traced
  // [P-ISO Park] an isolated waiter parks on iso_seq_ with iso_parked_ set; latch setters
  // bump and wake it. Written by the owner and by setters.
  std::atomic<std::uint32_t> iso_seq_{0};
  std::atomic<bool> iso_parked_{false};
  // [P-ISO Share] the word a parked isolated waiter sleeps on: iso_seq_, or its shared
  // region's cell. Written by the owner before iso_parked_, read by setters.
  std::atomic<std::atomic<std::uint32_t>*> iso_word_{&iso_seq_};
  std::atomic<bool> spare_in_use_{false};  // [P-BLOCK Spare] a spare slot held by a live spare
  // [P-LENT W4] 0: no lent thread here; 1: one serves the slot; 2: and another was sent meanwhile
  std::atomic<std::uint32_t> lent_state_{0};
  bool left_ = false;  // [P-LENT W1] owner: the slot went away, the thread returns

  // [P-LEND] a job handed to this worker by name (mailbox.cpp), and whether it is in its
  // top-level idle loop, where it takes the mailbox before anything else: 0 no, 1 yes, 2 yes
  // and reserved by a poster. A background worker starts at 1 (it goes there first).
  alignas(k_cache_line) std::atomic<job_header*> mailbox_{nullptr};
  std::atomic<std::uint32_t> available_;

  // Statistics, written only by the owner (relaxed load + store, never a read-modify-write).
  alignas(k_cache_line) std::atomic<std::uint64_t> steals_{0};
  std::atomic<std::uint64_t> steal_attempts_{0};
  std::atomic<std::uint64_t> lost_races_{0};
  std::atomic<std::uint64_t> jobs_run_{0};
  std::atomic<std::uint64_t> splits_served_{0};
  std::atomic<std::uint64_t> parked_ns_{0};    // time inside fall_asleep
  std::atomic<std::uint64_t> spinning_ns_{0};  // time in the idle ladder's spin and yield phases
};

inline worker_slot& slot_of(worker& w) noexcept { return static_cast<worker_slot&>(w); }

class pool_impl final : private work_monitor {
 public:
  explicit pool_impl(const pool_options& options, const thread_lender& lender = {});
  ~pool_impl();

  std::size_t num_threads() const noexcept { return slots_.size(); }
  const pool_options& options() const noexcept { return options_; }
  observer* trace_observer() const noexcept { return observer_.get(); }  // null: neither trace nor statistics
  // Slots 0..N-1, then the spare slots [P-BLOCK Spare] (index N + k).
  worker_slot& slot(std::size_t i) noexcept { return i < slots_.size() ? *slots_[i] : spare_slot(i - slots_.size()); }
  const worker_slot& slot(std::size_t i) const noexcept { return *slots_[i]; }
  sleep_controller& sleep() noexcept { return sleep_; }
  const sleep_controller& sleep() const noexcept { return sleep_; }

  // worker.cpp: the scheduler.
  void worker_main(worker_slot& w) noexcept;
  thread_lender& lender() noexcept { return lender_; }
  const thread_lender& lender() const noexcept { return lender_; }
  void work(worker_slot& w) noexcept;        // a worker's loop, until find_work_idle gives up
  void serve_lent(worker_slot& w) noexcept;  // [P-LENT W4] a lent thread in slot w
  // The top-level idle loop's park: true when a lent slot went away instead ([P-LENT W1]).
  bool idle_park(worker_slot& w, bool (*wanted)(const void*), const void* ctx) noexcept;
  job_header* find_work_idle(worker_slot& w) noexcept;                 // null only once the pool shuts down
  job_header* search_until_leaving(worker_slot& w) noexcept;           // one stay in the idle loop
  job_header* leave_idle(worker_slot& w, job_header* found) noexcept;  // [P-LEND L4]
  // [P-SLEEP Window] the idle spin, learned from the stretches w spent without work.
  static constexpr std::chrono::microseconds k_wait_spin{20};
  void learn_gap(worker_slot& w, std::chrono::nanoseconds gap) noexcept;
  std::chrono::nanoseconds spin_window(const worker_slot& w, bool wait) const noexcept;
  // After the spin, sched_yield rounds before parking: only an oversubscribed pool yields.
  unsigned yield_rounds() const noexcept { return oversubscribed_ ? options_.yield_rounds : 0; }
  bool oversubscribed() const noexcept { return oversubscribed_; }
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

  // isolation.cpp [P-ISO]: the isolated wait's own-deque pop, running a found job under its
  // tag, the isolated waiter's park and its wake-up.
  // Inline: a helping wait calls it once per job it runs.
  static job_header* pop_for_wait(worker_slot& w) noexcept {
    // [P-ISO Mark] in a region, only what was pushed since it began (the region's own jobs).
    if (w.deque_.tag() != 0 && w.deque_.end_index() <= w.iso_mark_) return nullptr;
    return w.deque_.pop();
  }
  void run_stolen(worker_slot& w, job_header* j) noexcept;
  void park_isolated(worker_slot& w, bool (*done)(const void*), const void* ctx) noexcept;
  static void wake_isolated(worker_slot& w) noexcept;
  // [P-ISO Share] regions shared by a key: their tags carry k_shared_tag_bit. The waiter
  // parks once (K3-K5) and returns a job of the region it found, or null after a wake-up;
  // a publishing push into such a region wakes its parked waiters (K1, K2).
  static constexpr std::uint32_t k_shared_tag_bit = std::uint32_t{1} << 31;
  static bool shared_tag(std::uint32_t tag) noexcept { return (tag & k_shared_tag_bit) != 0; }
  std::atomic<std::uint32_t>& shared_park_word(std::uint32_t tag) noexcept;
  // `steal`: K4 may steal (false past the stack's steal limit, [P-JOIN Stack]).
  job_header* park_shared(worker_slot& w, bool (*done)(const void*), const void* ctx, bool steal) noexcept;
  static void wake_shared_region(std::uint32_t tag) noexcept;

  // blocking.cpp [P-BLOCK]: blocked workers and spare threads.
  void begin_blocking(worker_slot& w) noexcept;
  void end_blocking(worker_slot& w) noexcept;
  void spare_main(worker_slot& w) noexcept;
  std::size_t spare_slot_count() const noexcept {
    return spare_high_.load(std::memory_order_acquire);  // [P-BLOCK Spare] pairs with the release in new_spare_slot
  }
  worker_slot& spare_slot(std::size_t k) const noexcept { return *spare_slots_[k].load(std::memory_order_relaxed); }
  void wait_for_spares() noexcept;
  // fpmode.cpp: pool_options::flush_denormals, applied by each worker thread at its start.
  void apply_fp_mode() const noexcept;

  // pool.cpp: submissions from outside and the lifecycle.
  void inject(job_header* j);
  // external_slot.cpp [P-SLOT]: a thread outside the pool runs `job` in slot 0, or hands it
  // over while another thread holds the slot and takes the slot if it frees first.
  // `lent`: a thread lent to this pool, which takes a slot of its own past the bound (X1).
  void run_external(job_header& job, bool lent = false);
  // [P-SLOT S1, S2, S3]: a thread outside the pool pushes j onto slot 0's deque when the
  // slot is free; false when it is held.
  bool push_external(job_header* j);
  // Acquire pairs with [P-TERM Close]: a worker that sees the flag sees everything before it.
  bool shutting_down() const noexcept { return shutdown_.load(std::memory_order_acquire); }

  // mailbox.cpp [P-LEND D1, D2, D3]: the dock, where workers whose team turn ended wait for the
  // next region's post; the posters' one broadcast wakes them all.
  alignas(k_cache_line) std::atomic<std::uint32_t> dock_seq_{0};  // the futex word D3 bumps
  std::atomic<std::uint32_t> docked_{0};                          // workers between D1's count and their return

 private:
  // [P-SLEEP ReadJob]'s question to the pool, asked by sleep_ after SleepFence.
  bool work_or_shutdown_visible() const noexcept override { return any_work_visible() || shutting_down(); }
  // [P-LENT W2] an away slot was woken: its lender sends a thread (never once shutting down).
  void summon(std::uint32_t index) noexcept override {
    if (!shutting_down()) lender_.summon(lender_.ctx, *this, index);
  }

  pool_options options_;  // num_threads resolved (never 0)
  thread_lender lender_;  // [P-LENT] set: slots 1..N-1 have no threads of their own
  std::vector<std::unique_ptr<worker_slot>> slots_;
  std::vector<pthread_t> threads_;
  sleep_controller sleep_;
  alignas(k_cache_line) std::atomic<bool> shutdown_{false};
  std::uint32_t fork_generation_ = 0;  // [P-FORK] the process generation that owns the threads
  bool budgeted_ = false;              // [P-BUDGET] its threads share the process's CPU budget
  bool oversubscribed_ = false;        // [P-SLEEP Window] more threads than the CPUs it may run on
  // [P-SLOT] slot 0's owner word (k_slot_free, k_slot_held, k_slot_waited), and the mutex
  // and condition variable on which threads that found it held wait (external_slot.cpp).
  alignas(k_cache_line) std::atomic<std::uint32_t> slot_word_{0};
  std::mutex slot_mutex_;
  std::condition_variable slot_cv_;
  // [P-SLOT E1] the holder's thread tag while a thread runs a job in slot 0 (null otherwise):
  // a thread that finds its own tag re-enters the slot it holds further up its stack.
  std::atomic<const void*> slot_holder_{nullptr};
  friend struct slot_delegate;
  void run_in_slot(job_header& job) noexcept;                      // [P-SLOT T1]'s owner runs job, then T2
  void run_as_holder(worker_slot& w, job_header& job) noexcept;    // the job, then leftovers injected
  bool run_in_extra_slot(job_header& job, bool bounded) noexcept;  // [P-SLOT X1, X2, X3]; false: none free
  // [P-SLOT X1] outside callers in spare slots now (a policy count, relaxed), and its bound
  // (max_outside_threads - 1; ~0: only the spare slots bound it).
  std::atomic<std::size_t> extra_holders_{0};
  std::size_t max_extra_holders_ = 0;
  void run_reentered(job_header& job) noexcept;  // [P-SLOT E1] the holder runs job in its slot again
  void release_slot() noexcept;                  // [P-SLOT T2, T3]
  void run_delegated(job_header& job);
  void drop_queued_delegates() noexcept;  // [P-SLOT D4, D6] at destruction
  std::atomic<std::size_t> delegated_callers_{
      0};  // [P-SLOT D6] callers inside run_delegated         // [P-SLOT D1, D2, D3, D4, D5]
  injector injector_;
  std::unique_ptr<observer> observer_;  // trace rings and FORKJOIN_STATS; null when neither is on

  // [P-BLOCK] blocking.cpp's state.
  bool try_start_spare(worker_slot& blocked) noexcept;  // blocked: the worker about to block
  worker_slot* new_spare_slot() noexcept;
  alignas(k_cache_line) std::atomic<std::size_t> blocked_{0};  // workers inside blocking()
  std::atomic<std::size_t> spares_active_{0};                  // spares counted against blocked_ (retire when above it)
  std::atomic<std::size_t> spares_live_{0};                    // spare threads that may still touch the pool
  std::atomic<std::size_t> spare_high_{0};                     // spare slots created (never freed before the pool)
  std::unique_ptr<std::atomic<worker_slot*>[]> spare_slots_;
  std::mutex spare_mutex_;  // creates spare slots
};

// [P-FORK] incremented in every fork() child.
std::uint32_t current_fork_generation() noexcept;
// The default pool's thread count: the existing pool's (of this fork generation), else the
// count default_pool() would give it now, without creating it.
std::size_t default_pool_size();

// The stack bounds of the calling thread, cached per thread (pthread_getattr_np reads
// /proc on the main thread).
std::uintptr_t steal_limit_of_this_thread() noexcept;

}  // namespace forkjoin::detail
