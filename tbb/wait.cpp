// wait.cpp: waiting for a d1::wait_context. The count lives in the program's object, where
// the headers decrement it and call notify_waiters on the way to zero; a waiter helps with
// pool work meanwhile through forkjoin's group wait, on a one-child latch of its own that
// notify_waiters sets; past half of its stack, with jobs on its own deque, it blocks instead
// and leaves them to a spare. Owns the table of registered waiters; not the task loop
// (task.cpp). Protocol: tbb/DESIGN.md [P-TBB Wait].

#include <array>
#include <cstdint>
#include <mutex>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/waiting_api.hpp"
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

namespace {

// A thread inside help_until_released, registered under its wait_context's address.
struct waiter {
  const void* address;
  pool_impl* pool;  // the waiter's pool: who to wake ([P-JOIN G1])
  count_latch latch;
  waiter* next = nullptr;
  bool linked = false;    // under the bucket's mutex
  bool blocking = false;  // [P-TBB Wait Deep] blocked on the address bucket, not on the latch
};

// Buckets by address (picked by hand: waits in flight at once are few, one per nested
// algorithm level per thread, and a bucket holds each only while it waits).
constexpr std::size_t k_buckets = 64;

struct alignas(k_cache_line) bucket {
  std::atomic<std::uint32_t> waiters{0};  // registered or about to be: notify's fast path
  std::mutex mutex;
  waiter* head = nullptr;
};

std::array<bucket, k_buckets> g_buckets;

bucket& bucket_of(const void* address) noexcept {
  const auto bits = reinterpret_cast<std::uintptr_t>(address);
  return g_buckets[(bits >> 4) * 0x9e3779b97f4a7c15ULL >> 58];  // 64 buckets: the top 6 bits
}

void unlink(bucket& b, waiter& me) noexcept {
  for (waiter** p = &b.head; *p != nullptr; p = &(*p)->next) {
    if (*p == &me) {
      *p = me.next;
      break;
    }
  }
  me.linked = false;
}

// [P-TBB Wait Deep] less than half of this thread's stack is left below this frame: the
// runtime's own stealing limit ([P-JOIN Stack]), read once per thread.
bool stack_is_deep() noexcept {
  return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < steal_limit_of_this_thread();
}

// [P-TBB Wait W1] count `me` in its bucket (pairs with N2), then link it under the mutex.
void register_waiter(bucket& b, waiter& me) noexcept {
  b.waiters.fetch_add(1, std::memory_order_seq_cst);  // [P-TBB Wait W1] pairs with N2
  const std::lock_guard<std::mutex> lock(b.mutex);
  me.next = b.head;
  b.head = &me;
  me.linked = true;
}

// [P-TBB Wait W3] no notifier touches `me` after this.
void unregister_waiter(bucket& b, waiter& me) noexcept {
  {
    const std::lock_guard<std::mutex> lock(b.mutex);  // [P-TBB Wait W3]
    if (me.linked) unlink(b, me);
  }
  b.waiters.fetch_sub(1, std::memory_order_relaxed);  // only a hint past W3: a stale count costs N3 a lock
}

bool released(const void* c) noexcept {
  return !r1::external_waiter::pending(*static_cast<const d1::wait_context*>(c));
}

// [P-TBB Wait Deep] registered as W1-W3 do, but blocked on the address bucket of wc, inside
// forkjoin::blocking (the jobs on this thread's deque are published and a spare thread
// runs them), running nothing meanwhile.
void wait_without_helping(worker& w, const d1::wait_context& wc) noexcept {
  waiter me{&wc, w.pool_, {}};
  me.blocking = true;
  bucket& b = bucket_of(&wc);
  register_waiter(b, me);
  // [P-TBB Wait W2] re-tested under the address bucket's mutex, which N3 takes to wake it
  if (!released(&wc)) block_until(&wc, released, &wc, /*compensate=*/true);
  unregister_waiter(b, me);
}

}  // namespace

void help_until_released(worker& w, const d1::wait_context& wc) noexcept {
  // [P-TBB Wait Deep] with half of the stack used, the jobs of this thread's own deque would
  // nest here without bound (W0 and forkjoin's help loop pop them; its steals stop at this
  // depth already): they go to a spare instead. With none, the latch wait below runs nothing.
  if (stack_is_deep() && w.deque_.size() > 0) [[unlikely]] {
    wait_without_helping(w, wc);
    return;
  }
  adopt_pending(w);  // [P-TBB Arena A11]
  // [P-TBB Wait W0] the children still on this thread's deque first, with no registration.
  if (run_own_until(w, released, &wc)) return;
  waiter me{&wc, w.pool_, {}};
  me.latch.add_child();  // the release of wc to zero; nothing publishes the latch but the mutex
  bucket& b = bucket_of(&wc);
  register_waiter(b, me);
  // [P-TBB Wait W2] either this load sees zero, or N2 sees W1 and N3 (after W1's critical
  // section, or before it, in which case W2 follows N1 through the mutex) finds `me`.
  if (r1::external_waiter::pending(wc)) wait_for_group(w, me.latch);
  unregister_waiter(b, me);
}

}  // namespace forkjoin::detail::tbb_layer

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;

// [P-TBB Wait N1] the header's release brought the count to zero before this call.
void notify_waiters(std::uintptr_t wait_ctx_addr) {
  const void* address = reinterpret_cast<const void*>(wait_ctx_addr);
  tl::bucket& b = tl::bucket_of(address);
  if (b.waiters.load(std::memory_order_seq_cst) == 0) return;  // [P-TBB Wait N2] pairs with W1
  bool wake_blocked = false;
  const std::lock_guard<std::mutex> lock(b.mutex);  // [P-TBB Wait N3]
  for (tl::waiter** p = &b.head; *p != nullptr;) {
    tl::waiter* e = *p;
    if (e->address != address) {
      p = &e->next;
      continue;
    }
    *p = e->next;
    e->linked = false;
    if (e->blocking) {  // [P-TBB Wait Deep] woken through the address bucket below
      wake_blocked = true;
      continue;
    }
    // The waiter may leave wait_for_group now, but not W3 before this lock is released: e
    // stays valid until the end of the loop.
    const std::uint64_t prev = e->latch.finish_child();  // [P-JOIN G2] release pairs with the waiter's G3
    const std::uint64_t sleeper = prev & forkjoin::detail::count_latch::k_waiter_mask;
    if ((prev >> 16) == 1 && sleeper != 0)
      forkjoin::detail::wake_group_waiter(*e->pool, static_cast<std::uint32_t>(sleeper - 1));
  }
  // [P-TBB Wait Deep] after N1: a blocked waiter re-tests the count under the address
  // bucket's mutex, which this takes
  if (wake_blocked) tl::wake_address(address);
}

}  // namespace tbb::detail::r1
