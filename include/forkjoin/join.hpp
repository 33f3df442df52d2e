// join.hpp: join(f, g) and parallel_invoke. g's job lives in join's own stack frame: the
// owner pushes it privately, runs f, takes g back and runs it inline when nobody stole it
// (no lock, no fence, no read-modify-write), or helps until the thief is done with it.
// Frame lifetime: forkjoin/DESIGN.md [P-JOIN].
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/job.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin {
namespace detail {

template <class G>
class join_job : public job_header {
 public:
  using result_type = std::invoke_result_t<G&>;
  join_job(G& g, worker* owner) noexcept : job_header(&join_job::execute_stolen), g_(g), latch_(owner) {}

  // Owner took the job back: run g inline, no latch.
  void run_inline() noexcept { run_body(); }
  join_latch& latch() noexcept { return latch_; }
  const error_slot& error() const noexcept { return error_; }
  result_slot<result_type>& result() noexcept { return result_; }

 private:
  // Run by a thief, by a waiter that popped it, or, while tracing, by its own join
  // ([P-TRACE Join]: stolen_by says which, for the span's as_job argument).
  static void execute_stolen(job_header* h) noexcept {
    auto* self = static_cast<join_job*>(h);
    {
      const trace_scope span(tls_worker->trace_, trace_kind::join_g,
                             self->stolen_by.load(std::memory_order_relaxed) != k_run_by_owner ? 1 : 0);
      self->run_body();
    }
    self->latch_.set();  // [P-JOIN J2] last access: the owner may return right after
  }
  void run_body() noexcept {
    try {
      result_.emplace_from(g_);
    } catch (...) {
      error_.capture_current();
    }
  }

  G& g_;
  result_slot<result_type> result_;
  // error_slot: its destructor is an inline test, where ~exception_ptr is an out-of-line
  // call on join's hot path.
  error_slot error_;
  join_latch latch_;
};

// k_publish: make g stealable at once instead of by [P-POST Publish]'s rule. The loops use
// it: their few eager splits exist to be stolen, and a loop body may run long without
// pushing again. Tracing costs this path nothing ([P-TRACE Join]): a traced deque always
// asks for publication, so the push takes its slow path, which records the spawn, and the
// published job cannot be taken back privately, so reclaim_join_job records f's span and
// runs g as a job, whose span execute_stolen records.
template <bool k_publish = false, class F, class G>
auto join_in_worker(worker& w, F& f, G& g) {
  using rf_type = std::invoke_result_t<F&>;
  using rg_type = std::invoke_result_t<G&>;
  join_job<G> job_g(g, &w);
  if constexpr (k_publish) {
    w.deque_.push_private(&job_g);
    on_new_split(w, &job_g);
  } else {
    push_job(w, &job_g);
  }

  result_slot<rf_type> rf;
  error_slot error_f;
  try {
    rf.emplace_from(f);
  } catch (...) {
    error_f.capture_current();  // g still runs: its frame references ours
  }

  // [P-DEQUE Reclaim] nobody published job_g, so nobody can have stolen it. The worker is
  // read again from the thread rather than kept in a register across f (the same slot).
  worker& wb = *tls_worker;
  if (wb.deque_.take_back_private(&job_g) || reclaim_join_job(wb, job_g, job_g.latch())) [[likely]]
    job_g.run_inline();
  if (error_f.has_value()) [[unlikely]]
    error_f.rethrow();  // f's exception wins when both threw
  if (job_g.error().has_value()) [[unlikely]]
    job_g.error().rethrow();
  if constexpr (std::is_void_v<rf_type> && std::is_void_v<rg_type>) {
    return;
  } else {
    using pair_type = std::pair<typename result_slot<rf_type>::value_type, typename result_slot<rg_type>::value_type>;
    return pair_type(rf.take(), job_g.result().take());
  }
}

// join called from outside every pool: runs it in default_pool(). Out of line so that the
// caller's frame on the hot path does not carry run()'s machinery.
template <class F, class G>
FORKJOIN_NOINLINE auto join_from_outside(F& f, G& g) {
  return default_pool().run([&] { return join_in_worker(*tls_worker, f, g); });
}

// join for the loop engine: always publishes g (see join_in_worker). Worker threads only.
template <class F, class G>
auto join_published(F&& f, G&& g) {
  return join_in_worker<true>(*tls_worker, f, g);
}

}  // namespace detail

/// Runs f and g, possibly in parallel, and returns when both are done. Returns void when
/// both return void, else std::pair of their results (a void result becomes
/// std::monostate). If either throws, the other still runs to completion; then f's
/// exception is rethrown if f threw, else g's. Runs in the calling worker's pool, or in
/// default_pool() from outside every pool. Allocates nothing on the heap.
template <class F, class G>
auto join(F&& f, G&& g) {
  detail::worker* w = detail::tls_worker;
  if (w == nullptr) [[unlikely]]
    return detail::join_from_outside(f, g);
  return detail::join_in_worker(*w, f, g);
}

namespace detail {
// join of two callables whose results parallel_invoke discards. A callable returning void
// is passed as it is (no wrapper frame, no extra indirection on the hot path).
template <class F, class G>
void join_discarding(F& f, G& g) {
  if constexpr (!std::is_void_v<std::invoke_result_t<F&>>) {
    auto f_void = [&f] { static_cast<void>(std::invoke(f)); };
    join_discarding(f_void, g);
  } else if constexpr (!std::is_void_v<std::invoke_result_t<G&>>) {
    auto g_void = [&g] { static_cast<void>(std::invoke(g)); };
    join_discarding(f, g_void);
  } else {
    join(f, g);
  }
}

// parallel_invoke's balanced split of fs[B, E): the left half is join's f, so the
// leftmost exception wins as in join.
template <std::size_t B, std::size_t E, class Tuple>
void invoke_range(Tuple& fs) {
  if constexpr (E - B == 1) {
    std::invoke(std::get<B>(fs));
  } else if constexpr (E - B == 2) {
    join_discarding(std::get<B>(fs), std::get<B + 1>(fs));
  } else {
    constexpr std::size_t m = B + (E - B) / 2;
    auto left = [&fs] { invoke_range<B, m>(fs); };
    auto right = [&fs] { invoke_range<m, E>(fs); };
    join_discarding(left, right);
  }
}
}  // namespace detail

/// Runs every callable, possibly in parallel; returns when all are done. Exceptions as in
/// join: all run, the leftmost exception is rethrown. The callables are split in halves,
/// so n callables nest log2(n) joins deep.
template <class... F>
void parallel_invoke(F&&... fs) {
  if constexpr (sizeof...(F) == 1) {
    (std::invoke(fs), ...);
  } else if constexpr (sizeof...(F) > 1) {
    auto refs = std::forward_as_tuple(fs...);
    detail::invoke_range<0, sizeof...(F)>(refs);
  }
}

}  // namespace forkjoin
