// blocking.cpp: forkjoin::blocking's compensation. A worker about to block publishes its
// jobs and, when no worker is idle to take them, starts a spare thread (a slot of its own,
// after the pool's N slots); spares retire once there are more of them than blocked
// workers, or after an idle period, and the pool's destructor waits for the last one.
// Protocol: DESIGN.md [P-BLOCK].
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <chrono>
#include <memory>
#include <new>
#include <string>
#include <thread>

#include "forkjoin/detail/waiting_api.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {

// A spare with nothing to do retires after this long, even while workers still block.
constexpr std::chrono::milliseconds k_spare_idle{100};

struct spare_start {
  pool_impl* pool;
  worker_slot* slot;
};

void* spare_entry(void* arg) {
  const spare_start start = *static_cast<spare_start*>(arg);
  delete static_cast<spare_start*>(arg);
  pthread_setname_np(pthread_self(), "forkjoin-spare");
  start.pool->apply_fp_mode();
  start.pool->spare_main(*start.slot);
  return nullptr;
}

}  // namespace

void begin_blocking(worker& w) noexcept { w.pool_->begin_blocking(slot_of(w)); }
void end_blocking(worker& w) noexcept { w.pool_->end_blocking(slot_of(w)); }

void pool_impl::begin_blocking(worker_slot& w) noexcept {
  if (w.blocking_depth_++ != 0) return;  // nested: counted once
  if (w.trace_ != nullptr) w.blocking_t0_ = w.trace_->open(trace_kind::blocking);
  blocked_.fetch_add(1, std::memory_order_relaxed);  // relaxed: a policy count, no data flows through it
  // [P-BLOCK Begin] the worker's jobs stay stealable while it blocks: publish them, waking a
  // sleeper if [INV-WAKE] asks; and a spare takes the worker's place. Not only when no
  // worker looks idle: an idle count is a snapshot, and the searcher it shows may block
  // next (then every blocked worker would have counted on another one).
  on_new_internal_work(w);
  // [P-BLOCK Begin] unlike an ordinary push, this worker will not run what it published: post
  // it as from outside ([P-POST PushFence], ReadSleepers), so that a worker falling asleep now
  // sees it in its ReadJob or is woken [INV-NOLOSS]
  sleep_.notify_external_work();
  w.blocking_token_ = give_back_token();  // [P-BUDGET Block] the spare may take it
  try_start_spare(w);
}

void pool_impl::end_blocking(worker_slot& w) noexcept {
  if (--w.blocking_depth_ != 0) return;
  blocked_.fetch_sub(1, std::memory_order_relaxed);  // [P-BLOCK End] spares above the count retire when idle
  retake_token(w.blocking_token_, &shutdown_);       // [P-BUDGET Block]
  if (w.trace_ != nullptr) w.trace_->close(trace_kind::blocking, w.blocking_t0_);
}

bool pool_impl::try_start_spare(worker_slot& blocked) noexcept {
  if (shutting_down()) return false;
  std::size_t s = spares_active_.load(std::memory_order_relaxed);
  do {  // [P-BLOCK Spare] at most one spare per blocked worker, and max_spare_threads in all
    if (s >= options_.max_spare_threads || s >= blocked_.load(std::memory_order_relaxed)) return false;
  } while (!spares_active_.compare_exchange_weak(s, s + 1, std::memory_order_relaxed));
  spares_live_.fetch_add(1, std::memory_order_relaxed);  // relaxed: thread creation orders it before the spare runs
  worker_slot* slot = new_spare_slot();
  int error = slot == nullptr ? EAGAIN : 0;
  if (error == 0) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (options_.stack_size != 0) pthread_attr_setstacksize(&attr, options_.stack_size);
    auto* start = new (std::nothrow) spare_start{this, slot};
    pthread_t t;
    error = start == nullptr ? ENOMEM : pthread_create(&t, &attr, &spare_entry, start);
    pthread_attr_destroy(&attr);
    if (error != 0) {
      delete start;
      slot->spare_in_use_.store(false, std::memory_order_release);  // [P-BLOCK Retire] as a retiring spare does
    }
  }
  if (error != 0) {  // no spare this time: parallelism drops, nothing else changes
    spares_active_.fetch_sub(1, std::memory_order_relaxed);
    spares_live_.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  if (blocked.trace_ != nullptr) blocked.trace_->instant(trace_kind::spare_start, slot->index_, 0);
  return true;
}

worker_slot* pool_impl::new_spare_slot() noexcept {
  for (std::size_t k = 0, high = spare_slot_count(); k < high; ++k) {
    bool expected = false;
    worker_slot& s = spare_slot(k);
    if (!s.spare_in_use_.load(std::memory_order_relaxed) &&
        s.spare_in_use_.compare_exchange_strong(expected, true,
                                                std::memory_order_acquire))  // [P-BLOCK Retire] pairs with the
      return &s;                                                             // release store of its last spare
  }
  std::lock_guard<std::mutex> lock(spare_mutex_);
  const std::size_t k = spare_high_.load(std::memory_order_relaxed);  // written under spare_mutex_ only
  if (k >= options_.max_spare_threads) return nullptr;                // every slot still held by a spare about to leave
  const auto n = static_cast<std::uint32_t>(num_threads());
  std::unique_ptr<worker_slot> slot;
  try {  // out of memory (the slot, its deque's ring, its track's name): no spare this time
    slot = std::make_unique<worker_slot>(this, n + static_cast<std::uint32_t>(k), n, &sleep_.word(),
                                         &injector_.size_word());
    // its track in the trace; the thread's creation orders the pointer before the spare reads it
    if (observer_) slot->trace_ = observer_->add_ring("spare " + std::to_string(k));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  worker_slot* s = slot.release();
  s->spare_in_use_.store(true, std::memory_order_relaxed);
  // [P-TRACE Join] a traced slot's pushes all take the slow path that records them
  if (s->trace_ != nullptr) s->deque_.request_publication(job_deque::k_traced);
  spare_slots_[k].store(s, std::memory_order_relaxed);
  spare_high_.store(k + 1, std::memory_order_release);  // [P-BLOCK Spare] pairs with spare_slot_count()'s acquire
  return s;
}

void pool_impl::spare_main(worker_slot& w) noexcept {
  tls_worker = &w;
  w.steal_limit_ = steal_limit_of_this_thread();
  if (budgeted_) take_worker_token(&shutdown_);  // [P-BUDGET Start] a spare runs on a token like a worker
  auto idle_since = std::chrono::steady_clock::now();
  unsigned idle_rounds = 0;
  auto retire_if_excess = [this] {  // [P-BLOCK Retire] more spares than blocked workers
    std::size_t s = spares_active_.load(std::memory_order_relaxed);
    while (s > blocked_.load(std::memory_order_relaxed))
      if (spares_active_.compare_exchange_weak(s, s - 1, std::memory_order_relaxed)) return true;
    return false;
  };
  for (;;) {
    if (job_header* j = w.deque_.pop()) {
      j->execute(j);
      idle_rounds = 0;
      continue;
    }
    if (retire_if_excess()) break;
    if (job_header* j = steal_sweep(w, -1, false)) {
      run_stolen(w, j);
      idle_rounds = 0;
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    if (idle_rounds++ == 0) idle_since = now;
    if (shutting_down() || now - idle_since > k_spare_idle) {
      spares_active_.fetch_sub(1, std::memory_order_relaxed);
      break;
    }
    if (idle_rounds < 64) {
      sched_yield();
    } else {
      const timespec nap{0, 200'000};  // 200 us: idle spares poll, they never join the sleeper list
      nanosleep(&nap, nullptr);
    }
  }
  give_back_token();  // [P-BUDGET Park] leaving for good
  tls_worker = nullptr;
  w.spare_in_use_.store(false, std::memory_order_release);  // [P-BLOCK Retire] pairs with new_spare_slot's CAS
  spares_live_.fetch_sub(1, std::memory_order_release);     // [P-BLOCK Retire] last access; pairs with wait_for_spares
}

void pool_impl::wait_for_spares() noexcept {
  while (spares_live_.load(std::memory_order_acquire) != 0)  // [P-BLOCK Retire] pairs with spare_main's release
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (std::size_t k = 0, high = spare_high_.load(std::memory_order_relaxed); k < high; ++k)
    delete spare_slots_[k].load(std::memory_order_relaxed);
}

}  // namespace forkjoin::detail
