// handback.cpp: tasks a waiter stole but may not run go back to their parent, where the
// parent's own waits find them in O(1). [P-OMP Handback]
#include "internal.hpp"

namespace forkjoin::omp {

task g_returned_closed;

namespace {
task* closed() noexcept { return &g_returned_closed; }

// Checks made by may_run_in_wait for an explicit current task, plus the parent links they
// followed, since the process started (tests bound it).
std::atomic<std::uint64_t> g_walk_steps{0};

// Who may be waiting for what a stack now holds: its task's runner, parked on its wake word
// ([P-OMP Count] C5), and for an implicit task the barrier's waiters on the team's event
// ([P-OMP Wait] W2). Read before the push: once x is on the stack, its runner may run it and
// free the task (x was what kept it alive).
struct waiters {
  thread_state* runner;
  bool implicit;
};

// Links the chain first..last onto the list of the nearest open task from `to` upwards; says
// whom to wake. Every task on the way is alive: a deferred task holds a reference on its
// parent until it is freed ([P-OMP Task T5]), and the chain's tasks are not finished.
waiters push_chain(task* to, task* first, task* last) noexcept {
  task* head = to->returned.load(std::memory_order_relaxed);
  for (;;) {
    if (head == closed()) {  // its body returned: never an implicit task, so a parent exists
      to = to->parent;
      head = to->returned.load(std::memory_order_relaxed);
      continue;
    }
    const waiters w{to->children.owner, to->implicit};
    last->waiting_next = head;
    if (to->returned.compare_exchange_weak(head, first, std::memory_order_release,
                                           std::memory_order_relaxed))  // [P-OMP Handback] H2 pairs with H3, H4
      return w;
  }
}

void wake(team& tm, const waiters& w) noexcept {
  if (w.implicit) tm.wakeup.notify();
  if (w.runner != nullptr) wake_thread(*w.runner);
}

// One task off owner's list. Pushes only add on top, and one thread pops (the one running
// owner, or owning it for an implicit task), so the CAS cannot meet a node popped and pushed
// again (no ABA) and head->waiting_next is stable while it is read.
task* pop_one(task* owner) noexcept {
  task* head = owner->returned.load(std::memory_order_acquire);  // [P-OMP Handback] H3 pairs with H2
  while (head != nullptr && head != closed() &&
         !owner->returned.compare_exchange_weak(head, head->waiting_next, std::memory_order_acquire,
                                                std::memory_order_acquire)) {  // [P-OMP Handback] H3 pairs with H2
  }
  return head == closed() ? nullptr : head;
}
}  // namespace

bool may_run_in_wait(const thread_state& ts, const task* x) noexcept {
  const task* cur = ts.cur_task;
  if (cur->implicit) return x->root == cur;  // every explicit task knows its implicit ancestor
  const std::uint32_t steps = x->depth > cur->depth ? x->depth - cur->depth : 0;
  g_walk_steps.fetch_add(1 + steps, std::memory_order_relaxed);  // a statistic: relaxed
  if (steps == 0) return false;
  const task* p = x->parent;
  for (std::uint32_t up = steps; up > 1; --up) p = p->parent;
  return p == cur;
}

std::uint64_t wait_walk_steps() noexcept { return g_walk_steps.load(std::memory_order_relaxed); }

void hand_back(team& tm, task* x) noexcept { wake(tm, push_chain(x->parent, x, x)); }

bool run_handed_back(thread_state& ts, task* owner) noexcept {
  if (owner->returned.load(std::memory_order_relaxed) == nullptr) return false;  // a hint; H2's wake covers a miss
  task* x = pop_one(owner);  // [P-OMP Handback] H3, H5: only owner's own thread pops
  if (x == nullptr) return false;
  run_task(ts, x);
  return true;
}

void move_handed_back_up(task* t, task* first) noexcept {
  task* last = first;
  while (last->waiting_next != nullptr) last = last->waiting_next;
  team& tm = *t->owner_team;  // read before the push, as the waiters are
  wake(tm, push_chain(t->parent, first, last));
}

}  // namespace forkjoin::omp
