// mailbox.hpp: how another layer (libforkjoin-omp) lends a pool's workers: ask whether the
// calling thread is one of them, how many sit idle, and hand one of them a job by name
// through its mailbox. Protocol: DESIGN.md [P-LEND]. Not installed: the OpenMP layer is
// compiled with the runtime.
#pragma once

#include <chrono>
#include <cstddef>

#include "forkjoin/detail/job.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin::detail {

// The calling thread's slot index in p, or -1 if it is not one of p's workers.
int worker_index_in(pool& p) noexcept;
// [P-LEND R1] reserves background worker `index` of p if it is in its top-level idle loop
// and nobody reserved it: it then stays there, stealing nothing (R3), until the caller posts
// to it, which the caller must do next.
bool reserve_worker(pool& p, std::size_t index) noexcept;

enum class post_result {
  refused,  // the mailbox already holds a job: nothing was posted (never for a reservation)
  prompt,   // the worker is idle: it will run the job, soon (woken if parked)
  late,     // the worker may be busy for long: poll worker_took_or_idle, or withdraw
};
// [P-LEND L1, L2] hands j to background worker `index` of p; it runs j from its top-level
// loop before any other job. j must stay valid until it ran or was withdrawn. With
// `reserved` (after reserve_worker) it waits for the mailbox to empty instead of refusing.
post_result post_to_worker(pool& p, std::size_t index, job_header* j, bool reserved) noexcept;
// [P-LEND L9] the same without the wake-up of a prompt post: the caller calls
// wake_posted_worker(p, index) next, once its other posts are made.
post_result post_to_worker_unwoken(pool& p, std::size_t index, job_header* j, bool reserved) noexcept;
void wake_posted_worker(pool& p, std::size_t index) noexcept;
// After `late`: true once the worker took j (it will run it), or became idle (it will take
// j soon; woken if parked).
bool worker_took_or_idle(pool& p, std::size_t index, job_header* j) noexcept;
// [P-LEND L6] takes j back; true if the worker had not taken it (and now never will).
bool withdraw_from_worker(pool& p, std::size_t index, job_header* j) noexcept;

// [P-LEND L7] for a worker running a job it took from its mailbox, which will call
// find_idle_work next without running anything else: from now on it counts as available
// (L3), so that the next region's post to it is prompt.
void announce_idle() noexcept;
// [P-LEND L8] for the same worker, before find_idle_work: polls its mailbox for up to
// `spins` PAUSEs and returns once a job is there (find_idle_work takes it first) or the
// spins are spent. Meanwhile the pool counts it as busy, so new pool work wakes others.
void await_mail(int spins) noexcept;
// [P-LEND D1] for the same worker, instead of await_mail: parks on its pool's dock until a
// job is in its mailbox or `limit` has passed (a wake-up for another worker's post docks it
// again for what is left). It counts as busy meanwhile, as in await_mail.
void dock_for_mail(std::chrono::nanoseconds limit) noexcept;
// [P-LEND L8] for the same worker, instead of await_mail: polls its mailbox between
// sched_yield calls until a job is there or `limit` has passed. For a worker that shares
// its CPU with threads of its own team: each poll hands them the CPU. Busy meanwhile, as
// in await_mail.
void yield_for_mail(std::chrono::nanoseconds limit) noexcept;
// [P-LEND D2, D3] for a poster whose prompt posts are made: wakes every docked worker of p
// (one futex broadcast), if any is docked.
void wake_docked(pool& p) noexcept;
// The calling worker's top-level idle loop (its mailbox first, then stealing, then parking):
// the job it found, or nullptr once its pool shuts down.
job_header* find_idle_work() noexcept;
// Runs a job find_idle_work returned in the isolated region it was stolen from, as the
// worker's top-level loop does ([P-ISO Adopt]).
void run_found_work(job_header* j) noexcept;

// default_pool(), created (if it does not exist yet in this process generation) with
// `options` instead of the defaults. Other callers get whatever pool exists.
pool& default_pool_with(const pool_options& options);

}  // namespace forkjoin::detail
