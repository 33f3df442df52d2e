// detach.cpp: the task detach clause and its event's fulfilment, and the team's inbox through which
// threads that may not push on a team's deques hand it work. [P-OMP Detach]
#include <mutex>
#include <unordered_map>

#include "internal.hpp"
#include "lock.hpp"

namespace forkjoin::omp {
namespace {

// [P-OMP Detach V1] handles are serial numbers, never reused, so that a second fulfilment or a
// made-up handle is recognised; the registry maps the handles of unfulfilled events to tasks.
struct event_registry {
  std::mutex lock;
  std::unordered_map<std::uintptr_t, task*> live;
  std::uintptr_t last = 0;
};

event_registry& registry() {
  static auto* r = new event_registry;  // never destroyed: a thread may fulfil during exit
  return *r;
}

}  // namespace

void* register_event(task* t) {
  t->detached = true;
  t->detach_left.store(2, std::memory_order_relaxed);  // published by the registry's lock
  t->detach_waiter = &self();                          // runs it if it is undeferred
  event_registry& r = registry();
  std::lock_guard<std::mutex> g(r.lock);
  const std::uintptr_t handle = ++r.last;
  r.live.emplace(handle, t);
  return reinterpret_cast<void*>(handle);
}

bool detached_body_returned(task* t) noexcept {
  // [P-OMP Detach V2] the body's half of the count; pairs with the fulfiller's V2
  return t->detach_left.fetch_sub(1, std::memory_order_acq_rel) == 1;
}

void inbox_push(team& tm, task* t, bool finish) noexcept {
  // the owners of the latches that wait for t; read before t is visible to other threads
  thread_state* parent_owner = t->parent->children.owner;
  thread_state* group_owner = t->group != nullptr ? t->group->pending.owner : nullptr;
  t->inbox_finish = finish;
  mutex_lock(&tm.inbox_lock);  // [P-OMP Detach V4] the unlock publishes t and its body's effects
  t->waiting_next = tm.inbox.load(std::memory_order_relaxed);
  tm.inbox.store(t, std::memory_order_relaxed);
  mutex_unlock(&tm.inbox_lock);
  // [P-OMP Detach V4] wake whoever may be waiting for t: barrier waiters on the team's event
  // (W2), the parent's taskwait and the taskgroup's end on their owners' wake words (C5)
  tm.wakeup.notify();
  if (parent_owner != nullptr) wake_thread(*parent_owner);
  if (group_owner != nullptr) wake_thread(*group_owner);
}

bool run_inbox_slow(thread_state& ts, bool any) noexcept {
  team& tm = *ts.cur_team;
  mutex_lock(&tm.inbox_lock);  // [P-OMP Detach V4] pairs with inbox_push's unlock
  task* prev = nullptr;
  task* x = tm.inbox.load(std::memory_order_relaxed);
  // [P-OMP Task T3] a task wait takes only descendants of its task (their successors are too)
  while (x != nullptr && !any && !may_run_in_wait(ts, x)) {
    prev = x;
    x = x->waiting_next;
  }
  if (x != nullptr) {
    if (prev != nullptr)
      prev->waiting_next = x->waiting_next;
    else
      tm.inbox.store(x->waiting_next, std::memory_order_relaxed);
  }
  mutex_unlock(&tm.inbox_lock);
  if (x == nullptr) return false;
  if (x->inbox_finish)
    finish_task(ts, x);  // [P-OMP Detach V3]
  else
    run_task(ts, x);
  return true;
}

void wait_for_event(thread_state& ts, task* t) noexcept {
  // [P-OMP Detach V6] the encountering task waits for the event, running its descendants
  wait_ladder ladder;
  for (;;) {
    if (t->detach_left.load(std::memory_order_acquire) == 0) break;  // [P-OMP Detach V2] pairs with V2
    if (run_own_descendant(ts)) {
      ladder.restart();
      continue;
    }
    if (ladder.climb()) continue;
    std::uint32_t s = ts.wake.load(std::memory_order_acquire);       // [P-OMP Count C5] pairs with V6's wake
    if (t->detach_left.load(std::memory_order_acquire) == 0) break;  // [P-OMP Detach V2] pairs with V2
    futex_wait(ts.wake, s);
  }
}

void run_undeferred_detached(thread_state& ts, task* t) noexcept {
  begin_undeferred(ts, t);
  t->fn(t->data);
  end_undeferred(ts, t);
}

// [P-OMP Detach] omp_fulfill_event.
void fulfill_event(void* event) {
  task* t = nullptr;
  {
    event_registry& r = registry();
    std::lock_guard<std::mutex> g(r.lock);
    auto it = r.live.find(reinterpret_cast<std::uintptr_t>(event));
    if (it != r.live.end()) {
      t = it->second;
      r.live.erase(it);
    }
  }
  if (t == nullptr) fatal("omp_fulfill_event: unknown event handle, or its event was already fulfilled");
  if (!t->deferred) {
    // [P-OMP Detach V6] the encountering thread completes it; read before the count drops
    thread_state* waiter = t->detach_waiter;
    if (t->detach_left.fetch_sub(1, std::memory_order_acq_rel) == 1)  // [P-OMP Detach V2] pairs with V2
      wake_thread(*waiter);
    return;
  }
  team& tm = *t->owner_team;
  // [P-OMP Detach V2] the event's half; the body's runner completes t if it is last
  if (t->detach_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;  // pairs with the body's V2
  // [P-OMP Detach V3] last: hand t to its team, which finishes it on one of its threads. t
  // counts in pending_tasks, so the team is alive now; `attached` keeps it alive until this
  // thread's last access (the region's end waits for it, [P-OMP Team E3]).
  tm.attached.add();
  inbox_push(tm, t, true);
  tm.attached.done();
}

}  // namespace forkjoin::omp
