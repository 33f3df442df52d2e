// cancel.cpp: cancellation (OMP_CANCELLATION=true): cancel and cancellation point for
// parallel, for, sections and taskgroup, and the cancellable barrier. With cancel-var false
// every entry point returns false, as libgomp's. Protocol: [P-OMP Cancel].
#include "internal.hpp"

namespace forkjoin::omp {
namespace {
// gcc's `which` argument
constexpr int k_cancel_parallel = 1;
constexpr int k_cancel_loop = 2;
constexpr int k_cancel_sections = 4;
constexpr int k_cancel_taskgroup = 8;

bool group_cancelled(const taskgroup* g) noexcept {
  // [P-OMP Cancel K3] a taskgroup's set includes the tasks of the taskgroups nested in it;
  // every group on the chain outlives the tasks counted in the innermost one
  for (; g != nullptr; g = g->prev)
    if (g->cancelled.load(std::memory_order_relaxed)) return true;
  return false;
}
}  // namespace

bool task_cancelled_slow(const task& t) noexcept {
  return t.owner_team->cancelled.load(std::memory_order_relaxed) || group_cancelled(t.group);
}

bool creation_cancelled_slow(thread_state& ts) noexcept {
  return ts.cur_team->cancelled.load(std::memory_order_relaxed) || group_cancelled(ts.cur_task->current_group);
}

bool cancellation_point(int which) {
  if (!config().cancellation) return false;
  thread_state& ts = self();
  team& t = *ts.cur_team;
  if ((which & (k_cancel_loop | k_cancel_sections)) != 0) return t.ws_cancelled.load(std::memory_order_relaxed);
  // a cancelled parallel cancels its explicit tasks too
  if ((which & k_cancel_taskgroup) != 0 && group_cancelled(ts.cur_task->current_group)) return true;
  return t.cancelled.load(std::memory_order_relaxed);
}

// [P-OMP Cancel] the flags are relaxed: a cancellation is observed at the next cancellation
// point that loads it, and what the canceller wrote before reaches the others through the
// barrier (or taskgroup end, or dependence) that closes the construct.
bool cancel(int which, bool do_cancel) {
  if (!config().cancellation) return false;
  if (!do_cancel) return cancellation_point(which);
  thread_state& ts = self();
  team& t = *ts.cur_team;
  if ((which & k_cancel_taskgroup) != 0) {  // also outside every parallel region
    // [P-OMP Cancel K3] the innermost taskgroup construct: a worksharing construct's own
    // group (reduction(task, ...), in either front-end) is not one
    taskgroup* g = ts.cur_task->current_group;
    while (g != nullptr && g->workshare && g->prev != nullptr) g = g->prev;
    if (g != nullptr) g->cancelled.store(true, std::memory_order_relaxed);  // [P-OMP Cancel K3]
    return true;
  }
  if (t.level == 0) return true;  // orphaned, outside every parallel region: nothing to cancel
  if ((which & (k_cancel_loop | k_cancel_sections)) != 0) {
    t.ws_cancelled.store(true, std::memory_order_relaxed);  // [P-OMP Cancel K2]
  } else if ((which & k_cancel_parallel) != 0) {
    t.cancelled.store(true, std::memory_order_relaxed);  // [P-OMP Cancel K1]
    t.wakeup.notify();  // [P-OMP Cancel K1] wakes the waiters of cancellable barriers (W2)
  }
  return true;
}

}  // namespace forkjoin::omp
