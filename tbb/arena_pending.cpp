// arena_pending.cpp: tasks submitted to a borrowing arena by a thread that is not inside it
// (a flow graph's node, put to from another arena's task): they wait in a list of the arena,
// each with a ticket job that runs it on any thread of the pool, and a thread that waits
// inside the arena moves them into its isolated region first. Protocol: tbb/DESIGN.md
// [P-TBB Arena] A11.
#include <mutex>
#include <new>

#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/task_group.hpp"
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

std::atomic<std::size_t> g_arena_pending{0};

namespace {

struct pending_entry {
  job_header* job;
  const r1::arena* arena;
  pending_entry* next;
};

// [P-TBB Arena A11] every pending task, first in first out, under g_mutex.
std::mutex g_mutex;
pending_entry* g_head = nullptr;
pending_entry* g_tail = nullptr;

// Unlinks the oldest pending task of a; null if none.
job_header* take_pending(const r1::arena* a) noexcept {
  const std::lock_guard<std::mutex> lock(g_mutex);
  pending_entry* prev = nullptr;
  for (pending_entry* e = g_head; e != nullptr; prev = e, e = e->next) {
    if (e->arena != a) continue;
    (prev != nullptr ? prev->next : g_head) = e->next;
    if (g_tail == e) g_tail = prev;
    // relaxed: a hint; the entries themselves are read under g_mutex [P-TBB Arena A11]
    g_arena_pending.store(g_arena_pending.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    job_header* job = e->job;
    deallocate_job(e, sizeof(pending_entry));
    return job;
  }
  return nullptr;
}

// [P-TBB Arena A11] one per pending task: runs the oldest one of its arena still pending, if
// a waiter inside the arena has not taken them all.
struct pending_ticket : job_header {
  explicit pending_ticket(const r1::arena* a) noexcept : job_header(&run), arena(a) {}
  const r1::arena* arena;
  static void run(job_header* h) noexcept {
    const r1::arena* a = static_cast<pending_ticket*>(h)->arena;
    deallocate_job(h, sizeof(pending_ticket));
    if (job_header* job = take_pending(a)) job->execute(job);
  }
};

}  // namespace

void submit_pending(const r1::arena& a, pool_impl& target, d1::task& t, d1::task_group_context& ctx) {
  worker* w = tls_worker;
  const bool local = w != nullptr && w->pool_ == &target;
  job_header* job = job_for(t, ctx, local ? static_cast<d1::slot_id>(w->index_) : d1::no_slot, d1::no_slot);
  auto* e = ::new (allocate_job(sizeof(pending_entry))) pending_entry{job, &a, nullptr};
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    (g_tail != nullptr ? g_tail->next : g_head) = e;
    g_tail = e;
    // relaxed: a hint; the entries themselves are read under g_mutex [P-TBB Arena A11]
    g_arena_pending.store(g_arena_pending.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // [P-TBB Arena A11] the ticket goes where a plain submit's job would ([P-TBB Task T2])
  auto* ticket = ::new (allocate_job(sizeof(pending_ticket))) pending_ticket(&a);
  if (local) {
    w->deque_.push_private(ticket);
    on_new_job(*w, ticket);
  } else {
    inject_job(target, ticket);  // [P-POST] the injector's fence and wake-up
  }
}

void adopt_pending_slow(worker& w) noexcept {
  const r1::arena* a = entered_arena();
  if (a == nullptr) return;
  bool any = false;
  // [P-TBB Arena A11] pushed inside this thread's region: its wait, and thieves of the
  // region, run them
  while (job_header* job = take_pending(a)) {
    w.deque_.push_private(job);
    any = true;
  }
  if (any) on_new_internal_work(w);
}

}  // namespace forkjoin::detail::tbb_layer
