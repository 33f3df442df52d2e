// internal.hpp: the state shared by the files of libforkjoin-omp (the libgomp ABI on
// forkjoin): internal control variables, thread state, teams, work shares, explicit tasks
// and the waiting primitives. Protocols: omp/DESIGN.md, one section per protocol,
// steps tagged P-OMP.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../forkjoin/crowding.hpp"
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

// [P-OMP Limit] a contention group (an initial thread and every team thread its regions
// start, nested ones included): how many of its threads are in teams now.
struct contention_group {
  std::atomic<unsigned> busy{1};  // its initial thread, plus what the live regions reserved
};

// The ICVs a task carries (data environment ICVs: copied into every new task).
struct icv {
  unsigned nthreads = 1;  // nthreads-var for regions this task starts
  int run_sched = k_sched_dynamic;
  long run_chunk = 1;
  bool run_monotonic = false;
  bool dyn = false;
  unsigned max_active_levels = 1;
  unsigned bind = 0;          // proc-bind-var: 0 false, 1 true, 2 primary, 3 close, 4 spread
  unsigned thread_limit = 0;  // thread-limit-var set by a teams or target region (0: OMP_THREAD_LIMIT's)
  // the league of a teams construct this task runs in ([P-OMP Teams]): inherited like an ICV,
  // so parallel regions and tasks inside team k still answer omp_get_team_num() == k
  unsigned league_size = 1, league_num = 0;
  contention_group* cgroup = nullptr;  // the group its regions' threads count in ([P-OMP Limit])
  std::uintptr_t def_allocator = 1;    // def-allocator-var: omp_default_mem_alloc, or OMP_ALLOCATOR's
  bool operator==(const icv&) const = default;
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
  bool passive_wait = false;               // OMP_WAIT_POLICY=passive: park without spinning
  std::vector<unsigned> bind_list;         // OMP_PROC_BIND per level (index = level - 1), when a list
  bool proc_bind_set = false;              // OMP_PROC_BIND was given (and valid)
  std::vector<std::vector<int>> places;    // OMP_PLACES: the CPUs of each place ([P-OMP Bind])
  int display_env = 0;                     // OMP_DISPLAY_ENV: 0 false, 1 true, 2 verbose
  unsigned default_device = 0;             // OMP_DEFAULT_DEVICE (checked and shown; the host is the only device)
  std::string target_offload = "DEFAULT";  // OMP_TARGET_OFFLOAD (checked and shown; nothing is offloaded)
  bool display_affinity = false;           // OMP_DISPLAY_AFFINITY
  std::string affinity_format;             // OMP_AFFINITY_FORMAT, else default_affinity_format()
};
// Read once (on first use), then constant and never freed.
const global_config& read_config() noexcept;
extern std::atomic<const global_config*> g_config;
inline const global_config& config() noexcept {
  // acquire: pairs with the release store in read_config (a plain load on x86)
  const global_config* c = g_config.load(std::memory_order_acquire);
  return c != nullptr ? *c : read_config();
}
// The predefined allocators' names, index = handle (alloc.cpp).
extern const char* const k_allocator_names[9];
// thread-limit-var for a task with ICVs v: a teams or target clause, else OMP_THREAD_LIMIT,
// whichever is smaller; 0 when neither sets one.
unsigned thread_limit_of(const icv& v) noexcept;

// One line on stderr: "forkjoin-omp: invalid value for environment variable VAR: "value";
// using FALLBACK".
void complain(const char* var, const char* value, const char* fallback);
std::vector<int> usable_cpus();                    // places.cpp: the CPUs the process started with
void read_proc_bind(global_config& c);             // places.cpp
void read_places(global_config& c);                // places.cpp, after read_proc_bind
void display_environment(const global_config& c);  // display_env.cpp: OMP_DISPLAY_ENV's report

// ---- affinity display (affinity.cpp) -----------------------------------------------------

const char* default_affinity_format() noexcept;
bool valid_affinity_format(const char* format, std::string& error);  // error: why not
void set_affinity_format(const char* format, std::size_t length);
// `fortran`: the result is blank-padded to size without a terminator (Fortran's character
// arguments); else NUL-terminated within size. Both return the full length.
std::size_t get_affinity_format(char* buffer, std::size_t size, bool fortran);
std::size_t capture_affinity(char* buffer, std::size_t size, const char* format, bool fortran);
void display_affinity(const char* format);  // format null or empty: the affinity-format-var
// OMP_DISPLAY_AFFINITY, set once with the configuration; start_turn calls show_affinity, which
// prints the calling thread's line when it differs from the last one it printed.
extern std::atomic<bool> g_display_affinity;
void show_affinity_slow() noexcept;
inline void show_affinity() noexcept {
  // relaxed: a flag written once while the configuration is read, before any region
  if (g_display_affinity.load(std::memory_order_relaxed)) [[unlikely]]
    show_affinity_slow();
}
// Affinity lines go to stderr, as libgomp prints them, until the KMPC front-end displays one or
// starts a region while OMP_DISPLAY_AFFINITY is on: from then on to stdout, as libomp prints
// them (a clang program's first region comes before its first line).
extern std::atomic<bool> g_affinity_stdout;
inline void kmpc_affinity_to_stdout() noexcept {
  // relaxed: it only picks a stream; a team's threads see it after the region's start
  if (!g_affinity_stdout.load(std::memory_order_relaxed)) g_affinity_stdout.store(true, std::memory_order_relaxed);
}

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
inline constexpr int k_spin_burst = 16;  // PAUSEs per spin round
inline constexpr int k_yield_rounds = 64;
void spin_pause(int round) noexcept;  // a burst of PAUSEs for small rounds, sched_yield for larger ones
// [P-OMP Hot H1] PAUSEs a pool worker whose turn ended waits for its primary's next region
// (polling its mailbox) before it enters the pool's idle loop: a few microseconds.
inline constexpr int k_hot_spins = 64;

// [P-OMP Wait W0] a wait whose team fits its CPUs spins this long (PAUSEs, re-checking its
// predicate) before it yields: the imbalance at a barrier of a regular loop is tens of
// microseconds, and a parked thread wakes that much later than a spinning one notices.
inline constexpr std::chrono::microseconds k_active_spin{200};
// True when this thread's waits may spin k_active_spin: the wait policy is active and its
// team is not nested in another active one and has no more threads than the CPUs (team.cpp).
bool waits_spin_active() noexcept;

// The ladder that every wait climbs before it parks ([P-OMP Wait W0]); a passive wait policy
// starts at the top. climb() pauses once (one PAUSE in the spin phases, so that the caller
// re-checks its predicate after each: a PAUSE costs tens of nanoseconds on some CPUs, and a
// burst would delay every hand-over by its length; one sched_yield after them) and is false
// when it is time to park; restart() after useful work. The phases: k_fine PAUSEs; while
// waits_spin_active(), PAUSEs up to k_active_spin (left early when the CPUs are crowded or
// when a gap in the spin shows the thread was preempted, [P-SLEEP Crowd]); yields.
class wait_ladder {
 public:
  wait_ladder() noexcept : round_(config().passive_wait ? k_top : 0) {}
  void restart() noexcept {
    round_ = 0;
    spin_start_ns_ = 0;
  }
  bool climb() noexcept {
    if (round_ >= k_top) return false;
    if (round_ < k_fine) {
      ++round_;
      forkjoin::detail::cpu_relax();
      return true;
    }
    if (round_ == k_fine && spin_active() && spin_longer()) return true;
    ++round_;
    // [P-SLEEP Crowd] a yield that handed the CPU away, or any yield while the CPUs are
    // crowded: park now rather than queue behind other threads' time slices
    if (forkjoin::detail::yield_if_uncrowded()) return true;
    round_ = k_top;
    return false;
  }

 private:
  static constexpr int k_fine = k_spin_rounds * k_spin_burst;
  static constexpr int k_top = k_fine + k_yield_rounds;
  static constexpr unsigned k_clock_every = 32;  // PAUSEs between two reads of the clock
  bool spin_active() noexcept {
    if (active_ < 0) active_ = waits_spin_active() ? 1 : 0;
    return active_ != 0;
  }
  // One PAUSE of the active spin; false when it is over.
  bool spin_longer() noexcept {
    forkjoin::detail::cpu_relax();
    if (++spins_ % k_clock_every != 0) return true;
    const std::int64_t now = forkjoin::detail::crowd_clock_ns();
    if (spin_start_ns_ == 0) {
      spin_start_ns_ = last_ns_ = now;
      if (!forkjoin::detail::crowded(now)) return true;
    } else if (now - last_ns_ > std::chrono::nanoseconds(forkjoin::detail::k_crowd_spin_gap).count()) {
      forkjoin::detail::note_crowded(now);  // preempted while spinning: the CPUs are taken
    } else if (now - spin_start_ns_ <= std::chrono::nanoseconds(k_active_spin).count()) {
      last_ns_ = now;
      return true;
    }
    active_ = 0;
    return false;
  }
  int round_;
  int active_ = -1;  // waits_spin_active(), read at the first climb past the fine phase
  unsigned spins_ = 0;
  std::int64_t spin_start_ns_ = 0, last_ns_ = 0;
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

// [P-OMP Hot H3] stores v unless x already holds it: a hot team's fields mostly keep their
// values from region to region, and a line that is not written stays valid in the members'
// caches.
template <class T, class V>
inline void set_if_changed(T& x, const V& v) noexcept {
  if (!(x == v)) x = v;
}
template <class T, class V>
inline void set_if_changed(std::atomic<T>& x, const V& v) noexcept {
  if (x.load(std::memory_order_relaxed) != static_cast<T>(v)) x.store(static_cast<T>(v), std::memory_order_relaxed);
}

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
  std::uint64_t multiple = 1;  // guided chunks but the last are multiples of it (KMPC's simd schedules)
  std::uint64_t start = 0;     // as the caller's type, bit-cast to 64 bits
  std::uint64_t end = 0;
  std::uint64_t incr = 0;
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> next{0};
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> ordered_next{0};
  std::atomic<void*> copy_data{nullptr};
  std::atomic<std::uint32_t> copy_ready{0};
  // what some encounters add, set by the creator before W2 ([P-OMP WS W4]); mem and dx are
  // freed by the last of extra_users to leave
  void* mem = nullptr;               // GOMP_loop_start's team-shared buffer (scan, lastprivate(conditional:))
  doacross* dx = nullptr;            // a doacross loop's posted iterations ([P-OMP Doacross])
  ws_reduction* task_red = nullptr;  // reduction(task, ...): the copies ([P-OMP Reduce R5])
  std::atomic<std::uint32_t> extra_users{0};
};

// ---- teams -------------------------------------------------------------------------------

struct spare;

// What a primary thread restores when its region ends.
struct saved_state {
  team* cur_team;
  unsigned id;
  task* cur_task;
  long ws_index;
  work_share* cur_ws;
  std::uint64_t static_trip, chunk_lo, chunk_hi;
  bool have_chunk;
  long single_index;
};

// One team thread's turn in a region, as a job: run by the pool worker it was posted to or
// by a spare thread, whichever takes it ([P-OMP Team S2]).
struct member_job : forkjoin::detail::job_header {
  member_job() noexcept : job_header(&execute_fn) {}
  static void execute_fn(job_header* j) noexcept;
  team* owner = nullptr;
  unsigned id = 0;
  int target = -1;        // the pool worker it was posted to, -1 if none
  bool reserved = false;  // target was reserved for it ([P-LEND R1])
  bool late = false;
};

struct team {
  team(unsigned n);
  ~team();
  // [P-OMP Hot H3] makes a finished team (every thread detached) ready for the next region
  void recycle() noexcept;

  const unsigned nthreads;
  unsigned level = 0;         // omp_get_level inside
  unsigned active_level = 0;  // omp_get_active_level inside
  team* parent = nullptr;
  unsigned parent_thread = 0;  // the primary thread's number in the parent team
  fn_t fn = nullptr;
  void* data = nullptr;
  bool prestarted_ws = false;        // a combined construct set up work share 0 ([P-OMP Team S3])
  icv icvs;                          // the implicit tasks' ICVs ([P-OMP Team S1])
  taskgroup* first_group = nullptr;  // the implicit tasks' taskgroup ([P-OMP Reduce R4])

  // [P-OMP Barrier] arrivals in the low 32 bits, generation in the high 32
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::uint64_t> barrier_word{0};
  // the region's end barrier (E1) counts in its own word, so that a cancellable barrier's
  // waiters and the end never share a generation ([P-OMP Cancel K4])
  std::atomic<std::uint64_t> end_word{0};
  std::atomic<bool> cancelled{false};     // cancel parallel ([P-OMP Cancel K1])
  std::atomic<bool> ws_cancelled{false};  // cancel for / sections, until the next barrier (K2)
  // plain singles entered by the team so far ([P-OMP WS S1])
  alignas(forkjoin::detail::k_cache_line) std::atomic<long> singles{0};
  alignas(forkjoin::detail::k_cache_line) std::atomic<std::int64_t> pending_tasks{0};
  alignas(forkjoin::detail::k_cache_line) event wakeup;  // barrier, tasks, ordered, work share slots
  alignas(forkjoin::detail::k_cache_line) std::atomic<long> ws_started{0};
  work_share ws[k_ws_ring];
  // team threads 1..n-1 that may still touch the team ([P-OMP Team E2]); on a line of its own
  alignas(forkjoin::detail::k_cache_line) count_latch attached;
  alignas(forkjoin::detail::k_cache_line) member_job* members = nullptr;  // threads 1..n-1's turns (members[k - 1])

  // [P-OMP Detach] the inbox (under inbox_lock, a futex mutex); head read relaxed as a hint
  std::atomic<task*> inbox{nullptr};
  std::uint32_t inbox_lock = 0;

  task* implicit_tasks = nullptr;                              // nthreads of them
  forkjoin::detail::chase_lev_deque<task*>* deques = nullptr;  // one per team thread
  // the primary thread's outer state, apart from what the members read
  alignas(forkjoin::detail::k_cache_line) saved_state saved{};

  // [P-OMP Bind] 0: threads unbound; 2 primary, 3 close, 4 spread. The primary's place and
  // the team's place partition [part_lo, part_lo + part_len); part_len 0: every place.
  unsigned bind_policy = 0;
  int bind_place = -1;
  int part_lo = 0, part_len = 0;
  std::uint64_t trace_region = 0;  // the region's number in the trace, 0 when not traced ([P-TRACE])
  // [P-OMP Limit L2] the threads 1..n-1 reserved in this contention group, given back at the end
  contention_group* cgroup = nullptr;
  unsigned cgroup_taken = 0;
};

inline bool run_inbox(thread_state& ts, bool any) noexcept;

// A doacross loop of the KMPC front-end: its table's work share and, per ordered dimension,
// the first value and the step that number its iterations.
struct kmpc_doacross {
  work_share* slot = nullptr;
  std::vector<std::pair<std::int64_t, std::int64_t>> dims;
};

// What the KMPC front-end (kmpc_*.cpp, LLVM's OpenMP ABI) keeps for a thread between calls.
struct kmpc_thread {
  unsigned push_threads = 0;            // __kmpc_push_num_threads for the next region (0: none)
  unsigned push_bind = 0;               // __kmpc_push_proc_bind for the next region (0: none)
  unsigned push_teams = 0;              // __kmpc_push_num_teams for the next teams construct (0: none)
  unsigned push_team_limit = 0;         // ... its thread_limit (0: none)
  int reduce_method = 0;                // what __kmpc_reduce* returned, for __kmpc_end_reduce*
  std::vector<kmpc_doacross> doacross;  // the doacross loops this thread is in, innermost last
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
  long single_index = 0;  // plain singles this thread entered in its current team ([P-OMP WS S1])
  // [P-OMP Task T6] freed task blocks by 64-byte size class (64 to 512 bytes), a list each,
  // capped: a thread that frees what others allocate keeps at most k_block_cap per class
  static constexpr unsigned k_block_classes = 8;
  static constexpr std::uint32_t k_block_cap = 1024;
  void* free_blocks[k_block_classes] = {};
  std::uint32_t free_block_count[k_block_classes] = {};
  // [P-OMP Limit] the contention group this thread is the initial thread of, and the team
  // threads resolve_num_threads reserved in the current group for the region it starts next
  contention_group cgroup;
  unsigned cgroup_taken = 0;
  // [P-OMP Hot] the last finished team this thread was the primary of, per nesting level
  // (hot[level - 1]), kept for its next region of that level and size
  static constexpr unsigned k_hot_levels = 4;
  team* hot[k_hot_levels] = {};
  int gtid = 0;      // the thread's number in the process, in creation order (the KMPC ABI's global thread id)
  kmpc_thread kmpc;  // the KMPC front-end's state between its calls
};

inline bool run_inbox(thread_state& ts, bool any) noexcept {
  // [P-OMP Detach V4] the head is a hint read relaxed; the slow path takes the lock
  return ts.cur_team->inbox.load(std::memory_order_relaxed) != nullptr && run_inbox_slow(ts, any);
}

// The state of the calling thread; created on first use with its initial team and task.
// initial-exec: one load at a fixed offset from the thread pointer, where the default model
// of a shared library calls __tls_get_addr on every access (libgomp makes the same choice)
extern __thread thread_state* tls_state __attribute__((tls_model("initial-exec")));
thread_state& make_self() noexcept;
inline thread_state& self() noexcept {
  thread_state* ts = tls_state;
  return ts != nullptr ? *ts : make_self();
}
inline thread_state* self_if_any() noexcept { return tls_state; }  // null on a thread that never used the runtime
// Makes ts the calling thread's state: a new spare thread takes over a retired one's.
void adopt_self(thread_state& ts) noexcept;
int thread_count() noexcept;  // threads that got a thread_state so far
// Thread `id`'s turn in team t: the one place where a team thread starts its part of a
// region (the primary in begin_region, the others in run_member), before the region's body.
void start_turn(thread_state& ts, team& t, unsigned id) noexcept;
// A team thread other than the primary: start_turn, the body, the region's end barrier.
void run_member(thread_state& ts, team& t, unsigned id) noexcept;

// [P-OMP Teams M1] (teams.cpp) runs fn(data) with the caller as the initial thread of a new
// team of one whose implicit task has the ICVs v; `fresh`: at level 0 (a target region).
void run_as_initial_thread(thread_state& ts, const icv& v, fn_t fn, void* data, bool fresh) noexcept;

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
bool task_cancelled_slow(const task& t) noexcept;
inline bool task_cancelled(const task& t) noexcept { return config().cancellation && task_cancelled_slow(t); }
// With cancel-var true: a new task of the current task would be discarded at once.
bool creation_cancelled_slow(thread_state& ts) noexcept;
inline bool creation_cancelled(thread_state& ts) noexcept {
  return config().cancellation && creation_cancelled_slow(ts);
}

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
void ws_leave(thread_state& ts) noexcept;                      // this thread is done with the current work share
void ws_leave_slot(thread_state& ts, work_share& w) noexcept;  // ... with w, entered earlier
// After ws_enter, the creator having described the work share (and set dx): sets up the
// team-shared buffer of *mem bytes (mem non-null) and the task reductions of `reductions`
// (non-null: a workshare taskgroup starts), publishes the work share if `creator`, then
// stores the buffer in *mem and attaches this thread to the reductions ([P-OMP WS W4]).
void ws_publish_extras(thread_state& ts, bool creator, std::uintptr_t* reductions, void** mem);

// Describes a loop of `count` iterations in w (the creator, before W2): schedule kind and
// chunk as GOMP_loop_*_start take them; the caller maps iteration numbers to its own values.
void init_loop_space(work_share& w, unsigned nthreads, std::uint64_t count, std::uint64_t chunk, int kind,
                     bool ordered) noexcept;
void runtime_schedule(thread_state& ts, int& kind, std::uint64_t& chunk) noexcept;  // run-sched-var
// The calling thread's next chunk [lo, hi) of iteration numbers of its current loop (handing
// on the ordered turn, [P-OMP Ordered]), or false.
bool loop_next(thread_state& ts, std::uint64_t& lo, std::uint64_t& hi) noexcept;
void end_loop(thread_state& ts) noexcept;       // hands on the ordered turn, leaves the work share
void ordered_start(thread_state& ts) noexcept;  // waits for the ordered turn ([P-OMP Ordered] O2)
// [P-OMP WS S1] true for the one thread of the team that runs the next plain single.
bool single_start(thread_state& ts) noexcept;

// ---- reduction(task, ...) on worksharing constructs (reduction.cpp, [P-OMP Reduce R5]) ----

// Starts this thread's workshare taskgroup and registers `data` (the creator: allocates the
// copies and records them in w.task_red, before W2; the others: after W2, views of them).
void ws_reductions_enter(thread_state& ts, work_share& w, std::uintptr_t* data, bool creator);

// ---- doacross loops (doacross.cpp, [P-OMP Doacross]) ------------------------------------

// The creator of a doacross loop's work share: the posted-iteration table for ncounts
// dimensions of counts[d] iterations each, over the loop w describes (schedule, chunk).
doacross* doacross_create(int kind, std::uint64_t chunk, std::uint64_t count, unsigned nthreads, unsigned ncounts,
                          const std::uint64_t* counts);
// A table of one bit per iteration of the whole space, whatever the schedule and however the
// loops are collapsed (the KMPC front-end's doacross loops: [P-OMP Doacross] X4).
doacross* doacross_create_bits(unsigned nthreads, unsigned ncounts, const std::uint64_t* counts);
void doacross_free(doacross* dx) noexcept;
// Post and wait for the iteration vector v (ncounts values, each numbered from 0).
void doacross_post(doacross& dx, const std::uint64_t* v) noexcept;
void doacross_wait(doacross& dx, const std::uint64_t* v) noexcept;

}  // namespace forkjoin::omp
