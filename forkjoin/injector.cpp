// injector.cpp: push and batch-pop of the injection queue (see injector.hpp).
#include "injector.hpp"

namespace forkjoin::detail {

void injector::push(job_header* j) noexcept {
  j->next = nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (tail_ != nullptr)
    tail_->next = j;
  else
    head_ = j;
  tail_ = j;
  // [P-POST PushJob] relaxed: the caller's PushFence orders it before ReadSleepers.
  size_.store(size_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

job_header* injector::pop_batch(std::size_t max, std::size_t& taken) noexcept {
  taken = 0;
  if (size() == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  job_header* first = head_;
  job_header* last = nullptr;
  while (head_ != nullptr && taken < max) {
    last = head_;
    head_ = head_->next;
    ++taken;
  }
  if (last != nullptr) last->next = nullptr;
  if (head_ == nullptr) tail_ = nullptr;
  size_.store(size_.load(std::memory_order_relaxed) - taken, std::memory_order_relaxed);
  return taken != 0 ? first : nullptr;
}

}  // namespace forkjoin::detail
