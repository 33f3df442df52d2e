// mandatory.cpp: threads of the implicit arena lent to other arenas. An arena's pool has no
// threads of its own: each of its worker slots is served, while it has work, by a thread of
// the implicit arena sent to it (A16). An arena whose pool has no worker slot
// (task_arena(1, 1)) borrows a thread while it has enqueued tasks, as oneTBB lends such an
// arena one worker (mandatory concurrency), so that enqueued work runs although no thread
// waits in the arena (A12). Protocol: tbb/DESIGN.md [P-TBB Arena] A12, A16.
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
// (its external slot, or handed over until it frees), runs what waits there until, under the
// arena's lender mutex, nothing is left (then it clears the active flag), leaves, and drops
// its reference on the arena (the last one deletes it, as terminate would).
struct lender : job_header {
  explicit lender(r1::arena& a) noexcept : job_header(&run), arena(&a) {}
  r1::arena* arena;
  static void run(job_header* h) noexcept;
};

// Deep in this thread's stack, where forkjoin runs no injected job ([P-JOIN Stack]), with a
// margin for the frames between here and its check.
bool deep_in_stack() noexcept {
  constexpr std::uintptr_t k_margin = 64 * 1024;
  return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < steal_limit_of_this_thread() + k_margin;
}

void send_lender(r1::arena& a) {
  a.add_ref();  // [P-TBB Arena A12] the lender's, dropped when it leaves
  inject_job(implicit_pool(), ::new (allocate_job(sizeof(lender))) lender(a));  // [P-POST] the injector's wake-up
}

// [P-TBB Arena A12] on the arena's pool: runs what waits there until, under the arena's lender
// mutex, nothing is left, and then clears the active flag; too deep in this stack to run
// injected jobs, it hands the work to a new lender instead (the flag stays set).
void drain(r1::arena& a) {
  worker& w = *tls_worker;
  const r1::arena* const outer = t_lent_to;
  t_lent_to = &a;
  // [P-TBB Arena A12] a worker of the arena to its observers and its slot index, whichever
  // slot it holds; it leaves their records when it leaves the arena
  const bool held_from_outside = w.outside_;
  w.outside_ = false;
  for (;;) {
    run_own_until(
        w, [](const void*) { return false; }, nullptr);
    if (deep_in_stack()) {
      send_lender(a);
      break;
    }
    if (injected_pending(w)) {
      yield_to_injected(w);  // takes at least one job while any is queued: tag 0, not deep
      continue;
    }
    // [P-TBB Arena A12] relaxed under the mutex: an enqueue that took the mutex before pushed
    // its job before that, and one that takes it after sees the flag cleared and lends again
    const std::lock_guard<std::mutex> lock(a.lender_mutex());
    if (!injected_pending(w)) {
      a.lender_active() = false;
      break;
    }
  }
  w.outside_ = held_from_outside;
  observers_leave(a.pool());  // [P-TBB Observe O3] on_scheduler_exit(true), as a worker leaving
  t_lent_to = outer;
}

void lender::run(job_header* h) noexcept {
  r1::arena* a = static_cast<lender*>(h)->arena;
  deallocate_job(h, sizeof(lender));
  auto body = [a] { drain(*a); };
  try {
    // [P-TBB Arena A12] beside a thread inside the arena, in a slot of its own ([P-SLOT X1])
    run_job<decltype(body)> job(body);
    run_external_lent(a->pool(), job);
    job.take();
  } catch (...) {
    std::terminate();  // drain throws only bad_alloc; entering the pool cannot fail once it exists
  }
  r1::release_arena(a);
}

// [P-TBB Arena A16] a job of the implicit pool: serves one worker slot of an arena's lent
// pool until the slot goes away ([P-LENT W1]), leaves the arena's observers as a worker
// leaving an arena out of work, and drops the reference summon took.
struct slot_lender : job_header {
  slot_lender(r1::arena& a, std::size_t s) noexcept : job_header(&run), arena(&a), slot(s) {}
  r1::arena* arena;
  std::size_t slot;
  static void run(job_header* h) noexcept {
    auto* l = static_cast<slot_lender*>(h);
    r1::arena* const a = l->arena;
    const std::size_t slot = l->slot;
    deallocate_job(h, sizeof(slot_lender));
    serve_lent_slot(a->pool(), slot);  // leaving the slot, it leaves the observers (worker_leaving)
    r1::release_arena(a);              // the last reference deletes the arena, its pool unserved now
  }
};

// [P-TBB Arena A16] [P-LENT W2] a worker slot of the arena's pool is wanted: a job of the
// implicit arena's pool will serve it, holding a reference on the arena meanwhile.
void summon_worker(void* ctx, pool_impl& p, std::size_t slot) noexcept {
  static_cast<void>(p);
  auto* a = static_cast<r1::arena*>(ctx);
  a->add_ref();
  // [P-POST] the injector's wake-up; allocation failure terminates (noexcept), as a lost
  // worker slot would strand the arena's work
  inject_job(a->lender_pool(), ::new (allocate_job(sizeof(slot_lender))) slot_lender(*a, slot));
}

// [P-TBB Observe O3] a lent thread leaving its slot, still in it: on_scheduler_exit(true)
// at its slot's index, as a worker leaving an arena out of work.
void worker_leaving(void* ctx, pool_impl& p) noexcept {
  static_cast<void>(ctx);
  observers_leave(p);
}

}  // namespace

thread_lender arena_lender() noexcept { return thread_lender{&summon_worker, &worker_leaving, nullptr}; }

void lend_thread(r1::arena& a) {
  if (&implicit_pool() == &a.pool()) return;
  {
    const std::lock_guard<std::mutex> lock(a.lender_mutex());  // [P-TBB Arena A12] one lender at a time
    if (a.lender_active()) return;
    a.lender_active() = true;
  }
  send_lender(a);
}

const r1::arena* lent_arena() noexcept {
  const worker* w = tls_worker;
  return w != nullptr && t_lent_to != nullptr && w->pool_ == &t_lent_to->pool() ? t_lent_to : nullptr;
}

}  // namespace forkjoin::detail::tbb_layer
