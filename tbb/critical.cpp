// critical.cpp: critical tasks (r1::submit with its critical flag, which flow graph nodes
// with a priority use): a queue of them per pool and region, a ticket job per task that
// guarantees it runs, and the check that runs them before a thread's next task. Protocol:
// tbb/DESIGN.md [P-TBB Crit].
#include <new>

#include "forkjoin/detail/worker_api.hpp"
#include "internal.hpp"
#include "keyed_jobs.hpp"

namespace forkjoin::detail::tbb_layer {

std::atomic<std::size_t> g_critical_queued{0};

namespace {

// [P-TBB Crit K1] every queued critical task (its job built as a spawn's, [P-TBB Task T1]),
// keyed by the pool it was submitted to and the submitter's isolated region (0: none), first
// in first out.
constinit keyed_jobs g_critical{g_critical_queued};

job_key key_of(const pool_impl* pool, std::uint32_t tag) noexcept { return job_key{pool, tag}; }

// [P-TBB Crit K4] true while this thread runs a critical task: the tasks it runs inside do
// not take further critical tasks first (a ticket still does).
thread_local bool t_in_critical = false;

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
  explicit critical_ticket(job_key k) noexcept : job_header(&run), key(k) {}
  job_key key;
  static void run(job_header* h) noexcept {
    const job_key key = static_cast<critical_ticket*>(h)->key;
    deallocate_job(h, sizeof(critical_ticket));
    if (job_header* job = g_critical.take(key)) run_as_critical(job);  // [P-TBB Crit K2, K3]
  }
};

}  // namespace

void submit_critical(pool_impl& target, d1::task& t, d1::task_group_context& ctx) {
  const worker* w = tls_worker;
  const bool local = w != nullptr && w->pool_ == &target;
  job_header* job = job_for(t, ctx, local ? static_cast<d1::slot_id>(w->index_) : d1::no_slot, d1::no_slot);
  const job_key key =
      key_of(&target, local ? w->deque_.tag() : 0);  // [P-TBB Crit K1] outside the pool: no region of it
  g_critical.push(key, job);
  // [P-TBB Crit K2] the ticket goes where a plain submit's job would ([P-TBB Task T2]).
  post_ticket(target, ::new (allocate_job(sizeof(critical_ticket))) critical_ticket(key));
}

void run_critical_slow() noexcept {
  const worker* w = tls_worker;
  if (w == nullptr || t_in_critical) return;  // [P-TBB Crit K4]
  while (job_header* job = g_critical.take(key_of(w->pool_, w->deque_.tag()))) run_as_critical(job);
}

bool critical_queued_here() noexcept {
  const worker* w = tls_worker;
  // [P-TBB Crit K4]
  return w != nullptr && !t_in_critical && g_critical.contains(key_of(w->pool_, w->deque_.tag()));
}

}  // namespace forkjoin::detail::tbb_layer
