// external_slot.cpp: threads outside a pool that run work in it (pool::run, the oneTBB
// layer's task_arena::execute and waits, an OpenMP region begun outside every pool). Slot 0
// is theirs: one at a time holds it and works there as worker 0, or holds it only to push
// a spawned job onto its deque, where the next holder finds it. A thread that finds it
// held works in a spare slot of its own, within max_outside_threads; beyond that it hands
// its job over and waits; whichever comes first, a worker (or the slot's holder, while it
// waits) taking the job, or the slot freeing, decides who runs it. Protocol: DESIGN.md
// [P-SLOT]; model: models/slot.pml.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cpu_budget.hpp"
#include "forkjoin/detail/waiting_api.hpp"
#include "pool_impl.hpp"

namespace forkjoin::detail {

namespace {
constexpr std::uint32_t k_slot_free = 0;
constexpr std::uint32_t k_slot_held = 1;
constexpr std::uint32_t k_slot_waited = 2;  // held, and a thread may wait for it to free

constexpr std::uint32_t k_unclaimed = 0;
constexpr std::uint32_t k_by_worker = 1;
constexpr std::uint32_t k_by_caller = 2;
}  // namespace

// [P-SLOT D1] the handed-over form of a job: what the injection queue carries while its
// caller waits. Two references: the thread that pops it and the caller.
struct slot_delegate final : job_header {
  slot_delegate(pool_impl& p, job_header& j) noexcept : job_header(&slot_delegate::execute_fn), pool(p), job(j) {}

  static void execute_fn(job_header* h) noexcept {
    auto* d = static_cast<slot_delegate*>(h);
    std::uint32_t c = k_unclaimed;
    // [P-SLOT D4] acq_rel: pairs with the caller's claim in D3, exactly one of the two wins
    if (d->claim.compare_exchange_strong(c, k_by_worker, std::memory_order_acq_rel, std::memory_order_relaxed)) {
      d->job.execute(&d->job);
      pool_impl& p = d->pool;
      {
        const std::lock_guard<std::mutex> lock(p.slot_mutex_);  // [P-SLOT D4] the caller reads done under it
        d->done = true;
      }
      p.slot_cv_.notify_all();
    }
    d->drop();
  }
  void drop() noexcept {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;  // acq_rel: the other holder's accesses first
  }

  pool_impl& pool;
  job_header& job;
  std::atomic<std::uint32_t> claim{k_unclaimed};
  std::atomic<int> refs{2};
  bool done = false;  // under pool.slot_mutex_
};

void run_external(pool_impl& p, job_header& job) { p.run_external(job); }
void run_external_lent(pool_impl& p, job_header& job) { p.run_external(job, true); }

namespace {
// [P-SLOT E1] one address per thread, what slot_holder_ holds while that thread runs a job in
// a slot: only the thread itself writes its own tag, so its relaxed read of its own tag is
// exact whatever other threads store meanwhile (coherence of its own writes).
const void* this_thread_tag() noexcept {
  static thread_local const char tag = 0;
  return &tag;
}
}  // namespace

// [P-SLOT D4] at destruction, once no thread of the pool is left: a delegate whose caller
// won D3 stays queued until some thread pops it, and a pool without workers may never pop
// it. Run what is queued of them (the claim is lost: each drops its last reference).
void pool_impl::drop_queued_delegates() noexcept {
  // [P-SLOT D6] a caller whose job a worker ran may still be leaving run_delegated
  while (delegated_callers_.load(std::memory_order_acquire) != 0) std::this_thread::yield();  // pairs with its release
  std::size_t taken = 0;
  job_header* j = injector_.pop_batch(~std::size_t{0}, taken);
  while (j != nullptr) {
    job_header* next = j->next;
    if (j->execute == &slot_delegate::execute_fn) j->execute(j);
    j = next;
  }
}

void pool_impl::run_external(job_header& job, bool lent) {
  if (shutting_down()) throw std::logic_error("forkjoin: pool used after its destruction began");
  if (fork_generation_ != current_fork_generation())
    throw std::logic_error(
        "forkjoin: pool created before fork() used in the child; create a new pool "
        "(default_pool() is recreated automatically)");
  if (slot_holder_.load(std::memory_order_relaxed) == this_thread_tag()) {  // [P-SLOT E1] ours: re-enter it
    run_reentered(job);
    return;
  }
  std::uint32_t s = k_slot_free;
  // [P-SLOT T1] acquire: pairs with T2's release, the last holder's slot state is ours
  if (slot_word_.compare_exchange_strong(s, k_slot_held, std::memory_order_acquire, std::memory_order_relaxed)) {
    run_in_slot(job);
    return;
  }
  if (run_in_extra_slot(job, !lent)) return;  // [P-SLOT X1] a slot of its own beside slot 0's holder
  run_delegated(job);
}

bool pool_impl::run_in_extra_slot(job_header& job, bool bounded) noexcept {
  // [P-SLOT X1] within max_outside_threads (a lent thread is counted, never refused): the
  // count only bounds how many take a slot
  std::size_t n = extra_holders_.load(std::memory_order_relaxed);
  do {
    if (bounded && n >= max_extra_holders_) return false;
  } while (!extra_holders_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed));
  // [P-SLOT X1] a spare slot, taken by new_spare_slot's acquire CAS (its last holder's state is ours)
  worker_slot* w = new_spare_slot();
  if (w == nullptr) {  // every spare slot is in use, or none could be made: D1 instead
    extra_holders_.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  w->outside_ = true;  // [P-SLOT X2] only this thread reads it while it holds the slot
  run_as_holder(*w, job);
  w->outside_ = false;
  extra_holders_.fetch_sub(1, std::memory_order_relaxed);
  w->spare_in_use_.store(false, std::memory_order_release);  // [P-SLOT X3] pairs with new_spare_slot's acquire CAS
  return true;
}

bool push_external(pool_impl& p, job_header* j) { return p.push_external(j); }

bool pool_impl::push_external(job_header* j) {
  std::uint32_t s = k_slot_free;
  // [P-SLOT S1] T1's take, acquire: pairs with T2's release, the deque's owner state is ours
  if (!slot_word_.compare_exchange_strong(s, k_slot_held, std::memory_order_acquire, std::memory_order_relaxed))
    return false;
  struct release_guard {
    pool_impl& pool;
    ~release_guard() { pool.release_slot(); }  // [P-SLOT S3] T2 and T3, the job left on the deque
  } guard{*this};
  worker_slot& w = *slots_[0];
  w.deque_.push_private(j);  // [P-SLOT S2] on bad_alloc the deque is unchanged and the guard frees the slot
  on_new_job(w, j);          // [P-SLOT S2] published at once: workers may steal it ([P-POST Publish])
  // [P-SLOT S2] the pusher may never run it (it may not wait): the fenced wake-up of
  // injected work, not the unfenced one of an internal push ([P-POST PushFence, ReadSleepers])
  sleep_.notify_external_work();
  return true;
}

void pool_impl::run_reentered(job_header& job) noexcept {
  // [P-SLOT E1] this thread holds the slot in an outer frame, from which it went into another
  // pool: it works as worker 0 again for this job. Jobs it leaves on the deque stay there for
  // the outer frame, which ends as run_in_slot does.
  worker* outer = tls_worker;
  tls_worker = slots_[0].get();
  job.execute(&job);
  tls_worker = outer;
}

void pool_impl::run_in_slot(job_header& job) noexcept {
  slot_holder_.store(this_thread_tag(), std::memory_order_relaxed);  // [P-SLOT E1] only this thread compares its tag
  run_as_holder(*slots_[0], job);
  slot_holder_.store(nullptr, std::memory_order_relaxed);  // [P-SLOT E1] before T2 frees the slot
  release_slot();
}

void pool_impl::run_as_holder(worker_slot& w, job_header& job) noexcept {
  worker* outer = tls_worker;  // a worker of another pool, or nullptr
  tls_worker = &w;
  w.steal_limit_ = steal_limit_of_this_thread();
  if (w.trace_ != nullptr) {
    const std::uint64_t t0 = w.trace_->open(trace_kind::run);
    job.execute(&job);
    w.trace_->close(trace_kind::run, t0);
  } else {
    job.execute(&job);
  }
  // Jobs the caller spawned and did not wait for (only the oneTBB layer leaves any: a
  // task_group::run inside task_arena::execute, tbb/DESIGN.md [P-TBB Arena A4]), and those
  // pushed from outside (S2) that no one took, go to the injection queue, for a worker or
  // the next thread that enters; the slot is left empty.
  while (job_header* left = w.deque_.pop()) inject(left);  // [P-SLOT X3] an extra slot's too
  tls_worker = outer;
}

void pool_impl::release_slot() noexcept {
  // [P-SLOT T2] release: pairs with T1's or D2's acquire, the next holder sees our slot state
  if (slot_word_.exchange(k_slot_free, std::memory_order_release) == k_slot_waited) {
    // [P-SLOT T3] a waiter that marked the word holds the mutex until it waits: taking it
    // here orders this notify after that wait began
    { const std::lock_guard<std::mutex> lock(slot_mutex_); }
    slot_cv_.notify_all();
  }
}

namespace {
// [P-SLOT D7] while a caller waits for this pool, the pool it works for (if any) keeps its
// parallelism: its wait is a blocking call there ([P-BLOCK Begin], which gives the CPU token
// back and starts a spare), else it only gives its token back ([P-BUDGET Block]).
class caller_pause {
 public:
  caller_pause() noexcept : w_(tls_worker) {
    if (w_ != nullptr)
      begin_blocking(*w_);
    else
      held_ = give_back_token();
  }
  ~caller_pause() {
    if (w_ != nullptr)
      end_blocking(*w_);
    else
      retake_token(held_, nullptr);
  }
  caller_pause(const caller_pause&) = delete;
  caller_pause& operator=(const caller_pause&) = delete;

 private:
  worker* const w_;
  bool held_ = false;
};
}  // namespace

void pool_impl::run_delegated(job_header& job) {
  // [P-SLOT D6] counted while it may touch the slot's word, mutex and condition variable: the
  // destructor waits for the count to fall to zero before they are destroyed
  delegated_callers_.fetch_add(1, std::memory_order_relaxed);  // before any access it covers
  struct leave_guard {
    std::atomic<std::size_t>& callers;
    ~leave_guard() {
      callers.fetch_sub(1, std::memory_order_release);  // [P-SLOT D6] pairs with the destructor's acquire
    }
  } leave{delegated_callers_};
  std::optional<caller_pause> blocked(std::in_place);  // [P-SLOT D7] [P-BUDGET Block]
  auto* d = new slot_delegate(*this, job);
  inject(d);  // [P-SLOT D1] a worker, or the slot's holder while it waits, may run it
  std::unique_lock<std::mutex> lock(slot_mutex_);
  for (;;) {
    if (d->done) break;  // [P-SLOT D5] a worker ran it (written under the mutex)
    std::uint32_t s = slot_word_.load(std::memory_order_relaxed);  // a hint: the CASes below decide
    if (s == k_slot_free) {
      // [P-SLOT D2] take the freed slot; acquire: pairs with T2's release. Marked waited:
      // other threads may still wait, so our own release must notify.
      if (!slot_word_.compare_exchange_strong(s, k_slot_waited, std::memory_order_acquire, std::memory_order_relaxed))
        continue;
      std::uint32_t c = k_unclaimed;
      // [P-SLOT D3] acq_rel: pairs with D4's claim, exactly one of the two wins
      if (d->claim.compare_exchange_strong(c, k_by_caller, std::memory_order_acq_rel, std::memory_order_relaxed)) {
        lock.unlock();
        d->drop();  // the thread that pops it finds it claimed and drops the other reference
        blocked.reset();
        run_in_slot(job);
        return;
      }
      lock.unlock();  // a worker runs it: give the slot back (T2 may notify: no mutex held)
      release_slot();
      lock.lock();
      continue;
    }
    // [P-SLOT D2] mark the word so that its release notifies; relaxed: the mutex, held from
    // here to the wait, orders the release's notify after this wait began (T3)
    if (s == k_slot_held &&
        !slot_word_.compare_exchange_strong(s, k_slot_waited, std::memory_order_relaxed, std::memory_order_relaxed))
      continue;
    slot_cv_.wait(lock);
  }
  lock.unlock();
  d->drop();
}

}  // namespace forkjoin::detail
