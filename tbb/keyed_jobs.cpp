// keyed_jobs.cpp: the list of jobs waiting under a key (keyed_jobs.hpp).
#include "keyed_jobs.hpp"

#include <new>

#include "forkjoin/task_group.hpp"
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

void keyed_jobs::push(job_key key, job_header* job) {
  auto* e = ::new (allocate_job(sizeof(entry))) entry{job, key, nullptr};
  const std::lock_guard<std::mutex> lock(mutex_);
  (tail_ != nullptr ? tail_->next : head_) = e;
  tail_ = e;
  // relaxed: a hint; the entries themselves are read under mutex_
  count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

job_header* keyed_jobs::take(job_key key) noexcept {
  const std::lock_guard<std::mutex> lock(mutex_);
  entry* prev = nullptr;
  for (entry* e = head_; e != nullptr; prev = e, e = e->next) {
    if (!(e->key == key)) continue;
    (prev != nullptr ? prev->next : head_) = e->next;
    if (tail_ == e) tail_ = prev;
    // relaxed: a hint; the entries themselves are read under mutex_
    count_.store(count_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    job_header* job = e->job;
    deallocate_job(e, sizeof(entry));
    return job;
  }
  return nullptr;
}

bool keyed_jobs::contains(job_key key) const noexcept {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const entry* e = head_; e != nullptr; e = e->next)
    if (e->key == key) return true;
  return false;
}

void post_ticket(pool_impl& target, job_header* ticket) {
  worker* w = tls_worker;
  if (w != nullptr && w->pool_ == &target) {
    w->deque_.push_private(ticket);
    on_new_job(*w, ticket);
  } else {
    inject_job(target, ticket);  // [P-POST] the injector's fence and wake-up
  }
}

}  // namespace forkjoin::detail::tbb_layer
