// mailbox.cpp: lending a pool's workers by name (DESIGN.md [P-LEND]). The worker's side
// (taking its mailbox first when it leaves the idle loop) is in worker.cpp.
#include "mailbox.hpp"

#include "pool_impl.hpp"

namespace forkjoin::detail {

int worker_index_in(pool& p) noexcept {
  worker* w = tls_worker;
  return w != nullptr && w->pool_ == &impl_of(p) ? static_cast<int>(w->index_) : -1;
}

std::size_t num_available_workers(pool& p) noexcept {
  pool_impl& impl = impl_of(p);
  std::size_t n = 0;
  for (std::size_t i = 0; i < impl.num_threads(); ++i)
    n += impl.slot(i).available_.load(std::memory_order_relaxed);  // a hint: sizing, not correctness
  return n;
}

post_result post_to_worker(pool& p, std::size_t index, job_header* j) noexcept {
  worker_slot& w = impl_of(p).slot(index);
  job_header* empty = nullptr;
  // [P-LEND L1] release publishes j's fields to L5; seq_cst: Dekker with the worker's L4
  if (!w.mailbox_.compare_exchange_strong(empty, j, std::memory_order_seq_cst)) return post_result::refused;
  if (w.available_.load(std::memory_order_seq_cst) == 0) return post_result::late;  // [P-LEND L2] Dekker with L4
  wake_worker(w);
  return post_result::prompt;
}

bool worker_took_or_idle(pool& p, std::size_t index, job_header* j) noexcept {
  worker_slot& w = impl_of(p).slot(index);
  if (w.mailbox_.load(std::memory_order_relaxed) != j) return true;     // taken: only its poster withdraws j
  if (w.available_.load(std::memory_order_seq_cst) == 0) return false;  // [P-LEND L2] Dekker with L4
  wake_worker(w);
  return true;
}

bool withdraw_from_worker(pool& p, std::size_t index, job_header* j) noexcept {
  job_header* expected = j;
  return impl_of(p).slot(index).mailbox_.compare_exchange_strong(
      expected, nullptr, std::memory_order_relaxed);  // [P-LEND L6] one RMW decides: the worker's L5 or this
}

}  // namespace forkjoin::detail
