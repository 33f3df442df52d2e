// per_worker.hpp: per_worker<T>, one T per worker (OpenMP's threadprivate, oneTBB's
// combinable): local() gives the calling worker its own T without a lock, each on its own
// cache lines; combine() and for_each() visit every T that was used, in slot order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/config.hpp"
#include "forkjoin/detail/per_worker.hpp"
#include "forkjoin/detail/worker_api.hpp"
#include "forkjoin/pool.hpp"

namespace forkjoin {

/// One T per worker. The first pool whose worker calls local() binds the object: its
/// workers use slot i = their worker index, found with no lock and no atomic
/// read-modify-write. Any other thread (outside every pool, or a worker of another pool)
/// gets a slot of its own, created under a mutex on its first call and then found through
/// a thread_local cache (a mutex again when it alternates between several objects). Slots
/// are created on first use: T{} (or init()). Slot order: the bound pool's slots 0..N-1,
/// then the other threads' slots in creation order. combine(), for_each() and the
/// destructor must not run concurrently with local().
template <class T>
class per_worker {
 public:
  per_worker() : init_([] { return T{}; }) {}
  /// T is built by init() in each slot on its first use.
  template <class Init>
  requires std::is_invocable_r_v<T, Init&>
  explicit per_worker(Init init) : init_(std::move(init)) {}
  per_worker(const per_worker&) = delete;
  per_worker& operator=(const per_worker&) = delete;
  ~per_worker() {
    for (std::size_t i = 0; i < table_size_; ++i) delete table_[i].load(std::memory_order_relaxed);
  }

  /// The calling thread's T (created on the first call).
  T& local() {
    detail::worker* w = detail::tls_worker;
    if (w != nullptr) [[likely]] {
      const void* bound = bound_pool();
      // The size check: a later pool may reuse a destroyed bound pool's address.
      if (bound == w->pool_ && w->index_ < table_size_) {
        // [P-PERW Slot] acquire pairs with the release in create_worker_slot (only worker
        // index_ ever stores this entry, but a later holder of slot 0 is another thread)
        if (slot* s = table_[w->index_].load(std::memory_order_acquire)) return s->value;
        return create_worker_slot(*w);
      }
      if (bound == nullptr && try_bind(*w)) return local();
    }
    return overflow_slot();
  }

  /// Folds every used slot's T with op, in slot order: op(op(t0, t1), t2) ...; init()'s T
  /// (T{} by default) when no slot was used.
  template <class Op>
  T combine(Op op) {
    std::vector<T*> used = used_slots();
    if (used.empty()) return init_();
    T acc = *used[0];
    for (std::size_t i = 1; i < used.size(); ++i) acc = std::invoke(op, std::move(acc), *used[i]);
    return acc;
  }

  /// Calls f(T&) for every used slot, in slot order.
  template <class F>
  void for_each(F f) {
    for (T* t : used_slots()) std::invoke(f, *t);
  }

 private:
  struct alignas(detail::k_cache_line) slot {
    template <class Init>
    explicit slot(Init& init) : value(init()) {}
    T value;
  };

  // [P-PERW Bind] the first pool to call wins; the table is sized for its workers.
  bool try_bind(detail::worker& w) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bound_.load(std::memory_order_relaxed) == nullptr) {
      table_ = std::make_unique<std::atomic<slot*>[]>(w.pool_size_);
      table_size_ = w.pool_size_;
      bound_.store(w.pool_, std::memory_order_release);  // [P-PERW Bind] pairs with the acquire in bound_pool()
    }
    return bound_pool() == w.pool_;
  }
  const void* bound_pool() const noexcept {
    // [P-PERW Bind] pairs with the release in try_bind: table_ and table_size_ are set
    return bound_.load(std::memory_order_acquire);
  }
  T& create_worker_slot(detail::worker& w) {
    auto* s = new slot(init_);
    table_[w.index_].store(s, std::memory_order_release);  // [P-PERW Slot] pairs with the acquire in local()
    return s->value;
  }
  T& overflow_slot() {
    detail::per_worker_cache& cache = detail::per_worker_tls_cache;
    if (cache.id == id_) return static_cast<slot*>(cache.slot)->value;
    std::lock_guard<std::mutex> lock(mutex_);
    const std::thread::id me = std::this_thread::get_id();
    slot* found = nullptr;
    for (auto& [tid, s] : overflow_)
      if (tid == me) found = s.get();
    if (found == nullptr) {
      overflow_.emplace_back(me, std::make_unique<slot>(init_));
      found = overflow_.back().second.get();
    }
    cache = {id_, found};
    return found->value;
  }
  std::vector<T*> used_slots() {
    std::vector<T*> used;
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < table_size_; ++i)
      if (slot* s = table_[i].load(std::memory_order_acquire))  // [P-PERW Slot] pairs with create_worker_slot
        used.push_back(&s->value);
    for (auto& entry : overflow_) used.push_back(&entry.second->value);
    return used;
  }

  std::function<T()> init_;
  const std::uint64_t id_ =
      detail::per_worker_next_id.fetch_add(1, std::memory_order_relaxed);  // relaxed: a unique number
  std::atomic<const void*> bound_{nullptr};
  std::unique_ptr<std::atomic<slot*>[]> table_;
  std::size_t table_size_ = 0;
  std::mutex mutex_;
  std::vector<std::pair<std::thread::id, std::unique_ptr<slot>>> overflow_;
};

}  // namespace forkjoin
