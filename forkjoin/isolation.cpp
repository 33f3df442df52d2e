// isolation.cpp: isolated regions (forkjoin::isolate): region tags, the isolated wait's
// own-deque pop, running a found job under the tag it was pushed with, and the isolated
// waiter's park and wake-up. The deque stores the tags ([P-ISO Tag]); the helping loop
// that calls these is worker.cpp's help_until. Protocol: DESIGN.md [P-ISO].
#include <atomic>

#include "forkjoin/detail/waiting_api.hpp"
#include "futex.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {
// Region tags, process-wide. 0 means "not isolated"; after 2^32 regions the counter wraps
// and skips 0, so two live regions could share a tag only 2^32 regions apart (their waits
// would then help each other, as non-isolated waits do).
std::atomic<std::uint32_t> g_next_tag{1};

std::uint32_t new_tag() noexcept {
  std::uint32_t t = g_next_tag.fetch_add(1, std::memory_order_relaxed);  // relaxed: only uniqueness matters
  while (t == 0) t = g_next_tag.fetch_add(1, std::memory_order_relaxed);
  return t;
}
}  // namespace

isolation_state enter_isolation(worker& w) noexcept {
  worker_slot& s = slot_of(w);
  const isolation_state saved{w.deque_.tag(), s.iso_mark_};
  // [P-ISO Enter] jobs queued before the region stay stealable while f runs: the region's
  // waits will not run them, so others must be able to.
  on_new_internal_work(w);
  w.deque_.set_tag(new_tag());
  s.iso_mark_ = w.deque_.end_index();
  return saved;
}

void leave_isolation(worker& w, isolation_state saved) noexcept {
  w.deque_.set_tag(saved.tag);  // [P-ISO Leave]
  slot_of(w).iso_mark_ = saved.mark;
}

void pool_impl::run_stolen(worker_slot& w, job_header* j) noexcept {
  const std::uint32_t tag = w.found_tag_;
  if (tag == w.deque_.tag()) {
    j->execute(j);
    return;
  }
  // [P-ISO Adopt] a job spawned in a region runs in that region, wherever it runs.
  const isolation_state saved{w.deque_.tag(), w.iso_mark_};
  w.deque_.set_tag(tag);
  w.iso_mark_ = w.deque_.end_index();
  j->execute(j);
  w.deque_.set_tag(saved.tag);
  w.iso_mark_ = saved.mark;
}

void pool_impl::park_isolated(worker_slot& w, bool (*done)(const void*), const void* ctx) noexcept {
  for (;;) {
    const std::uint32_t seq = w.iso_seq_.load(std::memory_order_acquire);  // [P-ISO Park] pairs with wake_isolated
    if (done(ctx)) break;
    futex_wait(w.iso_seq_, seq);
  }
  w.iso_parked_.store(false, std::memory_order_relaxed);
}

void pool_impl::wake_isolated(worker_slot& w) noexcept {
  // [P-ISO Park] the latch's J2/G2 acquired the waiter's J4/G4, which followed its store of
  // iso_parked_: a waiter that parks here is seen.
  if (!w.iso_parked_.load(std::memory_order_relaxed)) return;
  w.iso_seq_.fetch_add(1, std::memory_order_release);  // [P-ISO Park] pairs with the acquire load in park_isolated
  futex_wake_all(w.iso_seq_);
}

}  // namespace forkjoin::detail
