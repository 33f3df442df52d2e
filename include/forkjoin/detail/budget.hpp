// budget.hpp: the loop engine's cooperative budget. A loop leaf runs its grain in slices of
// about k_slice of work and, between slices, lets its worker serve jobs waiting in the
// pool's injection queue, so that a long loop occupying every worker delays work submitted
// from outside by about one slice. The slice is counted in iterations and re-estimated
// from one clock read per slice. Protocol: forkjoin/DESIGN.md [P-FAIR Budget].
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/waiting_api.hpp"
#include "forkjoin/detail/worker_api.hpp"

namespace forkjoin::detail {

// On unless a benchmark turns it off to measure what the budget costs and buys (read once
// per loop, relaxed: loops started after the store see it).
inline std::atomic<bool> g_loop_budget{true};
inline bool loop_budget_enabled() noexcept { return g_loop_budget.load(std::memory_order_relaxed); }

// After every chunk the engine runs unsliced: serve outside work if some waits (one load).
inline void poll_outside_work() noexcept {
  worker* w = tls_worker;
  if (w != nullptr && injected_pending(*w)) [[unlikely]]
    yield_to_injected(*w);
}

class loop_budget {
 public:
  static constexpr std::int64_t k_slice_ns = 64'000;

  // `estimate`: iterations per slice as last measured by any leaf of the same loop (a
  // relaxed hint shared by the leaves; 0 = not measured yet). Reads the clock only if active.
  loop_budget(std::atomic<std::uint64_t>& estimate, bool active) noexcept : estimate_(estimate) {
    if (!active) return;
    slice_ = std::max<std::uint64_t>(estimate.load(std::memory_order_relaxed), k_first_slice);
    left_ = slice_;
    start_ = now_ns();
  }
  // Iterations to run before the next check, of `want`.
  std::uint64_t next(std::uint64_t want) const noexcept { return want < left_ ? want : left_; }
  // `n` iterations ran: at the end of a slice, measure it and serve outside work.
  void spent(std::uint64_t n) noexcept {
    left_ -= n;
    if (left_ == 0) [[unlikely]]
      end_slice();
  }

 private:
  static constexpr std::uint64_t k_first_slice = 16;
  static constexpr std::uint64_t k_max_slice = std::uint64_t{1} << 40;
  static std::int64_t now_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  FORKJOIN_NOINLINE void end_slice() noexcept {
    std::int64_t now = now_ns();
    const double elapsed = static_cast<double>(std::max<std::int64_t>(now - start_, 1));
    // The next slice aims at k_slice_ns; it grows at most 16-fold per slice, so that one
    // fast slice (a clock hiccup, a cache-warm stretch) cannot make the next one huge.
    const double fit = static_cast<double>(slice_) * static_cast<double>(k_slice_ns) / elapsed;
    const double grown = std::min(fit, static_cast<double>(slice_) * 16.0);
    slice_ = static_cast<std::uint64_t>(std::clamp(grown, 1.0, static_cast<double>(k_max_slice)));
    estimate_.store(slice_, std::memory_order_relaxed);  // a hint for the loop's next leaves
    if (worker* w = tls_worker; w != nullptr && injected_pending(*w)) {
      yield_to_injected(*w);  // [P-FAIR Budget] time spent serving is not the loop's
      now = now_ns();
    }
    left_ = slice_;
    start_ = now;
  }

  std::atomic<std::uint64_t>& estimate_;
  std::uint64_t slice_ = 0;
  std::uint64_t left_ = ~std::uint64_t{0};
  std::int64_t start_ = 0;
};

}  // namespace forkjoin::detail
