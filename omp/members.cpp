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

#include "../forkjoin/mailbox.hpp"
#include "internal.hpp"

namespace forkjoin::omp {
namespace {

namespace fj = forkjoin::detail;

// How long a primary waits for a busy worker to reach its idle loop before it gives the
// turn to a spare thread, and how long an idle spare thread lives.
constexpr auto k_grace = std::chrono::microseconds(100);
constexpr long k_spare_idle_ms = 200;

}  // namespace

// A spare thread's record. Never freed: a retired record is reused by the next new spare
// thread, so thread_state::spares never dangles.
struct spare {
  std::atomic<std::uint32_t> go{0};      // turns handed to it; futex word ([P-OMP Team D1])
  std::atomic<std::uint32_t> parked{0};  // 1 while it may be blocked on go
  member_job* job = nullptr;             // written by the dispatcher before D1
  std::size_t pos = 0;                   // in g_idle_spares while listed; guarded by g_spares_mutex
  bool listed = false;                   // idle, between turns; guarded by g_spares_mutex
};

namespace {

// Idle spare threads, and records of retired ones; a live spare is either listed or has a
// turn coming or running ([P-OMP Team R1]).
std::mutex g_spares_mutex;
std::vector<spare*> g_idle_spares;
std::vector<spare*> g_retired_spares;

void unlist_locked(spare& s) noexcept {
  spare* last = g_idle_spares.back();
  g_idle_spares[s.pos] = last;
  last->pos = s.pos;
  g_idle_spares.pop_back();
  s.listed = false;
}

// [P-OMP Team F1] fork() copies only the calling thread: in the child no spare thread exists,
// so the idle ones are forgotten (their records leak) and new ones start when needed; the
// default pool is recreated there [P-FORK].
void forget_spares_in_child() {
  new (&g_spares_mutex) std::mutex;
  for (spare* s : g_idle_spares) s->listed = false;
  g_idle_spares.clear();
}

// Waits until go != seen: spins, yields, then parks, giving up after k_spare_idle_ms parked.
bool wait_for_turn(spare& s, std::uint32_t seen) noexcept {
  wait_ladder ladder;
  while (s.go.load(std::memory_order_acquire) == seen) {  // [P-OMP Team D2] pairs with D1
    if (ladder.climb()) continue;
    s.parked.store(1, std::memory_order_seq_cst);        // [P-OMP Team D3] Dekker with D1's load of parked
    if (s.go.load(std::memory_order_seq_cst) == seen) {  // [P-OMP Team D3] Dekker with D1
      timespec timeout{k_spare_idle_ms / 1000, (k_spare_idle_ms % 1000) * 1000000};
      long rc =
          syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&s.go), FUTEX_WAIT_PRIVATE, seen, &timeout, nullptr, 0);
      if (rc != 0 && errno == ETIMEDOUT && s.go.load(std::memory_order_acquire) == seen) {  // D2
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
  std::uint32_t seen = 0;
  for (;;) {
    if (!wait_for_turn(*s, seen)) {
      // [P-OMP Team R1] retire, unless a dispatcher took it off the list: then a turn is coming
      std::lock_guard<std::mutex> lock(g_spares_mutex);
      if (!s->listed) continue;
      unlist_locked(*s);
      s->go.store(0, std::memory_order_relaxed);  // reused by a new thread, created after this unlock
      s->parked.store(0, std::memory_order_relaxed);
      g_retired_spares.push_back(s);
      return nullptr;  // its thread_state stays (nothing points at an idle thread's)
    }
    seen += 1;
    member_job* j = s->job;
    j->execute(j);
    std::lock_guard<std::mutex> lock(g_spares_mutex);
    s->pos = g_idle_spares.size();
    g_idle_spares.push_back(s);  // [P-OMP Team R1] listed only between turns
    s->listed = true;
  }
}

// Runs j on an idle spare thread (`preferred` if it is idle) or a new one; sets preferred
// to the one chosen.
void run_on_spare(member_job* j, spare*& preferred) noexcept {
  static const int registered = pthread_atfork(nullptr, nullptr, &forget_spares_in_child);
  (void)registered;
  spare* s = nullptr;
  bool fresh = false;
  {
    std::lock_guard<std::mutex> lock(g_spares_mutex);
    if (preferred != nullptr && preferred->listed)
      s = preferred;
    else if (!g_idle_spares.empty())
      s = g_idle_spares.back();
    if (s != nullptr) {
      unlist_locked(*s);
    } else if (!g_retired_spares.empty()) {
      s = g_retired_spares.back();
      g_retired_spares.pop_back();
      fresh = true;
    }
  }
  preferred = s;
  if (s != nullptr && !fresh) {
    s->job = j;
    s->go.fetch_add(1, std::memory_order_seq_cst);  // [P-OMP Team D1] release pairs with D2; Dekker with D3
    if (s->parked.load(std::memory_order_seq_cst) != 0) futex_wake_all(s->go);
    return;
  }
  if (s == nullptr) s = preferred = new spare;
  s->job = j;
  s->go.store(1, std::memory_order_relaxed);  // pthread_create orders it before the thread runs
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (config().stack_size != 0) pthread_attr_setstacksize(&attr, config().stack_size);
  pthread_t th;
  int rc = pthread_create(&th, &attr, &spare_main, s);
  pthread_attr_destroy(&attr);
  if (rc != 0) fatal("cannot create a team thread (pthread_create failed)");
}
}  // namespace

forkjoin::pool& omp_pool() {
  // [P-OMP Team S5] the first level's nthreads-var sizes the pool if this layer creates it
  pool_options o;
  o.num_threads = config().initial.nthreads;
  if (config().stack_size != 0) o.stack_size = config().stack_size;
  return fj::default_pool_with(o);
}

bool on_pool_worker() noexcept { return fj::worker_index_in(omp_pool()) >= 0; }

unsigned idle_pool_workers() noexcept { return static_cast<unsigned>(fj::num_available_workers(omp_pool())); }

void start_members(thread_state& ts, team& t) noexcept {
  forkjoin::pool& p = omp_pool();
  if (ts.spares.size() < t.nthreads - 1) ts.spares.resize(t.nthreads - 1, nullptr);
  const int me = fj::worker_index_in(p);
  const auto size = static_cast<unsigned>(p.num_threads());
  // background workers (slots 1..size-1) other than the caller, in a fixed order: team
  // thread k of every region this thread starts is worker target(k) [P-OMP Team S2]
  const unsigned workers = me >= 1 ? size - 2 : size - 1;
  bool any_late = false;
  for (unsigned k = 1; k < t.nthreads; ++k) {
    member_job& m = t.members[k - 1];
    m.owner = &t;
    m.id = k;
    m.late = false;
    m.target = -1;
    if (k <= workers) {
      const unsigned target = me >= 1 ? 1 + (static_cast<unsigned>(me) - 1 + k) % (size - 1) : k;
      const fj::post_result r = fj::post_to_worker(p, target, &m);
      if (r == fj::post_result::prompt) continue;
      if (r == fj::post_result::late) {
        m.target = static_cast<int>(target);
        m.late = true;
        any_late = true;
        continue;
      }
    }
    run_on_spare(&m, ts.spares[k - 1]);
  }
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
      run_on_spare(&m, ts.spares[k - 1]);
  }
}

}  // namespace forkjoin::omp
