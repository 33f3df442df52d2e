// blocking.hpp: forkjoin::blocking(f), for calls that block a worker (I/O, sleeps, locks,
// condition variables), and forkjoin::yield_now(), a task's offer of its worker to work
// submitted from outside. Protocols: forkjoin/DESIGN.md [P-BLOCK], [P-FAIR].
#pragma once

#include <functional>
#include <utility>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/waiting_api.hpp"
#include "forkjoin/detail/worker_api.hpp"

namespace forkjoin {

/// Runs f, which may block, and returns its result. Called from a pool's worker, the pool
/// keeps its parallelism while f runs: the worker's queued jobs stay stealable, and a
/// sleeping worker is woken or, when every worker is busy, a spare thread is started
/// (at most pool_options::max_spare_threads at once; a spare retires once the blocking
/// calls are over or after an idle period). Called outside every pool, f simply runs.
template <class F>
decltype(auto) blocking(F&& f) {
  detail::worker* w = detail::tls_worker;
  if (w == nullptr) return std::invoke(std::forward<F>(f));
  detail::blocking_scope scope(*w);
  return std::invoke(std::forward<F>(f));
}

/// Offers the calling worker to work submitted from outside the pool (pool::run from
/// another thread, a task_group fed by a thread outside the pool) that waits in the pool's
/// injection queue: runs such jobs to completion, then returns. Costs one relaxed load
/// when nothing waits. Like a wait, it runs other tasks on this thread: do not call it
/// holding a lock those tasks may take. Does nothing outside a pool or inside isolate().
/// The loop engine calls it between pieces of ~64 us of work.
inline void yield_now() noexcept {
  detail::worker* w = detail::tls_worker;
  if (w != nullptr && detail::injected_pending(*w)) [[unlikely]]
    detail::yield_to_injected(*w);
}

}  // namespace forkjoin
