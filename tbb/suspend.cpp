// suspend.cpp: resumable tasks (tbb::task::suspend, resume, current_suspend_point) without
// switching stacks: the suspending thread hands its suspend point to the callback, then
// waits, inside forkjoin::blocking when it is a worker (its pool starts a spare thread and
// keeps its parallelism), until some thread resumes it. A resume that comes first, from the
// callback itself or even before the suspend, is counted and not lost. Protocol:
// tbb/DESIGN.md [P-TBB Suspend].
#include <oneapi/tbb/detail/_task.h>
#include <sched.h>

#include <atomic>
#include <cstdint>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/config.hpp"
#include "internal.hpp"

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;

// One per thread ([P-TBB Suspend]): the resumes not yet consumed in the low bits, and
// k_sleeping while the owner sleeps on the word's address bucket.
struct suspend_point_type {
  std::atomic<std::uint32_t> word{0};
};

namespace {

constexpr std::uint32_t k_sleeping = std::uint32_t{1} << 31;
constexpr std::uint32_t k_count = k_sleeping - 1;
// Polls before sleeping: a resume from the callback, or from a task that another worker
// runs at once, usually lands within them (7 doubling pause rounds, then 16 yields).
constexpr int k_spin_rounds = 7;
constexpr int k_polls_before_sleep = k_spin_rounds + 16;

thread_local suspend_point_type tls_point;  // constant-initialised: no TLS wrapper call

// [P-TBB Suspend S4] takes one resume if one is banked, clearing k_sleeping.
bool try_consume(suspend_point_type& sp) noexcept {
  std::uint32_t w = sp.word.load(std::memory_order_relaxed);  // the CAS below decides
  while ((w & k_count) != 0) {
    // acquire: pairs with R1's release (what the resumer did before resume happens before
    // the suspended task goes on)
    if (sp.word.compare_exchange_weak(w, (w - 1) & ~k_sleeping, std::memory_order_acquire, std::memory_order_relaxed))
      return true;
  }
  return false;
}

}  // namespace

void suspend(suspend_callback_type callback, void* user_callback) {
  suspend_point_type& sp = tls_point;
  callback(user_callback, &sp);  // [P-TBB Suspend S1] it may resume sp at once
  // [P-TBB Suspend S2] poll.
  for (int i = 0; i < k_polls_before_sleep; ++i) {
    if (try_consume(sp)) return;
    if (i < k_spin_rounds) {
      for (int k = 0; k < (1 << i); ++k) forkjoin::detail::cpu_relax();
    } else {
      sched_yield();
    }
  }
  // [P-TBB Suspend S3] announce the sleep while no resume is banked; a resume after the
  // CAS sees k_sleeping and wakes the bucket.
  std::uint32_t w = sp.word.load(std::memory_order_relaxed);  // the CAS below decides
  while ((w & k_count) == 0) {
    // relaxed: the count is re-read under the bucket's mutex, which orders the rest
    if (sp.word.compare_exchange_weak(w, w | k_sleeping, std::memory_order_relaxed)) {
      tl::block_until(
          &sp,
          [](const void* p) {
            return (static_cast<const suspend_point_type*>(p)->word.load(std::memory_order_relaxed) & k_count) !=
                   0;  // relaxed: S4's acquire CAS follows
          },
          &sp, /*compensate=*/true);
      break;
    }
  }
  while (!try_consume(sp)) {
  }  // [P-TBB Suspend S4] a resume is banked by now: this loops only on a lost CAS race
}

// [P-TBB Suspend R1] bank one resume; the last access to *sp, whose thread may go on at once.
void resume(suspend_point_type* sp) {
  forkjoin::detail::perturb_point();
  // release: pairs with S4's acquire CAS
  if ((sp->word.fetch_add(1, std::memory_order_release) & k_sleeping) != 0) tl::wake_address(sp);
}

suspend_point_type* current_suspend_point() { return &tls_point; }

}  // namespace tbb::detail::r1
