// internal.hpp: what the files of libforkjoin-tbb share: the friend classes that oneTBB's
// headers declare for the runtime (task_accessor, task_group_context_impl, external_waiter),
// which this library defines to reach the private fields it owns; the arena; and the
// functions one file calls in another. Not installed; never seen by a program.
// Protocols: tbb/DESIGN.md ([P-TBB Task], [P-TBB Wait], [P-TBB Cancel], [P-TBB Arena]).
#pragma once

#include <oneapi/tbb/detail/_exception.h>
#include <oneapi/tbb/detail/_small_object_pool.h>
#include <oneapi/tbb/detail/_task.h>
#include <oneapi/tbb/detail/_utils.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/version.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>

#include "forkjoin/detail/job.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/pool.hpp"

#if !defined(TBB_INTERFACE_VERSION) || TBB_INTERFACE_VERSION < 12000 || TBB_INTERFACE_VERSION >= 13000
#error "libforkjoin-tbb implements the binary interface of oneTBB 2021 (TBB_INTERFACE_VERSION 12xxx)"
#endif

namespace tbb::detail::r1 {

// The spawned form of a task ([P-TBB Task T1]): a forkjoin job placed in the task's
// m_reserved words, which the headers leave to the runtime, or, when the task is submitted
// again while that one is still queued, in a block of its own. It names the task, its
// context and the slots execute sees in execution_data. The slots come first: they fill
// the job header's tail padding, so the job takes 40 of m_reserved's 48 bytes and the last
// word is left for the in-use flag.
struct task_job : forkjoin::detail::job_header {
  task_job(execute_fn fn, d1::task* t, d1::task_group_context* c, d1::slot_id original, d1::slot_id affinity) noexcept
      : job_header(fn), original_slot(original), affinity_slot(affinity), task(t), context(c) {}
  d1::slot_id original_slot;
  d1::slot_id affinity_slot;
  d1::task* task;
  d1::task_group_context* context;
};

// Friend of d1::task and d1::task_traits (declared in _task.h).
struct task_accessor {
  static void* reserved(d1::task& t) noexcept { return t.m_reserved; }
  static constexpr std::size_t k_reserved_bytes = sizeof(d1::task::m_reserved);
  static constexpr std::size_t k_in_use_word = sizeof(d1::task::m_reserved) / sizeof(std::uint64_t) - 1;
  // [P-TBB Task T1] 1 while the job in m_reserved is queued (from the submission that built
  // it until its run has copied it out, T3); zero-initialised with the task.
  static std::atomic_ref<std::uint64_t> in_use(d1::task& t) noexcept {
    return std::atomic_ref<std::uint64_t>(t.m_reserved[k_in_use_word]);
  }
};
static_assert(sizeof(task_job) <= task_accessor::k_in_use_word * sizeof(std::uint64_t),
              "a task_job must fit in d1::task::m_reserved before the in-use word");

// The holder of a context's captured exception (only declared by task_group.h).
class tbb_exception_ptr {
 public:
  explicit tbb_exception_ptr(std::exception_ptr e) noexcept : error_(std::move(e)) {}
  [[noreturn]] void rethrow() const { std::rethrow_exception(error_); }

 private:
  std::exception_ptr error_;
};

// Friend of d1::task_group_context: the context's fields, as [P-TBB Cancel] uses them.
struct task_group_context_impl {
  using context = d1::task_group_context;
  using state = context::state;
  static context& actual(context& c) noexcept { return c.actual_context(); }
  static std::atomic<state>& state_of(context& c) noexcept { return c.my_state; }
  static std::atomic<std::uint32_t>& cancel_word(context& c) noexcept { return c.my_cancellation_requested; }
  static std::atomic<tbb_exception_ptr*>& exception_of(context& c) noexcept { return c.my_exception; }
  // Valid once the context is bound ([P-TBB Cancel C1]); null for an isolated one.
  static context* parent(context& c) noexcept;
  static bool wants_fp(const context& c) noexcept { return c.my_traits.fp_settings; }
  static std::uint64_t& fp_env(context& c) noexcept { return c.my_cpu_ctl_env; }
  // [P-TBB Cancel C2] the cancellation epoch at which c's whole chain was last seen not
  // cancelled (0: never). Kept in my_context_list, which nothing else uses here (the contexts
  // are not registered in lists), as an integer in a pointer's bits; atomic: the tasks of one
  // group check it on several threads at once.
  static std::atomic_ref<r1::context_list*> clear_epoch_word(context& c) noexcept {
    return std::atomic_ref<r1::context_list*>(c.my_context_list);
  }

  static void initialize(context& c) noexcept;
  static void destroy(context& c) noexcept;
  static void reset(context& c) noexcept;
  static void bind(context& c) noexcept;  // [P-TBB Cancel C1] on first use
  static bool cancel(context& c) noexcept;
  static bool is_cancelled(context& c) noexcept;
  static void capture_fp(context& c) noexcept;
  // [P-TBB Cancel E1] a task of c threw: keep the exception if this cancels c first.
  static void record_exception(context& c, std::exception_ptr e) noexcept;
  // [P-TBB Cancel E2] the waiter rethrows what c holds.
  static void rethrow_if_any(context& c);
};

// Friend of d1::wait_context: its reference count.
class external_waiter {
 public:
  static bool pending(const d1::wait_context& w) noexcept {
    return w.m_ref_count.load(std::memory_order_seq_cst) != 0;  // [P-TBB Wait W2] pairs with N1 (the header's RMW)
  }
};

// A task arena: the forkjoin pool its tasks run on ([P-TBB Arena]). The implicit arena is
// default_pool() (or, while a global_control caps parallelism below its size, a pool of
// that size); an initialized task_arena has a lent pool of its own, with no threads (A4,
// A16), or borrows the implicit arena's (A7) until an observer asks for a pool while it is
// still unused (A8).
class arena {
 public:
  enum class kind : std::uint8_t { owned, view, fresh, used, converting };
  // An owned pool (A4).
  arena(std::unique_ptr<forkjoin::pool> own, forkjoin::detail::pool_impl* impl, int concurrency) noexcept
      : own_(std::move(own)), impl_(impl), concurrency_(concurrency), kind_(kind::owned) {}
  // A view of a pool it does not own (A3), or a borrowing arena (A7: `borrowing`).
  arena(forkjoin::detail::pool_impl* impl, int concurrency, bool borrowing) noexcept
      : impl_(impl), concurrency_(concurrency), kind_(borrowing ? kind::fresh : kind::view) {}
  forkjoin::detail::pool_impl& pool() const noexcept {
    return *impl_.load(std::memory_order_acquire);  // [P-TBB Arena A8] pairs with own_if_fresh's release store
  }
  // [P-TBB Arena A8] the pool to run on, marking a fresh borrowing arena used (it then
  // never converts); waits out a conversion under way.
  forkjoin::detail::pool_impl& use() noexcept;
  // [P-TBB Arena A8] a borrowing arena still unused takes `own` as its pool; false when it
  // is not fresh (it then keeps what it had).
  // `lender`: the pool whose threads serve it (A16).
  bool own_if_fresh(std::unique_ptr<forkjoin::pool>& own, forkjoin::detail::pool_impl& lender) noexcept;
  int concurrency() const noexcept { return concurrency_; }
  // The slots it reserves for outside threads (set by initialize for an owned pool).
  unsigned reserved() const noexcept { return reserved_; }
  void set_reserved(unsigned r) noexcept { reserved_ = r; }
  // [P-TBB Arena A12] whether a lent thread is on its way or draining the arena's pool.
  std::mutex& lender_mutex() noexcept { return lender_mutex_; }
  bool& lender_active() noexcept { return lender_active_; }  // under lender_mutex()
  // Whether a lent thread is on its way or draining now (takes the lender mutex).
  bool lending() const {
    const std::lock_guard<std::mutex> lock(lender_mutex_);
    return lender_active_;
  }
  bool owns_pool() const noexcept { return own_ != nullptr; }
  // [P-TBB Arena A16] the pool whose threads serve its lent pool's worker slots (set before
  // the arena is published).
  void set_lender_pool(forkjoin::detail::pool_impl& p) noexcept { lender_pool_ = &p; }
  forkjoin::detail::pool_impl& lender_pool() const noexcept { return *lender_pool_; }
  // [P-TBB Arena A12] its own pool has no worker slot: slot 0 alone.
  bool workerless() const noexcept { return own_ != nullptr && own_->num_threads() == 1; }
  // [P-TBB Arena A13] the floating-point settings initialize captured, which execute's
  // functor runs under; a view (A3) captured none. Written before the arena is published.
  void capture_fp(std::uint64_t env) noexcept {
    fp_env_ = env;
    has_fp_ = true;
  }
  bool has_fp() const noexcept { return has_fp_; }
  std::uint64_t fp_env() const noexcept { return fp_env_; }
  // [P-TBB Arena A7] a borrowing arena: it runs on a pool it does not own (the implicit
  // arena's), and entering it from a task isolates the caller so that its waits take only
  // its own work.
  bool isolates() const noexcept {
    const kind k = kind_.load(std::memory_order_relaxed);  // fresh and used never become owned once used
    return k == kind::fresh || k == kind::used;
  }
  // [P-TBB Arena A11] a thread running the pool's work entered this borrowing arena (an
  // isolated region); sticky.
  void note_entered_inside() noexcept {
    if (!entered_inside_.load(std::memory_order_relaxed)) entered_inside_.store(true, std::memory_order_relaxed);
  }
  bool entered_inside() const noexcept {
    return entered_inside_.load(std::memory_order_relaxed);  // a hint: A11 routes by it, no data depends on it
  }
  void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  // True when this was the last reference: the caller deletes the arena.
  bool release() noexcept {
    return refs_.fetch_sub(1, std::memory_order_acq_rel) == 1;  // acq_rel: every user's accesses before the delete
  }

 private:
  std::unique_ptr<forkjoin::pool> own_;
  std::atomic<forkjoin::detail::pool_impl*> impl_;
  int concurrency_;
  std::uint64_t fp_env_ = 0;
  bool has_fp_ = false;
  std::atomic<kind> kind_;
  std::atomic<int> refs_{1};
  std::atomic<bool> entered_inside_{false};
  unsigned reserved_ = 0;
  mutable std::mutex lender_mutex_;
  bool lender_active_ = false;
  forkjoin::detail::pool_impl* lender_pool_ = nullptr;
};

// Drops a reference on a; the last one deletes it (an owned pool finishes its queued tasks
// and joins its threads).
void release_arena(arena* a) noexcept;

// Friend of d1::task_arena_base.
struct task_arena_impl {
  static std::atomic<arena*>& arena_of(d1::task_arena_base& ta) noexcept { return ta.my_arena; }
  static const std::atomic<arena*>& arena_of(const d1::task_arena_base& ta) noexcept { return ta.my_arena; }
  static int& requested(d1::task_arena_base& ta) noexcept { return ta.my_max_concurrency; }
  static int requested(const d1::task_arena_base& ta) noexcept { return ta.my_max_concurrency; }
  static unsigned reserved(const d1::task_arena_base& ta) noexcept { return ta.my_num_reserved_slots; }
  static void set_reserved(d1::task_arena_base& ta, unsigned r) noexcept { ta.my_num_reserved_slots = r; }
};

}  // namespace tbb::detail::r1

// The layer's own functions stay out of the exported set although FORKJOIN_1 exports
// forkjoin::* ([P-TBB Link]): hidden here, at their first declaration.
// The runtime's fork generation ([P-FORK]), incremented in every fork() child, and the
// stealing limit below: defined in libforkjoin-omp, so declared before the hidden section.
namespace forkjoin::detail {
std::uint32_t current_fork_generation() noexcept;
// forkjoin/pool.cpp: the default pool's size, without creating it.
std::size_t default_pool_size();
// The address below which a waiter of this thread stops stealing ([P-JOIN Stack]): half of
// its stack, read once per thread. Also libforkjoin-omp's.
std::uintptr_t steal_limit_of_this_thread() noexcept;
}  // namespace forkjoin::detail

#pragma GCC visibility push(hidden)
namespace forkjoin::detail::tbb_layer {

namespace d1 = ::tbb::detail::d1;
namespace r1 = ::tbb::detail::r1;

// task.cpp: runs a task and its bypass chain on this thread ([P-TBB Task T3]).
void run_task(d1::task& t, d1::task_group_context& ctx, d1::slot_id original, d1::slot_id affinity) noexcept;
// The context of the task this thread is running, null outside every task.
d1::task_group_context* current_context() noexcept;
// Pushes t as a job: on this thread's deque when it works for `target`; else, for a spawn
// (not a submit), on the deque of target's external slot while that slot is free; else into
// target's injection queue ([P-TBB Task T2]).
void submit_to(pool_impl& target, d1::task& t, d1::task_group_context& ctx, d1::slot_id affinity, bool spawned);
// t's job for one submission ([P-TBB Task T1]): the one in its m_reserved words, or an
// allocated one while that is still queued.
r1::task_job* job_for(d1::task& t, d1::task_group_context& ctx, d1::slot_id original, d1::slot_id affinity);

// critical.cpp ([P-TBB Crit]): r1::submit of a critical task: queued for target's threads,
// with a ticket job that runs it if no check (K3) did first.
void submit_critical(pool_impl& target, d1::task& t, d1::task_group_context& ctx);
// The number of critical tasks queued in every pool (a hint, relaxed).
extern std::atomic<std::size_t> g_critical_queued;
void run_critical_slow() noexcept;
// [P-TBB Crit K3] before a thread runs a task: one relaxed load while no critical task is
// queued; else it runs the critical tasks of its pool and region first.
inline void run_critical_first() noexcept {
  if (g_critical_queued.load(std::memory_order_relaxed) != 0) [[unlikely]]
    run_critical_slow();
}
// [P-TBB Crit K3] whether a critical task waits for this thread (its pool and region), which
// a bypass chain then lets go first.
bool critical_queued_here() noexcept;

// arena_pending.cpp ([P-TBB Arena A11]): r1::submit to borrowing arena a, entered from
// inside before, by a thread not inside it: pending in a's list, with a ticket job.
void submit_pending(const r1::arena& a, pool_impl& target, d1::task& t, d1::task_group_context& ctx);
extern std::atomic<std::size_t> g_arena_pending;  // pending tasks of every arena (a hint, relaxed)
void adopt_pending_slow(worker& w) noexcept;
// [P-TBB Arena A11] before a wait: one relaxed load while nothing is pending; else a thread
// inside a borrowing arena moves the arena's pending tasks onto its deque, in its region.
inline void adopt_pending(worker& w) noexcept {
  if (g_arena_pending.load(std::memory_order_relaxed) != 0) [[unlikely]]
    adopt_pending_slow(w);
}
// arena.cpp: the borrowing arena this thread is inside, null when none.
const r1::arena* entered_arena() noexcept;

// mandatory.cpp ([P-TBB Arena A12]): a thread of the implicit pool enters a's pool, which has
// no worker, and runs what waits there; the arena this thread is lent to now, null if none.
void lend_thread(r1::arena& a);
const r1::arena* lent_arena() noexcept;
// [P-TBB Arena A16] the thread_lender of an arena's lent pool (its context is set to the
// arena before the arena is published); the arena whose lent pool p is, null for any other
// pool.
thread_lender arena_lender() noexcept;
inline const r1::arena* arena_of_lent(const pool_impl& p) noexcept {
  return static_cast<const r1::arena*>(lender_context(p));
}

// wait.cpp: helps on this thread's pool until w's count is zero ([P-TBB Wait]).
void help_until_released(worker& w, const d1::wait_context& wc) noexcept;

// arena.cpp: the pool that work started by this thread goes to: the pool it works for, or
// the implicit arena's.
pool_impl& current_pool();
// The implicit arena's pool: default_pool(), or the capped pool while a global_control asks.
pool_impl& implicit_pool();
pool_impl& lender_pool();
int implicit_concurrency();
std::size_t active_value(int param) noexcept;

// [P-TBB Arena A9] a thread outside every pool uses the scheduler (counted once per thread
// until finalize on it or its end); the calling thread stops counting; the count; whether a
// thread used it since the last successful finalize, and that finalize.
void note_outside_use() noexcept;
void leave_scheduler() noexcept;
int outside_users() noexcept;
// [P-TBB Arena A15] this thread, outside every pool, has used the scheduler since its start
// or its last finalize: it is in the implicit arena, at slot 0, as oneTBB's outside thread.
bool attached_outside() noexcept;
bool scheduler_used() noexcept;
void scheduler_finalized() noexcept;

// Any thread: runs f on a thread of p (this one when it works for p, or one bound to p's
// external slot or injected) and returns when it has run; rethrows f's exception.
template <class F>
void run_on(pool_impl& p, F&& f) {
  worker* w = tls_worker;
  if (w != nullptr && w->pool_ == &p) {
    f();
    return;
  }
  if (w == nullptr) note_outside_use();
  auto call = [&f] { f(); };
  run_in(p, call);
}

// observer.cpp ([P-TBB Observe]): nonzero while an observer is active (a hint, relaxed).
extern std::atomic<std::uint32_t> g_observers_active;
void observers_on_task_slow() noexcept;
// Before this thread runs a task, or enters an arena: one relaxed load while no observer is
// active; else the thread enters the active observers of its pool it has not entered (O2).
inline void observers_on_task() noexcept {
  if (g_observers_active.load(std::memory_order_relaxed) != 0) [[unlikely]]
    observers_on_task_slow();
}
// This thread leaves p (task_arena::execute returns): the exits of the observers of p it
// entered ([P-TBB Observe O3]).
void observers_leave(pool_impl& p) noexcept;

// The pool an observer of arena a watches ([P-TBB Arena A8]).
pool_impl& observed_pool(r1::arena& a);
// sync.cpp ([P-TBB Block]): blocks the calling thread until ready(arg) is true, tested under
// the mutex of address's bucket; a worker inside forkjoin::blocking (its pool keeps its
// parallelism) when `compensate`. wake_address wakes every thread blocked on that bucket.
// The waker changes the state that ready reads first, and needs nothing at address itself
// (it may be gone).
void block_until(const void* address, bool (*ready)(const void*), const void* arg, bool compensate);
void wake_address(const void* address) noexcept;

// misc.cpp: "libforkjoin-tbb: <what> is not supported" on stderr, then abort.
[[noreturn]] void refuse(const char* what) noexcept;

}  // namespace forkjoin::detail::tbb_layer
#pragma GCC visibility pop
