// task.cpp: oneTBB tasks on forkjoin jobs: the small-object pool (forkjoin's job blocks),
// spawn, execute_and_wait and wait, and the loop that runs a task and its bypass chain with
// cancellation and exception capture. Owns the thread's current context; not the waiter
// table (wait.cpp) nor the contexts' state (context.cpp). Protocol: tbb/DESIGN.md
// [P-TBB Task], [P-TBB Wait], [P-TBB Cancel].
#include <exception>
#include <new>

#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/task_group.hpp"
#include "fp_env.hpp"
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

namespace {

using ctx_impl = r1::task_group_context_impl;

thread_local d1::task_group_context* tls_context = nullptr;

// Every pool pointer handed out: the blocks come from forkjoin's job allocator, which
// needs only the size back.
struct job_block_pool : d1::small_object_pool {};
job_block_pool g_job_blocks;

// An outside thread's slot answers 0, slot 0's and any other ([P-SLOT X2]): oneTBB gives each
// outside thread an implicit arena of its own, where it holds slot 0, so indices stay below
// max_concurrency().
d1::slot_id slot_of_this_thread() noexcept {
  const worker* w = tls_worker;
  if (w == nullptr) return attached_outside() ? 0 : d1::no_slot;  // [P-TBB Arena A15]
  if (w->outside_) return 0;
  // [P-TBB Arena A16] a worker slot of a lent pool: the slots after the arena's reserved ones
  if (const r1::arena* a = arena_of_lent(*w->pool_); a != nullptr && w->index_ < w->pool_size_)
    return static_cast<d1::slot_id>(w->index_ - 1 + a->reserved());
  return static_cast<d1::slot_id>(w->index_);
}

// [P-TBB Task FP] a context that carries floating-point settings runs its tasks under them.
class fp_scope : fp_env_scope {
 public:
  explicit fp_scope(d1::task_group_context& ctx) noexcept
      : fp_env_scope(ctx_impl::wants_fp(ctx), ctx_impl::wants_fp(ctx) ? ctx_impl::fp_env(ctx) : 0) {}
};

}  // namespace

d1::task_group_context* current_context() noexcept { return tls_context; }

namespace {

// What a task job says, copied out so that the job's memory can be released before the task runs.
struct task_job_fields {
  d1::task* task;
  d1::task_group_context* context;
  d1::slot_id original, affinity;
  explicit task_job_fields(const r1::task_job& j) noexcept
      : task(j.task), context(j.context), original(j.original_slot), affinity(j.affinity_slot) {}
  void run() const noexcept { run_task(*task, *context, original, affinity); }
};

// [P-TBB Task T3] the job in the task's m_reserved: copied out first, then the in-use word
// cleared, before the task runs (and perhaps frees itself, or is submitted again).
void run_reserved_job(job_header* h) noexcept {
  const task_job_fields f(*static_cast<r1::task_job*>(h));
  r1::task_accessor::in_use(*f.task).store(0, std::memory_order_release);  // pairs with T1's acquire exchange
  f.run();
}

// [P-TBB Task T3] a job of its own (a submission made while the reserved one was queued).
void run_allocated_job(job_header* h) noexcept {
  auto* j = static_cast<r1::task_job*>(h);
  const task_job_fields f(*j);
  deallocate_job(j, sizeof(r1::task_job));
  f.run();
}

}  // namespace

r1::task_job* job_for(d1::task& t, d1::task_group_context& ctx, d1::slot_id original, d1::slot_id affinity) {
  // [P-TBB Task T1] acquire: pairs with T3's release store (the last run of the reserved job
  // copied it out before this submission writes it). An RMW: two threads may submit t at once.
  if (r1::task_accessor::in_use(t).exchange(1, std::memory_order_acquire) == 0) [[likely]]
    return ::new (r1::task_accessor::reserved(t)) r1::task_job(&run_reserved_job, &t, &ctx, original, affinity);
  return ::new (allocate_job(sizeof(r1::task_job))) r1::task_job(&run_allocated_job, &t, &ctx, original, affinity);
}

void run_task(d1::task& t, d1::task_group_context& ctx, d1::slot_id original, d1::slot_id affinity) noexcept {
  run_critical_first();  // [P-TBB Crit K3]
  observers_on_task();   // [P-TBB Observe O2]
  d1::execution_data ed{&ctx, original, affinity};
  d1::task_group_context* const outer = tls_context;
  tls_context = &ctx;
  {
    const fp_scope fp(ctx);
    // [P-TBB Task T4] the bypass chain: a task returned by execute runs next, in the same
    // context. Each task holds a reference on its wait_context until its execute or cancel
    // finishes, so the context outlives every access here.
    d1::task* next = &t;
    while (next != nullptr) {
      if (next != &t && g_critical_queued.load(std::memory_order_relaxed) != 0 && critical_queued_here()) {
        // [P-TBB Crit K3] a critical task waits: the bypass task goes on this thread's deque,
        // whose next pop runs the critical ones first (the hint is relaxed: K2's ticket
        // covers a miss)
        submit_to(*tls_worker->pool_, *next, ctx, d1::no_slot, /*spawned=*/true);
        break;
      }
      d1::task* current = next;
      if (ctx_impl::is_cancelled(ctx)) {  // [P-TBB Cancel C3] skipped: cancel() finalizes it
        next = current->cancel(ed);
        continue;
      }
      try {
        next = current->execute(ed);
      } catch (...) {
        // [P-TBB Cancel E1] the exception is kept (if it cancels the group first) and the
        // task is finalized by cancel(), which releases what execute did not.
        if (active_value(d1::global_control::terminate_on_exception) != 0) std::terminate();
        ctx_impl::record_exception(ctx, std::current_exception());
        next = current->cancel(ed);
      }
    }
  }
  tls_context = outer;
}

void submit_to(pool_impl& target, d1::task& t, d1::task_group_context& ctx, d1::slot_id affinity, bool spawned) {
  worker* w = tls_worker;
  const bool local = w != nullptr && w->pool_ == &target;
  r1::task_job* job = job_for(t, ctx, local ? static_cast<d1::slot_id>(w->index_) : d1::no_slot, affinity);
  if (local) {
    // [P-TBB Task T2] as task_group::run does: published at once, so idle workers can take it.
    w->deque_.push_private(job);
    on_new_job(*w, job);
  } else if (!spawned || !push_external(target, job)) {
    // [P-TBB Task T2] a spawn from outside goes on the external slot's deque while the slot
    // is free ([P-SLOT S1]), so that this thread's wait takes its newest task first
    inject_job(target, job);  // [P-POST] the injector's fence and wake-up
  }
}

}  // namespace forkjoin::detail::tbb_layer

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;
using ctx_impl = task_group_context_impl;

void* allocate(d1::small_object_pool*& pool, std::size_t number_of_bytes, const d1::execution_data&) {
  return allocate(pool, number_of_bytes);
}

void* allocate(d1::small_object_pool*& pool, std::size_t number_of_bytes) {
  pool = &tl::g_job_blocks;
  return forkjoin::detail::allocate_job(number_of_bytes);  // 64-byte aligned, as d1::task requires
}

void deallocate(d1::small_object_pool&, void* ptr, std::size_t number_of_bytes, const d1::execution_data&) {
  forkjoin::detail::deallocate_job(ptr, number_of_bytes);
}

void deallocate(d1::small_object_pool&, void* ptr, std::size_t number_of_bytes) {
  forkjoin::detail::deallocate_job(ptr, number_of_bytes);
}

void spawn(d1::task& t, d1::task_group_context& ctx) { r1::spawn(t, ctx, d1::no_slot); }

// The affinity hint is passed to the task in execution_data and otherwise not followed:
// the task goes to the spawning worker's deque like any other.
void spawn(d1::task& t, d1::task_group_context& ctx, d1::slot_id id) {
  d1::task_group_context& c = ctx_impl::actual(ctx);
  ctx_impl::bind(c);
  tl::submit_to(tl::current_pool(), t, c, id, /*spawned=*/true);
}

void execute_and_wait(d1::task& t, d1::task_group_context& t_ctx, d1::wait_context& wait_ctx,
                      d1::task_group_context& w_ctx) {
  d1::task_group_context& tc = ctx_impl::actual(t_ctx);
  d1::task_group_context& wc = ctx_impl::actual(w_ctx);
  ctx_impl::bind(tc);  // on the calling thread: a bound context's parent is this thread's task
  ctx_impl::bind(wc);
  tl::run_on(tl::current_pool(), [&] {
    tl::run_task(t, tc, tl::slot_of_this_thread(), d1::no_slot);
    if (external_waiter::pending(wait_ctx)) tl::help_until_released(*forkjoin::detail::tls_worker, wait_ctx);
  });
  ctx_impl::rethrow_if_any(wc);  // [P-TBB Cancel E2]
}

void wait(d1::wait_context& wait_ctx, d1::task_group_context& ctx) {
  d1::task_group_context& c = ctx_impl::actual(ctx);
  if (external_waiter::pending(wait_ctx))
    tl::run_on(tl::current_pool(), [&] { tl::help_until_released(*forkjoin::detail::tls_worker, wait_ctx); });
  ctx_impl::rethrow_if_any(c);  // [P-TBB Cancel E2]
}

d1::slot_id execution_slot(const d1::execution_data*) { return tl::slot_of_this_thread(); }

d1::task_group_context* current_context() { return tl::current_context(); }

}  // namespace tbb::detail::r1
