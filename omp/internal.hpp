// internal.hpp: the state shared by the files of libforkjoin-omp (the libgomp ABI on
// forkjoin): internal control variables, thread state, teams, work shares, explicit tasks
// and the waiting primitives. Protocols: forkjoin/DESIGN.md, section "OpenMP layer",
// steps tagged P-OMP.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/deque.hpp"
#include "forkjoin/detail/job.hpp"
#include "trace.hpp"

#define FORKJOIN_OMP_EXPORT extern "C" __attribute__((visibility("default")))

namespace forkjoin {
class pool;
}

namespace forkjoin::omp {

using fn_t = void (*)(void*);
using ull = unsigned long long;

// ---- diagnostics -------------------------------------------------------------------------

// Prints "forkjoin-omp: <construct> is not supported" and aborts: an unimplemented
// construct must stop, never run wrong.
[[noreturn]] void unsupported(const char* construct) noexcept;
// Prints "forkjoin-omp: <message>" and aborts.
[[noreturn]] void fatal(const char* message) noexcept;

// ---- internal control variables (OpenMP 5.0 section 2.5) ---------------------------------

enum sched_kind : int { k_sched_static = 1, k_sched_dynamic = 2, k_sched_guided = 3, k_sched_auto = 4 };
inline constexpr unsigned k_sched_monotonic = 0x80000000u;
inline constexpr unsigned k_max_levels = 255;  // omp_get_supported_active_levels, as libgomp

// The ICVs a task carries (data environment ICVs: copied into every new task).
struct icv {
  unsigned nthreads = 1;  // nthreads-var for regions this task starts
  int run_sched = k_sched_dynamic;
  long run_chunk = 1;
  bool run_monotonic = false;
  bool dyn = false;
  unsigned max_active_levels = 1;
  unsigned bind = 0;  // proc-bind-var: 0 false, 1 true, 2 primary, 3 close, 4 spread
};

// Process-wide settings from the environment (env.cpp), read once, then constant.
struct global_config {
  icv initial;                          // the initial task's ICVs
  std::vector<unsigned> nthreads_list;  // OMP_NUM_THREADS per level (index = level - 1)
  unsigned thread_limit = 0;            // 0: unlimited
  std::size_t stack_size = 0;           // 0: the system default for team threads
  unsigned num_procs = 1;
  bool cancellation = false;
  int max_task_priority = 0;
  bool passive_wait = false;             // OMP_WAIT_POLICY=passive: park without spinning
  std::vector<unsigned> bind_list;       // OMP_PROC_BIND per level (index = level - 1), when a list
  bool proc_bind_set = false;            // OMP_PROC_BIND was given (and valid)
  std::vector<std::vector<int>> places;  // OMP_PLACES: the CPUs of each place ([P-OMP Bind])
  int display_env = 0;                   // OMP_DISPLAY_ENV: 0 false, 1 true, 2 verbose
};
const global_config& config() noexcept;

// One line on stderr: "forkjoin-omp: invalid value for environment variable VAR: "value";
// using FALLBACK".
void complain(const char* var, const char* value, const char* fallback);
std::vector<int> usable_cpus();                    // places.cpp: the CPUs the process started with
void read_proc_bind(global_config& c);             // places.cpp
void read_places(global_config& c);                // places.cpp, after read_proc_bind
void display_environment(const global_config& c);  // display_env.cpp: OMP_DISPLAY_ENV's report

// ---- waiting ([P-OMP Wait]) --------------------------------------------------------------

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept;
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept;
void futex_wait_u32(std::uint32_t* word, std::uint32_t expected) noexcept;
void futex_wake_u32(std::uint32_t* word, int count) noexcept;

// An event count: waiters spin, yield, then park until pred() holds; whoever changes what a
// pred depends on calls notify(). notify costs one fence and a load when nobody sleeps.
struct event {
  std::atomic<std::uint32_t> seq{0};
  std::atomic<std::uint32_t> sleepers{0};

  void notify() noexcept {
    forkjoin::detail::seq_cst_fence();  // [P-OMP Wait W2] pairs with W1 in wait_until
    if (sleepers.load(std::memory_order_relaxed) != 0) {
      seq.fetch_add(1, std::memory_order_release);  // [P-OMP Wait W3] a parked waiter's expected value is stale
      futex_wake_all(seq);
    }
  }
  // step() is called on every round; it returns true when it did useful work (ran a task),
  // which restarts the spin ladder.
  template <class Pred, class Step>
  void wait_until(Pred pred, Step step) noexcept;
};

// Spin-then-yield rounds before parking ([P-OMP Wait W0]). The PAUSE phase is short (a few
// microseconds): when the awaited thread shares this CPU (a busy machine, or more team threads
// than cores) every spin is lost, while sched_yield hands it the CPU and costs under a
// microsecond when nothing else is runnable.
inline constexpr int k_spin_rounds = 4;
inline constexpr int k_yield_rounds = 64;
void spin_pause(int round) noexcept;  // PAUSE for small rounds, sched_yield for larger ones

// The spin-then-yield ladder that every wait climbs before it parks ([P-OMP Wait W0]); a
// passive wait policy starts at the top. climb() pauses once and is false when it is time
// to park; restart() after useful work.
class wait_ladder {
 public:
  wait_ladder() noexcept : round_(config().passive_wait ? k_top : 0) {}
  void restart() noexcept { round_ = 0; }
  bool climb() noexcept {
    if (round_ >= k_top) return false;
    spin_pause(round_++);
    return true;
  }

 private:
  static constexpr int k_top = k_spin_rounds + k_yield_rounds;
  int round_;
};

template <class Pred, class Step>
void event::wait_until(Pred pred, Step step) noexcept {
  wait_ladder ladder;
  for (;;) {
    if (pred()) return;
    if (step()) {
      ladder.restart();
      continue;
    }
    if (ladder.climb()) continue;
    std::uint32_t s = seq.load(std::memory_order_acquire);  // [P-OMP Wait W3] pairs with notify's increment
    sleepers.fetch_add(1, std::memory_order_relaxed);
    forkjoin::detail::seq_cst_fence();  // [P-OMP Wait W1] pairs with W2 in notify
    if (pred()) {
      sleepers.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
    if (!step()) futex_wait(seq, s);
    sleepers.fetch_sub(1, std::memory_order_relaxed);
  }
}

struct thread_state;
void wake_thread(thread_state& ts) noexcept;

// A count that one owner thread waits to see at zero ([P-OMP Count]): children of a task,
// members of a taskgroup, team threads still attached to a finished team. The word holds the
// count times two plus a "the owner sleeps" bit.
struct count_latch {
  std::atomic<std::uint64_t> word{0};
  thread_state* owner = nullptr;  // set before the first add, constant while the count is non-zero

  void add(std::uint64_t n = 1) noexcept {
    word.fetch_add(2 * n, std::memory_order_relaxed);  // published by the push that follows
  }
  // The caller's last access to this latch's memory (unless it holds a reference to it).
  void done() noexcept {
    thread_state* o = owner;  // [P-OMP Count C1] read before C2: afterwards the latch may be gone
    if (word.fetch_sub(2, std::memory_order_acq_rel) == 3)  // [P-OMP Count C2] pairs with C3 and C4
      wake_thread(*o);
  }
  bool zero() const noexcept {
    return word.load(std::memory_order_acquire) < 2;  // [P-OMP Count C3] pairs with C2
  }
  // False when the count is zero; then, as after zero(), every done() happened before
  // (the owner may free what the members used): hence acquire on every load here.
  bool try_announce_sleep() noexcept {
    std::uint64_t v = word.load(std::memory_order_acquire);  // [P-OMP Count C3] pairs with C2
    while (v >= 2) {
      if ((v & 1) != 0) return true;
      if (word.compare_exchange_weak(v, v | 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire))  // [P-OMP Count C4] pairs with C2
        return true;
    }
    return false;
  }
  void reset() noexcept { word.store(0, std::memory_order_relaxed); }  // owner, after zero()
};

// ---- tasks -------------------------------------------------------------------------------

struct team;
struct taskgroup {
  count_latch pending;  // tasks of the group (and their descendants) not finished
  taskgroup* prev = nullptr;
  std::atomic<bool> cancelled{false};    // [P-OMP Cancel K3]
  std::uintptr_t* reductions = nullptr;  // task reductions in scope: its own or the enclosing group's ([P-OMP Reduce])
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
  std::atomic<std::uint32_t> refs{1};  // 1 while unfinished + 1 per unfinished child
  std::uint64_t seq = 0;               // push order on its creator's deque ([P-OMP Task T3])
  std::uint64_t mark = 0;              // the runner's push counter when it started running
  bool implicit = false;
  bool final_task = false;
  bool deferred = false;
  // dependences ([P-OMP Depend])
  std::atomic<std::uint32_t> npred{0};  // unfinished predecessors + 1 while being created
  std::uint32_t dep_lock = 0;           // futex mutex over dep_done and successors
  bool dep_done = false;                // finished: later tasks need no edge from it
  std::vector<task*>* successors = nullptr;
  struct dep_map* deps = nullptr;  // its children's last writers and readers, by address
  std::uint64_t trace_t0 = 0;      // an implicit task: its turn's start, when traced ([P-TRACE])
};

void run_task(thread_state& ts, task* t) noexcept;
// Runs one task of ts's team if one is available (any task: barrier rules). True if it ran one.
bool run_any_task(thread_state& ts) noexcept;
// Waits until latch reaches zero, running descendants of the current task meanwhile.
void wait_descendants(thread_state& ts, count_latch& latch) noexcept;
// Runs one descendant of the current task from this thread's deque, if there is one.
bool run_own_descendant(thread_state& ts) noexcept;
void release_task(task* t) noexcept;  // drops one reference ([P-OMP Task T5])
void push_ready(thread_state& ts, task* t) noexcept;

// [P-OMP Depend] (depend.cpp). Adds the edges from t's earlier siblings to t, which must not
// be visible yet; `record` makes later siblings depend on t. Leaves t->npred at 1 + edges.
void add_dependences(task* parent, task* t, void** depend, bool record);
void release_successors(thread_state& ts, task* t) noexcept;  // t finished
void clear_dependences(task* t) noexcept;                     // all of t's children finished

// ---- work shares ([P-OMP WS]) ------------------------------------------------------------

inline constexpr unsigned k_ws_ring = 8;

struct alignas(forkjoin::detail::k_cache_line) work_share {
  std::atomic<long> index{-1};              // which encounter this slot holds, published last
  std::atomic<std::uint32_t> remaining{0};  // team threads that have not ended it
  // loop description, in the iteration space [0, count)
  int kind = k_sched_static;
  bool is_ull = false;
  bool ordered = false;
  bool fetch_add_ok = false;  // next + nthreads * chunk cannot overflow
  std::uint64_t count = 0;
  std::uint64_t chunk = 0;
  std::uint64_t start = 0;  // as the caller's type, bit-cast to 64 bits
  std::uint64_t end = 0;
  std::uint64_t incr = 0;
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> next{0};
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> ordered_next{0};
  std::atomic<void*> copy_data{nullptr};
  std::atomic<std::uint32_t> copy_ready{0};
};

// ---- teams -------------------------------------------------------------------------------

struct saved_state;
struct spare;

// One team thread's turn in a region, as a job: run by the pool worker it was posted to or
// by a spare thread, whichever takes it ([P-OMP Team S2]).
struct member_job : forkjoin::detail::job_header {
  member_job() noexcept : job_header(&execute_fn) {}
  static void execute_fn(job_header* j) noexcept;
  team* owner = nullptr;
  unsigned id = 0;
  int target = -1;  // the pool worker it was posted to, -1 if none
  bool late = false;
};

struct team {
  team(unsigned n);
  ~team();

  const unsigned nthreads;
  unsigned level = 0;         // omp_get_level inside
  unsigned active_level = 0;  // omp_get_active_level inside
  team* parent = nullptr;
  unsigned parent_thread = 0;  // the primary thread's number in the parent team
  fn_t fn = nullptr;
  void* data = nullptr;
  bool prestarted_ws = false;  // a combined construct set up work share 0 ([P-OMP Team S3])

  // [P-OMP Barrier] arrivals in the low 32 bits, generation in the high 32
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> barrier_word{0};
  // the region's end barrier (E1) counts in its own word, so that a cancellable barrier's
  // waiters and the end never share a generation ([P-OMP Cancel K4])
  std::atomic<std::uint64_t> end_word{0};
  std::atomic<bool> cancelled{false};     // cancel parallel ([P-OMP Cancel K1])
  std::atomic<bool> ws_cancelled{false};  // cancel for / sections, until the next barrier (K2)
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::int64_t> pending_tasks{0};
  alignas(forkjoin::detail::k_cache_line) event wakeup;  // barrier, tasks, ordered, work share slots
  alignas(forkjoin::detail::k_cache_line) std::atomic<long> ws_started{0};
  work_share ws[k_ws_ring];
  count_latch attached;           // team threads 1..n-1 that may still touch the team ([P-OMP Team E2])
  member_job* members = nullptr;  // threads 1..n-1's turns (members[k - 1])

  task* implicit_tasks = nullptr;                              // nthreads of them
  forkjoin::detail::chase_lev_deque<task*>* deques = nullptr;  // one per team thread
  saved_state* saved = nullptr;                                // the primary thread's outer state

  // [P-OMP Bind] 0: threads unbound; 2 primary, 3 close, 4 spread. The primary's place and
  // the team's place partition [part_lo, part_lo + part_len); part_len 0: every place.
  unsigned bind_policy = 0;
  int bind_place = -1;
  int part_lo = 0, part_len = 0;
  std::uint64_t trace_region = 0;  // the region's number in the trace, 0 when not traced ([P-TRACE])
};

// One per OS thread that uses the runtime. Lives until the process ends (team threads and
// latches point at it).
struct thread_state {
  team* cur_team = nullptr;
  unsigned id = 0;
  task* cur_task = nullptr;
  // work-share cursor and the private part of the current loop ([P-OMP WS])
  long ws_index = 0;
  work_share* cur_ws = nullptr;
  std::uint64_t static_trip = 0;
  std::uint64_t chunk_lo = 0, chunk_hi = 0;
  bool have_chunk = false;
  std::uint64_t push_seq = 0;  // tasks pushed by this thread, ever
  std::uint64_t rng = 0x9e3779b97f4a7c15ull;
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint32_t> wake{0};  // futex for count_latch owners
  team* initial_team = nullptr;  // the team of one of this thread outside every region
  // the spare thread that ran team thread k of this thread's last region that needed one
  // (spares[k - 1]), preferred next time ([P-OMP Team S2])
  std::vector<spare*> spares;
  // on a spare thread, its record's state: idle again just before its turn's E2 (R1)
  std::atomic<std::uint32_t>* spare_state = nullptr;
  // pool workers reserved for the region this thread is about to start ([P-OMP Team S4])
  std::vector<unsigned> reserved;
};

// The state of the calling thread; created on first use with its initial team and task.
thread_state& self() noexcept;
// Makes ts the calling thread's state: a new spare thread takes over a retired one's.
void adopt_self(thread_state& ts) noexcept;
// Thread `id`'s turn in team t: the one place where a team thread starts its part of a
// region (the primary in begin_region, the others in run_member), before the region's body.
void start_turn(thread_state& ts, team& t, unsigned id) noexcept;
// A team thread other than the primary: start_turn, the body, the region's end barrier.
void run_member(thread_state& ts, team& t, unsigned id) noexcept;

// What a primary thread restores when its region ends.
struct saved_state {
  team* cur_team;
  unsigned id;
  task* cur_task;
  long ws_index;
  work_share* cur_ws;
  std::uint64_t static_trip, chunk_lo, chunk_hi;
  bool have_chunk;
};

// ---- team life cycle (team.cpp) ----------------------------------------------------------

// Resolves the size of a region requested with num_threads (0: the ICV), as
// gomp_resolve_num_threads does.
unsigned resolve_num_threads(thread_state& ts, unsigned requested) noexcept;
// Creates a team of n threads with the caller as thread 0 and starts threads 1..n-1 on
// fn(data) (pool workers, else spare threads: start_members); the caller then runs its own part and calls end_region.
// init_ws, if given, sets up the team's first work share before any thread starts (combined constructs).
// group, if given, becomes every implicit task's taskgroup (parallel reduction(task, ...)).
team* begin_region(thread_state& ts, fn_t fn, void* data, unsigned n, unsigned flags,
                   void (*init_ws)(team&, work_share&, const void*) = nullptr, const void* ws_arg = nullptr,
                   taskgroup* group = nullptr);
void end_region(thread_state& ts) noexcept;
// The team barrier; runs the team's tasks while it waits.
void barrier(thread_state& ts) noexcept;
// The cancellable barrier ([P-OMP Cancel K4]): true, possibly without waiting for the
// others, when the team is cancelled.
bool cancel_barrier(thread_state& ts) noexcept;
void end_barrier(thread_state& ts) noexcept;  // [P-OMP Team E1], in run_member and end_region

// ---- cancellation (cancel.cpp, [P-OMP Cancel]) ------------------------------------------

// With cancel-var true: t was cancelled before it started (its team, or a taskgroup it
// belongs to, directly or through an enclosing one); its body is skipped.
bool task_cancelled(const task& t) noexcept;
// With cancel-var true: a new task of the current task would be discarded at once.
bool creation_cancelled(thread_state& ts) noexcept;

// ---- team threads from the pool (members.cpp, [P-OMP Team S2]) --------------------------

// The workers of forkjoin's default pool that OpenMP regions lend, created with
// nthreads-var threads if the OpenMP layer is the first to use it.
forkjoin::pool& omp_pool();
// On a worker of omp_pool(): reserves up to `wanted` of its idle workers for the region the
// caller starts next (ts.reserved) and returns how many; -1 when the caller is not a worker.
int reserve_idle_workers(thread_state& ts, unsigned wanted) noexcept;
// Hands threads 1..n-1's turns (t.members) to pool workers or spare threads; returns once
// each is taken or surely will be.
void start_members(thread_state& ts, team& t) noexcept;

// ---- binding to places (places.cpp, [P-OMP Bind]) ------------------------------------------

// Called by begin_region before the team starts: the team's binding policy, the primary's
// place and partition, and the implicit tasks' bind-var (the clause, then the OMP_PROC_BIND list).
void plan_binding(thread_state& ts, team& t, unsigned flags, icv& inherited) noexcept;
// Pins the calling thread to team thread `id`'s place (or unpins it for an unbound team). Every
// team member calls it at the start of its turn, the primary included.
void bind_team_thread(const team& t, unsigned id) noexcept;
// Returns a pinned thread to the process's initial CPUs (a thread that leaves team duty for
// other work, e.g. a pool worker lent to a bound team, calls it).
void unbind_thread() noexcept;
void bind_initial_thread() noexcept;  // at load: the initial thread takes place 0 when binding is on
int place_of(const team& t, unsigned id) noexcept;
void partition_of(const team& t, unsigned id, int& lo, int& len) noexcept;

// ---- work shares (loop.cpp) --------------------------------------------------------------

// Enters the next work share of the team. Returns true to the one thread that must
// initialise it and then call ws_publish.
bool ws_enter(thread_state& ts) noexcept;
void ws_publish(thread_state& ts) noexcept;
void ws_leave(thread_state& ts) noexcept;  // this thread is done with the current work share

}  // namespace forkjoin::omp
