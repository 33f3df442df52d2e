// arena_pending.cpp: tasks submitted to a borrowing arena by a thread that is not inside it
// (a flow graph's node, put to from another arena's task): they wait in a list of the arena,
// each with a ticket job that runs it on any thread of the pool, and a thread that waits
// inside the arena moves them into its isolated region first. Protocol: tbb/DESIGN.md
// [P-TBB Arena] A11.
#include <new>

#include "forkjoin/detail/worker_api.hpp"
#include "internal.hpp"
#include "keyed_jobs.hpp"

namespace forkjoin::detail::tbb_layer {

std::atomic<std::size_t> g_arena_pending{0};

namespace {

// [P-TBB Arena A11] every pending task, keyed by its arena, first in first out.
constinit keyed_jobs g_pending{g_arena_pending};

job_key key_of(const r1::arena* a) noexcept { return job_key{a, 0}; }

// [P-TBB Arena A11] one per pending task: runs the oldest one of its arena still pending, if
// a waiter inside the arena has not taken them all.
struct pending_ticket : job_header {
  explicit pending_ticket(const r1::arena* a) noexcept : job_header(&run), arena(a) {}
  const r1::arena* arena;
  static void run(job_header* h) noexcept {
    const r1::arena* a = static_cast<pending_ticket*>(h)->arena;
    deallocate_job(h, sizeof(pending_ticket));
    if (job_header* job = g_pending.take(key_of(a))) job->execute(job);
  }
};

}  // namespace

void submit_pending(const r1::arena& a, pool_impl& target, d1::task& t, d1::task_group_context& ctx) {
  const worker* w = tls_worker;
  const bool local = w != nullptr && w->pool_ == &target;
  g_pending.push(key_of(&a), job_for(t, ctx, local ? static_cast<d1::slot_id>(w->index_) : d1::no_slot, d1::no_slot));
  // [P-TBB Arena A11] the ticket goes where a plain submit's job would ([P-TBB Task T2])
  post_ticket(target, ::new (allocate_job(sizeof(pending_ticket))) pending_ticket(&a));
}

void adopt_pending_slow(worker& w) noexcept {
  const r1::arena* a = entered_arena();
  if (a == nullptr) return;
  bool any = false;
  // [P-TBB Arena A11] pushed inside this thread's region: its wait, and thieves of the
  // region, run them
  while (job_header* job = g_pending.take(key_of(a))) {
    w.deque_.push_private(job);
    any = true;
  }
  if (any) on_new_internal_work(w);
}

}  // namespace forkjoin::detail::tbb_layer
