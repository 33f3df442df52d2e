// join.hpp: join(f, g) and parallel_invoke. g's job lives in join's own stack frame: the
// owner pushes it privately, runs f, takes g back and calls it directly when nobody took it
// (no lock, no fence, no read-modify-write; four stores before f), or helps until the thief
// is done with it. Frame lifetime and sharing: forkjoin/DESIGN.md [P-JOIN].
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

// How join holds a branch passed as X&& (X as a forwarding reference deduces it): a small,
// trivially copyable callable passed as an rvalue, whose call operator is const, by value
// (a copy in registers, then in g's job), since nobody can tell the copy from the original
// (a lambda written in the call, as in fib); anything else by reference, so that g's
// state changes where the caller can see them.
template <class X>
constexpr bool branch_by_value() {
  if constexpr (std::is_reference_v<X> || std::is_function_v<X> || !std::is_trivially_copyable_v<X>)
    return false;  // tested first, so that sizeof never sees a function type
  else
    return sizeof(X) <= 2 * sizeof(void*) && std::is_invocable_v<const X&>;
}
template <class X>
inline constexpr bool k_branch_by_value = branch_by_value<X>();
template <class X>
using held_branch = std::conditional_t<k_branch_by_value<X>, std::remove_cv_t<X>, X&>;

// g's job: a header and g (held_branch: a copy or a reference). What a thief needs besides
// (the latch, stolen_by, storage for g's value or exception) is constructed only if the
// frame is shared ([P-JOIN Share]), so the common path stores two words here and two in
// the deque.
template <class G>
class join_frame : public join_frame_base {
 public:
  using result_type = std::invoke_result_t<G&>;
  explicit join_frame(G& g) noexcept : join_frame_base(&join_frame::execute_stolen), g_(g) {}
  join_frame(const join_frame&) = delete;
  join_frame& operator=(const join_frame&) = delete;

  // The callable the owner calls when it takes the job back (the one a thief would call).
  G& callable() noexcept { return g_; }

  // After the latch is set: g's value, or g's exception rethrown.
  typename branch_outcome<result_type>::value_type take_outcome() {
    if (failed()) [[unlikely]]
      outcome_.rethrow_error();
    return outcome_.take_value();
  }
  // After the latch is set, while f's exception unwinds the join: drop g's outcome.
  void discard_outcome() noexcept { outcome_.discard(!failed()); }

 private:
  // Run by a thief, by a wait that popped the frame, or, while tracing, by its own join
  // ([P-TRACE Join]: stolen_by says which, for the span's as_job argument).
  static void execute_stolen(job_header* h) noexcept {
    auto* self = static_cast<join_frame*>(h);
    bool returned;
    {
      const trace_scope span(tls_worker->trace_, trace_kind::join_g,
                             self->stolen_by.load(std::memory_order_relaxed) != k_run_by_owner ? 1 : 0);
      returned = self->outcome_.run(self->g_);
    }
    self->set(returned ? k_done : k_done | k_failed);  // [P-JOIN J2] last access: the owner may return right after
  }

  G g_;
  branch_outcome<result_type> outcome_;
};

// g's value as join returns it: std::monostate for void.
template <class G>
decltype(auto) invoke_as_value(G& g) {
  if constexpr (std::is_void_v<std::invoke_result_t<G&>>) {
    std::invoke(g);
    return std::monostate{};
  } else {
    return std::invoke(g);
  }
}

// f threw: g still runs (its job references this frame), then the caller rethrows f's
// exception, which wins over g's.
template <class G>
FORKJOIN_COLD void finish_join_after_throw(join_frame<G>& frame, std::atomic<job_header*>* slot) noexcept {
  worker& w = *tls_worker;
  if (w.deque_.take_back_unshared(slot, &frame) || reclaim_join_job(w, frame)) {
    try {
      std::invoke(frame.callable());
    } catch (...) {  // f's exception wins
    }
  } else {
    frame.discard_outcome();
  }
}

// k_publish: make g stealable at once instead of by [P-POST Publish]'s rule. The loops use
// it: their few eager splits exist to be stolen, and a loop body may run long without
// pushing again. Tracing costs this path nothing ([P-TRACE Join]): a traced deque always
// asks for publication, so the push takes its slow path, which records the spawn, and the
// published job cannot be taken back privately, so reclaim_join_job records f's span and
// runs g as a job, whose span execute_stolen records.
// F and G: held_branch types, a copy or a reference.
template <bool k_publish, class F, class G>
auto join_in_worker(worker& w, F f, G g) {
  using rf_type = std::invoke_result_t<F&>;
  using rg_type = std::invoke_result_t<G&>;
  using pair_type = std::pair<typename result_slot<rf_type>::value_type, typename result_slot<rg_type>::value_type>;
  constexpr bool k_void = std::is_void_v<rf_type> && std::is_void_v<rg_type>;
  join_frame<G> frame(g);
  std::atomic<job_header*>* slot;
  if constexpr (k_publish) {
    w.deque_.push_private(frame.private_form());
    slot = w.deque_.newest_slot();
    on_new_split(w, &frame);
  } else {
    slot = push_job(w, frame.private_form(), &frame);
  }

  result_slot<rf_type> rf;
  try {
    rf.emplace_from(f);
  } catch (...) {
    finish_join_after_throw(frame, slot);
    throw;
  }

  // [P-DEQUE Reclaim] the slot still holds the frame's private form: nobody can have seen
  // it. The worker is read again from the thread rather than kept in a register across f
  // (the same slot).
  worker& wb = *tls_worker;
  if (wb.deque_.take_back_unshared(slot, &frame) || reclaim_join_job(wb, frame)) [[likely]] {
    // g by a direct call: its exception, if any, leaves join as from any call.
    if constexpr (k_void)
      std::invoke(frame.callable());
    else
      return pair_type(rf.take(), invoke_as_value(frame.callable()));
  } else {
    if constexpr (k_void)
      frame.take_outcome();
    else
      return pair_type(rf.take(), frame.take_outcome());
  }
}

// join called from outside every pool: runs it in default_pool(). Out of line so that the
// caller's frame on the hot path does not carry run()'s machinery. F and G as for
// join_in_worker: a copy comes in registers, so the hot path stores nothing for this call.
template <class F, class G>
FORKJOIN_NOINLINE auto join_from_outside(F f, G g) {
  return default_pool().run([&] { return join_in_worker<false, F&, G&>(*tls_worker, f, g); });
}

// join for the loop engine: always publishes g (see join_in_worker). Worker threads only.
template <class F, class G>
auto join_published(F&& f, G&& g) {
  return join_in_worker<true, std::remove_reference_t<F>&, std::remove_reference_t<G>&>(*tls_worker, f, g);
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
    return detail::join_from_outside<detail::held_branch<F>, detail::held_branch<G>>(f, g);
  return detail::join_in_worker<false, detail::held_branch<F>, detail::held_branch<G>>(*w, f, g);
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
