// worker.cpp: how a worker finds and runs work: the top-level loop (exploit the own deque,
// poll the injector, explore by stealing, then sleep), the steal sweep, and the helping
// waits of join and task_group. Not the idle accounting (sleep.cpp) nor lifecycle
// (pool.cpp). Protocols: DESIGN.md [P-DEQUE], [P-SLEEP], [P-JOIN].
#include <sched.h>

#include <chrono>

#include "forkjoin/detail/atomic.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {

// The idle ladder [P-SLEEP Ladder]: PAUSE-spin for options.spin_time (measured in time,
// not iterations: PAUSE latency differs ~10x between cores), then yield_rounds yields.
class backoff {
 public:
  static constexpr std::chrono::microseconds k_yield_time_limit{1000};
  explicit backoff(const pool_options& o) noexcept : spin_(o.spin_time), yield_rounds_(o.yield_rounds) { reset(); }
  void reset() noexcept {
    start_ = std::chrono::steady_clock::now();
    yields_left_ = yield_rounds_;
  }
  // False once the budget is spent: time to park.
  bool step() noexcept {
    if (std::chrono::steady_clock::now() - start_ < spin_) {
      for (int i = 0; i < 16; ++i) cpu_relax();
      return true;
    }
    // On a busy machine each yield may hand over a whole time slice: cap the yield phase
    // in time too, so that idle workers still park within milliseconds (idle guarantee: < 10 ms,
    // test IdleWorkersParkWithin10msAndBurnUnderOnePercent).
    if (yields_left_ == 0 || std::chrono::steady_clock::now() - start_ > spin_ + k_yield_time_limit) return false;
    --yields_left_;
    sched_yield();
    return true;
  }

 private:
  std::chrono::nanoseconds spin_;
  unsigned yield_rounds_;
  std::chrono::steady_clock::time_point start_;
  unsigned yields_left_ = 0;
};

std::uint64_t next_random(worker& w) noexcept {
  std::uint64_t x = w.rng_;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  w.rng_ = x;
  return x;
}

void bump(std::atomic<std::uint64_t>& counter) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

bool below_steal_limit(const worker& w) noexcept {
  return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < w.steal_limit_;
}

}  // namespace

job_header* pool_impl::take_injected(worker& w, bool batch) noexcept {
  const std::size_t len = injector_.size();
  if (len == 0) return nullptr;
  std::size_t taken = 0;
  job_header* first = injector_.pop_batch(batch ? len / num_threads() + 1 : 1, taken);
  if (first == nullptr) return nullptr;
  if (taken > 1) {
    for (job_header* j = first->next; j != nullptr;) {
      job_header* next = j->next;
      w.deque_.push_private(j);  // bad_alloc here would lose jobs: terminate (noexcept) instead
      j = next;
    }
    on_new_internal_work(w);
  }
  return first;
}

job_header* pool_impl::steal_sweep(worker& w, std::int32_t preferred, bool batch) noexcept {
  const std::size_t n = slots_.size();
  for (;;) {
    bool lost = false;
    auto try_victim = [&](std::size_t v) -> job_header* {
      bump(w.steal_attempts_);
      steal_outcome<job_header*> r = slots_[v]->deque_.steal();
      if (r.result == steal_result::success) {
        r.value->stolen_by.store(static_cast<std::int32_t>(w.index_), std::memory_order_relaxed);
        bump(w.steals_);
        if (options_.steal_half) steal_more(w, *slots_[v]);
        return r.value;
      }
      if (r.result == steal_result::lost_race) {  // [P-DEQUE E4] not empty, sweep again
        lost = true;
        bump(w.lost_races_);
      }
      return nullptr;
    };
    if (preferred >= 0 && static_cast<std::uint32_t>(preferred) != w.index_)
      if (job_header* j = try_victim(static_cast<std::size_t>(preferred))) return j;
    const std::size_t start = n > 1 ? next_random(w) % n : 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t v = (start + i) % n;
      if (v == w.index_) continue;
      if (job_header* j = try_victim(v)) return j;
    }
    if (job_header* j = take_injected(w, batch)) return j;
    if (!lost) return nullptr;
  }
}

// pool_options::steal_half: after one successful steal, take up to half of what the victim
// still shows and keep it on w's own deque (published, so others can take it in turn).
void pool_impl::steal_more(worker& w, worker& victim) noexcept {
  const std::int64_t extra = victim.deque_.public_size() / 2;
  std::int64_t moved = 0;
  for (std::int64_t i = 0; i < extra; ++i) {
    bump(w.steal_attempts_);
    steal_outcome<job_header*> r = victim.deque_.steal();
    if (r.result != steal_result::success) {
      if (r.result == steal_result::lost_race) bump(w.lost_races_);
      break;
    }
    r.value->stolen_by.store(static_cast<std::int32_t>(w.index_), std::memory_order_relaxed);
    bump(w.steals_);
    w.deque_.push_private(r.value);  // bad_alloc would lose the job: terminate (noexcept) instead
    ++moved;
  }
  if (moved > 0) on_new_internal_work(w);
}

bool pool_impl::any_work_visible() const noexcept {
  if (injector_.size() != 0) return true;
  for (const auto& s : slots_)
    if (s->deque_.has_public_work()) return true;
  return false;
}

job_header* pool_impl::find_work_idle(worker& w) noexcept {
  // [INV-SEARCH] past the searcher cap, go straight to fall_asleep: its ReadJob is the one
  // sweep, made while counted as sleeping, so pushers see an idle worker [P-POST Publish].
  bool searching = try_start_searching(w);
  if (!searching) {
    fall_asleep(w, nullptr, nullptr);
    searching = true;
  }
  for (;;) {
    backoff b(options_);
    do {
      if (job_header* j = steal_sweep(w, -1, true)) {
        stop_searching(w);
        return j;
      }
      if (shutting_down()) {  // [P-TERM] drained: nothing visible anywhere
        stop_searching(w);
        return nullptr;
      }
    } while (searching && b.step());
    fall_asleep(w, nullptr, nullptr);
    searching = true;
  }
}

void pool_impl::worker_main(worker& w) noexcept {
  tls_worker = &w;
  w.rng_ = 0x9E3779B97F4A7C15ull * (w.index_ + 1);
  w.steal_limit_ = steal_limit_of_this_thread();
  for (;;) {
    job_header* j = nullptr;
    if (++w.ticks_ >= k_inject_poll_interval) {  // the injector never starves behind local work
      w.ticks_ = 0;
      j = take_injected(w, true);
    }
    if (j == nullptr) j = w.deque_.pop();
    if (j == nullptr) j = find_work_idle(w);
    if (j == nullptr) break;
    j->execute(j);
  }
  tls_worker = nullptr;
}

template <class Done, class Announce>
void pool_impl::help_until(worker& w, std::int32_t preferred, Done done, Announce announce) noexcept {
  for (;;) {
    backoff b(options_);
    while (!done()) {
      job_header* j = w.deque_.pop();
      // [P-JOIN Stack] stolen jobs nest on this stack: stop stealing past half of it.
      if (j == nullptr && !below_steal_limit(w)) j = steal_sweep(w, preferred, false);
      if (j != nullptr) {
        stop_searching(w);
        j->execute(j);
        b.reset();
        continue;
      }
      if (!b.step()) break;
    }
    if (done() || !announce()) {
      stop_searching(w);
      return;
    }
    fall_asleep(
        w, [](const void* ctx) { return !(*static_cast<const Done*>(ctx))(); }, &done);
  }
}

void wait_for_join(worker& w, join_latch& latch, const job_header& stolen) noexcept {
  w.pool_->help_until(
      w, stolen.stolen_by.load(std::memory_order_relaxed),  // leapfrog: the thief first
      [&latch] { return latch.probe(); }, [&latch] { return latch.try_announce_sleep(); });
}

void wait_for_group(worker& w, count_latch& latch) noexcept {
  w.pool_->help_until(
      w, -1, [&latch] { return latch.done(); }, [&latch, &w] { return latch.try_announce_sleep(w.index_); });
}

}  // namespace forkjoin::detail
