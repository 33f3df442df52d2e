// trace.cpp: the OpenMP layer's trace spans (omp/core/trace.hpp), recorded on the calling thread's
// ring of the default pool's trace ([P-TRACE], forkjoin/DESIGN.md section 18, "OpenMP spans").
#include "trace.hpp"

#include <cstdlib>

#include "../../forkjoin/pool_impl.hpp"
#include "internal.hpp"

namespace forkjoin::omp {

namespace fj = forkjoin::detail;

namespace {
// Regions get numbers 1, 2, ... in the order their primaries start them, while tracing.
std::atomic<std::uint64_t> g_regions{0};

// A program run with FORKJOIN_TRACE traces its first region too, although the default pool
// (whose observer reads the variable) is created only as that region starts its team.
[[gnu::constructor]] void trace_from_environment() {
  if (const char* v = std::getenv("FORKJOIN_TRACE"); v != nullptr && *v != '\0')
    fj::g_tracing.store(true, std::memory_order_relaxed);
}
}  // namespace

// Not a read of tls_worker here: this library is built with hidden visibility, and a
// reference to an inline variable from its own objects would make the merged tls_worker
// hidden, so that a program using forkjoin's templates too would get a second copy.
fj::trace_ring* trace_ring_here() noexcept { return fj::this_thread_ring(fj::impl_of(omp_pool())); }

void trace_turn_begin_slow(team& t, unsigned id) noexcept {
  fj::trace_ring* r = trace_ring_here();
  if (r == nullptr) return;
  // the primary numbers the region before start_members posts the turns, which publishes it
  if (id == 0) t.trace_region = g_regions.fetch_add(1, std::memory_order_relaxed) + 1;
  t.implicit_tasks[id].trace_t0 =
      r->open(fj::trace_kind::omp_region, t.trace_region, id | std::uint64_t{t.nthreads} << 32);
}

void trace_turn_end_slow(team& t, unsigned id) noexcept {
  task& turn = t.implicit_tasks[id];
  if (turn.trace_t0 == 0) return;  // its start was not traced
  fj::trace_ring* r = trace_ring_here();
  if (r != nullptr)
    r->close(fj::trace_kind::omp_region, turn.trace_t0, t.trace_region, id | std::uint64_t{t.nthreads} << 32);
  turn.trace_t0 = 0;
}

void trace_span::start(fj::trace_kind k, std::uint64_t a, std::uint64_t b) noexcept {
  ring_ = trace_ring_here();
  if (ring_ == nullptr) return;
  k_ = k;
  a_ = a;
  b_ = b;
  t0_ = ring_->open(k, a, b);
}

}  // namespace forkjoin::omp
