// team.hpp: teams and the per-thread state ([P-OMP Team], [P-OMP Hot], [P-OMP Limit]):
// a region's start and end, the barrier ([P-OMP Barrier]), team threads from the pool,
// host teams ([P-OMP Teams]) and the cancellation checks ([P-OMP Cancel]).
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "common.hpp"
#include "forkjoin/detail/atomic.hpp"
#include "forkjoin/detail/deque.hpp"
#include "forkjoin/detail/job.hpp"
#include "icv.hpp"
#include "task.hpp"
#include "wait.hpp"
#include "work_share.hpp"

namespace forkjoin::omp {

// ---- teams -------------------------------------------------------------------------------

struct spare;
struct affinity_shown;  // affinity.hpp

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
  bool woken_later = false;  // a prompt post whose wake-up comes after the others ([P-LEND L9])
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
  bool prestarted_ws = false;      // a combined construct set up work share 0 ([P-OMP Team S3])
  bool oversubscribed = false;     // more threads than CPUs: [P-OMP Hot H6] (set by start_members)
  bool members_leave_end = false;  // [P-OMP Team E4]: oversubscribed, or nested in an active team (likewise)
  // [P-OMP Team E4] start_members handed out every turn of the region: no thread that leaves
  // the end barrier early can be handed a second turn of it
  std::atomic<bool> members_handed{false};
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
  // [P-OMP Display] with OMP_DISPLAY_AFFINITY: what each team thread last displayed (thread 0's
  // record is its parent team thread's), and whether every thread displays this region
  affinity_shown* shown = nullptr;
  bool display_all = false;
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
  // static: the chunks this thread took; ranged dynamic ([P-LOOP Steal]): 1 once it took
  // the loop's last chunk
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
// The team at nesting level `level` of the calling thread's ancestry (0: the initial team)
// and the number of the calling thread's ancestor in it; null for a level outside
// [0, current level]. ancestor_thread_num: that number, or -1.
const team* team_at_level(const thread_state& ts, int level, unsigned* thread_num) noexcept;
int ancestor_thread_num(const thread_state& ts, int level) noexcept;
// Creates a team of n threads with the caller as thread 0 and starts threads 1..n-1 on
// fn(data) (pool workers, else spare threads: start_members); the caller then runs its own part and calls end_region.
// init_ws, if given, sets up the team's first work share before any thread starts (combined constructs).
// group, if given, becomes every implicit task's taskgroup (parallel reduction(task, ...)).
team* begin_region(thread_state& ts, fn_t fn, void* data, unsigned n, unsigned flags,
                   void (*init_ws)(team&, work_share&, const void*) = nullptr, const void* ws_arg = nullptr,
                   taskgroup* group = nullptr);
void end_region(thread_state& ts) noexcept;
// omp_pause_resource(_all) on the host: 0 when paused, nonzero inside a region or for a bad kind
int pause_resources(int kind) noexcept;
// Combined constructs (combined.cpp): begin_region with the team's first work share set up
// as a loop (`runtime`: its schedule is run-sched-var) or as `count` sections.
void begin_parallel_loop(thread_state& ts, fn_t fn, void* data, unsigned n, long start, long end, long incr, long chunk,
                         int kind, bool runtime, unsigned flags);
void begin_parallel_sections(thread_state& ts, fn_t fn, void* data, unsigned n, unsigned count, unsigned flags);
// A whole parallel reduction(task, ...) region of n threads ([P-OMP Reduce R4]).
void parallel_with_reductions(thread_state& ts, fn_t fn, void* data, unsigned n, unsigned flags);
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

// [P-OMP Cancel] (cancel.cpp) cancel and cancellation point, `which` as gcc passes it (1
// parallel, 2 for, 4 sections, 8 taskgroup); false with cancel-var false.
bool cancellation_point(int which);
bool cancel(int which, bool do_cancel);

// [P-OMP Teams M2] and M3 (teams.cpp): host teams, teams inside a target region, and gcc < 9's form.
void teams_reg(fn_t fn, void* data, unsigned num_teams, unsigned thread_limit, unsigned);
bool teams4(unsigned num_teams_lo, unsigned, unsigned thread_limit, bool first);
void teams_legacy(unsigned, unsigned thread_limit);
int max_teams() noexcept;                     // nteams-var (omp_get_max_teams)
void set_max_teams(int n) noexcept;           // omp_set_num_teams: n > 0 only
void set_teams_thread_limit(int n) noexcept;  // teams-thread-limit-var: n > 0 only
int teams_thread_limit() noexcept;

}  // namespace forkjoin::omp
