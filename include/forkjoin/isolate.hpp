// isolate.hpp: forkjoin::isolate(f), waits that help only with their own work.
// Protocol: forkjoin/DESIGN.md [P-ISO].
#pragma once

#include <functional>
#include <utility>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/waiting_api.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin {

/// Runs f and returns its result. While f runs, every wait inside it on this thread (join,
/// task_group::wait, a parallel loop), and every wait inside the jobs f spawns wherever
/// they run, helps only with jobs spawned inside f: never with a task queued outside it,
/// nor with work submitted from outside the pool. So f may hold a lock across a parallel
/// loop that other tasks of the pool also take. A waiter with nothing of its own to help
/// with sleeps until its wait ends. Called outside every pool, f runs in default_pool().
/// Isolated regions nest: an inner region's waits help only with the inner region's jobs.
template <class F>
decltype(auto) isolate(F&& f) {
  detail::worker* w = detail::tls_worker;
  if (w == nullptr) [[unlikely]]
    return default_pool().run([&f]() -> decltype(auto) {
      detail::isolation_scope scope(*detail::tls_worker);
      return std::invoke(f);
    });
  detail::isolation_scope scope(*w);
  return std::invoke(std::forward<F>(f));
}

}  // namespace forkjoin
