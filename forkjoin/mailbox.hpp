// mailbox.hpp: how another layer (libforkjoin-omp) lends a pool's workers: ask whether the
// calling thread is one of them, how many sit idle, and hand one of them a job by name
// through its mailbox. Protocol: DESIGN.md [P-LEND]. Not installed: the OpenMP layer is
// compiled with the runtime.
#pragma once

#include <cstddef>

#include "forkjoin/detail/job.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin::detail {

// The calling thread's slot index in p, or -1 if it is not one of p's workers.
int worker_index_in(pool& p) noexcept;
// Workers of p now in their top-level idle loop (searching or parked there): each would
// take a job posted to it at once. A relaxed snapshot.
std::size_t num_available_workers(pool& p) noexcept;

enum class post_result {
  refused,  // the mailbox already holds a job: nothing was posted
  prompt,   // the worker is idle: it will run the job, soon (woken if parked)
  late,     // the worker may be busy for long: poll worker_took / recheck_worker, or withdraw
};
// [P-LEND L1, L2] hands j to background worker `index` of p; it runs j from its top-level
// loop before any other job. j must stay valid until it ran or was withdrawn.
post_result post_to_worker(pool& p, std::size_t index, job_header* j) noexcept;
// After `late`: true once the worker took j (it will run it), or became idle (it will take
// j soon; woken if parked).
bool worker_took_or_idle(pool& p, std::size_t index, job_header* j) noexcept;
// [P-LEND L6] takes j back; true if the worker had not taken it (and now never will).
bool withdraw_from_worker(pool& p, std::size_t index, job_header* j) noexcept;

// default_pool(), created (if it does not exist yet in this process generation) with
// `options` instead of the defaults. Other callers get whatever pool exists.
pool& default_pool_with(const pool_options& options);

}  // namespace forkjoin::detail
