// waiting_api.hpp: the cold entry points behind isolate(), blocking() and yield_now(), and
// the scopes that pair them. Compiled in forkjoin/isolation.cpp, blocking.cpp and
// fairness.cpp. Protocols: forkjoin/DESIGN.md [P-ISO], [P-BLOCK], [P-FAIR].
#pragma once

#include <atomic>
#include <cstdint>

#include "forkjoin/detail/worker_api.hpp"

namespace forkjoin::detail {

// What an isolated region replaces and restores: the worker's isolation tag and mark.
struct isolation_state {
  std::uint32_t tag;
  std::int64_t mark;
};
// [P-ISO Enter] a fresh tag and a mark at the deque's end; the private part is published.
isolation_state enter_isolation(worker& w) noexcept;
// [P-ISO Leave] restores what enter_isolation replaced.
void leave_isolation(worker& w, isolation_state saved) noexcept;
// [P-ISO Share] enter_isolation with the tag of the live region of `key` (not 0): threads
// that enter with the same key at the same time share one region. leave_shared_isolation
// restores and drops the thread's use of the key's region.
isolation_state enter_shared_isolation(worker& w, std::uintptr_t key) noexcept;
void leave_shared_isolation(worker& w, isolation_state saved, std::uintptr_t key) noexcept;

// [P-BLOCK Begin] / [P-BLOCK End]: the calling worker is about to block / has stopped blocking.
void begin_blocking(worker& w) noexcept;
void end_blocking(worker& w) noexcept;

// [P-FAIR Yield] runs pending injected jobs on the calling worker (none inside an isolated
// region); returns at once when there are none.
void yield_to_injected(worker& w) noexcept;

// True when some job waits in the worker's pool's injection queue: one relaxed load.
inline bool injected_pending(const worker& w) noexcept { return w.injected_->load(std::memory_order_relaxed) != 0; }

class isolation_scope {
 public:
  explicit isolation_scope(worker& w) noexcept : w_(w), saved_(enter_isolation(w)) {}
  ~isolation_scope() { leave_isolation(w_, saved_); }
  isolation_scope(const isolation_scope&) = delete;
  isolation_scope& operator=(const isolation_scope&) = delete;

 private:
  worker& w_;
  const isolation_state saved_;
};

class shared_isolation_scope {
 public:
  shared_isolation_scope(worker& w, std::uintptr_t key) noexcept
      : w_(w), key_(key), saved_(enter_shared_isolation(w, key)) {}
  ~shared_isolation_scope() { leave_shared_isolation(w_, saved_, key_); }
  shared_isolation_scope(const shared_isolation_scope&) = delete;
  shared_isolation_scope& operator=(const shared_isolation_scope&) = delete;

 private:
  worker& w_;
  const std::uintptr_t key_;
  const isolation_state saved_;
};

class blocking_scope {
 public:
  explicit blocking_scope(worker& w) noexcept : w_(w) { begin_blocking(w); }
  ~blocking_scope() { end_blocking(w_); }
  blocking_scope(const blocking_scope&) = delete;
  blocking_scope& operator=(const blocking_scope&) = delete;

 private:
  worker& w_;
};

}  // namespace forkjoin::detail
