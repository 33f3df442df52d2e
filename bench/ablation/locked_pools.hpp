// locked_pools.hpp: the two baselines of the work-stealing ablation, for bench_ablation
// only (never part of the library): a pool with one mutex-protected global queue, and a
// pool with one mutex-protected deque per worker (owner at the back, thieves at the
// front). Both offer the same join as forkjoin (g's job on the caller's stack, taken back
// and run inline when nobody started it) and the same helping rule (a waiting thread runs
// the newest job it can find, as forkjoin's owner pops its own newest), and park idle
// workers on a condition variable with no timeout. Small and plain on purpose: they show
// what lock-free deques buy, nothing more.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "forkjoin/detail/xorshift.hpp"

namespace forkjoin::ablation {

struct job {
  void (*run)(job*);
  std::atomic<bool> done{false};
};

struct counters {
  std::atomic<std::uint64_t> attempts{0}, conflicts{0};
};

// Queues policy: global (one deque, one mutex) or per_worker (one of each per worker).
enum class layout { global, per_worker };

template <layout L>
class locked_pool {
 public:
  explicit locked_pool(int threads) : queues_(L == layout::global ? 1 : static_cast<std::size_t>(threads)) {
    for (int i = 1; i < threads; ++i) threads_.emplace_back([this, i] { worker_loop(i); });
  }
  ~locked_pool() {
    {
      std::lock_guard<std::mutex> l(sleep_mutex_);
      stop_ = true;
    }
    sleep_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // Runs f on the calling thread as worker 0.
  template <class F>
  auto run(F f) {
    me_ = 0;
    return f();
  }

  template <class F, class G>
  auto join(F&& f, G&& g) {
    using g_type = std::remove_reference_t<G>;
    struct g_job : job {
      g_type* fn;
      std::invoke_result_t<g_type&> result{};
    };
    g_job jg;
    jg.fn = &g;
    jg.run = [](job* j) {
      auto* self = static_cast<g_job*>(j);
      self->result = (*self->fn)();
      self->done.store(true, std::memory_order_release);  // pairs with the waiter's acquire load in join
    };
    push(&jg);
    auto a = f();
    if (take_back(&jg)) {
      jg.run(&jg);
    } else {
      // A thief is running g: help until it is done. Helping nests on this stack, so past
      // k_max_help_depth nested helps the waiter only yields (the thief makes progress).
      while (!jg.done.load(std::memory_order_acquire)) {  // pairs with the thief's release store of done
        job* other = help_depth_ < k_max_help_depth ? find(true) : nullptr;
        if (other != nullptr) {
          ++help_depth_;
          other->run(other);
          --help_depth_;
        } else {
          std::this_thread::yield();
        }
      }
    }
    return std::pair(a, jg.result);
  }

  counters stats;

 private:
  struct alignas(128) queue {
    std::mutex m;
    std::deque<job*> q;
  };
  queue& own() { return queues_[L == layout::global ? 0 : static_cast<std::size_t>(me_)]; }

  void push(job* j) {
    {
      queue& q = own();
      std::lock_guard<std::mutex> l(q.m);
      q.q.push_back(j);
    }
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {  // pairs with the sleeper's increment before its re-check
      std::lock_guard<std::mutex> l(sleep_mutex_);
      sleep_cv_.notify_one();
    }
  }
  // Removes j if nobody took it. In the global queue other threads push on top of it, so
  // it is searched from the newest end; in a per-worker deque it is the newest.
  bool take_back(job* j) {
    queue& q = own();
    std::lock_guard<std::mutex> l(q.m);
    for (auto it = q.q.rbegin(); it != q.q.rend(); ++it)
      if (*it == j) {
        q.q.erase(std::next(it).base());
        return true;
      }
    return false;
  }
  // A helper (a thread waiting in join) first takes the newest job of its own queue: in
  // per_worker that is its own latest push, in global the latest push of anybody, which
  // in fork-join is the smallest piece and the one whose frame is nearest. Then, and for
  // an idle worker, the oldest job of a random victim (global: of the one queue).
  job* find(bool helping) {
    if (L == layout::per_worker || helping) {
      queue& q = own();
      std::lock_guard<std::mutex> l(q.m);
      if (!q.q.empty()) {
        job* j = q.q.back();
        q.q.pop_back();
        return j;
      }
      if (L == layout::global) return nullptr;  // the one queue is empty
    }
    const std::size_t n = queues_.size();
    const std::size_t start = static_cast<std::size_t>(rng()) % n;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t v = (start + k) % n;
      if (L == layout::per_worker && v == static_cast<std::size_t>(me_)) continue;
      queue& q = queues_[v];
      stats.attempts.fetch_add(1, std::memory_order_relaxed);
      std::unique_lock<std::mutex> l(q.m, std::try_to_lock);
      if (!l.owns_lock()) {  // a conflict: somebody else holds this queue
        stats.conflicts.fetch_add(1, std::memory_order_relaxed);
        l.lock();
      }
      if (!q.q.empty()) {
        job* j = q.q.front();
        q.q.pop_front();
        return j;
      }
    }
    return nullptr;
  }
  bool any_work() {
    for (auto& q : queues_) {
      std::lock_guard<std::mutex> l(q.m);
      if (!q.q.empty()) return true;
    }
    return false;
  }
  void worker_loop(int index) {
    me_ = index;
    for (;;) {
      job* j = nullptr;
      for (int spin = 0; spin < 64 && j == nullptr; ++spin) {
        j = find(false);
        if (j == nullptr) std::this_thread::yield();
      }
      if (j != nullptr) {
        j->run(j);
        continue;
      }
      // No lost wake-up: either any_work() locks a queue after a pusher's unlock and sees
      // its job, or the pusher's load of sleepers_ comes after this increment and it
      // notifies, under sleep_mutex_, which this thread holds until wait() releases it.
      std::unique_lock<std::mutex> l(sleep_mutex_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);  // pairs with push's load
      if (!stop_ && !any_work()) sleep_cv_.wait(l);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
      if (stop_) return;
    }
  }
  std::uint64_t rng() {
    thread_local forkjoin::detail::xorshift64 gen = forkjoin::detail::xorshift64::for_stream(me_);
    return gen.next();
  }

  std::vector<queue> queues_;
  std::vector<std::thread> threads_;
  std::mutex sleep_mutex_;
  std::condition_variable sleep_cv_;
  std::atomic<int> sleepers_{0};
  bool stop_ = false;
  static constexpr int k_max_help_depth = 256;
  static inline thread_local int me_ = 0;
  static inline thread_local int help_depth_ = 0;
};

}  // namespace forkjoin::ablation
