// pool.hpp: forkjoin::pool, a fork-join thread pool with one work-stealing deque per
// worker, and the process-wide default_pool(). The scheduler itself is compiled
// (forkjoin/pool.cpp, worker.cpp, sleep.cpp); this header holds only what templates need.
#pragma once

#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "forkjoin/concurrency.hpp"
#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/errors.hpp"
#include "forkjoin/detail/job.hpp"
#include "forkjoin/detail/worker_api.hpp"

namespace forkjoin {

/// Construction options for a pool. Every field has a usable default.
struct pool_options {
  /// Threads that work, counting the external thread inside pool::run. 0 = default:
  /// default_concurrency() (FORKJOIN_NUM_THREADS / OMP_NUM_THREADS when set, else the smaller
  /// of the affinity mask and the cgroup CPU quota). Values above k_max_threads are clamped to it;
  /// a negative number converted to size_t throws std::invalid_argument.
  /// A pool shares the process's CPU budget unless this is set explicitly above the budget's
  /// size (DESIGN.md [P-BUDGET]).
  std::size_t num_threads = 0;
  /// Stack size of each background worker, in bytes. Helping waits run stolen jobs on the
  /// waiter's stack; a waiter stops stealing once half of its stack is used.
  std::size_t stack_size = std::size_t{8} << 20;
  /// The shortest time an idle worker spins (PAUSE between sweeps of the other deques)
  /// before it parks on a futex. Each worker lengthens its spin, up to max_spin_time, to
  /// cover the gaps it sees between running out of work and finding more: back-to-back
  /// parallel loops find their workers awake, while a pool idle for longer than
  /// max_spin_time parks its workers after at most that much spinning.
  std::chrono::nanoseconds spin_time = std::chrono::microseconds(5);
  /// The longest an idle worker spins before it parks (see spin_time). Bounds the CPU an
  /// idle pool burns after a burst of work: at most this much per worker that searches.
  std::chrono::nanoseconds max_spin_time = std::chrono::microseconds(100);
  /// Only for a pool with more threads than the CPUs it may use (oversubscribed): after
  /// spin_time of spinning, an idle worker yields up to this many times (at most 1 ms of
  /// yields) before it parks, so that it hands the CPU to a thread that works.
  unsigned yield_rounds = 32;
  /// Pin worker i to the i-th CPU of the process's affinity mask (modulo its size).
  bool pin_threads = false;
  /// Steal half of the victim's public jobs at once (one CAS per job; the extra ones go
  /// to the thief's own deque) instead of one. Off by default: bench_ablation measures it
  /// (bench/history/2026-11-30.md) and it has not earned its place for fork-join workloads.
  bool steal_half = false;
  /// Worker thread names are "<prefix>-<index>" (truncated to 15 characters by Linux).
  std::string thread_name_prefix = "forkjoin";
  /// Spare threads that forkjoin::blocking may start while workers block, at most this
  /// many at once (clamped to k_max_spare_threads); 0 starts none (blocking then only
  /// wakes sleeping workers). Spares retire once idle.
  std::size_t max_spare_threads = 256;
  /// Threads from outside the pool (pool::run, a task_group's wait from main) that may work
  /// in it at once, each in a slot of its own, where its spawns go and its waits help. One
  /// more waits until the first slot frees or a worker runs its callable for it. 0 (the
  /// default): one plus the spare slots free (max_spare_threads, which spare threads share);
  /// 1: one at a time.
  std::size_t max_outside_threads = 0;
  /// Workers (background and spare threads) run with denormals flushed to zero: FTZ and DAZ
  /// in MXCSR on x86-64, FZ in FPCR on AArch64, nothing elsewhere. The thread inside
  /// pool::run keeps its own floating-point mode.
  bool flush_denormals = false;
  /// Record a worker timeline and write it to this file (Chrome Trace Event Format JSON)
  /// when the pool is destroyed and on trace_flush(). Empty = the FORKJOIN_TRACE
  /// environment variable, if set, else no tracing. See docs/tracing.md.
  std::string trace_path;
  /// Trace events kept per worker (the oldest are dropped beyond it; the file says how
  /// many). 0 = FORKJOIN_TRACE_EVENTS, else 1,000,000 (32 MB per worker, allocated at
  /// pool creation, only when tracing). Above 2^32: std::invalid_argument.
  std::size_t trace_events = 0;

  static constexpr std::size_t k_max_threads = 1024;
  static constexpr std::size_t k_max_spare_threads = 4096;
};

class pool;
namespace detail {
class pool_impl;
pool_impl& impl_of(pool& p) noexcept;

// The job that carries pool::run's callable into the pool: run by the caller in the pool's
// external slot or, while another thread holds that slot, in a slot of its own; past
// max_outside_threads, by whichever thread claims it first, a worker or the caller once
// the slot frees (DESIGN.md [P-SLOT]). Whoever runs it
// fills the result; the caller reads it after run_external returns, which is after the run.
template <class F>
class run_job : public job_header {
 public:
  using result_type = std::invoke_result_t<F&>;
  explicit run_job(F& f) noexcept : job_header(&run_job::execute_fn), f_(f) {}

  static void execute_fn(job_header* h) noexcept {
    auto* self = static_cast<run_job*>(h);
    try {
      self->result_.emplace_from(self->f_);
    } catch (...) {
      self->error_ = std::current_exception();
    }
  }
  result_type take() {
    if (error_) std::rethrow_exception(error_);
    return result_.take_as_returned();
  }

 private:
  F& f_;
  result_slot<result_type> result_;
  std::exception_ptr error_;
};

// Compiled: run `job` on pool p from a thread that is not one of p's workers, and return
// once it has run. Takes p's external slot when free and runs the job there (the caller
// works), or else a slot of its own within max_outside_threads; otherwise hands the job
// over and waits, taking the slot itself if it frees before a worker took the job
// ([P-SLOT]).
void run_external(pool_impl& p, job_header& job);
// Compiled: run_external for a thread lent to p from another pool (the oneTBB layer's
// mandatory concurrency, tbb/DESIGN.md [P-TBB Arena A12]): while another thread holds p's
// external slot it works in a slot of its own even past max_outside_threads, as one of
// p's workers would ([P-SLOT X1]).
void run_external_lent(pool_impl& p, job_header& job);
// Compiled: from a thread outside p, pushes j onto the deque of p's external slot when the
// slot is free, where p's workers steal it (oldest first) and the slot's next holder pops
// it (newest first); false, and nothing done, when another thread holds the slot: the
// caller injects j instead ([P-SLOT S1]).
bool push_external(pool_impl& p, job_header* j);

// [P-LENT] a pool whose worker slots have no threads of their own: each is away until work
// wants it, and then summon(ctx, pool, slot) is called (no lock held, never from the
// pool's destructor); it must see to it that a thread soon calls serve_lent_slot(pool,
// slot) (the oneTBB layer sends a job to the implicit arena's pool, tbb/DESIGN.md [P-TBB
// Arena A16]). `leaving`, if set, is called by a lent thread about to leave its slot, still
// bound to it (tls_worker). Slot 0 is for outside threads, as in any pool.
struct thread_lender {
  void (*summon)(void* ctx, pool_impl& p, std::size_t slot) noexcept = nullptr;
  void (*leaving)(void* ctx, pool_impl& p) noexcept = nullptr;
  void* ctx = nullptr;
};
// Compiled: a pool of options.num_threads slots whose slots 1..N-1 are lent (summon must
// be set). Its workers never block its destructor: the caller ensures that none serves it
// then. No CPU budget token is taken for its slots: a lent thread keeps the one it has.
std::unique_ptr<pool> make_lent_pool(const pool_options& options, const thread_lender& lender);
// Compiled: the summoned thread works as the pool's worker in `slot` ([P-LENT W2]) until
// it runs out of work and leaves the slot away again (W1), then returns; its own pool's
// state (tls_worker) is restored.
void serve_lent_slot(pool_impl& p, std::size_t slot) noexcept;
// Compiled: the lender's context of a lent pool (null for any other pool), and setting it:
// before any work reaches the pool, so that summon sees it.
void* lender_context(const pool_impl& p) noexcept;
void set_lender_context(pool_impl& p, void* ctx) noexcept;

template <class F>
std::invoke_result_t<F&> run_in(pool_impl& p, F& f) {
  worker* w = tls_worker;
  if (w != nullptr && w->pool_ == &p) return std::invoke(f);
  run_job<F> job(f);
  run_external(p, job);
  return job.take();
}
}  // namespace detail

/// A fork-join pool. Not copyable, not movable (workers point into it).
class pool {
 public:
  pool();
  /// A pool of num_threads threads (above pool_options::k_max_threads: that many). 0, a
  /// negative count and a negative number converted to size_t throw std::invalid_argument
  /// naming the value.
  explicit pool(std::size_t num_threads);
  template <std::signed_integral I>
  explicit pool(I num_threads) : pool(checked_count(num_threads)) {}
  explicit pool(const pool_options& options);
  ~pool();  ///< finishes outstanding work, joins its threads; calling it from one of this
            ///< pool's own tasks is a fatal error (it would join itself)
  pool(const pool&) = delete;
  pool& operator=(const pool&) = delete;

  std::size_t num_threads() const noexcept;

  /// Runs f in this pool and returns its result, or rethrows its exception. The calling
  /// thread works on f itself, in the pool's external slot or, while another thread holds
  /// that, in a slot of its own (up to pool_options::max_outside_threads at once; beyond
  /// that a worker may run f); called from one of this pool's workers, f simply runs inline.
  template <class F>
  std::invoke_result_t<F&> run(F&& f) {
    return detail::run_in(*impl_, f);
  }

  /// Diagnostics: workers currently announced asleep (parked or about to park).
  std::size_t num_sleeping() const noexcept;
  /// Diagnostics: workers blocked on their futex right now (a subset of num_sleeping()).
  std::size_t num_parked() const noexcept;
  /// Diagnostics: one worker's counters so far (relaxed snapshots). jobs_run counts the jobs
  /// it took from a deque or the injection queue (a join's branch taken back and run inline
  /// is not a job); steal_attempts counts every deque it tried, lost_races the attempts that
  /// lost a CAS to another thief or the owner; parks the times it blocked on its futex;
  /// time_parked the time it spent announced asleep (parked or about to be); time_spinning
  /// the time it spent spinning and yielding without finding work; splits_served the loop
  /// splits it made because an idle worker asked for work.
  struct worker_stats {
    std::uint64_t jobs_run = 0, steals = 0, steal_attempts = 0, lost_races = 0, parks = 0, splits_served = 0;
    std::chrono::nanoseconds time_parked{0}, time_spinning{0};
  };
  /// Totals over the workers, and each worker's own figures (index = worker index). wakes
  /// counts the parked workers woken up (each one a futex wake).
  struct stats {
    std::uint64_t steals = 0, steal_attempts = 0, lost_races = 0, parks = 0;
    std::uint64_t jobs_run = 0, splits_served = 0, wakes = 0;
    std::chrono::nanoseconds time_parked{0}, time_spinning{0};
    std::vector<worker_stats> workers;
  };
  stats statistics() const;

 private:
  friend detail::pool_impl& detail::impl_of(pool&) noexcept;
  friend std::unique_ptr<pool> detail::make_lent_pool(const pool_options&, const detail::thread_lender&);
  pool(const pool_options& options, const detail::thread_lender& lender);
  template <std::signed_integral I>
  static std::size_t checked_count(I n) {
    if (n < 1) detail::bad_argument("pool", "num_threads", n, "must be at least 1");
    return static_cast<std::size_t>(n);
  }
  std::unique_ptr<detail::pool_impl> impl_;
};

/// The process-wide pool, created on first use with the default size. It is never
/// destroyed, so it is never joined during static destruction.
pool& default_pool();

/// Writes the trace file of every pool that traces (pool_options::trace_path or
/// FORKJOIN_TRACE) with what its workers recorded so far; each file is rewritten whole.
/// Safe while the pools run: spans still open are not in the file yet. Also runs at exit,
/// for pools never destroyed (default_pool()).
void trace_flush();

/// The calling thread's index in the pool it runs in, -1 outside every pool. Workers and
/// the external slot's holder (0) have 0..num_threads()-1. A spare thread, started while a
/// worker blocks (blocking(), a call into another pool), and a thread from outside that
/// works in the pool beside the external slot's holder (pool_options::max_outside_threads)
/// have num_threads() + k, below num_threads() + pool_options::max_spare_threads. No two
/// threads running in one pool hold the same index at once; per_worker<T> gives per-thread
/// state of any index.
int this_worker_index() noexcept;

namespace detail {
inline pool_impl& current_pool_impl() {
  worker* w = tls_worker;
  return w != nullptr ? *w->pool_ : impl_of(default_pool());
}
}  // namespace detail

}  // namespace forkjoin
