// mailbox.cpp: lending a pool's workers by name (DESIGN.md [P-LEND]). The worker's side
// (taking its mailbox first when it leaves the idle loop) is in worker.cpp.
#include "mailbox.hpp"

#include <sched.h>

#include "futex.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

int worker_index_in(pool& p) noexcept {
  worker* w = tls_worker;
  return w != nullptr && w->pool_ == &impl_of(p) ? static_cast<int>(w->index_) : -1;
}

bool reserve_worker(pool& p, std::size_t index) noexcept {
  std::uint32_t idle = 1;
  // [P-LEND R1] relaxed: it publishes nothing; the post that follows (L1) does
  return impl_of(p).slot(index).available_.compare_exchange_strong(idle, 2, std::memory_order_relaxed);
}

post_result post_to_worker(pool& p, std::size_t index, job_header* j, bool reserved) noexcept {
  const post_result r = post_to_worker_unwoken(p, index, j, reserved);
  if (r == post_result::prompt) wake_posted_worker(p, index);
  return r;
}

void wake_posted_worker(pool& p, std::size_t index) noexcept { wake_worker(impl_of(p).slot(index)); }

post_result post_to_worker_unwoken(pool& p, std::size_t index, job_header* j, bool reserved) noexcept {
  worker_slot& w = impl_of(p).slot(index);
  // [P-LEND R2] a worker already reserved by another poster is not offered this job at all:
  // it polls its mailbox while it waits (R3) and would take it
  if (!reserved && w.available_.load(std::memory_order_relaxed) == 2) return post_result::refused;
  // [P-LEND L1] release publishes j's fields to L5; seq_cst: Dekker with the worker's L4. A
  // reservation waits out a job another poster left there: the worker takes it (L5) or its
  // poster withdraws it (L6), both soon, since the worker is idle or waiting for a post.
  for (int round = 0;; ++round) {
    job_header* empty = nullptr;
    if (w.mailbox_.compare_exchange_strong(empty, j, std::memory_order_seq_cst)) break;
    if (!reserved) return post_result::refused;
    if (round < 64)
      cpu_relax();
    else
      sched_yield();
  }
  const std::uint32_t available = w.available_.load(std::memory_order_seq_cst);  // [P-LEND L2] Dekker with L4
  if (available == 0) return post_result::late;
  // [P-LEND R2] a worker reserved by another poster is kept for that poster's job
  if (available == 2 && !reserved && withdraw_from_worker(p, index, j)) return post_result::refused;
  return post_result::prompt;  // [P-LEND L9] the caller wakes it
}

bool worker_took_or_idle(pool& p, std::size_t index, job_header* j) noexcept {
  worker_slot& w = impl_of(p).slot(index);
  if (w.mailbox_.load(std::memory_order_relaxed) != j) return true;     // taken: only its poster withdraws j
  if (w.available_.load(std::memory_order_seq_cst) == 0) return false;  // [P-LEND L2] Dekker with L4
  wake_worker(w);
  return true;
}

void announce_idle() noexcept {
  worker_slot& w = slot_of(*tls_worker);
  if (w.available_.load(std::memory_order_relaxed) == 0) w.available_.store(1, std::memory_order_relaxed);  // L3
}

void await_mail(int spins) noexcept {
  worker_slot& w = slot_of(*tls_worker);
  for (int i = 0; i < spins; ++i) {
    if (w.mailbox_.load(std::memory_order_relaxed) != nullptr) return;  // [P-LEND L8] taken by L4/L5 next
    cpu_relax();
  }
}

void dock_for_mail(std::chrono::nanoseconds limit) noexcept {
  worker_slot& w = slot_of(*tls_worker);
  pool_impl& p = *w.pool_;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    // [P-LEND D1] the futex value is read before the count: a D3 bump after the count makes
    // the futex wait return at once
    const std::uint32_t seen = p.dock_seq_.load(std::memory_order_relaxed);  // relaxed: the futex compares it again
    p.docked_.fetch_add(1, std::memory_order_relaxed);  // relaxed: the fence below orders it before the re-check
    seq_cst_fence();                                    // [P-LEND D1] Dekker with D2's fence after L1
    const bool mail = w.mailbox_.load(std::memory_order_relaxed) != nullptr;  // taken by L4/L5 next
    const auto left = deadline - std::chrono::steady_clock::now();
    if (!mail && left > std::chrono::nanoseconds::zero()) futex_wait_for(p.dock_seq_, seen, left);
    p.docked_.fetch_sub(1, std::memory_order_relaxed);  // relaxed: a poster that still sees it only wakes in vain
    if (mail || w.mailbox_.load(std::memory_order_relaxed) != nullptr) return;
    if (std::chrono::steady_clock::now() >= deadline) return;
  }
}

void yield_for_mail(std::chrono::nanoseconds limit) noexcept {
  worker_slot& w = slot_of(*tls_worker);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (w.mailbox_.load(std::memory_order_relaxed) == nullptr) {  // [P-LEND L8] taken by L4/L5 next
    sched_yield();
    if (std::chrono::steady_clock::now() >= deadline) return;
  }
}

void wake_docked(pool& p) noexcept {
  pool_impl& impl = impl_of(p);
  seq_cst_fence();  // [P-LEND D2] Dekker with D1's fence
  if (impl.docked_.load(std::memory_order_relaxed) == 0) return;
  impl.dock_seq_.fetch_add(1, std::memory_order_relaxed);  // [P-LEND D3] relaxed: the futex orders it with the wait
  futex_wake_all(impl.dock_seq_);
}

job_header* find_idle_work() noexcept {
  worker_slot& w = slot_of(*tls_worker);
  return w.pool_->find_work_idle(w);
}

void run_found_work(job_header* j) noexcept {
  worker_slot& w = slot_of(*tls_worker);
  w.pool_->run_stolen(w, j);  // [P-ISO Adopt]
}

bool withdraw_from_worker(pool& p, std::size_t index, job_header* j) noexcept {
  job_header* expected = j;
  return impl_of(p).slot(index).mailbox_.compare_exchange_strong(
      expected, nullptr, std::memory_order_relaxed);  // [P-LEND L6] one RMW decides: the worker's L5 or this
}

}  // namespace forkjoin::detail
