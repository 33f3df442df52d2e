// perturb.cpp: schedule perturbation for tests (FORKJOIN_PERTURB=1). With probability
// 1/64 per call, yield or sleep 1-50 us; the per-thread generator is seeded from
// FORKJOIN_PERTURB_SEED (default 1) and the thread's creation order, so a failing
// schedule family can be replayed.
#include "perturb.hpp"

#if FORKJOIN_PERTURB
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>

namespace forkjoin::detail {

namespace {
std::uint64_t seed_base() {
  const char* s = std::getenv("FORKJOIN_PERTURB_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 10) : 1;
}
std::atomic<std::uint64_t> g_thread_counter{0};
}  // namespace

void perturb_point() noexcept {
  thread_local std::uint64_t state =
      (seed_base() + 0x9E3779B97F4A7C15ull * (g_thread_counter.fetch_add(1, std::memory_order_relaxed) + 1)) | 1;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  if ((state & 63) != 0) return;
  if ((state >> 6) & 1) {
    sched_yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(1 + (state >> 8) % 50));
  }
}

}  // namespace forkjoin::detail
#endif
