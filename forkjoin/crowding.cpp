// crowding.cpp: [P-SLEEP Crowd] the process-wide crowding observation.
#include "crowding.hpp"

#include <sched.h>

#include <atomic>
#include <limits>

namespace forkjoin::detail {
namespace {

// Relaxed throughout: the word steers only how long waits spin and whether they yield; every
// wait still parks through its own Dekker protocol ([P-SLEEP], [P-OMP Wait] W1-W3), whatever
// value it reads here.
std::atomic<std::int64_t> g_crowded_until{0};
std::atomic<std::uint64_t> g_observations{0};
// The latest observation's time; far in the past at first, so that a first one is alone.
std::atomic<std::int64_t> g_last_observation{std::numeric_limits<std::int64_t>::min() / 2};

}  // namespace

std::int64_t crowd_clock_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool crowded(std::int64_t now_ns) noexcept { return now_ns < g_crowded_until.load(std::memory_order_relaxed); }

void note_crowded(std::int64_t now_ns) noexcept {
  g_observations.fetch_add(1, std::memory_order_relaxed);
  const std::int64_t hold = std::chrono::nanoseconds(k_crowd_hold).count();
  const std::int64_t previous = g_last_observation.exchange(now_ns, std::memory_order_relaxed);
  if (now_ns - previous > hold || previous - now_ns > hold) return;  // a lone gap: no mark yet
  const std::int64_t until = now_ns + hold;
  // Only ever moved forward; a lost race leaves a later deadline, as good.
  std::int64_t cur = g_crowded_until.load(std::memory_order_relaxed);
  while (cur < until && !g_crowded_until.compare_exchange_weak(cur, until, std::memory_order_relaxed)) {
  }
}

bool yield_if_uncrowded() noexcept {
  const std::int64_t t0 = crowd_clock_ns();
  if (crowded(t0)) return false;
  sched_yield();
  const std::int64_t t1 = crowd_clock_ns();
  if (t1 - t0 <= std::chrono::nanoseconds(k_crowd_yield_gap).count()) return true;
  note_crowded(t1);
  return false;
}

std::uint64_t crowd_observations() noexcept { return g_observations.load(std::memory_order_relaxed); }

}  // namespace forkjoin::detail
