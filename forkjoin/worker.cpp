// worker.cpp: how a worker finds and runs work: the top-level loop (exploit the own deque,
// poll the injector, explore by stealing, then sleep), the steal sweep, and the helping
// waits of join and task_group, and the cold entry points of worker_api.hpp that reach
// the pool. Not the idle accounting (sleep.cpp) nor lifecycle (pool.cpp). Protocols:
// DESIGN.md [P-DEQUE], [P-SLEEP], [P-JOIN].
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
  // Cheap: the clock starts at the first step(), not here. A helping wait resets after
  // every job it runs, and clock_gettime costs tens of nanoseconds (far more on some VMs).
  void reset() noexcept {
    started_ = false;
    yields_left_ = yield_rounds_;
  }
  // False once the budget is spent: time to park.
  bool step() noexcept {
    const auto now = std::chrono::steady_clock::now();
    if (!started_) {
      start_ = now;
      started_ = true;
    }
    if (now - start_ < spin_) {
      for (int i = 0; i < 16; ++i) cpu_relax();
      return true;
    }
    // On a busy machine each yield may hand over a whole time slice: cap the yield phase
    // in time too, so that idle workers still park within milliseconds.
    if (yields_left_ == 0 || now - start_ > spin_ + k_yield_time_limit) return false;
    --yields_left_;
    sched_yield();
    return true;
  }

 private:
  std::chrono::nanoseconds spin_;
  unsigned yield_rounds_;
  std::chrono::steady_clock::time_point start_;
  bool started_ = false;
  unsigned yields_left_ = 0;
};

void bump(std::atomic<std::uint64_t>& counter) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

bool below_steal_limit(const worker_slot& w) noexcept {
  return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < w.steal_limit_;
}

}  // namespace

job_header* pool_impl::take_injected(worker_slot& w, bool batch) noexcept {
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

job_header* pool_impl::steal_sweep(worker_slot& w, std::int32_t preferred, bool batch) noexcept {
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
      if (r.result == steal_result::lost_race) {  // [P-DEQUE E4] a lost race is not empty: sweep again
        lost = true;
        bump(w.lost_races_);
      }
      return nullptr;
    };
    if (preferred >= 0 && static_cast<std::uint32_t>(preferred) != w.index_)
      if (job_header* j = try_victim(static_cast<std::size_t>(preferred))) return j;
    const std::size_t start = n > 1 ? w.rng_.next() % n : 0;
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
void pool_impl::steal_more(worker_slot& w, worker& victim) noexcept {
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
  for (const auto& s : slots_) {
    if (s->deque_.has_public_work()) return true;
    s->deque_.request_publication(
        chase_lev_deque<job_header*>::k_asked);  // [P-DEQUE X5] publish and wake at the next push
  }
  return false;
}

job_header* pool_impl::find_work_idle(worker_slot& w) noexcept {
  // [INV-SEARCH] past the searcher cap, go straight to fall_asleep: its ReadJob is the one
  // sweep, made while counted as sleeping, so pushers see an idle worker [P-POST Publish].
  bool searching = sleep_.try_start_searching(w.sleep_);
  if (!searching) {
    fall_asleep(w, nullptr, nullptr);
    searching = true;
  }
  for (;;) {
    backoff b(options_);
    do {
      if (job_header* j = steal_sweep(w, -1, true)) {
        sleep_.stop_searching(w.sleep_);
        return j;
      }
      if (shutting_down()) {  // [P-TERM] drained: nothing visible anywhere
        sleep_.stop_searching(w.sleep_);
        return nullptr;
      }
    } while (searching && b.step());
    fall_asleep(w, nullptr, nullptr);
    searching = true;
  }
}

void pool_impl::worker_main(worker_slot& w) noexcept {
  tls_worker = &w;
  w.steal_limit_ = steal_limit_of_this_thread();
  if (budgeted_) take_worker_token(&shutdown_);  // [P-BUDGET Start]
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
  give_back_token();  // [P-BUDGET Park] leaving for good
  tls_worker = nullptr;
}

template <class Done, class Announce>
void pool_impl::help_until(worker_slot& w, std::int32_t preferred, Done done, Announce announce) noexcept {
  for (;;) {
    backoff b(options_);
    while (!done()) {
      job_header* j = w.deque_.pop();
      // [P-JOIN Stack] stolen jobs nest on this stack: stop stealing past half of it.
      if (j == nullptr && !below_steal_limit(w)) j = steal_sweep(w, preferred, false);
      if (j != nullptr) {
        sleep_.stop_searching(w.sleep_);
        j->execute(j);
        b.reset();
        continue;
      }
      if (!b.step()) break;
    }
    if (done() || !announce()) {
      sleep_.stop_searching(w.sleep_);
      return;
    }
    fall_asleep(
        w, [](const void* ctx) { return !(*static_cast<const Done*>(ctx))(); }, &done);
  }
}

void wait_for_join(worker& w, join_latch& latch, const job_header& stolen) noexcept {
  w.pool_->help_until(
      slot_of(w), stolen.stolen_by.load(std::memory_order_relaxed),  // leapfrog: the thief first
      [&latch] { return latch.probe(); }, [&latch] { return latch.try_announce_sleep(); });
}

bool reclaim_join_job(worker& w, job_header& job, join_latch& latch) noexcept {
  // Jobs above `job` are ones f left behind (task_group children whose group outlives f):
  // run them here; `job` is beneath them unless a thief took it.
  job_header* back = w.deque_.pop();
  while (back != nullptr && back != &job) {
    back->execute(back);
    back = w.deque_.pop();
  }
  if (back == &job) return true;
  if (!latch.probe()) wait_for_join(w, latch, job);
  return false;
}

void wait_for_group(worker& w, count_latch& latch) noexcept {
  w.pool_->help_until(
      slot_of(w), -1, [&latch] { return latch.done(); }, [&latch, &w] { return latch.try_announce_sleep(w.index_); });
}

void on_new_internal_work(worker& w) noexcept {
  // [P-POST Publish] while any worker is idle, *asked* stays set, so every push publishes:
  // an idle worker can take each new job even if this worker then runs long.
  const bool someone_idle = w.idle_word_->load(std::memory_order_relaxed) != 0;
  w.deque_.publish(someone_idle ? chase_lev_deque<job_header*>::k_asked : 0);
  w.pool_->sleep().notify_internal_work();
}

void wake_worker(worker& w) noexcept { w.pool_->sleep().wake_specific(slot_of(w).sleep_); }

void wake_group_waiter(pool_impl& p, std::uint32_t waiter_index) noexcept {
  p.sleep().wake_specific(p.slot(waiter_index).sleep_);
}

}  // namespace forkjoin::detail
