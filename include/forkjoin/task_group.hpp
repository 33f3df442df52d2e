// task_group.hpp: fork/join with any number of children. Children are blocks from
// per-thread free lists (never std::function, never one plain `new` each), pushed onto the
// spawning worker's deque; one counter per group tracks them. First exception wins and
// cancels the children that have not started. Protocol: forkjoin/DESIGN.md [P-JOIN] G1-G4.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/job.hpp"
#include "forkjoin/detail/task_deps.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin {

class task_group;

namespace detail {
void inject_job(pool_impl& p, job_header* j);  // [P-POST] for submitters outside the pool
// A task_group destroyed holding a child's exception that no wait() collected: prints it
// and calls std::terminate, unless the scope is being unwound by another exception (then
// that one propagates and the child's is dropped).
void on_uncollected_exception(const std::exception_ptr& e) noexcept;
inline thread_local const task_group* tls_running_group = nullptr;

template <class F>
class group_job;
template <class F, std::size_t K>
class dep_job;
}  // namespace detail

/// Fork/join with any number of children, as in oneTBB. Children run in the pool of the
/// thread that constructed the group (default_pool() from outside every pool).
class task_group {
 public:
  task_group() : pool_(&detail::current_pool_impl()) {}
  task_group(const task_group&) = delete;
  task_group& operator=(const task_group&) = delete;
  /// Waits for every child (cancelling the unstarted ones if the scope is being unwound by
  /// an exception), as oneTBB's does. A child's exception that no wait() collected is a
  /// fatal error: it is printed and std::terminate is called (oneTBB reports a missing
  /// wait() too), except while another exception unwinds the scope, which then propagates
  /// alone. Call wait() to receive it. Never throws.
  ~task_group() {
    if (!latch_.done()) {
      if (std::uncaught_exceptions() > 0) cancel();
      wait_children();
    }
    if (has_error_.load(std::memory_order_relaxed)) [[unlikely]]
      detail::on_uncollected_exception(error_);
    if (detail::task_deps* d = deps_.load(std::memory_order_relaxed)) detail::destroy_task_deps(d);
  }

  /// Starts f as a child. If copying or moving f throws, nothing was spawned.
  template <class F>
  void run(F&& f);

  /// Starts the callable (the last argument) as a child ordered after earlier children of
  /// this group by the dependencies before it (in(x), out(x), inout(x); OpenMP's `task
  /// depend`): it starts once every earlier child it depends on has finished. Meanwhile it
  /// holds no thread. A child that throws cancels the group as usual, so every child not
  /// yet started (its successors among them) is skipped.
  /// Definition and rules: forkjoin/detail/dep_job.hpp.
  template <class... A>
  requires(sizeof...(A) >= 1) void run(dependency d, A&&... rest);

  /// Waits until every child has finished, helping with pool work meanwhile; then rethrows
  /// the first exception a child threw, if any, and makes the group reusable. Calling it
  /// from one of the group's own children throws std::logic_error (it could never return).
  void wait();

  /// Children that have not started yet are skipped; running ones finish normally.
  void cancel() noexcept { canceled_.store(true, std::memory_order_relaxed); }
  bool is_canceling() const noexcept { return canceled_.load(std::memory_order_relaxed); }

 private:
  template <class F>
  friend class detail::group_job;
  template <class F, std::size_t K>
  friend class detail::dep_job;

  // wait() without the rethrow, for the destructor: never throws (a wait that cannot run,
  // from a pool destroyed or forked away, leaves the group as it is).
  void wait_children() noexcept;
  void capture(std::exception_ptr e) noexcept {
    bool expected = false;
    if (has_error_.compare_exchange_strong(expected, true, std::memory_order_relaxed)) {
      error_ = std::move(e);  // published by the child's G2 release, read after G3
      cancel();
    }
  }
  // A child's body, for plain and dependent children alike: skipped once the group is
  // cancelling (a sibling threw or cancel() ran); an exception is captured, never escapes.
  template <class F>
  void run_child_body(F& f) noexcept {
    if (is_canceling()) return;
    const task_group* outer = detail::tls_running_group;
    detail::tls_running_group = this;
    try {
      std::invoke(f);
    } catch (...) {
      capture(std::current_exception());
    }
    detail::tls_running_group = outer;
  }
  void finish_child() noexcept {
    detail::pool_impl* p = pool_;  // [P-JOIN G1] read before G2: afterwards *this may be gone
    std::uint64_t prev = latch_.finish_child();
    if ((prev >> 16) == 1 && (prev & detail::count_latch::k_waiter_mask) != 0)
      detail::wake_group_waiter(*p, static_cast<std::uint32_t>((prev & detail::count_latch::k_waiter_mask) - 1));
  }

  detail::pool_impl* pool_;
  detail::count_latch latch_;
  std::atomic<bool> canceled_{false};
  std::atomic<bool> has_error_{false};
  std::exception_ptr error_;
  std::atomic<detail::task_deps*> deps_{nullptr};  // created by the first dependent child
};

namespace detail {

template <class F>
class group_job : public job_header {
 public:
  template <class Arg>
  group_job(Arg&& f, task_group* g) : job_header(&group_job::execute_fn), f_(std::forward<Arg>(f)), group_(g) {}

  static void execute_fn(job_header* h) noexcept {
    if (g_tracing.load(std::memory_order_relaxed)) [[unlikely]]
      return execute_traced(h);
    execute_body(h);
  }
  // [P-TRACE] the task's span. A separate, cold function: a trace_scope in execute_fn
  // itself cost skynet 9% with tracing off (its frame and the worker's TLS load).
  FORKJOIN_COLD static void execute_traced(job_header* h) noexcept {
    const trace_scope span(tls_worker->trace_, trace_kind::task);
    execute_body(h);
  }
  static void execute_body(job_header* h) noexcept {
    auto* self = static_cast<group_job*>(h);
    task_group* g = self->group_;
    g->run_child_body(self->f_);
    self->~group_job();
    deallocate_job(self, sizeof(group_job));
    g->finish_child();  // [P-JOIN G2] last access to the group
  }

 private:
  F f_;
  task_group* group_;
};

}  // namespace detail

template <class F>
void task_group::run(F&& f) {
  using job_type = detail::group_job<std::decay_t<F>>;
  static_assert(alignof(job_type) <= 64, "task_group: over-aligned callables are not supported");
  void* memory = detail::allocate_job(sizeof(job_type));
  job_type* job;
  try {
    job = ::new (memory) job_type(std::forward<F>(f), this);
  } catch (...) {
    detail::deallocate_job(memory, sizeof(job_type));
    throw;
  }
  latch_.add_child();
  detail::worker* w = detail::tls_worker;
  if (w != nullptr && w->pool_ == pool_) {
    try {
      // Always published [P-POST Publish]: unlike join's g, which its owner takes back as
      // soon as f returns, a child may wait while the spawner runs anything for any time
      // (a long task, a blocking call), so it must be stealable at once.
      w->deque_.push_private(job);
      detail::on_new_job(*w, job);  // records the spawn when tracing [P-TRACE Join]
    } catch (...) {                 // the deque could not grow: the child was not spawned
      job->~job_type();
      detail::deallocate_job(memory, sizeof(job_type));
      latch_.remove_child_never_started();
      throw;
    }
  } else {
    detail::inject_job(*pool_, job);
  }
}

}  // namespace forkjoin

#include "forkjoin/detail/dep_job.hpp"  // IWYU pragma: export
