// task.hpp: explicit and implicit tasks and taskgroups ([P-OMP Task]), their dependences
// ([P-OMP Depend]), detached tasks ([P-OMP Detach]) and hand-backs ([P-OMP Handback]).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common.hpp"
#include "icv.hpp"
#include "wait.hpp"

namespace forkjoin::omp {

// ---- tasks -------------------------------------------------------------------------------

struct team;
struct ws_reduction;  // reduction.cpp
struct doacross;      // doacross.cpp
struct taskgroup {
  count_latch pending;  // tasks of the group (and their descendants) not finished
  taskgroup* prev = nullptr;
  std::atomic<bool> cancelled{false};    // [P-OMP Cancel K3]
  std::uintptr_t* reductions = nullptr;  // task reductions in scope: its own or the enclosing group's ([P-OMP Reduce])
  ws_reduction* ws_red = nullptr;        // a worksharing construct's reduction(task, ...) group (R5)
  void* kmpc_red = nullptr;              // the KMPC front-end's task reductions of this group (kmpc_taskred.cpp)
  bool workshare = false;  // a worksharing construct's own group (reduction(task, ...)), not a taskgroup construct
};

// [P-OMP Reduce R1] (reduction.cpp) allocates the per-thread copies of the task-reduction
// descriptor list `data` for a team of nthreads and links it to the enclosing list `outer`.
void register_reductions(std::uintptr_t* data, std::uintptr_t* outer, unsigned nthreads);

struct task {
  fn_t fn = nullptr;
  void* data = nullptr;
  task* parent = nullptr;              // null for implicit tasks
  taskgroup* group = nullptr;          // the taskgroup this task is counted in
  taskgroup* current_group = nullptr;  // innermost taskgroup while it runs
  team* owner_team = nullptr;
  icv icvs;
  count_latch children;                // deferred children not finished
  std::atomic<std::uint32_t> refs{1};  // 1 while unfinished + 1 per deferred child not yet freed (T5)
  std::uint64_t seq = 0;               // push order on its creator's deque ([P-OMP Task T3])
  std::uint64_t mark = 0;              // the runner's push counter when it started running
  bool implicit = false;
  bool final_task = false;
  bool deferred = false;
  bool copied = false;    // cpyfn built its arguments: it runs even when cancelled ([P-OMP Cancel K5])
  bool detached = false;  // [P-OMP Detach] (detach.cpp)
  // dependences ([P-OMP Depend])
  std::atomic<std::uint32_t> npred{0};        // unfinished predecessors + 1 while being created
  std::uint32_t dep_lock = 0;                 // futex mutex over dep_done and successors
  bool dep_done = false;                      // finished: later tasks need no edge from it
  bool detached_children = false;             // [P-OMP Detach V5] a team of one tracks its children's dependences
  bool inbox_finish = false;                  // [P-OMP Detach V4] in the team's inbox to be finished (else run)
  bool dep_recorded = false;                  // in its parent's dependence map: later siblings may add edges
  std::uint8_t block_class = 0;               // 1 + its block's size class in the threads' caches, 0: not cached
  std::atomic<std::uint32_t> detach_left{0};  // [P-OMP Detach V2] body and event still to come (2, 1, 0)
  std::vector<task*>* successors = nullptr;
  struct dep_map* deps = nullptr;  // its children's last writers and readers, by address
  // the next task in the team's inbox ([P-OMP Detach V4]) or on a returned stack ([P-OMP
  // Handback] H2): a task waits in at most one of them
  task* waiting_next = nullptr;
  // [P-OMP Handback] children a waiter stole but could not run, handed back for this task's
  // own waits: a stack pushed by CAS, popped only by the thread running the task (for an
  // implicit task, its own thread, in its waits and at barriers), closed when the body
  // returns, after which hand-backs go to the nearest open ancestor
  std::atomic<task*> returned{nullptr};
  // [P-OMP Handback] H1: the task's distance from its implicit task, and that implicit task
  // (an implicit task's is itself). Not initialised here: init_child sets both for every
  // explicit task, the team for its implicit ones (start_turn, team::team), so task creation
  // stores them once.
  task* root;
  std::uint32_t depth;
  thread_state* detach_waiter = nullptr;  // [P-OMP Detach V6] an undeferred detached task's encountering thread
  std::uint64_t trace_t0 = 0;             // an implicit task: its turn's start, when traced ([P-TRACE])
};

void run_task(thread_state& ts, task* t) noexcept;
void finish_task(thread_state& ts, task* t) noexcept;  // [P-OMP Task T4]
// [P-OMP Task] t (allocated by a front-end, its body and data set) becomes a child of the
// current task: its team, ICVs and taskgroup. `final`: the task's final clause.
void init_child(thread_state& ts, task* t, bool final) noexcept;
// Then runs it now (undeferred, T1) or queues it (T2), after the dependences of `depend`
// (libgomp's array format, [P-OMP Depend]); `detach`: its event is registered.
void submit_task(thread_state& ts, task* t, bool if_clause, void** depend, bool detach) noexcept;
// An undeferred child whose body the caller runs itself between the two calls (the KMPC if(0)
// form): begin makes it the current task; end restores its parent, waits for its event if it
// is detached ([P-OMP Detach V6]) and completes it.
void begin_undeferred(thread_state& ts, task* t) noexcept;
void end_undeferred(thread_state& ts, task* t) noexcept;
// taskgroup: start makes a new group current; wait runs the current task's descendants until
// the group's tasks finished; pop makes the enclosing group current and frees g.
taskgroup* taskgroup_start(thread_state& ts);
void taskgroup_wait(thread_state& ts, taskgroup& g) noexcept;
void taskgroup_pop(thread_state& ts, taskgroup* g) noexcept;
// taskgroup's end: wait for the current group, then pop it.
void taskgroup_end(thread_state& ts) noexcept;
// A new explicit task of the current task (GOMP_task's arguments; flags: 1 untied, 2 final,
// 4 mergeable, 8 depend, 0x10 priority, 0x2000 detach): depend and detach count only with
// their flag.
void task_create(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, bool if_clause,
                 unsigned flags, void** depend, void* detach);
// [P-OMP Taskloop] a taskloop over [start, end) by step, in long or unsigned long long.
void taskloop_long(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, unsigned flags,
                   unsigned long num_tasks, long start, long end, long step);
void taskloop_ull(fn_t fn, void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align, unsigned flags,
                  unsigned long num_tasks, ull start, ull end, ull step);
// taskwait: waits for the current task's children, running its descendants meanwhile.
void taskwait(thread_state& ts) noexcept;
// taskwait depend(...): waits for the current task's children that those dependences name.
void taskwait_depend(void** depend);
// [P-OMP KMPC K18] the hidden helper tasks' global thread ids are 1..hidden_helper_count()
// (LIBOMP_NUM_HIDDEN_HELPER_THREADS, default 8, read once when first needed); team.cpp numbers
// every thread around them.
int hidden_helper_count() noexcept;

// [P-OMP Detach] (detach.cpp). A new detached task's event handle, registered until fulfilled.
void* register_event(task* t);
// Called when a detached task's body returned; true if its event was fulfilled already (the
// caller completes it), false if omp_fulfill_event will.
bool detached_body_returned(task* t) noexcept;
// Runs an undeferred (if(false) or included) detached task: its body, then waits for its event.
void run_undeferred_detached(thread_state& ts, task* t) noexcept;
// [P-OMP Detach V6] the encountering thread of an undeferred detached task whose body returned
// before its event was fulfilled waits for the event, running its own descendants.
void wait_for_event(thread_state& ts, task* t) noexcept;
// omp_fulfill_event: the event handle's task may complete ([P-OMP Detach]); an unknown or
// already fulfilled handle stops the program with a message.
void fulfill_event(void* event);
// The team's inbox: tasks made ready, or detached tasks to finish, by threads that may not push
// on the team's deques. Takes one entry (a descendant of the current task unless `any`) and
// runs or finishes it; true if it did. run_inbox (after team) checks the head first.
bool run_inbox_slow(thread_state& ts, bool any) noexcept;
void inbox_push(team& tm, task* t, bool finish) noexcept;
// [P-OMP Handback] (handback.cpp). True if x descends from the current task: in O(1) for an
// implicit current task or an x no deeper than it, else by walking up x's chain to the
// current task's depth (once per task stolen in a wait).
bool may_run_in_wait(const thread_state& ts, const task* x) noexcept;
// may_run_in_wait's checks for an explicit current task plus the parent links they followed,
// in this process; exported, so that a C++ test linked with this library can bound it.
__attribute__((visibility("default"))) std::uint64_t wait_walk_steps() noexcept;
// Hands x, stolen by a waiter that may not run it, to its parent's list (or, if the parent's
// body has returned, to the nearest ancestor whose has not) and wakes that task's waiters.
void hand_back(team& tm, task* x) noexcept;
// Runs one task handed back to `owner` (the current task, or any implicit task of the team
// for a barrier's waiter); true if it did.
bool run_handed_back(thread_state& ts, task* owner) noexcept;
// The mark of a closed `returned` stack (H4); never run, never linked.
extern task g_returned_closed;
// H4's slow path: `held`, taken off t's stack as it closed, moves up to t's nearest open ancestor.
void move_handed_back_up(task* t, task* held) noexcept;
// Runs one task of ts's team if one is available (any task: barrier rules). True if it ran one.
bool run_any_task(thread_state& ts) noexcept;
// Waits until latch reaches zero, running descendants of the current task meanwhile.
void wait_descendants(thread_state& ts, count_latch& latch) noexcept;
// Runs one descendant of the current task, if there is one: from this thread's deque, else
// (when it has none) stolen from a teammate's ([P-OMP Task T3]).
bool run_own_descendant(thread_state& ts) noexcept;
void release_task(task* t) noexcept;  // drops one reference ([P-OMP Task T5])
void push_ready(thread_state& ts, task* t) noexcept;

// [P-OMP Depend] (depend.cpp). Adds the edges from t's earlier siblings to t, which must not
// be visible yet; `record` makes later siblings depend on t. Leaves t->npred at 1 + edges.
void add_dependences(task* parent, task* t, void** depend, bool record);
void release_successors(thread_state& ts, task* t) noexcept;  // t finished
void clear_dependences_of(task* t) noexcept;                  // all of t's children finished, t->deps set
inline void clear_dependences(task* t) noexcept {             // all of t's children finished
  if (t->deps != nullptr) clear_dependences_of(t);
}

// t's body returned. Inline, on every task's path: a task with no deferred child alive (refs
// 1, only its own: every live descendant holds a reference on its parent, T5) can receive no
// hand-back, now or later, and has nothing more to do here. Otherwise its children's
// dependence map, which no later sibling will use, lets go of them (its references would keep
// them, and so t, alive for ever: T5), and [P-OMP Handback] H4 closes t's stack and moves what
// it held up.
inline void body_returned(task* t) noexcept {
  if (t->refs.load(std::memory_order_relaxed) == 1) return;  // relaxed: no child is left to push
  clear_dependences(t);
  task* held =
      t->returned.exchange(&g_returned_closed, std::memory_order_acquire);  // [P-OMP Handback] H4 pairs with H2
  if (held != nullptr) [[unlikely]]
    move_handed_back_up(t, held);
}

// [P-OMP Reduce] (reduction.cpp) the bodies of libgomp's task-reduction entry points.
void workshare_task_reduction_unregister(bool cancelled);
void scope_start(std::uintptr_t* reductions);
void taskgroup_reduction_register(std::uintptr_t* data);
void taskgroup_reduction_unregister(std::uintptr_t* data);
void task_reduction_remap(std::size_t cnt, std::size_t cntorig, void** ptrs);

}  // namespace forkjoin::omp
