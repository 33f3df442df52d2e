// keyed_jobs.hpp: jobs waiting under a key (an owner and a region tag), first in first out,
// taken oldest first per key. One mutex guards the list; a relaxed count beside it lets the
// callers' fast paths skip the mutex while nothing waits. Holds the pending submits of
// [P-TBB Arena] A11 and the critical tasks of [P-TBB Crit] K1; both post one ticket job per
// entry (post_ticket) so that every entry runs even if nobody looks for it.
#ifndef FORKJOIN_TBB_KEYED_JOBS_HPP
#define FORKJOIN_TBB_KEYED_JOBS_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "forkjoin/detail/worker_api.hpp"

namespace forkjoin::detail::tbb_layer {

struct job_key {
  const void* owner;
  std::uint32_t tag;
  bool operator==(const job_key&) const = default;
};

class keyed_jobs {
 public:
  // count: the hint the fast paths read, one per list
  constexpr explicit keyed_jobs(std::atomic<std::size_t>& count) noexcept : count_(count) {}
  keyed_jobs(const keyed_jobs&) = delete;
  keyed_jobs& operator=(const keyed_jobs&) = delete;

  void push(job_key key, job_header* job);
  // Unlinks the oldest job under key; null if none.
  job_header* take(job_key key) noexcept;
  bool contains(job_key key) const noexcept;

 private:
  struct entry {
    job_header* job;
    job_key key;
    entry* next;
  };
  std::atomic<std::size_t>& count_;
  mutable std::mutex mutex_;
  entry* head_ = nullptr;
  entry* tail_ = nullptr;
};

// Posts a ticket job where a plain submit's job would go ([P-TBB Task T2]): the submitting
// worker's deque when it works for target, else target's injection queue.
void post_ticket(pool_impl& target, job_header* ticket);

}  // namespace forkjoin::detail::tbb_layer

#endif
