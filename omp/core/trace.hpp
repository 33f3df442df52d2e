// trace.hpp: the OpenMP layer's hooks into forkjoin's worker timeline trace ([P-TRACE],
// FORKJOIN_TRACE): a span per team thread's turn in a region, per explicit task and per
// barrier wait, written into the calling thread's ring (a pool worker's slot ring, else a
// ring of the thread's own in the default pool's trace). Off, each hook is one relaxed load
// of forkjoin::detail::g_tracing and a branch; the spans' work is in omp/core/trace.cpp.
#pragma once

#include <atomic>
#include <cstdint>

#include "forkjoin/detail/trace_hooks.hpp"

namespace forkjoin::omp {

struct team;
struct task;

inline bool tracing() noexcept { return forkjoin::detail::g_tracing.load(std::memory_order_relaxed); }

// Cold halves (omp/core/trace.cpp).
forkjoin::detail::trace_ring* trace_ring_here() noexcept;  // the calling thread's ring, or null
void trace_turn_begin_slow(team& t, unsigned id) noexcept;
void trace_turn_end_slow(team& t, unsigned id) noexcept;

// Team thread `id` starts its turn in t (start_turn) / ends it after the region's end
// barrier (run_member, end_region). The primary numbers the region.
inline void trace_turn_begin(team& t, unsigned id) noexcept {
  if (tracing()) [[unlikely]]
    trace_turn_begin_slow(t, id);
}
inline void trace_turn_end(team& t, unsigned id) noexcept {
  if (tracing()) [[unlikely]]
    trace_turn_end_slow(t, id);
}

// A span around a scope on the calling thread's ring: an explicit task's body, a barrier wait.
class trace_span {
 public:
  trace_span(forkjoin::detail::trace_kind k, std::uint64_t a, std::uint64_t b) noexcept {
    if (tracing()) [[unlikely]]
      start(k, a, b);
  }
  trace_span(const trace_span&) = delete;
  trace_span& operator=(const trace_span&) = delete;
  ~trace_span() {
    if (ring_ != nullptr) [[unlikely]]
      ring_->close(k_, t0_, a_, b_);
  }

 private:
  void start(forkjoin::detail::trace_kind k, std::uint64_t a, std::uint64_t b) noexcept;
  // Off, only ring_ is written (null): the rest is set, and read, only when it is not.
  forkjoin::detail::trace_ring* ring_ = nullptr;
  forkjoin::detail::trace_kind k_;
  std::uint64_t t0_, a_, b_;
};

}  // namespace forkjoin::omp
