// per_worker.hpp (detail): the slot lookup under forkjoin::per_worker. The workers of one
// pool, the first whose worker calls local() (the *bound* pool), index a table by their
// worker index: no lock, no read-modify-write after the first call. Every other thread
// (outside any pool, or a worker of another pool) gets an *overflow* slot, found through a
// one-entry thread_local cache keyed by the object's never-reused id, else under a mutex
// in a list keyed by std::thread::id.
#pragma once

#include <atomic>
#include <cstdint>

namespace forkjoin::detail {

// Ids of per_worker objects: 64-bit and never reused, so a stale cache entry left by a
// destroyed object never matches a new one.
inline std::atomic<std::uint64_t> per_worker_next_id{1};

struct per_worker_cache {
  std::uint64_t id = 0;
  void* slot = nullptr;
};
inline thread_local per_worker_cache per_worker_tls_cache;

}  // namespace forkjoin::detail
