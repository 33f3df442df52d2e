// members.cpp: where team threads come from ([P-OMP Team S2]): the workers of forkjoin's
// default pool, each handed its turn by name through its mailbox ([P-LEND]), and spare
// threads for the turns no worker can take soon (more threads than the pool, or a region
// started inside a busy pool). Spare threads retire after an idle period.
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <new>
#include <vector>

#include "../../forkjoin/mailbox.hpp"
#include "internal.hpp"

namespace forkjoin::omp {
namespace {

namespace fj = forkjoin::detail;

// How long a primary waits for a busy worker to reach its idle loop before it gives the
// turn to a spare thread, and how long an idle spare thread lives.
constexpr auto k_grace = std::chrono::microseconds(1000);
constexpr long k_spare_idle_ms = 200;

}  // namespace

// A spare thread's record. Never freed (a retired record gets a new thread), so
// thread_state::spares never dangles.
struct spare {
  std::atomic<std::uint32_t> state{1};      // [P-OMP Team R1] k_idle, k_busy or k_retired
  std::atomic<std::uint32_t> go{0};         // turns handed to it; futex word ([P-OMP Team D1])
  std::atomic<std::uint32_t> parked{0};     // 1 while it may be blocked on go
  member_job* job = nullptr;                // written by the dispatcher before D1
  const team* last_team = nullptr;          // job's team, compared only (E5): the team may be gone
  thread_state* state_of_thread = nullptr;  // its thread's state, adopted by the next thread on this record
};

namespace {

constexpr std::uint32_t k_idle = 0, k_busy = 1, k_retired = 2;

// Every spare record ever made; appended under the mutex, never shrinks (a fork()
// child keeps its parent's records, unclaimable). Never destroyed either: spare threads may
// outlive static destruction, and a destroyed list would leave their records unreachable.
std::mutex g_spares_mutex;
std::vector<spare*>& g_spares = *new std::vector<spare*>;

// [P-OMP Team F1] fork() copies only the calling thread: in the child no spare thread exists,
// so the records are made unclaimable (they stay listed: never claimed, never freed, still
// reachable for LeakSanitizer; a thread_state::spares entry may still name one) and new
// spares start when needed; the default pool is recreated there [P-FORK].
void forget_spares_in_child() {
  new (&g_spares_mutex) std::mutex;
  for (spare* s : g_spares) s->state.store(k_busy, std::memory_order_relaxed);
}

// Waits until go != seen: spins, yields, then parks; false after k_spare_idle_ms parked.
bool wait_for_turn(spare& s, std::uint32_t seen) noexcept {
  wait_ladder ladder;
  while (s.go.load(std::memory_order_acquire) == seen) {  // [P-OMP Team D2] pairs with D1
    if (ladder.climb()) continue;
    s.parked.store(1, std::memory_order_seq_cst);        // [P-OMP Team D3] Dekker with D1's load of parked
    if (s.go.load(std::memory_order_seq_cst) == seen) {  // [P-OMP Team D3] Dekker with D1
      timespec timeout{k_spare_idle_ms / 1000, (k_spare_idle_ms % 1000) * 1000000};
      long rc =
          syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.go), FUTEX_WAIT_PRIVATE, seen, &timeout, nullptr, 0);
      if (rc != 0 && errno == ETIMEDOUT) {
        s.parked.store(0, std::memory_order_relaxed);
        return false;
      }
    }
    s.parked.store(0, std::memory_order_relaxed);
  }
  return true;
}

void* spare_main(void* arg) {
  auto* s = static_cast<spare*>(arg);
  pthread_setname_np(pthread_self(), "forkjoin-spare");
  // a record's threads run one after another (R2 before R1): the state passes on with it
  if (s->state_of_thread != nullptr)
    adopt_self(*s->state_of_thread);
  else
    s->state_of_thread = &self();
  s->state_of_thread->spare_state = &s->state;
  std::uint32_t seen = s->go.load(std::memory_order_acquire) - 1;  // D2: its first turn is waiting
  for (;;) {
    if (!wait_for_turn(*s, seen)) {
      // [P-OMP Team R2] retire unless a dispatcher took it meanwhile (then its turn is coming)
      std::uint32_t idle = k_idle;
      if (s->state.compare_exchange_strong(idle, k_retired,
                                           std::memory_order_release))  // [P-OMP Team R2] pairs with R1's claim
        return nullptr;
      continue;
    }
    seen += 1;
    member_job* j = s->job;
    j->execute(j);  // [P-OMP Team R1] run_member makes it k_idle again just before E2
  }
}

// Runs j on an idle spare thread (`preferred` if it is idle) or a new one; sets preferred
// to the one chosen. A spare whose last turn was one of `avoid`'s is not taken ([P-OMP Team
// E5]).
void run_on_spare(member_job* j, spare*& preferred, const team* avoid) noexcept {
  static const int registered = pthread_atfork(nullptr, nullptr, &forget_spares_in_child);
  (void)registered;
  // [P-OMP Team R1] claim a record by CAS: an idle one keeps its thread, a retired one gets
  // a new thread
  auto claim = [avoid](spare* s, std::uint32_t from) {
    // acquire pairs with the release that made it idle or retired: the spare's last use of
    // its record (job, parked) happens before the new turn's
    if (!s->state.compare_exchange_strong(from, k_busy, std::memory_order_acquire))  // [P-OMP Team R1]
      return false;
    if (avoid == nullptr || s->last_team != avoid) return true;
    s->state.store(from, std::memory_order_release);  // [P-OMP Team R1] given back: pairs with the next claim
    return false;
  };
  spare* s = nullptr;
  bool fresh = false;
  if (preferred != nullptr && claim(preferred, k_idle)) s = preferred;
  if (s == nullptr) {
    std::lock_guard<std::mutex> lock(g_spares_mutex);
    for (spare* c : g_spares)
      if (claim(c, k_idle)) {
        s = c;
        break;
      }
    if (s == nullptr)
      for (spare* c : g_spares)
        if (claim(c, k_retired)) {
          s = c;
          fresh = true;
          break;
        }
    if (s == nullptr) {
      s = new spare;  // starts k_busy
      g_spares.push_back(s);
      fresh = true;
    }
  }
  preferred = s;
  s->job = j;
  s->last_team = j->owner;
  s->go.fetch_add(1, std::memory_order_seq_cst);  // [P-OMP Team D1] release pairs with D2; Dekker with D3
  if (!fresh) {
    if (s->parked.load(std::memory_order_seq_cst) != 0) futex_wake_all(s->go);
    return;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  // [P-OMP KMP] OMP_STACKSIZE, KMP_STACKSIZE or kmp_set_stacksize_s before this thread's start
  if (const std::size_t stack = g_settings.stack_size.load(std::memory_order_relaxed); stack != 0)
    pthread_attr_setstacksize(&attr, stack);
  pthread_t th;
  int rc = pthread_create(&th, &attr, &spare_main, s);
  pthread_attr_destroy(&attr);
  if (rc != 0) fatal("cannot create a team thread (pthread_create failed)");
}
}  // namespace

namespace {
// The default pool as last looked up (a region looks it up twice); forgotten in a fork()
// child, where the pool is recreated [P-FORK]. A thread that reads null looks it up again.
std::atomic<forkjoin::pool*> g_omp_pool{nullptr};
void forget_pool_in_child() { g_omp_pool.store(nullptr, std::memory_order_relaxed); }
}  // namespace

forkjoin::pool& omp_pool() {
  if (forkjoin::pool* p = g_omp_pool.load(std::memory_order_acquire)) return *p;  // pairs with the release below
  static const int registered = pthread_atfork(nullptr, nullptr, &forget_pool_in_child);
  (void)registered;
  // [P-OMP Load D2] a library opened since the start may have brought another runtime in
  check_duplicate_runtimes();
  // [P-OMP Team S5] the first level's nthreads-var sizes the pool if this layer creates it
  pool_options o;
  o.num_threads = config().initial.nthreads;
  if (const std::size_t stack = g_settings.stack_size.load(std::memory_order_relaxed); stack != 0) o.stack_size = stack;
  forkjoin::pool& p = fj::default_pool_with(o);
  g_omp_pool.store(&p, std::memory_order_release);  // publishes the pool to the acquire above
  return p;
}

namespace {
// Background workers (slots 1..size-1) other than the caller `me`, in a fixed order: team
// thread k of every region a thread starts is worker target(k), k = 1..count [P-OMP Team S2].
struct worker_order {
  int me;
  unsigned size;
  unsigned count() const noexcept { return size == 0 ? 0 : (me >= 1 ? size - 2 : size - 1); }
  unsigned target(unsigned k) const noexcept {
    return me >= 1 ? 1 + (static_cast<unsigned>(me) - 1 + k) % (size - 1) : k;
  }
};

// [P-OMP Team E5] the top-level team above t (t included) if its members may leave the end
// barrier early, else null.
const team* outer_team_left_early(const team* t) noexcept {
  for (; t != nullptr && t->level >= 1; t = t->parent)
    if (t->level == 1) return t->members_leave_end ? t : nullptr;
  return nullptr;
}
}  // namespace

int reserve_idle_workers(thread_state& ts, unsigned wanted) noexcept {
  forkjoin::pool& p = omp_pool();
  const worker_order order{fj::worker_index_in(p), static_cast<unsigned>(p.num_threads())};
  if (order.me < 0) return -1;
  // [P-OMP Team E5] inside a region whose members may have left early, idle workers may be
  // its members: a team of one
  if (outer_team_left_early(ts.cur_team) != nullptr) return 0;
  // [P-LEND R1] every reservation is followed by its post (start_members): none is pending
  FORKJOIN_DEBUG_ASSERT(ts.reserved.empty(), "a reservation was never posted");
  for (unsigned k = 1; k <= order.count() && ts.reserved.size() < wanted; ++k)
    if (fj::reserve_worker(p, order.target(k))) ts.reserved.push_back(order.target(k));
  return static_cast<int>(ts.reserved.size());
}

namespace {
void hand_out_turns(thread_state& ts, team& t, const team* avoid) noexcept {
  forkjoin::pool& p = omp_pool();
  if (ts.spares.size() < t.nthreads - 1) ts.spares.resize(t.nthreads - 1, nullptr);
  const worker_order order{fj::worker_index_in(p), static_cast<unsigned>(p.num_threads())};
  // [P-OMP Team S4] a team sized from reserved workers runs on exactly those
  const bool sized = !ts.reserved.empty();
  // read by the members after they took their posts ([P-LEND L5]); a team of one has none
  set_if_changed(t.oversubscribed, t.nthreads > config().num_procs);            // [P-OMP Hot H6]
  set_if_changed(t.members_leave_end, t.oversubscribed || t.active_level > 1);  // [P-OMP Team E4]
  FORKJOIN_DEBUG_ASSERT(!sized || ts.reserved.size() == t.nthreads - 1, "reservation and team size differ");
  // [P-OMP Team S2] every idle target is reserved before the first post: a reserved worker
  // steals nothing ([P-LEND R3]), so none takes the work the first members' turns create
  // and misses its own turn
  for (unsigned k = 1; k < t.nthreads; ++k) {
    member_job& m = t.members[k - 1];
    m.owner = &t;
    m.id = k;
    m.late = false;
    m.target = -1;
    m.reserved = sized;
    if (sized) {
      m.target = static_cast<int>(ts.reserved[k - 1]);
    } else if (k <= order.count() && avoid == nullptr) {
      m.target = static_cast<int>(order.target(k));
      m.reserved = fj::reserve_worker(p, order.target(k));
    }
  }
  // [P-LEND L9] every post is made before the first wake-up: a woken worker may take this
  // thread's CPU, and the members still awake would otherwise wait for their posts meanwhile
  bool any_late = false;
  for (unsigned k = 1; k < t.nthreads; ++k) {
    member_job& m = t.members[k - 1];
    m.woken_later = false;
    if (m.target >= 0) {
      const fj::post_result r = fj::post_to_worker_unwoken(p, static_cast<std::size_t>(m.target), &m, m.reserved);
      if (r == fj::post_result::prompt) {
        m.woken_later = true;
        continue;
      }
      if (r == fj::post_result::late) {
        m.late = true;
        any_late = true;
        continue;
      }
    }
    run_on_spare(&m, ts.spares[k - 1], avoid);
  }
  fj::wake_docked(p);  // [P-LEND D2, D3] one broadcast for the members docked by [P-OMP Hot H6]
  for (unsigned k = 1; k < t.nthreads; ++k)
    if (t.members[k - 1].woken_later) fj::wake_posted_worker(p, static_cast<std::size_t>(t.members[k - 1].target));
  ts.reserved.clear();
  if (!any_late) return;
  // [P-OMP Team S2] a busy worker gets k_grace to reach its idle loop; then its turn is
  // withdrawn (one RMW decides, [P-LEND L6]) and given to a spare thread
  const auto deadline = std::chrono::steady_clock::now() + k_grace;
  for (int round = 0;; ++round) {
    bool pending = false;
    for (unsigned k = 1; k < t.nthreads; ++k) {
      member_job& m = t.members[k - 1];
      if (!m.late) continue;
      if (fj::worker_took_or_idle(p, static_cast<std::size_t>(m.target), &m))
        m.late = false;
      else
        pending = true;
    }
    if (!pending) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
    spin_pause(round < k_spin_rounds ? round : k_spin_rounds);
  }
  for (unsigned k = 1; k < t.nthreads; ++k) {
    member_job& m = t.members[k - 1];
    if (m.late && fj::withdraw_from_worker(p, static_cast<std::size_t>(m.target), &m))
      run_on_spare(&m, ts.spares[k - 1], avoid);
  }
}

}  // namespace

void start_members(thread_state& ts, team& t) noexcept {
  // [P-OMP Team E4] no member on a spare thread leaves the end barrier early while turns
  // are handed out: a spare that left could be handed a second turn of the region (a worker
  // is posted one turn, by name). Relaxed: the posts below publish it, and E3 kept the
  // previous region's members away
  t.members_handed.store(false, std::memory_order_relaxed);
  // [P-OMP Team E5] a nested team keeps off the threads of an outer region whose members
  // leave early: they are that region's thread numbers (threadprivate) until it ends
  hand_out_turns(ts, t, t.level > 1 ? outer_team_left_early(t.parent) : nullptr);
  t.members_handed.store(true, std::memory_order_release);  // [P-OMP Team E4] pairs with end_barrier's acquire
}

}  // namespace forkjoin::omp
