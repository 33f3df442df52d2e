// observer.cpp: task_scheduler_observer (r1::observe): the active observers, which threads
// have entered which, and the entry and exit notifications. Owns the observer table and the
// thread's record of entered observers; not the arenas (arena.cpp) nor the tasks (task.cpp),
// which call the hooks declared in internal.hpp. Protocol: tbb/DESIGN.md [P-TBB Observe].
#include <oneapi/tbb/task_scheduler_observer.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "internal.hpp"

namespace tbb::detail::r1 {

// Friend of d1::task_scheduler_observer: one per active observer, in the table below.
class observer_proxy {
 public:
  observer_proxy(d1::task_scheduler_observer& o, forkjoin::detail::pool_impl* p, std::uint64_t ident) noexcept
      : observer_(&o), pool_(p), id_(ident) {}
  static std::atomic<observer_proxy*>& proxy_of(d1::task_scheduler_observer& o) noexcept { return o.my_proxy; }
  static std::atomic<std::intptr_t>& busy_of(d1::task_scheduler_observer& o) noexcept { return o.my_busy_count; }
  static d1::task_arena* arena_of(d1::task_scheduler_observer& o) noexcept { return o.my_task_arena; }

  d1::task_scheduler_observer* observer_;
  forkjoin::detail::pool_impl* pool_;  // the observed arena's pool
  std::uint64_t id_;                   // never reused: the threads' records name observers by it
};

}  // namespace tbb::detail::r1

namespace forkjoin::detail::tbb_layer {

std::atomic<std::uint32_t> g_observers_active{0};

namespace {

using r1::observer_proxy;

// [P-TBB Observe O1] the active observers; every field below and every proxy under g_mutex.
std::mutex g_mutex;
std::vector<observer_proxy*>* g_proxies = nullptr;
std::uint64_t g_next_id = 0;
// Changed (under g_mutex) by every observe(true) and observe(false): a thread whose cache
// holds the current value and its pool has nothing to enter.
std::atomic<std::uint64_t> g_generation{0};

// The thread's cache: constant-initialised, read on each task while an observer is active.
struct observe_cache {
  std::uint64_t generation;
  pool_impl* pool;
};
thread_local observe_cache tls_cache{0, nullptr};

struct entered {
  std::uint64_t id;
  pool_impl* pool;
  bool is_worker;
};

// A callback to make once g_mutex is released; the observer's busy count holds it alive.
struct pending_call {
  d1::task_scheduler_observer* observer;
  bool is_worker;
};

void call_entries(const std::vector<pending_call>& calls) noexcept;
void call_exits(const std::vector<pending_call>& calls) noexcept;

// [P-TBB Observe O4] the observers this thread has entered and not left; their exits are
// called when the thread ends.
class thread_record {
 public:
  thread_record() = default;
  thread_record(const thread_record&) = delete;
  thread_record& operator=(const thread_record&) = delete;
  ~thread_record() {
    leave([](const entered&) { return true; });
  }

  // [P-TBB Observe O2] enters every active observer of p that this thread has not entered.
  void enter(pool_impl* p, bool is_worker) noexcept {
    std::vector<pending_call> calls;
    {
      const std::lock_guard<std::mutex> lock(g_mutex);
      tls_cache = {g_generation.load(std::memory_order_relaxed), p};
      if (g_proxies == nullptr) return;
      std::erase_if(entered_, [](const entered& e) { return find(e.id) == nullptr; });
      for (observer_proxy* x : *g_proxies) {
        if (x->pool_ != p ||
            std::any_of(entered_.begin(), entered_.end(), [x](const entered& e) { return e.id == x->id_; }))
          continue;
        entered_.push_back({x->id_, p, is_worker});
        hold(*x->observer_);
        calls.push_back({x->observer_, is_worker});
      }
    }
    call_entries(calls);
  }

  // [P-TBB Observe O3] leaves the entered observers that `which` selects, calling the exits
  // of those still active.
  template <class Which>
  void leave(Which which) noexcept {
    std::vector<pending_call> calls;
    {
      const std::lock_guard<std::mutex> lock(g_mutex);
      tls_cache.pool = nullptr;  // the next task checks again
      for (const entered& e : entered_) {
        if (!which(e)) continue;
        if (observer_proxy* x = find(e.id)) {
          hold(*x->observer_);
          calls.push_back({x->observer_, e.is_worker});
        }
      }
      std::erase_if(entered_, which);
    }
    call_exits(calls);
  }

 private:
  static observer_proxy* find(std::uint64_t id) noexcept {
    if (g_proxies == nullptr) return nullptr;
    for (observer_proxy* x : *g_proxies)
      if (x->id_ == id) return x;
    return nullptr;
  }
  // Under g_mutex, before observe(false) can remove the observer: it waits for the release.
  static void hold(d1::task_scheduler_observer& o) noexcept {
    observer_proxy::busy_of(o).fetch_add(1, std::memory_order_relaxed);  // ordered by g_mutex
  }

  std::vector<entered> entered_;
};

thread_local thread_record tls_record;

void release(d1::task_scheduler_observer& o) noexcept {
  // The last access to o: observe(false) may return, and o be destroyed, right after.
  observer_proxy::busy_of(o).fetch_sub(1, std::memory_order_release);  // [P-TBB Observe O5] pairs with O5's acquire
}

void call_entries(const std::vector<pending_call>& calls) noexcept {
  for (const pending_call& c : calls) {
    c.observer->on_scheduler_entry(c.is_worker);
    release(*c.observer);
  }
}

void call_exits(const std::vector<pending_call>& calls) noexcept {
  for (const pending_call& c : calls) {
    c.observer->on_scheduler_exit(c.is_worker);
    release(*c.observer);
  }
}

}  // namespace

void observers_on_task_slow() noexcept {
  const worker* w = tls_worker;
  if (w == nullptr) return;
  if (tls_cache.pool == w->pool_ && tls_cache.generation == g_generation.load(std::memory_order_relaxed)) return;
  tls_record.enter(w->pool_, !w->outside_);  // an outside thread's slot ([P-TBB Observe O2], [P-SLOT X2])
}

void observers_leave(pool_impl& p) noexcept {
  if (g_observers_active.load(std::memory_order_relaxed) == 0) return;  // what it entered is gone
  tls_record.leave([&p](const entered& e) { return e.pool == &p; });
}

}  // namespace forkjoin::detail::tbb_layer

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;

void observe(d1::task_scheduler_observer& o, bool state) {
  std::atomic<observer_proxy*>& proxy = observer_proxy::proxy_of(o);
  if (state) {
    if (proxy.load(std::memory_order_relaxed) != nullptr) return;  // repeated calls are no-ops
    forkjoin::detail::pool_impl* p = nullptr;
    if (d1::task_arena* ta = observer_proxy::arena_of(o)) {
      ta->initialize();  // no-op when initialized
      // acquire: pairs with [P-TBB Arena A4]'s release store; A8 may give the arena a pool
      p = &tl::observed_pool(*task_arena_impl::arena_of(*ta).load(std::memory_order_acquire));
    } else {
      p = &tl::current_pool();  // the arena of the calling thread, as oneTBB's local observer
    }
    {
      const std::lock_guard<std::mutex> lock(tl::g_mutex);
      if (tl::g_proxies == nullptr) tl::g_proxies = new std::vector<observer_proxy*>();
      auto* x = new observer_proxy(o, p, ++tl::g_next_id);
      tl::g_proxies->push_back(x);
      observer_proxy::busy_of(o).store(0, std::memory_order_relaxed);
      proxy.store(x, std::memory_order_release);                       // pairs with the destructor's acquire load
      tl::g_generation.fetch_add(1, std::memory_order_relaxed);        // ordered by g_mutex
      tl::g_observers_active.fetch_add(1, std::memory_order_relaxed);  // [P-TBB Observe O1] a hint
    }
    // [P-TBB Observe O2] the calling thread enters at once when it is in the observed arena
    // (outside every pool it is in the implicit arena, as oneTBB's external thread).
    const forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
    if (w != nullptr ? w->pool_ == p : observer_proxy::arena_of(o) == nullptr)
      tl::tls_record.enter(p, w != nullptr && !w->outside_);
    return;
  }
  observer_proxy* x = proxy.exchange(nullptr, std::memory_order_acq_rel);  // pairs with observe(true)'s store
  if (x == nullptr) return;
  {
    const std::lock_guard<std::mutex> lock(tl::g_mutex);
    std::erase(*tl::g_proxies, x);
    tl::g_generation.fetch_add(1, std::memory_order_relaxed);        // ordered by g_mutex
    tl::g_observers_active.fetch_sub(1, std::memory_order_relaxed);  // a hint
  }
  delete x;
  // [P-TBB Observe O5] every callback held the observer under g_mutex before the removal
  // above; wait until each has released it. Then nothing touches o again.
  while (observer_proxy::busy_of(o).load(std::memory_order_acquire) != 0)  // pairs with release()
    std::this_thread::yield();
}

}  // namespace tbb::detail::r1
