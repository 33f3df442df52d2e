// sync.cpp: the blocking primitives the headers call: address waits (waitable_atomic,
// collaborative_call_once), concurrent_bounded_queue's two monitors, and the speculative
// (RTM) mutexes, here plain spin mutexes that never speculate; and the address buckets that
// the layer's other blocking waits sleep on (queuing_rw_mutex, suspend). A thread that blocks while it works for a pool
// does so inside forkjoin::blocking, so the pool keeps its parallelism. Protocol: tbb/DESIGN.md [P-TBB Block].
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/spin_mutex.h>
#include <oneapi/tbb/spin_rw_mutex.h>

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>

#include "forkjoin/blocking.hpp"
#include "internal.hpp"

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;

// [P-TBB Block] a mutex and a condition variable: the waiter tests its predicate under the
// mutex, the notifier changes the state first and then takes the mutex to notify, so a
// notification can never fall between a waiter's test and its sleep.
class concurrent_monitor {
 public:
  // Waits while `keep_waiting()` is true; its exception (user_abort) propagates. A worker
  // waits inside forkjoin::blocking unless `compensate` is false.
  template <class Pred>
  void wait_while(Pred keep_waiting, bool compensate = true) {
    auto wait = [&] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (keep_waiting()) cv_.wait(lock);
    };
    if (compensate)
      forkjoin::blocking(wait);
    else
      wait();
  }
  void notify_all() {
    { const std::lock_guard<std::mutex> lock(mutex_); }  // [P-TBB Block] after the state change
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
};

namespace {

constexpr std::size_t k_address_buckets = 64;  // picked by hand: address waits are rare and short
std::array<concurrent_monitor, k_address_buckets> g_address_monitors;

concurrent_monitor& monitor_of(const void* address) noexcept {
  const auto bits = reinterpret_cast<std::uintptr_t>(address);
  return g_address_monitors[(bits >> 4) * 0x9e3779b97f4a7c15ULL >> 58];
}

constexpr std::size_t k_queue_monitors = 2;  // d2::cbq_slots_avail_tag and d2::cbq_items_avail_tag

}  // namespace

// Address waits: a notification wakes every waiter of the bucket; each re-tests its own
// condition, as waitable_atomic's callers do anyway.
void wait_on_address(void* address, d1::delegate_base& wakeup_condition, std::uintptr_t) {
  monitor_of(address).wait_while([&] { return !wakeup_condition(); });
}
void notify_by_address(void* address, std::uintptr_t) { monitor_of(address).notify_all(); }
void notify_by_address_one(void* address) { monitor_of(address).notify_all(); }
void notify_by_address_all(void* address) { monitor_of(address).notify_all(); }

// concurrent_bounded_queue: its representation, then its two monitors, in one cache-aligned
// block.
std::uint8_t* allocate_bounded_queue_rep(std::size_t queue_rep_size) {
  const std::size_t bytes = queue_rep_size + k_queue_monitors * sizeof(concurrent_monitor);
  auto* mem = static_cast<std::uint8_t*>(cache_aligned_allocate(bytes));
  auto* monitors = reinterpret_cast<concurrent_monitor*>(mem + queue_rep_size);
  for (std::size_t i = 0; i < k_queue_monitors; ++i) ::new (static_cast<void*>(monitors + i)) concurrent_monitor();
  return mem;
}

void deallocate_bounded_queue_rep(std::uint8_t* mem, std::size_t queue_rep_size) {
  auto* monitors = reinterpret_cast<concurrent_monitor*>(mem + queue_rep_size);
  for (std::size_t i = 0; i < k_queue_monitors; ++i) monitors[i].~concurrent_monitor();
  cache_aligned_deallocate(mem);
}

void wait_bounded_queue_monitor(concurrent_monitor* monitors, std::size_t monitor_tag, std::ptrdiff_t,
                                d1::delegate_base& predicate) {
  monitors[monitor_tag].wait_while([&] { return predicate(); });  // true: still full (push) or empty (pop)
}

void notify_bounded_queue_monitor(concurrent_monitor* monitors, std::size_t monitor_tag, std::size_t) {
  monitors[monitor_tag].notify_all();
}

void abort_bounded_queue_monitors(concurrent_monitor* monitors) {
  for (std::size_t i = 0; i < k_queue_monitors; ++i) monitors[i].notify_all();
}

// The speculative mutexes without speculation: their spin_mutex / spin_rw_mutex bases.
struct rtm_mutex_impl {
  static void acquire(d1::rtm_mutex& m, d1::rtm_mutex::scoped_lock& s) {
    static_cast<d1::spin_mutex&>(m).lock();
    s.m_mutex = &m;
    s.m_transaction_state = d1::rtm_mutex::rtm_state::rtm_real;
  }
  static bool try_acquire(d1::rtm_mutex& m, d1::rtm_mutex::scoped_lock& s) {
    if (!static_cast<d1::spin_mutex&>(m).try_lock()) return false;
    s.m_mutex = &m;
    s.m_transaction_state = d1::rtm_mutex::rtm_state::rtm_real;
    return true;
  }
  static void release(d1::rtm_mutex::scoped_lock& s) {
    static_cast<d1::spin_mutex&>(*s.m_mutex).unlock();
    s.m_mutex = nullptr;
    s.m_transaction_state = d1::rtm_mutex::rtm_state::rtm_none;
  }
};

void acquire(d1::rtm_mutex& m, d1::rtm_mutex::scoped_lock& s, bool) { rtm_mutex_impl::acquire(m, s); }
bool try_acquire(d1::rtm_mutex& m, d1::rtm_mutex::scoped_lock& s) { return rtm_mutex_impl::try_acquire(m, s); }
void release(d1::rtm_mutex::scoped_lock& s) { rtm_mutex_impl::release(s); }

struct rtm_rw_mutex_impl {
  using type = d1::rtm_rw_mutex::rtm_type;
  static void acquire(d1::rtm_rw_mutex& m, d1::rtm_rw_mutex::scoped_lock& s, bool write) {
    if (write)
      m.lock();
    else
      m.lock_shared();
    s.m_mutex = &m;
    s.m_transaction_state = write ? type::rtm_real_writer : type::rtm_real_reader;
  }
  static bool try_acquire(d1::rtm_rw_mutex& m, d1::rtm_rw_mutex::scoped_lock& s, bool write) {
    if (!(write ? m.try_lock() : m.try_lock_shared())) return false;
    s.m_mutex = &m;
    s.m_transaction_state = write ? type::rtm_real_writer : type::rtm_real_reader;
    return true;
  }
  static void release(d1::rtm_rw_mutex::scoped_lock& s) {
    if (s.m_transaction_state == type::rtm_real_writer)
      s.m_mutex->unlock();
    else
      s.m_mutex->unlock_shared();
    s.m_mutex = nullptr;
    s.m_transaction_state = type::rtm_not_in_mutex;
  }
  static bool upgrade(d1::rtm_rw_mutex::scoped_lock& s) {
    if (s.m_transaction_state == type::rtm_real_writer) return true;
    const bool kept = s.m_mutex->upgrade();
    s.m_transaction_state = type::rtm_real_writer;
    return kept;
  }
  static bool downgrade(d1::rtm_rw_mutex::scoped_lock& s) {
    if (s.m_transaction_state == type::rtm_real_reader) return true;
    s.m_mutex->downgrade();
    s.m_transaction_state = type::rtm_real_reader;
    return true;
  }
};

void acquire_reader(d1::rtm_rw_mutex& m, d1::rtm_rw_mutex::scoped_lock& s, bool) {
  rtm_rw_mutex_impl::acquire(m, s, false);
}
void acquire_writer(d1::rtm_rw_mutex& m, d1::rtm_rw_mutex::scoped_lock& s, bool) {
  rtm_rw_mutex_impl::acquire(m, s, true);
}
bool try_acquire_reader(d1::rtm_rw_mutex& m, d1::rtm_rw_mutex::scoped_lock& s) {
  return rtm_rw_mutex_impl::try_acquire(m, s, false);
}
bool try_acquire_writer(d1::rtm_rw_mutex& m, d1::rtm_rw_mutex::scoped_lock& s) {
  return rtm_rw_mutex_impl::try_acquire(m, s, true);
}
void release(d1::rtm_rw_mutex::scoped_lock& s) { rtm_rw_mutex_impl::release(s); }
bool upgrade(d1::rtm_rw_mutex::scoped_lock& s) { return rtm_rw_mutex_impl::upgrade(s); }
bool downgrade(d1::rtm_rw_mutex::scoped_lock& s) { return rtm_rw_mutex_impl::downgrade(s); }

}  // namespace tbb::detail::r1

namespace forkjoin::detail::tbb_layer {

void block_until(const void* address, bool (*ready)(const void*), const void* arg, bool compensate) {
  r1::monitor_of(address).wait_while([&] { return !ready(arg); }, compensate);
}

void wake_address(const void* address) noexcept { r1::monitor_of(address).notify_all(); }

}  // namespace forkjoin::detail::tbb_layer
