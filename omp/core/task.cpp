// task.cpp: explicit tasks on per-team-thread work-stealing deques (forkjoin's Chase-Lev
// deque: owner LIFO, thieves FIFO), taskwait, taskgroup, taskyield. [P-OMP Task]
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#include "internal.hpp"

namespace forkjoin::omp {
namespace {

// Above this many queued tasks in a team, new tasks run undeferred (bounds the memory a
// runaway producer can pin; 10^5-task programs stay well below it).
constexpr std::int64_t k_throttle = std::int64_t{1} << 22;
// [P-OMP Task T1] a thread whose own deque already holds this many tasks runs its new tasks
// (those without dependences or detach) undeferred: the queued ones are the parallel slack the thieves need, and an
// undeferred task costs no latch, no push and no pop (LLVM's libomp does the same when its 256-slot deque is full;
// libgomp past 64 queued tasks per team thread). KMP_ENABLE_TASK_THROTTLING=0 turns it off ([P-OMP KMP]).
constexpr std::int64_t k_local_throttle = 64;

void release(task* t) noexcept { release_task(t); }

// [P-OMP Task T6] a block from ts's cache when it is at most 512 bytes and malloc's
// alignment is enough (a miss takes a plain malloc: an aligned_alloc costs several times
// more, and a producer whose tasks other threads free misses every time); class + 1 in *cls
// (0: a block the cache does not take).
void* allocate_block(thread_state& ts, std::size_t align, std::size_t total, std::uint8_t* cls) {
  if (align <= alignof(std::max_align_t) && total <= 64 * thread_state::k_block_classes) {
    const std::size_t c = (total - 1) / 64;
    *cls = static_cast<std::uint8_t>(c + 1);
    if (void* b = ts.free_blocks[c]) {
      ts.free_blocks[c] = *static_cast<void**>(b);
      --ts.free_block_count[c];
      return b;
    }
    return std::malloc((c + 1) * 64);
  }
  *cls = 0;
  return std::aligned_alloc(align, (total + align - 1) & ~(align - 1));
}

// Copies the arguments into a new task. A detached task's event handle is written into the
// encountering task's variable and the first word of the arguments before the copy, as
// libgomp does (gcc reads it there) [P-OMP Detach V1].
task* allocate(thread_state& ts, void (*cpyfn)(void*, void*), void* data, long arg_size, long arg_align, void* detach) {
  std::size_t align = arg_align > 0 ? static_cast<std::size_t>(arg_align) : 1;
  if ((align & (align - 1)) != 0) fatal("task argument alignment is not a power of two");
  std::size_t size = arg_size > 0 ? static_cast<std::size_t>(arg_size) : 0;
  std::size_t header = (sizeof(task) + align - 1) & ~(align - 1);  // no division: align is a power of two
  std::size_t block_align = align > alignof(task) ? align : alignof(task);
  std::uint8_t cls;
  void* block = allocate_block(ts, block_align, header + size, &cls);
  if (block == nullptr) fatal("out of memory allocating a task");
  task* t = new (block) task;
  t->block_class = cls;
  t->data = static_cast<char*>(block) + header;
  if (detach != nullptr) {
    void* handle = register_event(t);
    *static_cast<void**>(detach) = handle;
    if (data != nullptr) *static_cast<void**>(data) = handle;
  }
  if (cpyfn != nullptr) {
    cpyfn(t->data, data);
    t->copied = true;
  } else if (size <= 32) {  // the usual few firstprivate words: no call into the C library
    auto* to = static_cast<unsigned char*>(t->data);
    const auto* from = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= size; i += 8) std::memcpy(to + i, from + i, 8);
    if (i + 4 <= size) {
      std::memcpy(to + i, from + i, 4);
      i += 4;
    }
    for (; i < size; ++i) to[i] = from[i];
  } else {
    std::memcpy(t->data, data, size);
  }
  return t;
}

// [P-OMP Task T6] back to the calling thread's cache, or to the C library.
void free_block(void* b, std::uint8_t cls) noexcept {
  thread_state* ts = self_if_any();
  if (cls != 0 && ts != nullptr && ts->free_block_count[cls - 1] < thread_state::k_block_cap) {
    *static_cast<void**>(b) = ts->free_blocks[cls - 1];
    ts->free_blocks[cls - 1] = b;
    ++ts->free_block_count[cls - 1];
    return;
  }
  std::free(b);
}
}  // namespace

// [P-OMP Task T4] bookkeeping when a task's body has returned (and, if detached, its event
// was fulfilled: [P-OMP Detach V3]).
namespace {
inline void finish(thread_state& ts, task* t) noexcept {
  team* tm = t->owner_team;
  const bool deferred = t->deferred;
  if (deferred) {
    if (t->dep_recorded) release_successors(ts, t);  // else no sibling can hold an edge on it
    if (t->group != nullptr) t->group->pending.done();
    t->parent->children.done();
  }
  release(t);  // [P-OMP Task T5] freeing it drops its hold on its parent
  if (deferred)
    tm->pending_tasks.fetch_sub(1, std::memory_order_acq_rel);  // [P-OMP Task T4] pairs with the barrier's acquire
}
}  // namespace

void finish_task(thread_state& ts, task* t) noexcept { finish(ts, t); }

namespace {
// What a freed task's dependences left: its children's map and its successor list.
[[gnu::noinline]] void drop_dependence_state(task* t) noexcept {
  clear_dependences(t);
  delete t->successors;
}
}  // namespace

void release_task(task* t) noexcept {
  // [P-OMP Task T5] the last reference frees. A count of 1 is the caller's own reference:
  // no other holder is left to release concurrently (the acquire load sees their releases),
  // so the common leaf task skips the read-modify-write. A deferred task holds a reference
  // on its parent until it is freed, so a live task's whole chain of ancestors is alive
  // ([P-OMP Handback] H2 walks it).
  if (t->implicit) return;
  if (t->refs.load(std::memory_order_acquire) == 1 ||          // pairs with the decrements below
      t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // pairs with the other decrements
    task* parent = t->deferred ? t->parent : nullptr;
    if (t->deps != nullptr || t->successors != nullptr) [[unlikely]]
      drop_dependence_state(t);
    const std::uint8_t cls = t->block_class;
    t->~task();
    free_block(t, cls);
    if (parent != nullptr) release_task(parent);  // a tail call
  }
}

void push_ready(thread_state& ts, task* t) noexcept {
  team& tm = *t->owner_team;
  if (tm.deques == nullptr) {  // a team of one made a waiting task ready ([P-OMP Detach V5])
    inbox_push(tm, t, false);
    return;
  }
  t->seq = ts.push_seq++;
  tm.deques[ts.id].push(t);
  tm.wakeup.notify();
}

void run_task(thread_state& ts, task* t) noexcept {
  task* prev = ts.cur_task;
  ts.cur_task = t;
  t->children.owner = &ts;
  t->mark = ts.push_seq;  // [P-OMP Task T3] tasks pushed from now on are its descendants
  const trace_span span(forkjoin::detail::trace_kind::omp_task, reinterpret_cast<std::uintptr_t>(t->fn),
                        t->deferred ? 0 : 1);
  // [P-OMP Cancel K5] discarded unstarted, unless only its body destroys its copies
  if (!t->deferred || t->copied || !task_cancelled(*t)) t->fn(t->data);
  ts.cur_task = prev;
  body_returned(t);                                       // [P-OMP Handback] H4
  if (t->detached && !detached_body_returned(t)) return;  // [P-OMP Detach V3] the event completes it
  finish(ts, t);
}

bool run_any_task(thread_state& ts) noexcept {
  team& t = *ts.cur_team;
  // no deferred task in the team: skip the deque pop's fence and the steal attempts (a task
  // pushed meanwhile is found on the next round; barriers re-check with acquire, B2)
  if (t.pending_tasks.load(std::memory_order_relaxed) == 0) return false;
  if (run_inbox(ts, true)) return true;  // [P-OMP Detach V4]
  if (t.deques == nullptr) return false;
  // [P-OMP Handback] H5 a barrier's waiter runs what was handed back to its implicit task
  if (run_handed_back(ts, &t.implicit_tasks[ts.id])) return true;
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

void init_child(thread_state& ts, task* t, bool final) noexcept {
  task* parent = ts.cur_task;
  t->parent = parent;
  t->owner_team = ts.cur_team;
  t->icvs = parent->icvs;
  t->final_task = final || parent->final_task;
  t->current_group = parent->current_group;
  t->npred.store(1, std::memory_order_relaxed);
  t->root = parent->root;        // [P-OMP Handback] H1
  t->depth = parent->depth + 1;  // [P-OMP Handback] H1
}

namespace {
// submit_task's body, inlined into GOMP_task's path: called, it put the gate's omp_task at 341
// instructions a task against 312 inlined.
[[gnu::always_inline]] inline void submit(thread_state& ts, task* t, bool if_clause, void** depend,
                                          bool detach) noexcept {
  task* parent = t->parent;
  team& tm = *t->owner_team;
  // [P-OMP Task T1] undeferred: if(false), an included task of a final task, the throttle, or
  // a team of one (which runs a task at once unless it is detached or must wait for a detached
  // sibling: [P-OMP Detach V5]); such a task still gets its own task context
  const bool one = tm.deques == nullptr;
  // (not a task with dependences or a detached one: undeferred, it could wait for a
  // predecessor, or an event, that only a later sibling releases)
  const bool included = !if_clause || parent->final_task ||
                        (!one && depend == nullptr && !detach && tm.deques[ts.id].size() >= k_local_throttle &&
                         config().task_throttling) ||
                        tm.pending_tasks.load(std::memory_order_relaxed) > k_throttle;
  if (detach && one && !included) parent->detached_children = true;
  // [P-OMP Depend] in a team of one or under a final task every sibling has finished when the
  // next is created, unless one was detached
  const bool track = depend != nullptr && !parent->final_task && (!one || parent->detached_children);
  const bool undeferred = included || (one && !detach && !track);
  if (track) add_dependences(parent, t, depend, !undeferred);
  if (undeferred) {
    // an undeferred task waits for its predecessors, which are descendants of the current task
    int round = 0;
    while (t->npred.load(std::memory_order_acquire) != 1) {  // [P-OMP Depend D3] pairs with D2
      if (run_own_descendant(ts))
        round = 0;
      else
        spin_pause(round < k_spin_rounds + k_yield_rounds ? round++ : round);
    }
    if (detach) {
      run_undeferred_detached(ts, t);
      return;
    }
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
  // drop the creation guard; with predecessors left, the last of them pushes t
  // (untracked, nobody else sees npred: no atomic step needed)
  if (!track || t->npred.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // [P-OMP Depend D2]
    if (one)
      run_task(ts, t);  // [P-OMP Detach V5] a team of one runs a ready task at once
    else
      push_ready(ts, t);
  }
}

}  // namespace

void submit_task(thread_state& ts, task* t, bool if_clause, void** depend, bool detach) noexcept {
  submit(ts, t, if_clause, depend, detach);
}

void begin_undeferred(thread_state& ts, task* t) noexcept {
  ts.cur_task = t;
  t->children.owner = &ts;
  t->mark = ts.push_seq;  // [P-OMP Task T3]
}

void end_undeferred(thread_state& ts, task* t) noexcept {
  ts.cur_task = t->parent;
  body_returned(t);                                                      // [P-OMP Handback] H4 (never an implicit task)
  if (t->detached && !detached_body_returned(t)) wait_for_event(ts, t);  // [P-OMP Detach V6]
  finish_task(ts, t);
}

taskgroup* taskgroup_start(thread_state& ts) {
  auto* g = new taskgroup;
  g->pending.owner = &ts;
  g->prev = ts.cur_task->current_group;
  g->reductions = g->prev != nullptr ? g->prev->reductions : nullptr;  // [P-OMP Reduce R2]
  ts.cur_task->current_group = g;
  return g;
}

void taskgroup_wait(thread_state& ts, taskgroup& g) noexcept { wait_descendants(ts, g.pending); }

void taskgroup_pop(thread_state& ts, taskgroup* g) noexcept {
  ts.cur_task->current_group = g->prev;
  delete g;
}

namespace {
// Creates one explicit task of the current task; `prepare` may edit the task's copy of the
// arguments before the task can run (taskloop writes its bounds there).
// flags: 1 untied, 2 final, 4 mergeable, 8 depend, 0x10 priority, 0x2000 detach
template <class Prepare>
void spawn(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, bool if_clause,
           unsigned flags, Prepare prepare, void** depend = nullptr, void* detach = nullptr) {
  thread_state& ts = self();
  if (creation_cancelled(ts)) return;  // [P-OMP Cancel K5] nothing to create in a cancelled group or team
  task* t = allocate(ts, cpyfn, data, arg_size, arg_align, detach);
  prepare(t->data);
  t->fn = fn;
  init_child(ts, t, (flags & 2u) != 0);
  submit(ts, t, if_clause, depend, detach != nullptr);
}

// [P-OMP Taskloop] splits the loop into tasks whose argument blocks start with {lo, hi} in
// the induction variable's type (then, with reduction, the descriptor). flags: 0x100 up
// (ull), 0x200 grainsize, 0x400 if, 0x800 nogroup, 0x1000 reduction, 0x4000 strict grainsize.
template <class T>
void taskloop(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, unsigned flags,
              unsigned long num_tasks, T start, T end, T step) {
  bool up;
  if constexpr (std::is_same_v<T, ull>)
    up = (flags & 0x100u) != 0;
  else
    up = step > 0;
  const bool group = (flags & 0x800u) == 0;
  const bool reduction = (flags & 0x1000u) != 0;
  if (reduction && (!group || arg_size < static_cast<long>(2 * sizeof(T) + sizeof(std::uintptr_t*))))
    fatal("taskloop reduction without its taskgroup or its descriptor");
  if (up ? start >= end : start <= end) {  // empty (T's own comparison: signed or not)
    if (reduction) {                       // the compiler still combines and unregisters: register an empty round
      taskgroup_start(self());
      taskgroup_reduction_register(*reinterpret_cast<std::uintptr_t**>(static_cast<char*>(data) + 2 * sizeof(T)));
      taskgroup_end(self());
    }
    return;
  }
  const auto s = static_cast<std::uint64_t>(start), e = static_cast<std::uint64_t>(end);
  const std::uint64_t diff = up ? e - s : s - e;
  const std::uint64_t st = up ? static_cast<std::uint64_t>(step) : std::uint64_t{0} - static_cast<std::uint64_t>(step);
  const std::uint64_t n = diff / st + (diff % st != 0 ? 1 : 0);
  // task sizes: `ntasks` tasks, the first `extra` of them one iteration larger, or (strict
  // grainsize) tasks of exactly `grain` iterations and a shorter last one
  std::uint64_t ntasks, grain = 0;
  const bool strict = (flags & 0x4200u) == 0x4200u;
  if ((flags & 0x200u) != 0) {
    grain = num_tasks != 0 ? num_tasks : 1;
    ntasks = strict ? n / grain + (n % grain != 0 ? 1 : 0) : (n / grain != 0 ? n / grain : 1);
  } else {
    ntasks = num_tasks != 0 ? num_tasks : self().cur_team->nthreads;
    if (ntasks > n) ntasks = n;
  }
  if (arg_size < static_cast<long>(2 * sizeof(T))) fatal("taskloop argument block too small for its bounds");
  if (group) taskgroup_start(self());
  // [P-OMP Reduce R2] the reduction descriptor follows the bounds in the argument block
  if (reduction)
    taskgroup_reduction_register(*reinterpret_cast<std::uintptr_t**>(static_cast<char*>(data) + 2 * sizeof(T)));
  const bool if_clause = (flags & 0x400u) != 0;
  std::uint64_t lo = 0;
  for (std::uint64_t k = 0; k < ntasks; ++k) {
    std::uint64_t size = strict ? (n - lo < grain ? n - lo : grain) : n / ntasks + (k < n % ntasks ? 1 : 0);
    std::uint64_t hi = lo + size;
    T tlo = static_cast<T>(s + lo * static_cast<std::uint64_t>(step));
    T thi = hi == n ? end : static_cast<T>(s + hi * static_cast<std::uint64_t>(step));
    spawn(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, [&](void* copy) {
      static_cast<T*>(copy)[0] = tlo;
      static_cast<T*>(copy)[1] = thi;
    });
    lo = hi;
  }
  if (group) taskgroup_end(self());
}
}  // namespace

void task_create(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, bool if_clause,
                 unsigned flags, void** depend, void* detach) {
  spawn(
      fn, data, cpyfn, arg_size, arg_align, if_clause, flags, [](void*) {}, (flags & 8u) != 0 ? depend : nullptr,
      (flags & 0x2000u) != 0 ? detach : nullptr);
}

void taskloop_long(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, unsigned flags,
                   unsigned long num_tasks, long start, long end, long step) {
  taskloop<long>(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, start, end, step);
}

void taskloop_ull(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, unsigned flags,
                  unsigned long num_tasks, ull start, ull end, ull step) {
  taskloop<ull>(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, start, end, step);
}

void taskwait(thread_state& ts) noexcept {
  // no child left (C3's acquire load): nothing to wait for, and the latch word is already 0
  if (!ts.cur_task->children.zero()) wait_descendants(ts, ts.cur_task->children);
  clear_dependences(ts.cur_task);  // every child finished: no later sibling needs an edge
}

// taskwait depend(...): an empty undeferred task with those dependences
void taskwait_depend(void** depend) {
  spawn([](void*) {}, nullptr, nullptr, 0, 1, false, 8u, [](void*) {}, depend);
}

void taskgroup_end(thread_state& ts) noexcept {
  taskgroup* g = ts.cur_task->current_group;
  taskgroup_wait(ts, *g);
  taskgroup_pop(ts, g);
}

}  // namespace forkjoin::omp
