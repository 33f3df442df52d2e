// critical.cpp: critical tasks (r1::submit with its critical flag, which flow graph nodes
// with a priority use): a queue of them per pool and region, a ticket job per task that
// guarantees it runs, and the check that runs them before a thread's next task. Protocol:
// tbb/DESIGN.md [P-TBB Crit].
#include <mutex>
#include <new>

#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/task_group.hpp"
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

std::atomic<std::size_t> g_critical_queued{0};

namespace {

// One queued critical task: its job (built as a spawn's, [P-TBB Task T1]), the pool it was
// submitted to and the isolated region of the submitter (0: none).
struct critical_entry {
  job_header* job;
  pool_impl* pool;
  std::uint32_t tag;
  critical_entry* next;
};

// [P-TBB Crit K1] every queued critical task, first in first out, under g_mutex.
std::mutex g_mutex;
critical_entry* g_head = nullptr;
critical_entry* g_tail = nullptr;

// [P-TBB Crit K4] true while this thread runs a critical task: the tasks it runs inside do
// not take further critical tasks first (a ticket still does).
thread_local bool t_in_critical = false;

// [P-TBB Crit K2, K3] unlinks the oldest critical task of pool and region tag; null if none.
job_header* take_critical(const pool_impl* pool, std::uint32_t tag) noexcept {
  const std::lock_guard<std::mutex> lock(g_mutex);
  critical_entry* prev = nullptr;
  for (critical_entry* e = g_head; e != nullptr; prev = e, e = e->next) {
    if (e->pool != pool || e->tag != tag) continue;
    (prev != nullptr ? prev->next : g_head) = e->next;
    if (g_tail == e) g_tail = prev;
    // relaxed: a hint; the entries themselves are read under g_mutex [P-TBB Crit K1]
    g_critical_queued.store(g_critical_queued.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    job_header* job = e->job;
    deallocate_job(e, sizeof(critical_entry));
    return job;
  }
  return nullptr;
}

bool critical_waiting(const worker& w) noexcept {
  const std::uint32_t tag = w.deque_.tag();
  const std::lock_guard<std::mutex> lock(g_mutex);
  for (const critical_entry* e = g_head; e != nullptr; e = e->next)
    if (e->pool == w.pool_ && e->tag == tag) return true;
  return false;
}

// [P-TBB Crit K4] runs job (a critical task's) with t_in_critical set.
void run_as_critical(job_header* job) noexcept {
  const bool outer = t_in_critical;
  t_in_critical = true;
  job->execute(job);
  t_in_critical = outer;
}

// [P-TBB Crit K2] a ticket: one per critical task, it runs the oldest one still queued for
// the pool and region its task was submitted to, if any (the checks of K3 may have run them
// all), whatever thread and region run the ticket itself.
struct critical_ticket : job_header {
  critical_ticket(const pool_impl* p, std::uint32_t t) noexcept : job_header(&run), pool(p), tag(t) {}
  const pool_impl* pool;
  std::uint32_t tag;
  static void run(job_header* h) noexcept {
    auto* self = static_cast<critical_ticket*>(h);
    const pool_impl* const pool = self->pool;
    const std::uint32_t tag = self->tag;
    deallocate_job(h, sizeof(critical_ticket));
    if (job_header* job = take_critical(pool, tag)) run_as_critical(job);
  }
};

}  // namespace

void submit_critical(pool_impl& target, d1::task& t, d1::task_group_context& ctx) {
  worker* w = tls_worker;
  const bool local = w != nullptr && w->pool_ == &target;
  job_header* job = job_for(t, ctx, local ? static_cast<d1::slot_id>(w->index_) : d1::no_slot, d1::no_slot);
  const std::uint32_t tag = local ? w->deque_.tag() : 0;  // [P-TBB Crit K1] outside the pool: no region of it
  auto* e = ::new (allocate_job(sizeof(critical_entry))) critical_entry{job, &target, tag, nullptr};
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    (g_tail != nullptr ? g_tail->next : g_head) = e;
    g_tail = e;
    // relaxed: a hint; the entries themselves are read under g_mutex [P-TBB Crit K1]
    g_critical_queued.store(g_critical_queued.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // [P-TBB Crit K2] the ticket goes where a plain submit's job would ([P-TBB Task T2]).
  auto* ticket = ::new (allocate_job(sizeof(critical_ticket))) critical_ticket(&target, tag);
  if (local) {
    w->deque_.push_private(ticket);
    on_new_job(*w, ticket);
  } else {
    inject_job(target, ticket);  // [P-POST] the injector's fence and wake-up
  }
}

void run_critical_slow() noexcept {
  const worker* w = tls_worker;
  if (w == nullptr || t_in_critical) return;  // [P-TBB Crit K4]
  while (job_header* job = take_critical(w->pool_, w->deque_.tag())) run_as_critical(job);
}

bool critical_queued_here() noexcept {
  const worker* w = tls_worker;
  return w != nullptr && !t_in_critical && critical_waiting(*w);  // [P-TBB Crit K4]
}

}  // namespace forkjoin::detail::tbb_layer
