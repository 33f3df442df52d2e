// team.cpp: thread state, a team thread's turn, region start and end, and the team barrier. Protocols:
// omp/DESIGN.md [P-OMP Team], [P-OMP Barrier], [P-OMP Wait], [P-OMP Count].
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>

#include "../../forkjoin/mailbox.hpp"
#include "internal.hpp"

#if defined(FORKJOIN_COVERAGE_BUILD)
// libgcov's counter dump (the coverage preset): fatal() and unsupported() end with abort(),
// which skips the exit handler that would write the counters.
extern "C" void __gcov_dump();
#endif

namespace forkjoin::omp {

// ---- diagnostics and waiting -------------------------------------------------------------

void unsupported(const char* construct) noexcept {
  // Several team threads may reach the construct at once: one reports and aborts, the others
  // wait for the abort, so the message appears once.
  static std::atomic<bool> reported{false};
  if (reported.exchange(true, std::memory_order_relaxed)) {
    for (;;) pause();
  }
  std::fprintf(stderr, "forkjoin-omp: %s is not supported\n", construct);
  std::fflush(stderr);
#if defined(FORKJOIN_COVERAGE_BUILD)
  __gcov_dump();
#endif
  std::abort();
}

void fatal(const char* message) noexcept {
  std::fprintf(stderr, "forkjoin-omp: %s\n", message);
  std::fflush(stderr);
#if defined(FORKJOIN_COVERAGE_BUILD)
  __gcov_dump();
#endif
  std::abort();
}

void futex_wait_u32(std::uint32_t* word, std::uint32_t expected) noexcept {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}
void futex_wake_u32(std::uint32_t* word, int count) noexcept {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
  futex_wait_u32(reinterpret_cast<std::uint32_t*>(&word), expected);
}
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept {
  futex_wake_u32(reinterpret_cast<std::uint32_t*>(&word), INT_MAX);
}

// [P-OMP Wait W0] the ladder: PAUSE bursts, then sched_yield, then the caller parks. The
// loops that call this cannot park: on crowded CPUs they nap instead of yielding ([P-SLEEP Crowd]).
bool waits_spin_active() noexcept {
  const thread_state* ts = self_if_any();
  if (ts == nullptr || ts->cur_team == nullptr) return true;  // no team: nothing shares the CPUs
  const team& t = *ts->cur_team;
  return t.active_level <= 1 && t.nthreads <= config().num_procs;
}

void spin_pause(int round) noexcept {
  if (round < k_spin_rounds) {
    for (int i = 0; i < k_spin_burst; ++i) forkjoin::detail::cpu_relax();
  } else if (!forkjoin::detail::yield_if_uncrowded()) {
    const timespec nap{0, std::chrono::nanoseconds(forkjoin::detail::k_crowd_nap).count()};
    nanosleep(&nap, nullptr);
  }
}

void wake_thread(thread_state& ts) noexcept {
  ts.wake.fetch_add(1, std::memory_order_release);  // [P-OMP Count C5] a parked owner's expected value is stale
  futex_wake_all(ts.wake);
}

// The owner of `latch` waits for zero; step() may run work meanwhile ([P-OMP Count]).
template <class Step>
static void wait_latch(thread_state& ts, count_latch& latch, Step step) noexcept {
  wait_ladder ladder;
  while (!latch.zero()) {
    if (step()) {
      ladder.restart();
      continue;
    }
    if (ladder.climb()) continue;
    std::uint32_t s = ts.wake.load(std::memory_order_acquire);  // [P-OMP Count C5] pairs with wake_thread
    if (!latch.try_announce_sleep()) break;
    if (step()) continue;  // [P-OMP Detach V4] work handed over (inbox) before the wake that s missed
    futex_wait(ts.wake, s);
  }
  latch.reset();
}

namespace {
// [P-OMP Task T3] a waiter with no descendant of its own steals the oldest task of a
// teammate's deque; one it may not run goes back to its parent ([P-OMP Handback]), whose
// own waits, or its ancestors' and the barriers, find it.
bool steal_descendant(thread_state& ts) noexcept {
  team& t = *ts.cur_team;
  if (t.pending_tasks.load(std::memory_order_relaxed) == 0) return false;  // a hint: nothing deferred
  const unsigned n = t.nthreads;
  ts.rng ^= ts.rng << 13;
  ts.rng ^= ts.rng >> 7;
  ts.rng ^= ts.rng << 17;
  const unsigned first = static_cast<unsigned>(ts.rng % n);
  for (unsigned k = 0; k < n; ++k) {
    const unsigned v = (first + k) % n;
    if (v == ts.id) continue;
    auto r = t.deques[v].steal();
    if (r.result != forkjoin::detail::steal_result::success) continue;
    if (may_run_in_wait(ts, r.value)) {  // [P-OMP Handback] H1
      run_task(ts, r.value);
      return true;
    }
    hand_back(t, r.value);  // [P-OMP Handback] H2
    return false;
  }
  return false;
}
}  // namespace

bool run_own_descendant(thread_state& ts) noexcept {
  if (run_handed_back(ts, ts.cur_task)) return true;  // [P-OMP Handback] H3
  if (run_inbox(ts, false)) return true;              // [P-OMP Detach V4]
  team& t = *ts.cur_team;
  if (t.deques == nullptr) return false;
  // [P-OMP Task T3] only tasks this thread pushed since the current task started are
  // certainly its descendants; they sit at the owner's end of the deque.
  auto& dq = t.deques[ts.id];
  task* x = dq.pop();
  if (x == nullptr) return steal_descendant(ts);
  if (x->seq < ts.cur_task->mark) {
    dq.push(x);
    return steal_descendant(ts);
  }
  run_task(ts, x);
  return true;
}

void wait_descendants(thread_state& ts, count_latch& latch) noexcept {
  wait_latch(ts, latch, [&] { return run_own_descendant(ts); });
}

// ---- thread state ------------------------------------------------------------------------

__thread thread_state* tls_state = nullptr;

namespace {
std::atomic<int> threads_made{0};  // thread states made so far, in order of first use

// [P-OMP KMPC K18] libomp's LIBOMP_NUM_HIDDEN_HELPER_THREADS, read as libomp reads it: 0 to 16,
// a larger value is 16, anything else the default 8.
constexpr int k_hidden_helpers_default = 8;
constexpr int k_hidden_helpers_max = 16;
int read_hidden_helper_count() noexcept {
  const char* s = std::getenv("LIBOMP_NUM_HIDDEN_HELPER_THREADS");
  if (s == nullptr) return k_hidden_helpers_default;
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  while (end != s && (*end == ' ' || *end == '\t')) ++end;
  if (end == s || *end != '\0' || v < 0) {
    kmp_notice("LIBOMP_NUM_HIDDEN_HELPER_THREADS=%s is not a number; %d is used, as libomp does", s,
               k_hidden_helpers_default);
    return k_hidden_helpers_default;
  }
  if (v > k_hidden_helpers_max) {
    kmp_notice("LIBOMP_NUM_HIDDEN_HELPER_THREADS=%s is too large; %d is used, as libomp does", s, k_hidden_helpers_max);
    return k_hidden_helpers_max;
  }
  return static_cast<int>(v);
}
}  // namespace

int hidden_helper_count() noexcept {
  static const int n = read_hidden_helper_count();  // once, when first needed
  return n;
}

thread_state& make_self() noexcept {
  auto* ts = new thread_state;
  const int made = threads_made.fetch_add(1, std::memory_order_relaxed);  // a number, nothing to publish
  // [P-OMP KMPC K18] the first thread is 0, the others come after the hidden helpers' 1..N
  ts->gtid = made == 0 ? 0 : made + hidden_helper_count();
  const global_config& c = config();  // first: a team reads it ([P-OMP KMPC K17])
  auto* t = new team(1);
  t->implicit_tasks[0].icvs = c.initial;
  apply_kmpc_defaults(t->implicit_tasks[0].icvs);  // [P-OMP KMPC K15]
  t->implicit_tasks[0].icvs.cgroup = &ts->cgroup;  // [P-OMP Limit] an initial thread's own group
  t->implicit_tasks[0].children.owner = ts;
  ts->initial_team = t;
  ts->cur_team = t;
  ts->cur_task = &t->implicit_tasks[0];
  ts->rng ^= reinterpret_cast<std::uintptr_t>(ts);
  tls_state = ts;
  return *ts;
}

void start_turn(thread_state& ts, team& t, unsigned id) noexcept {
  ts.cur_team = &t;
  ts.id = id;
  // [P-OMP Hot H3] each thread (re)builds its own implicit task: its cache lines stay with it
  // across regions. Nothing refers to implicit task `id` before its thread starts its turn.
  task& x = t.implicit_tasks[id];
  clear_dependences(&x);  // the previous region's, on a hot team
  x.~task();
  new (&x) task;
  x.implicit = true;
  x.root = &x;  // [P-OMP Handback] H1
  x.depth = 0;
  x.owner_team = &t;
  x.icvs = t.icvs;                  // [P-OMP Team S1]
  x.current_group = t.first_group;  // [P-OMP Reduce R4]
  x.children.owner = &ts;
  x.mark = ts.push_seq;
  ts.cur_task = &x;
  // a combined construct's first work share is already set up ([P-OMP Team S3])
  const bool prestarted = t.prestarted_ws;
  ts.ws_index = prestarted ? 1 : 0;
  ts.cur_ws = prestarted ? &t.ws[0] : nullptr;
  ts.static_trip = 0;
  ts.have_chunk = false;
  ts.single_index = 0;
  bind_team_thread(t, id);  // [P-OMP Bind] B3
  show_affinity();          // OMP_DISPLAY_AFFINITY, after the binding it shows
  trace_turn_begin(t, id);  // [P-TRACE] the turn's span
}

void run_member(thread_state& ts, team& t, unsigned id) noexcept {
  start_turn(ts, t, id);
  t.fn(t.data);
  end_barrier(ts);  // [P-OMP Team E1] the region's end: every task of the team is finished
  trace_turn_end(t, id);
  ts.cur_team = ts.initial_team;
  ts.id = 0;
  ts.cur_task = &ts.initial_team->implicit_tasks[0];
  ts.cur_ws = nullptr;
  ts.single_index = 0;
  // a spare may be handed its next turn from here on (its go count keeps it) [P-OMP Team R1];
  // a worker goes straight to its idle loop after E2, so the next post to it is prompt (S6)
  if (ts.spare_state != nullptr)
    ts.spare_state->store(0, std::memory_order_release);  // [P-OMP Team R1] pairs with the claim's acquire
  else
    forkjoin::detail::announce_idle();
  t.attached.done();  // [P-OMP Team E2] the last access to the team
}

void member_job::execute_fn(forkjoin::detail::job_header* j) noexcept {
  for (;;) {
    auto* m = static_cast<member_job*>(j);
    team& t = *m->owner;  // read before the turn: the team (and m) may be gone after E2
    const unsigned id = m->id;
    thread_state& ts = self();
    const bool spare_thread = ts.spare_state != nullptr;  // else a pool worker
    const bool oversubscribed = t.oversubscribed;
    run_member(ts, t, id);
    if (spare_thread) return;  // its own loop waits for its next turn
    // [P-OMP Hot H1] the primary's next region usually follows within microseconds (a
    // passive wait policy spins nowhere); where the team's threads outnumber the CPUs,
    // [P-OMP Hot H6] if neighbours also crowd them the wait parks until the primary's one
    // broadcast, and [P-OMP Hot H7] otherwise it yields between polls
    if (!waits_park_at_once()) {
      if (!oversubscribed)
        forkjoin::detail::await_mail(k_hot_spins);
      else if (forkjoin::detail::crowded(forkjoin::detail::crowd_clock_ns()))
        forkjoin::detail::dock_for_mail(k_dock_time);
      else
        forkjoin::detail::yield_for_mail(k_yield_poll);
    }
    // [P-OMP Team S6] a worker stays in the idle loop it announced before E2: a consecutive
    // region's turn runs here, anything else it found runs as its top-level loop would
    j = forkjoin::detail::find_idle_work();
    if (j == nullptr || j->execute != &execute_fn) {
      unbind_thread();  // [P-OMP Bind] leaving team duty: pool work runs on the initial CPUs
      if (j != nullptr) forkjoin::detail::run_found_work(j);  // in its region [P-ISO Adopt]
      return;
    }
  }
}

void adopt_self(thread_state& ts) noexcept { tls_state = &ts; }

int thread_count() noexcept { return threads_made.load(std::memory_order_relaxed); }

// ---- teams -------------------------------------------------------------------------------

team::team(unsigned n) : nthreads(n) {
  implicit_tasks = new task[n];
  for (unsigned i = 0; i < n; ++i) {
    implicit_tasks[i].implicit = true;
    implicit_tasks[i].root = &implicit_tasks[i];  // [P-OMP Handback] H1
    implicit_tasks[i].depth = 0;
    implicit_tasks[i].owner_team = this;
  }
  // relaxed: set once with the configuration, before any team exists
  if (g_display_affinity.load(std::memory_order_relaxed)) shown = new affinity_shown[n];
  if (n > 1) {
    deques = new forkjoin::detail::chase_lev_deque<task*>[n];
    members = new member_job[n - 1];
  }
}

team::~team() {
  for (unsigned i = 0; i < nthreads; ++i) clear_dependences(&implicit_tasks[i]);
  delete[] implicit_tasks;
  delete[] shown;
  delete[] deques;
  delete[] members;
}

// [P-OMP Hot H3] no other thread touches the team any more (E3 held): every field may be
// reset without ordering. The deques are empty (E1 ran every task), the members' jobs are
// rewritten by start_members, each thread rebuilds its implicit task in start_turn.
// The barrier words keep their generations (a completed barrier holds no arrival); the
// members' lines are written only where a value changed.
void team::recycle() noexcept {
  FORKJOIN_DEBUG_ASSERT(static_cast<std::uint32_t>(barrier_word.load(std::memory_order_relaxed)) == 0 &&
                            static_cast<std::uint32_t>(end_word.load(std::memory_order_relaxed)) == 0 &&
                            pending_tasks.load(std::memory_order_relaxed) == 0,
                        "a finished team holds an arrival or a task");
  set_if_changed(prestarted_ws, false);
  set_if_changed(cancelled, false);
  set_if_changed(ws_cancelled, false);
  set_if_changed(singles, 0);
  set_if_changed(ws_started, 0);
  for (auto& w : ws) {
    set_if_changed(w.index, -1);
    set_if_changed(w.remaining, 0u);
  }
}

namespace {
// [P-OMP Team E3] waits until no team thread can touch t any more.
void detach_all(thread_state& ts, team& t) noexcept {
  wait_latch(ts, t.attached, [] { return false; });
}

// [P-OMP Hot H2] the team for a region of n threads at `level` that ts starts: its hot team
// of that level if it has n threads, else a new one. Either way the previous team of that
// level is detached first (E3): its members are back where the new region looks for them
// (a worker's idle loop, an idle spare record), so team thread k stays the same thread.
team* take_team(thread_state& ts, unsigned level, unsigned n) {
  if (level - 1 < thread_state::k_hot_levels) {
    team*& slot = ts.hot[level - 1];
    if (slot != nullptr) {
      team* t = slot;
      slot = nullptr;
      detach_all(ts, *t);
      if (t->nthreads == n) {
        t->recycle();
        return t;
      }
      delete t;
    }
  }
  return new team(n);
}

// [P-OMP Hot H5] at exit: the members of the exiting thread's hot teams finish their last
// turn before the exit handlers registered earlier (the trace's file) run. Bounded: a program
// may exit from inside a region, whose members then never finish.
void finish_hot_teams_at_exit() {
  thread_state* ts = tls_state;
  if (ts == nullptr) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  for (team* t : ts->hot)
    while (t != nullptr && !t->attached.zero() && std::chrono::steady_clock::now() < until) sched_yield();
}

// [P-OMP Hot H2] a finished team becomes ts's hot team of its level; the one it replaces is
// freed once detached.
void keep_team(thread_state& ts, team* t) noexcept {
  // [P-OMP Hot H5] registered after the pool (and its trace's exit handler) exists: runs first
  static const int at_exit = std::atexit(&finish_hot_teams_at_exit);
  (void)at_exit;
  if (t->level - 1 >= thread_state::k_hot_levels) {
    detach_all(ts, *t);
    delete t;
    return;
  }
  team*& slot = ts.hot[t->level - 1];
  if (slot != nullptr) {
    detach_all(ts, *slot);
    delete slot;
  }
  slot = t;
}

// [P-OMP Hot H4] fork() copies only the calling thread: no team thread of its hot teams
// exists in the child, and none will touch them.
void detach_hot_teams_in_child() {
  thread_state* ts = tls_state;
  if (ts == nullptr) return;
  for (team* t : ts->hot)
    if (t != nullptr) t->attached.reset();
}
}  // namespace

// [P-OMP KMP Pause] omp_pause_resource: outside every region, the calling thread's hot teams
// are freed once their members detached (E3); their threads are the pool's workers and spare
// threads, which park and retire on their own, so nothing else outlives a region.
int pause_resources(int kind) noexcept {
  if (kind != 1 && kind != 2) return -1;  // omp_pause_soft, omp_pause_hard
  thread_state& ts = self();
  if (ts.cur_team->level != 0) return -1;  // inside a region: not paused
  for (team*& t : ts.hot) {
    if (t == nullptr) continue;
    detach_all(ts, *t);
    delete t;
    t = nullptr;
  }
  return 0;
}

unsigned resolve_num_threads(thread_state& ts, unsigned requested) noexcept {
  const icv& v = ts.cur_task->icvs;
  unsigned n = requested != 0 ? requested : v.nthreads;
  if (n <= 1 || library_serial()) return 1;  // [P-OMP KMP] KMP_LIBRARY=serial: teams of one
  if (ts.cur_team->active_level >= v.max_active_levels) return 1;
  if (v.dyn && n > config().num_procs) n = config().num_procs;
  // [P-OMP Limit L1] thread-limit-var bounds the whole contention group: reserve the team's
  // other threads there first
  const unsigned limit = v.cgroup != nullptr ? thread_limit_of(v) : 0;
  if (limit != 0) {
    std::atomic<unsigned>& busy = v.cgroup->busy;
    unsigned b = busy.load(std::memory_order_relaxed);  // a guess; the CAS decides
    unsigned take;
    do {
      const unsigned room = b < limit ? limit - b : 0;
      take = n - 1 < room ? n - 1 : room;
    } while (take != 0 && !busy.compare_exchange_weak(b, b + take, std::memory_order_acquire,
                                                      std::memory_order_relaxed));  // [P-OMP Limit L1] pairs with L2
    n = 1 + take;
  }
  // [P-OMP Team S4] on a pool worker and without num_threads, the team is the caller and the
  // idle workers it could reserve: a parallel_for body that calls an OpenMP-parallel
  // function never multiplies the threads. Not for a region nested in an OpenMP region with
  // dyn-var false: OpenMP gives it nthreads-var threads
  if (requested == 0 && n > 1 && (ts.cur_team->level == 0 || v.dyn)) {
    const int got = reserve_idle_workers(ts, n - 1);
    if (got >= 0) {
      // the group's threads this smaller team does not use go back at once (never used:
      // relaxed is enough)
      if (limit != 0) v.cgroup->busy.fetch_sub(n - 1 - static_cast<unsigned>(got), std::memory_order_relaxed);
      n = 1 + static_cast<unsigned>(got);
    }
  }
  ts.cgroup_taken = limit != 0 ? n - 1 : 0;  // begin_region hands them to the team
  return n;
}

team* begin_region(thread_state& ts, fn_t fn, void* data, unsigned n, unsigned flags,
                   void (*init_ws)(team&, work_share&, const void*), const void* ws_arg, taskgroup* group) {
  static const int registered = pthread_atfork(nullptr, nullptr, &detach_hot_teams_in_child);
  (void)registered;
  team& outer = *ts.cur_team;
  team* t = take_team(ts, outer.level + 1, n);
  set_if_changed(t->level, outer.level + 1);
  set_if_changed(t->active_level, outer.active_level + (n > 1 ? 1 : 0));
  set_if_changed(t->parent, &outer);
  set_if_changed(t->parent_thread, ts.id);
  set_if_changed(t->fn, fn);
  set_if_changed(t->data, data);
  // [P-OMP Team S1] the implicit tasks inherit the encountering task's ICVs; nthreads-var
  // takes the next entry of an OMP_NUM_THREADS list
  icv inherited = ts.cur_task->icvs;
  const auto& list = config().nthreads_list;
  if (t->level < list.size()) inherited.nthreads = list[t->level];
  plan_binding(ts, *t, flags, inherited);     // [P-OMP Bind] B1
  set_if_changed(t->icvs, inherited);         // copied into each implicit task by start_turn
  set_if_changed(t->first_group, group);      // [P-OMP Reduce R4]
  if (t->shown != nullptr) plan_display(*t);  // [P-OMP Display] D1, after E3 (take_team)
  if (init_ws != nullptr) {
    // [P-OMP Team S3] the first work share of a combined construct, before any thread starts
    init_ws(*t, t->ws[0], ws_arg);
    t->ws[0].remaining.store(n, std::memory_order_relaxed);
    t->ws[0].index.store(0, std::memory_order_relaxed);
    t->ws_started.store(1, std::memory_order_relaxed);
    t->prestarted_ws = true;
  }
  t->saved = saved_state{ts.cur_team,    ts.id,       ts.cur_task, ts.ws_index,   ts.cur_ws,
                         ts.static_trip, ts.chunk_lo, ts.chunk_hi, ts.have_chunk, ts.single_index};
  t->cgroup = ts.cur_task->icvs.cgroup;  // [P-OMP Limit L2] given back by end_region
  t->cgroup_taken = ts.cgroup_taken;
  ts.cgroup_taken = 0;
  t->attached.owner = &ts;
  t->attached.add(n - 1);
  start_turn(ts, *t, 0);
  if (n > 1) start_members(ts, *t);  // [P-OMP Team S2]
  return t;
}

void end_region(thread_state& ts) noexcept {
  team* t = ts.cur_team;
  end_barrier(ts);  // [P-OMP Team E1]
  trace_turn_end(*t, 0);
  // every team thread finished its part (E1): the group gets the team's threads back
  if (t->cgroup_taken != 0)
    t->cgroup->busy.fetch_sub(t->cgroup_taken, std::memory_order_release);  // [P-OMP Limit L2] pairs with L1
  const saved_state& s = t->saved;
  ts.cur_team = s.cur_team;
  ts.id = s.id;
  ts.cur_task = s.cur_task;
  ts.ws_index = s.ws_index;
  ts.cur_ws = s.cur_ws;
  ts.static_trip = s.static_trip;
  ts.chunk_lo = s.chunk_lo;
  ts.chunk_hi = s.chunk_hi;
  ts.have_chunk = s.have_chunk;
  ts.single_index = s.single_index;
  // [P-OMP Hot H2] E3 is deferred to the team's next use or its end: the members' last steps
  // (after E1) overlap with what the primary does next
  keep_team(ts, t);
}

// ---- barrier ([P-OMP Barrier]) -----------------------------------------------------------

namespace {
// One barrier on `word`. A cancellable one leaves when the team is cancelled, taking its
// arrival back unless the barrier completed meanwhile ([P-OMP Cancel K4]).
template <bool leave_when_idle = false>
bool barrier_on(thread_state& ts, std::atomic<std::uint64_t>& word, bool cancellable) noexcept {
  team& t = *ts.cur_team;
  const unsigned n = t.nthreads;
  // a team of one runs its tasks at once: only a detached one can be pending ([P-OMP Detach V5])
  if (n == 1 && t.pending_tasks.load(std::memory_order_acquire) == 0) {  // pairs with T4 in task.cpp
    if (t.ws_cancelled.load(std::memory_order_relaxed))
      t.ws_cancelled.store(false, std::memory_order_relaxed);  // [P-OMP Cancel K2]
    return cancellable && t.cancelled.load(std::memory_order_relaxed);
  }
  if (cancellable && t.cancelled.load(std::memory_order_relaxed)) return true;  // [P-OMP Cancel K4]
  // [P-OMP Barrier B1] arrive; the acq_rel RMWs form one release sequence that B2 reads
  std::uint64_t w = word.fetch_add(1, std::memory_order_acq_rel) + 1;
  const std::uint32_t gen = static_cast<std::uint32_t>(w >> 32);
  auto released = [&] {
    std::uint64_t cur = word.load(std::memory_order_acquire);  // [P-OMP Barrier B3] pairs with B2
    if (static_cast<std::uint32_t>(cur >> 32) != gen) return true;
    if (!cancellable || !t.cancelled.load(std::memory_order_relaxed)) return false;
    // [P-OMP Cancel K4] take the arrival back while the generation is still this one
    while (static_cast<std::uint32_t>(cur >> 32) == gen) {
      if (word.compare_exchange_weak(cur, cur - 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire))  // [P-OMP Cancel K4] pairs with B1 and B2
        return true;
    }
    return true;
  };
  auto step = [&] {
    std::uint64_t cur = word.load(std::memory_order_acquire);  // [P-OMP Barrier B1] sees every arrival
    if (static_cast<std::uint32_t>(cur >> 32) == gen && static_cast<std::uint32_t>(cur) == n &&
        t.pending_tasks.load(std::memory_order_acquire) == 0) {  // pairs with T4 in task.cpp
      // everyone arrived and no task is pending: none can be created any more
      if (t.ws_cancelled.load(std::memory_order_relaxed))
        t.ws_cancelled.store(false, std::memory_order_relaxed);  // [P-OMP Cancel K2] published by B2
      std::uint64_t next = static_cast<std::uint64_t>(gen + 1) << 32;
      if (word.compare_exchange_strong(cur, next,
                                       std::memory_order_acq_rel))  // [P-OMP Barrier B2] pairs with B3
        t.wakeup.notify();
      return true;
    }
    // [P-OMP Barrier B4] look into the deques only while some task is pending
    return t.pending_tasks.load(std::memory_order_relaxed) != 0 && run_any_task(ts);
  };
  const trace_span span(forkjoin::detail::trace_kind::omp_barrier, t.trace_region, &word == &t.end_word ? 1 : 0);
  if constexpr (leave_when_idle) {
    // [P-OMP Team E4] a member of a team larger than its CPUs helps while there is a task to
    // run, then leaves without waiting for the release: whoever changes the last of the
    // barrier's conditions runs a step afterwards (B2), and the primary waits for it
    while (!released())
      if (!step()) return false;
    return false;
  }
  t.wakeup.wait_until(released, step);
  return cancellable && t.cancelled.load(std::memory_order_relaxed);
}
// Out of line: the end barrier of a team that fits its CPUs stays as short as it was.
FORKJOIN_NOINLINE void end_barrier_leaving(thread_state& ts) noexcept {
  barrier_on<true>(ts, ts.cur_team->end_word, false);
}
}  // namespace

void barrier(thread_state& ts) noexcept { barrier_on(ts, ts.cur_team->barrier_word, false); }
bool cancel_barrier(thread_state& ts) noexcept { return barrier_on(ts, ts.cur_team->barrier_word, true); }
// [P-OMP Team E1] the region's end, on its own word ([P-OMP Cancel K4])
void end_barrier(thread_state& ts) noexcept {
  // [P-OMP Team E4] a member of a team larger than its CPUs (or nested in another active
  // one) does not wait for the release; on a spare thread, only once every turn of the
  // region was handed out (a pool worker is posted one turn of a region, by name)
  team& t = *ts.cur_team;
  if (t.members_leave_end && ts.id != 0 &&
      (ts.spare_state == nullptr ||
       t.members_handed.load(std::memory_order_acquire)))  // [P-OMP Team E4] pairs with start_members' release
    return end_barrier_leaving(ts);
  barrier_on(ts, t.end_word, false);
}

const team* team_at_level(const thread_state& ts, int level, unsigned* thread_num) noexcept {
  const team* t = ts.cur_team;
  unsigned id = ts.id;
  if (level < 0 || static_cast<unsigned>(level) > t->level) return nullptr;
  while (t->level > static_cast<unsigned>(level)) {
    id = t->parent_thread;
    t = t->parent;
  }
  if (thread_num != nullptr) *thread_num = id;
  return t;
}

int ancestor_thread_num(const thread_state& ts, int level) noexcept {
  unsigned id = 0;
  return team_at_level(ts, level, &id) != nullptr ? static_cast<int>(id) : -1;
}

}  // namespace forkjoin::omp
