// injector.hpp: the global injection queue, through which threads outside a pool hand it
// work. A mutex and an intrusive FIFO list: nothing to allocate, so a push cannot fail.
// Workers poll it every k_inject_poll_interval local jobs and take batches of len/N + 1.
// The wake-up that must follow a push is the pool's business ([P-POST], sleep.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>

#include "forkjoin/detail/job.hpp"

namespace forkjoin::detail {

// Tokio polls its global queue every 61 scheduler ticks; a prime keeps the poll from
// locking into step with periodic user patterns. Same figure here.
inline constexpr std::uint32_t k_inject_poll_interval = 61;

class injector {
 public:
  void push(job_header* j) noexcept;
  // Takes up to `max` jobs in FIFO order as a linked list (through job_header::next).
  job_header* pop_batch(std::size_t max, std::size_t& taken) noexcept;
  // A relaxed hint, exact under the sleep protocol's fences ([P-SLEEP] ReadJob).
  std::size_t size() const noexcept { return size_.load(std::memory_order_relaxed); }
  // The same count, for workers to poll without a call ([P-FAIR Poll]).
  const std::atomic<std::size_t>& size_word() const noexcept { return size_; }

 private:
  std::mutex mutex_;
  job_header* head_ = nullptr;
  job_header* tail_ = nullptr;
  std::atomic<std::size_t> size_{0};
};

}  // namespace forkjoin::detail
