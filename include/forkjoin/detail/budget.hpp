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

  // `estimate`: iterations per slice as last measured by a leaf of a loop from the same call
  // site (a relaxed hint; 0 = not measured yet). `leaf`: the iterations this leaf holds. A
  // leaf that fits in one slice of the estimate never reads the clock: it ends before its
  // first slice does ([P-FAIR Budget], lazy start).
  loop_budget(std::atomic<std::uint64_t>& estimate, bool active, std::uint64_t leaf) noexcept : estimate_(estimate) {
    if (!active) return;
    const std::uint64_t hint = estimate.load(std::memory_order_relaxed);
    slice_ = std::max<std::uint64_t>(hint, k_first_slice);
    left_ = slice_;
    if (leaf >= slice_) start_ = now_ns();  // it will reach a slice end: measure from here
  }
  // Iterations to run before the next check, of `want`. A grain that overshoots the slice by
  // less than a quarter runs whole rather than leave a sliver for the next slice.
  std::uint64_t next(std::uint64_t want) const noexcept { return want <= left_ + (slice_ >> 2) ? want : left_; }
  // `n` iterations ran: at the end of a slice, measure it and serve outside work.
  void spent(std::uint64_t n) noexcept {
    if (n >= left_) [[unlikely]] {
      end_slice();
      return;
    }
    left_ -= n;
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
    if (start_ != 0) {  // a slice measured from start_; else the first, unmeasured one (lazy start)
      const double elapsed = static_cast<double>(std::max<std::int64_t>(now - start_, 1));
      // The next slice aims at k_slice_ns; it grows at most 16-fold per slice, so that one
      // fast slice (a clock hiccup, a cache-warm stretch) cannot make the next one huge.
      const double fit = static_cast<double>(slice_) * static_cast<double>(k_slice_ns) / elapsed;
      const double grown = std::min(fit, static_cast<double>(slice_) * 16.0);
      slice_ = static_cast<std::uint64_t>(std::clamp(grown, 1.0, static_cast<double>(k_max_slice)));
      // A hint for the site's next leaves; written only when it moved by a quarter or more,
      // so that leaves of one loop do not bounce its cache line at every slice.
      const std::uint64_t old = estimate_.load(std::memory_order_relaxed);
      if (slice_ > old + (old >> 2) || slice_ < old - (old >> 2)) estimate_.store(slice_, std::memory_order_relaxed);
    }
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
  std::int64_t start_ = 0;  // 0: not measuring yet
};

}  // namespace forkjoin::detail
