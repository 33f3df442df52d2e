// mandatory.cpp: an arena whose pool has no worker (task_arena(1), task_arena(1, 1)) borrows
// a thread of the implicit arena for each enqueued task, as oneTBB lends such an arena one
// worker (mandatory concurrency), so that enqueued work runs although no thread waits in the
// arena. Protocol: tbb/DESIGN.md [P-TBB Arena] A12.
#include <exception>
#include <new>

#include "forkjoin/detail/waiting_api.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/task_group.hpp"
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

namespace {

// [P-TBB Arena A12] the arena this thread was lent to while it drains its pool, null otherwise.
thread_local const r1::arena* t_lent_to = nullptr;

// [P-TBB Arena A12] a job of the implicit pool: enters the arena's pool as an outside thread
// (its external slot, or handed over until it frees), runs what waits there, leaves, and
// drops its reference on the arena (the last one deletes it, as terminate would).
struct lender : job_header {
  explicit lender(r1::arena& a) noexcept : job_header(&run), arena(&a) {}
  r1::arena* arena;
  static void run(job_header* h) noexcept {
    r1::arena* a = static_cast<lender*>(h)->arena;
    deallocate_job(h, sizeof(lender));
    auto drain = [a] {
      worker& w = *tls_worker;
      const r1::arena* const outer = t_lent_to;
      t_lent_to = a;
      for (;;) {
        run_own_until(
            w, [](const void*) { return false; }, nullptr);
        const std::size_t before = w.injected_->load(std::memory_order_relaxed);  // a hint: progress only
        if (before == 0) break;
        yield_to_injected(w);
        if (w.injected_->load(std::memory_order_relaxed) >= before && w.deque_.size() == 0) break;  // nothing taken
      }
      t_lent_to = outer;
    };
    try {
      run_in(a->pool(), drain);
    } catch (...) {
      std::terminate();  // drain throws nothing; entering the pool cannot fail once it exists
    }
    r1::release_arena(a);
  }
};

}  // namespace

void lend_thread(r1::arena& a) {
  pool_impl& implicit = implicit_pool();
  if (&implicit == &a.pool()) return;
  a.add_ref();  // [P-TBB Arena A12] the lender's, dropped when it leaves
  inject_job(implicit, ::new (allocate_job(sizeof(lender))) lender(a));  // [P-POST] the injector's wake-up
}

const r1::arena* lent_arena() noexcept {
  const worker* w = tls_worker;
  return w != nullptr && t_lent_to != nullptr && w->pool_ == &t_lent_to->pool() ? t_lent_to : nullptr;
}

}  // namespace forkjoin::detail::tbb_layer
