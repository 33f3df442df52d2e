// worker.cpp: how a worker finds and runs work: the top-level loop (exploit the own deque,
// poll the injector, explore by stealing, then sleep), the steal sweep, and the helping
// waits of join and task_group, and the cold entry points of worker_api.hpp that reach
// the pool. Not the idle accounting (sleep.cpp) nor lifecycle (pool.cpp). Protocols:
// DESIGN.md [P-DEQUE], [P-SLEEP], [P-JOIN].
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "crowding.hpp"
#include "forkjoin/detail/atomic.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {

// The idle ladder [P-SLEEP Window]: sweep with a few PAUSEs between sweeps for the
// worker's spin window (measured in time, not iterations: PAUSE latency differs ~10x
// between cores), then park. An oversubscribed pool keeps yielding after the spin, as the
// ladder did before the window was learned: spin_time of PAUSE, then up to yield_rounds
// sched_yield rounds (at most 1 ms of them), because there a spinning thread takes the CPU
// from a thread that works.
class backoff {
 public:
  static constexpr std::chrono::microseconds k_yield_time_limit{1000};
  // `wait`: a helping wait's ladder (pool_impl::spin_window says how long), else the idle one.
  backoff(const pool_impl& p, worker_slot& w, bool wait) noexcept : p_(p), w_(w), wait_(wait) {}
  backoff(const backoff&) = delete;
  backoff& operator=(const backoff&) = delete;
  ~backoff() { note_spin(); }
  // Cheap: the clock starts at the first step(), not here. A helping wait resets after
  // every job it runs, and clock_gettime costs tens of nanoseconds (far more on some VMs).
  void reset() noexcept {
    if (!started_) return;  // the common case: a job found before any step
    note_spin();
    started_ = false;
  }
  // False once the budget is spent: time to park.
  bool step() noexcept {
    const auto now = std::chrono::steady_clock::now();
    const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
    const bool first = !started_;
    if (first) {
      start_ = now;
      started_ = true;
      spin_ = p_.spin_window(w_, wait_);  // here, not in the constructor: most waits end before a step
      yields_left_ = p_.yield_rounds();
      if (crowded(now_ns)) {  // [P-SLEEP Crowd] spin spin_time, no yields, then park
        spin_ = std::min(spin_, p_.options().spin_time);
        yields_left_ = 0;
      }
    } else if (now - last_ > k_crowd_spin_gap && !p_.oversubscribed()) {
      // [P-SLEEP Crowd] preempted while spinning, and not by the pool's own extra threads
      note_crowded(now_ns);
      last_ = now;
      return false;
    }
    last_ = now;
    if (w_.trace_ != nullptr) {  // the idle path only: the trace's spin span, on the ring's clock
      trace_last_ = w_.trace_->now();
      if (first) trace_start_ = trace_last_;
    }
    if (now - start_ < spin_) {
      // A few PAUSEs between sweeps: a sweep of a quiet pool is a handful of loads, and a
      // new job is seen within a fraction of a microsecond.
      for (int i = 0; i < 4; ++i) cpu_relax();
      return true;
    }
    // On a busy machine each yield may hand over a whole time slice: cap the yield phase
    // in time too, so that idle workers still park within milliseconds.
    if (yields_left_ == 0 || now - start_ > spin_ + k_yield_time_limit) return false;
    --yields_left_;
    return yield_if_uncrowded();  // [P-SLEEP Crowd] a yield that lost the CPU: park
  }
  // The first step's time (the start of this idle stretch), if a step was taken.
  bool started() const noexcept { return started_; }
  std::chrono::steady_clock::time_point start() const noexcept { return start_; }

 private:
  // Statistics (time_spinning) and the trace's spin span: first to last step, from the
  // clock readings step() makes anyway.
  void note_spin() noexcept {
    if (!started_ || last_ == start_) return;
    const auto ns = static_cast<std::uint64_t>(std::chrono::nanoseconds(last_ - start_).count());
    w_.spinning_ns_.store(w_.spinning_ns_.load(std::memory_order_relaxed) + ns, std::memory_order_relaxed);
    if (w_.trace_ != nullptr) w_.trace_->record(trace_kind::spin, trace_start_, trace_last_, 0, 0);
  }

  std::chrono::steady_clock::time_point start_, last_;
  std::uint64_t trace_start_ = 0, trace_last_ = 0;  // the same two instants on the trace ring's clock
  std::chrono::nanoseconds spin_{0};
  const pool_impl& p_;
  worker_slot& w_;
  const bool wait_;
  bool started_ = false;
  unsigned yields_left_ = 0;
};

// pool_impl::fall_asleep, timed for pool::statistics (time_parked) and traced as a park span.
void fall_asleep_noted(pool_impl& p, worker_slot& w, bool (*wanted)(const void*), const void* ctx) noexcept {
  const std::uint64_t parks = w.sleep_.parks();
  const std::uint64_t t0 = steady_ns(), tt0 = w.trace_ != nullptr ? w.trace_->now() : 0;
  p.fall_asleep(w, wanted, ctx);
  const std::uint64_t t1 = steady_ns();
  w.parked_ns_.store(w.parked_ns_.load(std::memory_order_relaxed) + (t1 - t0), std::memory_order_relaxed);
  if (w.trace_ != nullptr)
    w.trace_->record(trace_kind::park, tt0, w.trace_->now(), w.sleep_.parks() != parks ? 1 : 0, 0);
}

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
  const std::uint32_t tag = w.deque_.tag();  // [P-ISO Steal] an isolated thief takes only its region's jobs
  for (;;) {
    bool lost = false;
    auto try_victim = [&](std::size_t v) -> job_header* {
      bump(w.steal_attempts_);
      worker_slot& victim = slot(v);
      steal_outcome<job_header*> r = tag == 0 ? victim.deque_.steal() : victim.deque_.steal_tagged(tag);
      if (r.result == steal_result::success) {
        r.value->stolen_by.store(static_cast<std::int32_t>(w.index_), std::memory_order_relaxed);
        bump(w.steals_);
        if (w.trace_ != nullptr) w.trace_->instant(trace_kind::steal, reinterpret_cast<std::uintptr_t>(r.value), v);
        w.found_tag_ = r.tag;  // [P-ISO Adopt] run_stolen runs it under this tag
        if (options_.steal_half && r.tag == tag) steal_more(w, victim);
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
    for (std::size_t k = 0, spares = spare_slot_count(); k < spares; ++k)  // [P-BLOCK Spare] their deques too
      if (n + k != w.index_)
        if (job_header* j = try_victim(n + k)) return j;
    if (tag == 0) {  // [P-ISO Steal] outside work is never run inside an isolated region
      w.found_tag_ = 0;
      if (job_header* j = take_injected(w, batch)) return j;
    }
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
    steal_outcome<job_header*> r = victim.deque_.steal_tagged(w.deque_.tag());  // [P-ISO Adopt] same tag only
    if (r.result != steal_result::success) {
      if (r.result == steal_result::lost_race) bump(w.lost_races_);
      break;
    }
    r.value->stolen_by.store(static_cast<std::int32_t>(w.index_), std::memory_order_relaxed);
    bump(w.steals_);
    if (w.trace_ != nullptr)
      w.trace_->instant(trace_kind::steal, reinterpret_cast<std::uintptr_t>(r.value), victim.index_);
    w.deque_.push_private(r.value);  // bad_alloc would lose the job: terminate (noexcept) instead
    ++moved;
  }
  if (moved > 0) on_new_internal_work(w);
}

bool pool_impl::any_work_visible() const noexcept {
  if (injector_.size() != 0) return true;
  auto visible = [](const worker_slot& s) {
    if (s.deque_.has_public_work()) return true;
    s.deque_.request_publication(job_deque::k_asked);  // [P-DEQUE X5] publish and wake at the next push
    return false;
  };
  for (const auto& s : slots_)
    if (visible(*s)) return true;
  for (std::size_t k = 0, spares = spare_slot_count(); k < spares; ++k)  // [P-BLOCK Spare]
    if (visible(spare_slot(k))) return true;
  return false;
}

job_header* pool_impl::find_work_idle(worker_slot& w) noexcept {
  for (;;) {
    job_header* j = search_until_leaving(w);
    // [P-LEND L6] a post withdrawn between the worker's look at its mailbox and its take
    // leaves it empty-handed: that is not the pool's end, so it goes back to idling
    if (j != nullptr || shutting_down() || w.left_) return j;  // [P-LENT W1] a lent slot went away
  }
}

bool pool_impl::idle_park(worker_slot& w, bool (*wanted)(const void*), const void* ctx) noexcept {
  if (lender_.summon == nullptr) {
    fall_asleep_noted(*this, w, wanted, ctx);
    return false;
  }
  // [P-LENT W1] a lent thread does not park here: it goes back to its own pool
  w.left_ = sleep_.fall_asleep_or_leave(w.sleep_, wanted, ctx);
  return w.left_;
}

job_header* pool_impl::search_until_leaving(worker_slot& w) noexcept {
  if (w.deque_.tags_dirty() && w.deque_.tag() == 0) w.deque_.settle_tags();  // [P-ISO Settle]
  // [P-LEND L3] a poster that sees 1 (or a reservation, 2) may rely on this loop; only a
  // worker at 0 can be here for the first time, and nobody else moves it from 0
  // [P-LENT W1] a lent slot is never available: a post to it could arrive after it went away
  if (w.available_.load(std::memory_order_relaxed) == 0 && lender_.summon == nullptr)
    w.available_.store(1, std::memory_order_relaxed);
  // [P-LEND L3] a parked idle worker re-checks its mailbox (ReadJob); its poster wakes it
  auto no_mail = [](const void* s) {
    return static_cast<const worker_slot*>(s)->mailbox_.load(std::memory_order_relaxed) == nullptr;
  };
  // [INV-SEARCH] past the searcher cap, go straight to fall_asleep: its ReadJob is the one
  // sweep, made while counted as sleeping, so pushers see an idle worker [P-POST Publish].
  bool searching = sleep_.try_start_searching(w.sleep_);
  // [P-SLEEP Window] the stretch measured for the window: from the first spin step, or the
  // first park, to the job that ends it.
  std::chrono::steady_clock::time_point idle_since{};
  bool timed = false;
  auto start_timing = [&](const backoff* b) {
    if (timed) return;
    idle_since = b != nullptr ? b->start() : std::chrono::steady_clock::now();
    timed = true;
  };
  auto found = [&](job_header* j) {
    if (timed) learn_gap(w, std::chrono::steady_clock::now() - idle_since);
    return leave_idle(w, j);
  };
  if (!searching) {
    start_timing(nullptr);
    if (idle_park(w, no_mail, &w)) return nullptr;
    searching = true;
  }
  for (;;) {
    backoff b(*this, w, false);
    do {
      // [P-LEND L3] mail first; [P-LEND R3] a reserved worker steals nothing: its post is coming
      if (w.mailbox_.load(std::memory_order_relaxed) != nullptr || w.available_.load(std::memory_order_relaxed) == 2)
        return found(nullptr);
      if (job_header* j = steal_sweep(w, -1, true)) return found(j);
      if (shutting_down()) return leave_idle(w, nullptr);  // [P-TERM] drained: nothing visible anywhere
    } while (searching && b.step());
    if (b.started())
      start_timing(&b);
    else
      start_timing(nullptr);
    if (idle_park(w, no_mail, &w)) return nullptr;
    searching = true;
  }
}

// [P-SLEEP Window] a stretch the window could have covered (at most max_spin_time) widens
// it to twice that stretch, so the next one is spun through; shorter ones shrink it by an
// eighth; a longer one halves it. Always within [spin_time, max_spin_time].
void pool_impl::learn_gap(worker_slot& w, std::chrono::nanoseconds gap) noexcept {
  const std::int64_t lo = options_.spin_time.count();
  const std::int64_t hi = std::max(lo, static_cast<std::int64_t>(options_.max_spin_time.count()));
  const std::int64_t g = gap.count(), cur = w.spin_window_ns_;
  const std::int64_t next = g <= hi ? std::max(cur - cur / 8, 2 * g) : cur / 2;
  w.spin_window_ns_ = std::clamp(next, lo, hi);
}

// A wait spins at least k_wait_spin: the awaited thread is working, and a parked waiter
// costs it a futex wake when it is done. An oversubscribed pool spins spin_time, then
// yields (backoff): the window is not used there.
std::chrono::nanoseconds pool_impl::spin_window(const worker_slot& w, bool wait) const noexcept {
  using ns = std::chrono::nanoseconds;
  if (oversubscribed_) return options_.spin_time;
  const ns learned = std::max<ns>(options_.spin_time, ns(w.spin_window_ns_));  // 0: not learned yet
  return wait ? std::min<ns>(std::max<ns>(learned, k_wait_spin), std::max(options_.spin_time, options_.max_spin_time))
              : learned;
}

job_header* pool_impl::leave_idle(worker_slot& w, job_header* found) noexcept {
  sleep_.stop_searching(w.sleep_);
  // [P-LEND L4] seq_cst: Dekker with the poster's L1/L2. [P-LEND R3] a reserved worker (2)
  // waits for its reserver's post still at 2, so that post is prompt and never withdrawn;
  // only this thread moves available_ away from 2.
  std::uint32_t available = w.available_.load(std::memory_order_relaxed);
  for (int round = 0;; ++round) {
    if (available != 2) {
      if (w.available_.compare_exchange_weak(available, 0, std::memory_order_seq_cst,
                                             std::memory_order_relaxed))  // [P-LEND L4] Dekker with L2
        break;
      continue;  // reserved meanwhile (R1), or a spurious failure
    }
    if (w.mailbox_.load(std::memory_order_relaxed) != nullptr) {
      w.available_.store(0, std::memory_order_seq_cst);  // [P-LEND R3] L4 once mail is there: Dekker with L2
      break;
    }
    if (round < 64)
      cpu_relax();
    else
      sched_yield();
  }
  if (w.mailbox_.load(std::memory_order_seq_cst) == nullptr) return found;     // [P-LEND L4] Dekker with L1
  job_header* mail = w.mailbox_.exchange(nullptr, std::memory_order_acquire);  // [P-LEND L5] pairs with L1
  if (mail == nullptr) return found;                                           // withdrawn by its poster [P-LEND L6]
  if (found != nullptr) {  // the named job first; the stolen one stays stealable
    const std::uint32_t own = w.deque_.tag();
    w.deque_.set_tag(w.found_tag_);  // [P-ISO Adopt] it keeps the region it was stolen from
    w.deque_.push_private(found);
    w.deque_.set_tag(own);
    on_new_internal_work(w);
  }
  w.found_tag_ = 0;  // [P-ISO Adopt] a job handed over by name belongs to no region
  return mail;
}

void pool_impl::worker_main(worker_slot& w) noexcept {
  tls_worker = &w;
  w.steal_limit_ = steal_limit_of_this_thread();
  if (budgeted_) take_worker_token(&shutdown_);  // [P-BUDGET Start]
  work(w);
  give_back_token();  // [P-BUDGET Park] leaving for good
  tls_worker = nullptr;
}

void pool_impl::work(worker_slot& w) noexcept {
  for (;;) {
    job_header* j = nullptr;
    if (++w.ticks_ >= k_inject_poll_interval) {  // the injector never starves behind local work
      w.ticks_ = 0;
      j = take_injected(w, true);
    }
    if (j == nullptr) j = w.deque_.pop();
    if (j != nullptr) {
      bump(w.jobs_run_);
      j->execute(j);
      continue;
    }
    j = find_work_idle(w);
    if (j == nullptr) break;
    bump(w.jobs_run_);
    run_stolen(w, j);  // [P-ISO Adopt]
  }
}

void serve_lent_slot(pool_impl& p, std::size_t slot) noexcept { p.serve_lent(p.slot(slot)); }

void pool_impl::serve_lent(worker_slot& w) noexcept {
  // [P-LENT W4] the slot's last lent thread may still be on its way out after it went away
  // (W1): leave it a note (2), and it summons a thread again once gone. Acquire: pairs with
  // that thread's release, its slot state is ours.
  for (std::uint32_t s = w.lent_state_.load(std::memory_order_relaxed);;) {
    if (s == 0) {
      if (w.lent_state_.compare_exchange_weak(s, 1, std::memory_order_acquire, std::memory_order_relaxed)) break;
    } else if (w.lent_state_.compare_exchange_weak(s, 2, std::memory_order_relaxed, std::memory_order_relaxed)) {
      return;
    }
  }
  worker* const outer = tls_worker;
  tls_worker = &w;
  w.steal_limit_ = steal_limit_of_this_thread();
  w.left_ = false;
  work(w);  // the waker counted the slot as searching [INV-COUNT]; it returns once W1 sent it away
  if (lender_.leaving != nullptr) lender_.leaving(lender_.ctx, *this);
  tls_worker = outer;
  // [P-LENT W4] release: pairs with the next thread's acquire CAS
  if (w.lent_state_.exchange(0, std::memory_order_release) == 2) summon(w.index_);
}

template <class Done, class Announce>
void pool_impl::help_until(worker_slot& w, std::int32_t preferred, Done done, Announce announce) noexcept {
  const bool isolated = w.deque_.tag() != 0;  // [P-ISO Wait]
  for (;;) {
    backoff b(*this, w, true);
    while (!done()) {
      job_header* j = isolated ? pop_for_wait(w) : w.deque_.pop();  // [P-ISO Mark]
      if (j != nullptr) {
        sleep_.stop_searching(w.sleep_);
        bump(w.jobs_run_);
        j->execute(j);
        b.reset();
        continue;
      }
      // [P-JOIN Stack] stolen jobs nest on this stack: stop stealing past half of it.
      if (!below_steal_limit(w)) j = steal_sweep(w, preferred, false);
      if (j != nullptr) {
        sleep_.stop_searching(w.sleep_);
        bump(w.jobs_run_);
        run_stolen(w, j);  // [P-ISO Adopt]
        b.reset();
        continue;
      }
      if (!b.step()) break;
    }
    const std::uint32_t tag = w.deque_.tag();
    if (isolated) {
      // [P-ISO Share] the word it will sleep on, for the latch's setter
      w.iso_word_.store(shared_tag(tag) ? &shared_park_word(tag) : &w.iso_seq_, std::memory_order_relaxed);
      w.iso_parked_.store(true, std::memory_order_relaxed);  // [P-ISO Park] ordered by announce()'s release
    }
    if (done() || !announce()) {
      w.iso_parked_.store(false, std::memory_order_relaxed);
      sleep_.stop_searching(w.sleep_);
      return;
    }
    if (isolated && shared_tag(tag)) {  // [P-ISO Share] the latch or a push into the region wakes it
      sleep_.stop_searching(w.sleep_);
      const bool held = give_back_token();  // [P-BUDGET Park] as fall_asleep does
      job_header* j = park_shared(
          w, [](const void* ctx) { return (*static_cast<const Done*>(ctx))(); }, &done,
          !below_steal_limit(w));  // [P-JOIN Stack] as the search above
      w.iso_parked_.store(false, std::memory_order_relaxed);
      retake_token(held, &shutdown_);
      if (j != nullptr) {
        bump(w.jobs_run_);
        run_stolen(w, j);  // [P-ISO Adopt]
      }
      continue;  // search the region again, or leave once done
    }
    if (isolated) {  // [P-ISO Park] only the latch wakes an isolated waiter
      sleep_.stop_searching(w.sleep_);
      const bool held = give_back_token();  // [P-BUDGET Park] as fall_asleep does
      park_isolated(
          w, [](const void* ctx) { return (*static_cast<const Done*>(ctx))(); }, &done);
      retake_token(held, &shutdown_);
      return;
    }
    fall_asleep_noted(
        *this, w, [](const void* ctx) { return !(*static_cast<const Done*>(ctx))(); }, &done);
  }
}

namespace {
void wait_for_join(worker& w, join_frame_base& frame) noexcept {
  w.pool_->help_until(
      slot_of(w), frame.stolen_by.load(std::memory_order_relaxed),  // leapfrog: the thief first
      [&frame] { return frame.probe(); }, [&frame, &w] { return frame.try_announce_sleep(w.index_); });
}
}  // namespace

bool reclaim_join_job(worker& w, join_frame_base& frame) noexcept {
  trace_ring* const ring = w.trace_;
  if (ring != nullptr)  // [P-TRACE Join] f's span, from the spawn on_new_job recorded
    ring->record(trace_kind::join_f, frame.trace_spawn >> 1, ring->now(), frame.trace_spawn & 1, 0);
  // Jobs above the frame are ones f left behind (task_group children whose group outlives
  // f): run them here; the frame is beneath them unless it ran as a job already (stolen,
  // or popped by a wait inside f). pop() shares what it returns ([P-JOIN Share]).
  job_header* back = w.deque_.pop();
  while (back != nullptr && back != &frame) {
    bump(slot_of(w).jobs_run_);
    back->execute(back);
    back = w.deque_.pop();
  }
  if (back == &frame) {
    if (ring == nullptr) return true;
    // [P-TRACE Join] traced: g runs as a job, whose span execute records; its latch is then
    // set, so the join goes on as after a steal.
    frame.stolen_by.store(job_header::k_run_by_owner, std::memory_order_relaxed);
    frame.execute(&frame);
    return false;
  }
  // Not on the deque any more, so shared ([P-JOIN Share]): the latch exists.
  if (!frame.probe()) wait_for_join(w, frame);
  return false;
}

bool run_own_until(worker& w, bool (*done)(const void*), const void* ctx) noexcept {
  worker_slot& s = slot_of(w);
  while (!done(ctx)) {
    job_header* j = pool_impl::pop_for_wait(s);  // [P-ISO Mark] as help_until's pop
    if (j == nullptr) return false;
    bump(s.jobs_run_);
    j->execute(j);
  }
  return true;
}

void wait_for_group(worker& w, count_latch& latch) noexcept {
  w.pool_->help_until(
      slot_of(w), -1, [&latch] { return latch.done(); }, [&latch, &w] { return latch.try_announce_sleep(w.index_); });
}

namespace {
// [P-TRACE Join] the spawn of j, just pushed: an instant, and its time kept in j for f's span.
void trace_spawn(trace_ring& r, job_header* j, std::uint64_t split) noexcept {
  const std::uint64_t t = r.now();
  r.record(trace_kind::spawn, t, t, reinterpret_cast<std::uintptr_t>(j), 0);
  j->trace_spawn = t << 1 | split;
}

// The body of the three below, inlined into each: push's slow path is join's and
// task_group's common path when workers are idle.
// `traced`: chase_lev_deque::k_traced for a traced worker, whose deque keeps asking
// ([P-TRACE Join]), else 0.
// `plain_newest`: 1 when the newest element was pushed as itself (publish's argument).
[[gnu::always_inline]] inline void publish_and_notify(worker& w, std::uint8_t traced,
                                                      std::int64_t plain_newest = 0) noexcept {
  // [P-POST Publish] while any worker is idle, *asked* stays set, so every push publishes:
  // an idle worker can take each new job even if this worker then runs long.
  const bool someone_idle = w.idle_word_->load(std::memory_order_relaxed) != 0;
  // Nothing private (entering an isolated region or a blocking call with nothing queued):
  // nothing to publish, nobody to wake, and the request stays pending [P-DEQUE X2].
  if (!w.deque_.publish(static_cast<std::uint8_t>((someone_idle ? job_deque::k_asked : 0) | traced), plain_newest))
    return;
  w.pool_->sleep().notify_internal_work();
  const std::uint32_t tag = w.deque_.tag();
  if (pool_impl::shared_tag(tag)) [[unlikely]]
    pool_impl::wake_shared_region(tag);  // [P-ISO Share] K1: its parked waiters may run it
}

FORKJOIN_COLD void traced_new_job(worker& w, job_header* j, std::uint64_t split) noexcept {
  trace_spawn(*w.trace_, j, split);
  publish_and_notify(w, job_deque::k_traced);
}
}  // namespace

void on_new_job(worker& w, job_header* j) noexcept {
  if (w.trace_ != nullptr) [[unlikely]]
    return traced_new_job(w, j, 0);
  publish_and_notify(w, 0, 1);  // j was pushed as itself
}

void on_new_split(worker& w, job_header* j) noexcept {
  if (w.trace_ != nullptr) [[unlikely]]
    return traced_new_job(w, j, 1);
  publish_and_notify(w, 0);
}

std::atomic<job_header*>* push_job_slow(job_header* slot_value, job_header* j) {
  worker& w = *tls_worker;
  w.deque_.push_private(slot_value);
  std::atomic<job_header*>* const slot = w.deque_.newest_slot();
  if (w.deque_.publish_requested()) {  // j's slot holds its private form: publish shares it
    if (w.trace_ != nullptr) [[unlikely]]
      traced_new_job(w, j, 0);
    else
      publish_and_notify(w, 0);
  }
  return slot;
}

void on_new_internal_work(worker& w) noexcept { publish_and_notify(w, w.trace_ != nullptr ? job_deque::k_traced : 0); }

void wake_worker(worker& w) noexcept {
  w.pool_->sleep().wake_specific(slot_of(w).sleep_);
  pool_impl::wake_isolated(slot_of(w));  // [P-ISO Park]
}

void wake_join_waiter(std::uint32_t waiter_index) noexcept {
  // [P-JOIN J1] the frame's job ran on a thread of its owner's pool (a thief, a spare, the
  // owner itself): the setter's pool is the waiter's.
  wake_group_waiter(*tls_worker->pool_, waiter_index);
}

void wake_group_waiter(pool_impl& p, std::uint32_t waiter_index) noexcept {
  p.sleep().wake_specific(p.slot(waiter_index).sleep_);
  pool_impl::wake_isolated(p.slot(waiter_index));  // [P-ISO Park]
}

}  // namespace forkjoin::detail
