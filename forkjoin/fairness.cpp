// fairness.cpp: forkjoin::yield_now's slow path: a worker runs jobs waiting in its pool's
// injection queue, then resumes its task. Protocol: DESIGN.md [P-FAIR].
#include <cstdint>

#include "forkjoin/detail/waiting_api.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

void yield_to_injected(worker& w) noexcept {
  worker_slot& s = slot_of(w);
  if (w.deque_.tag() != 0) return;  // [P-FAIR Yield] an isolated region runs no outside work
  // [P-JOIN Stack] the jobs nest on this stack, like stolen jobs in a wait.
  if (reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < s.steal_limit_) return;
  pool_impl& p = *w.pool_;
  // [P-FAIR Yield] a fair share of what waits, as a top-level worker would take.
  const std::size_t share = w.injected_->load(std::memory_order_relaxed) / p.num_threads() + 1;
  // [P-TRACE] a yield span around the jobs it served (a = how many; 0 when it found none)
  const std::uint64_t t0 = w.trace_ != nullptr ? w.trace_->open(trace_kind::yield) : 0;
  std::size_t k = 0;
  for (; k < share; ++k) {
    job_header* j = p.take_injected(s, false);
    if (j == nullptr) break;
    j->execute(j);
  }
  if (w.trace_ != nullptr) w.trace_->close(trace_kind::yield, t0, k);
}

}  // namespace forkjoin::detail
