// task.cpp: explicit tasks on per-team-thread work-stealing deques (forkjoin's Chase-Lev
// deque: owner LIFO, thieves FIFO), taskwait, taskgroup, taskyield. [P-OMP Task]
#include <cstdlib>
#include <cstring>
#include <new>

#include "internal.hpp"

namespace forkjoin::omp {
namespace {

// Above this many queued tasks in a team, new tasks run undeferred (bounds the memory a
// runaway producer can pin; 10^5-task programs stay well below it).
constexpr std::int64_t k_throttle = std::int64_t{1} << 22;

void release(task* t) noexcept {
  if (t->implicit) return;
  if (t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // [P-OMP Task T5] the last reference frees
    t->~task();
    std::free(t);
  }
}

// [P-OMP Task T4] bookkeeping when a task's body has returned.
void finish(task* t) noexcept {
  team* tm = t->owner_team;
  const bool deferred = t->deferred;
  if (deferred) {
    if (t->group != nullptr) t->group->pending.done();
    t->parent->children.done();
    release(t->parent);
  }
  release(t);
  if (deferred)
    tm->pending_tasks.fetch_sub(1, std::memory_order_acq_rel);  // [P-OMP Task T4] pairs with the barrier's acquire
}

task* allocate(void (*cpyfn)(void*, void*), void* data, long arg_size, long arg_align) {
  std::size_t align = arg_align > 0 ? static_cast<std::size_t>(arg_align) : 1;
  std::size_t size = arg_size > 0 ? static_cast<std::size_t>(arg_size) : 0;
  std::size_t header = (sizeof(task) + align - 1) / align * align;
  std::size_t block_align = align > alignof(task) ? align : alignof(task);
  std::size_t total = (header + size + block_align - 1) / block_align * block_align;
  void* block = std::aligned_alloc(block_align, total);
  if (block == nullptr) fatal("out of memory allocating a task");
  task* t = new (block) task;
  t->data = static_cast<char*>(block) + header;
  if (cpyfn != nullptr)
    cpyfn(t->data, data);
  else if (size != 0)
    std::memcpy(t->data, data, size);
  return t;
}
}  // namespace

void run_task(thread_state& ts, task* t) noexcept {
  task* prev = ts.cur_task;
  ts.cur_task = t;
  t->children.owner = &ts;
  t->mark = ts.push_seq;  // [P-OMP Task T3] tasks pushed from now on are its descendants
  t->fn(t->data);
  ts.cur_task = prev;
  finish(t);
}

bool run_any_task(thread_state& ts) noexcept {
  team& t = *ts.cur_team;
  if (t.deques == nullptr) return false;
  if (task* x = t.deques[ts.id].pop()) {
    run_task(ts, x);
    return true;
  }
  const unsigned n = t.nthreads;
  ts.rng ^= ts.rng << 13;
  ts.rng ^= ts.rng >> 7;
  ts.rng ^= ts.rng << 17;
  const unsigned first = static_cast<unsigned>(ts.rng % n);
  for (unsigned k = 0; k < n; ++k) {
    unsigned v = (first + k) % n;
    if (v == ts.id) continue;
    auto r = t.deques[v].steal();
    if (r.result == forkjoin::detail::steal_result::success) {
      run_task(ts, r.value);
      return true;
    }
  }
  return false;
}

}  // namespace forkjoin::omp

using namespace forkjoin::omp;

// flags: 1 untied, 2 final, 4 mergeable, 8 depend, 0x10 priority, 0x2000 detach
FORKJOIN_OMP_EXPORT void GOMP_task(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                                   bool if_clause, unsigned flags, void** depend, int priority, void* detach) {
  (void)priority;  // a hint; every task is scheduled alike
  if ((flags & 8u) != 0 && depend != nullptr) unsupported("task depend clause");
  if ((flags & 0x2000u) != 0 && detach != nullptr) unsupported("task detach clause");
  thread_state& ts = self();
  task* parent = ts.cur_task;
  team& tm = *ts.cur_team;
  // [P-OMP Task T1] undeferred: if(false), an included task of a final task, a team of one,
  // or the throttle; such a task still gets its own task context
  const bool undeferred = !if_clause || parent->final_task || tm.nthreads == 1 ||
                          tm.pending_tasks.load(std::memory_order_relaxed) > k_throttle;
  task* t = allocate(cpyfn, data, arg_size, arg_align);
  t->fn = fn;
  t->parent = parent;
  t->owner_team = &tm;
  t->icvs = parent->icvs;
  t->final_task = (flags & 2u) != 0 || parent->final_task;
  t->current_group = parent->current_group;
  if (undeferred) {
    run_task(ts, t);
    return;
  }
  // [P-OMP Task T2] a deferred child: counted in its parent, its taskgroup and its team
  // before it becomes visible; the push's release publishes the counts and the copy
  t->deferred = true;
  t->group = parent->current_group;
  parent->refs.fetch_add(1, std::memory_order_relaxed);
  parent->children.add();
  if (t->group != nullptr) t->group->pending.add();
  tm.pending_tasks.fetch_add(1, std::memory_order_relaxed);
  t->seq = ts.push_seq++;
  tm.deques[ts.id].push(t);
  tm.wakeup.notify();
}

FORKJOIN_OMP_EXPORT void GOMP_taskwait() {
  thread_state& ts = self();
  wait_descendants(ts, ts.cur_task->children);
}

FORKJOIN_OMP_EXPORT void GOMP_taskwait_depend(void**) { unsupported("taskwait depend clause"); }

FORKJOIN_OMP_EXPORT void GOMP_taskyield() {}

FORKJOIN_OMP_EXPORT void GOMP_taskgroup_start() {
  thread_state& ts = self();
  auto* g = new taskgroup;
  g->pending.owner = &ts;
  g->prev = ts.cur_task->current_group;
  ts.cur_task->current_group = g;
}

FORKJOIN_OMP_EXPORT void GOMP_taskgroup_end() {
  thread_state& ts = self();
  taskgroup* g = ts.cur_task->current_group;
  wait_descendants(ts, g->pending);
  ts.cur_task->current_group = g->prev;
  delete g;
}
