// arena.cpp: task_arena (initialize, attach, execute, enqueue, terminate), isolation,
// max_concurrency, global_control and the scheduler handle, and the pool that work started
// by a thread goes to. Owns the arenas and the active controls; not the tasks (task.cpp).
// Protocol: tbb/DESIGN.md [P-TBB Arena].
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "forkjoin/detail/waiting_api.hpp"
#include "forkjoin/pool.hpp"
#include "forkjoin/task_group.hpp"
#include "fp_env.hpp"
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

namespace {
// [P-TBB Arena A9] outside threads that used the scheduler and have not left it: each counts
// once, from its first use until finalize on that thread or the thread's end.
std::atomic<int> g_outside_users{0};  // relaxed: a count read by finalize, which orders nothing by it
std::atomic<bool> g_scheduler_used{false};
struct outside_use {
  bool counted = false;
  ~outside_use() {
    if (counted) g_outside_users.fetch_sub(1, std::memory_order_relaxed);
  }
};
thread_local outside_use t_outside_use;
}  // namespace

void note_outside_use() noexcept {
  if (t_outside_use.counted) return;
  t_outside_use.counted = true;
  g_outside_users.fetch_add(1, std::memory_order_relaxed);  // a count: see g_outside_users
  g_scheduler_used.store(true, std::memory_order_relaxed);  // set once, never cleared
}

void leave_scheduler() noexcept {
  if (!t_outside_use.counted) return;
  t_outside_use.counted = false;
  g_outside_users.fetch_sub(1, std::memory_order_relaxed);
}

int outside_users() noexcept { return g_outside_users.load(std::memory_order_relaxed); }
bool attached_outside() noexcept { return t_outside_use.counted; }
bool scheduler_used() noexcept { return g_scheduler_used.load(std::memory_order_relaxed); }
void scheduler_finalized() noexcept { g_scheduler_used.store(false, std::memory_order_relaxed); }

namespace {

using d1::global_control;

// The active global_control objects, by parameter, under g_controls_mutex.
std::mutex g_controls_mutex;
std::array<std::vector<std::size_t>, global_control::parameter_max> g_controls;
// The max_allowed_parallelism in force, 0 when none: read on every implicit-arena lookup.
std::atomic<std::size_t> g_parallelism_cap{0};

// [P-TBB Arena A2] capped pools by size, created on demand and never destroyed (like
// default_pool(), so that no static destructor joins threads).
std::mutex g_capped_mutex;
std::map<std::size_t, forkjoin::pool*>* g_capped = nullptr;
std::uint32_t g_capped_generation = 0;  // the fork generation g_capped belongs to, under g_capped_mutex

// [P-TBB Arena A3] the arena of each pool an arena object was made for, for attach().
std::mutex g_arenas_mutex;
std::map<pool_impl*, r1::arena*>* g_arenas = nullptr;

// The implicit arena's size, without creating the default pool: a program whose arenas all
// get pools of their own (capped, or smaller) never starts its threads.
std::size_t default_size() { return default_pool_size(); }

forkjoin::pool& capped_pool(std::size_t n) {
  const std::lock_guard<std::mutex> lock(g_capped_mutex);
  // [P-FORK] in a fork() child the parent's capped pools have no threads: forget them (leaked,
  // as default_pool()'s parent copy is) and make new ones on demand.
  const std::uint32_t generation = current_fork_generation();
  if (g_capped == nullptr || g_capped_generation != generation) {
    g_capped = new std::map<std::size_t, forkjoin::pool*>();
    g_capped_generation = generation;
  }
  forkjoin::pool*& p = (*g_capped)[n];
  if (p == nullptr) {
    pool_options o;
    o.num_threads = n;
    o.thread_name_prefix = "forkjoin-tbb";
    // g_controls_mutex after g_capped_mutex: nothing holding the former takes the latter
    if (const std::size_t stack = active_value(global_control::thread_stack_size); stack != 0) o.stack_size = stack;
    p = new forkjoin::pool(o);
  }
  return *p;
}

std::size_t effective(global_control::parameter p) noexcept {
  const std::vector<std::size_t>& v = g_controls[p];
  switch (p) {
    case global_control::max_allowed_parallelism:
      return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
    case global_control::thread_stack_size:
    case global_control::terminate_on_exception:
      return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
    default:
      return v.size();
  }
}

r1::arena* arena_of(d1::task_arena_base& ta) noexcept {
  return r1::task_arena_impl::arena_of(ta).load(std::memory_order_acquire);  // pairs with [P-TBB Arena A4]
}

}  // namespace

pool_impl& implicit_pool() {
  const std::size_t cap = g_parallelism_cap.load(std::memory_order_relaxed);
  if (cap != 0 && cap < default_size()) return impl_of(capped_pool(cap));  // [P-TBB Arena A2]
  return impl_of(default_pool());
}

// [P-TBB Arena A16] the threads lent to arenas: the implicit arena's; or, under a cap above
// its size (oneTBB then lets its workers grow to the cap), the cap's pool (A2's, kept).
pool_impl& lender_pool() {
  const std::size_t cap = g_parallelism_cap.load(std::memory_order_relaxed);
  if (cap != 0 && cap > default_size()) return impl_of(capped_pool(cap));
  return implicit_pool();
}

int implicit_concurrency() {
  const std::size_t cap = g_parallelism_cap.load(std::memory_order_relaxed);
  const std::size_t n = default_size();
  return static_cast<int>(cap != 0 && cap < n ? cap : n);
}

pool_impl& current_pool() {
  const worker* w = tls_worker;
  return w != nullptr ? *w->pool_ : implicit_pool();  // [P-TBB Arena A1]
}

std::size_t active_value(int param) noexcept {
  if (param < 0 || param >= global_control::parameter_max) return 0;
  const std::lock_guard<std::mutex> lock(g_controls_mutex);
  return effective(static_cast<global_control::parameter>(param));
}

}  // namespace forkjoin::detail::tbb_layer

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;
using forkjoin::detail::pool_impl;

namespace {

void register_arena(arena* a) {
  const std::lock_guard<std::mutex> lock(tl::g_arenas_mutex);
  if (tl::g_arenas == nullptr) tl::g_arenas = new std::map<pool_impl*, arena*>();
  (*tl::g_arenas)[&a->pool()] = a;
}

void unregister_arena(arena* a) {
  const std::lock_guard<std::mutex> lock(tl::g_arenas_mutex);
  auto it = tl::g_arenas->find(&a->pool());
  if (it != tl::g_arenas->end() && it->second == a) tl::g_arenas->erase(it);
}

// [P-TBB Arena A7] the borrowing arena this thread entered by execute (null: none), so that
// a nested execute of the same arena, attach and this_task_arena::max_concurrency see it.
thread_local arena* t_entered = nullptr;
// [P-TBB Arena A6] the region tag that run_entered's isolation gave this thread (0: none).
thread_local std::uint32_t t_entered_tag = 0;

// [P-TBB Arena A7] runs d as a thread of a's pool. A borrowing arena entered by a thread
// that was already running that pool's work (`from_inside`) isolates d; one entered from
// outside the pool (its external slot, or a worker running the injected functor) does not.
void run_entered(arena* a, d1::delegate_base& d, bool from_inside) {
  const tl::fp_env_scope fp(a->has_fp(), a->fp_env());  // [P-TBB Arena A13]
  if (!a->isolates() || t_entered == a) {
    d();
    return;
  }
  struct restore {
    arena* prev;
    std::uint32_t prev_tag;
    ~restore() {
      t_entered = prev;
      t_entered_tag = prev_tag;
    }
  } guard{t_entered, t_entered_tag};
  t_entered = a;
  t_entered_tag = 0;
  if (!from_inside) {
    d();
    return;
  }
  a->note_entered_inside();  // [P-TBB Arena A11]
  forkjoin::detail::worker& w = *forkjoin::detail::tls_worker;
  const forkjoin::detail::isolation_scope scope(w);
  t_entered_tag = w.deque_.tag();
  d();
}

// [P-TBB Arena A16] the lent pool of an arena of concurrency n with `reserved` slots for
// outside threads: slot 0 and n - reserved worker slots (at least one slot's worth of
// reservation: slot 0 is the outside threads' in any pool), no thread; up to n outside
// threads inside at once, as oneTBB's arena has n slots for them.
std::unique_ptr<forkjoin::pool> lent_arena_pool(std::size_t n, unsigned reserved) {
  forkjoin::pool_options o;
  const std::size_t workers = n > reserved ? n - reserved : 0;
  o.num_threads = 1 + workers;
  o.max_outside_threads = std::max<std::size_t>(1, n);
  return forkjoin::detail::make_lent_pool(o, tl::arena_lender());
}

// [P-TBB Arena A16] an arena on a lent pool of its own: lenders name it (set before the
// arena is published, so before any work reaches the pool).
arena* new_lent_arena(std::size_t n, unsigned reserved, pool_impl& lender) {
  auto own = lent_arena_pool(n, reserved);
  pool_impl* impl = &forkjoin::detail::impl_of(*own);
  auto* a = new arena(std::move(own), impl, static_cast<int>(n));
  a->set_lender_pool(lender);
  forkjoin::detail::set_lender_context(*impl, a);
  return a;
}

// The borrowing arena this thread is inside, null when none (or when it runs elsewhere now).
arena* entered_here() noexcept {
  const forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  arena* a = t_entered;
  return a != nullptr && w != nullptr && w->pool_ == &a->pool() ? a : nullptr;
}

}  // namespace

// [P-TBB Arena A4] an initialized task_arena gets a lent pool of its concurrency (A16: a
// cap bounds the threads lent to it, not its slots, as oneTBB's cap bounds its workers);
// [P-TBB Arena A7] unless its concurrency (automatic: the implicit arena's) capped by
// max_allowed_parallelism reaches the implicit arena's, no cap asks for more threads than
// that, and at most one slot is reserved: then it borrows the implicit arena's pool.
// Neither creates a thread for the arena; the first one to name the implicit pool starts
// the default pool's threads (oneTBB starts workers only once work arrives).
void initialize(d1::task_arena_base& ta) {
  int& requested = task_arena_impl::requested(ta);
  const int implicit = tl::implicit_concurrency();
  std::size_t n = requested > 0 ? static_cast<std::size_t>(requested) : static_cast<std::size_t>(implicit);
  const std::size_t cap = tl::active_value(d1::global_control::max_allowed_parallelism);
  const std::size_t lent_n = n;
  if (cap != 0) n = std::min(n, cap);
  // A cap above the implicit arena's size gives arenas more workers than it has (oneTBB then
  // oversubscribes): such an arena is lent the cap's threads (A16) rather than borrowing.
  const bool fits = cap == 0 ? n >= static_cast<std::size_t>(implicit)
                             : n == static_cast<std::size_t>(implicit) && cap <= tl::default_size();
  if (fits && task_arena_impl::reserved(ta) <= 1) {
    auto* a = new arena(&tl::implicit_pool(), static_cast<int>(n), true);
    a->set_reserved(task_arena_impl::reserved(ta));  // what attach answers (A3)
    a->capture_fp(tl::current_fp_env());             // [P-TBB Arena A13]
    if (requested <= 0) requested = static_cast<int>(n);
    task_arena_impl::arena_of(ta).store(a, std::memory_order_release);  // [P-TBB Arena A4] pairs with arena_of
    return;
  }
  n = lent_n;
  arena* a = new_lent_arena(n, task_arena_impl::reserved(ta), tl::lender_pool());
  a->capture_fp(tl::current_fp_env());  // [P-TBB Arena A13]
  a->set_reserved(task_arena_impl::reserved(ta));
  if (requested <= 0) requested = static_cast<int>(n);
  register_arena(a);
  task_arena_impl::arena_of(ta).store(a, std::memory_order_release);  // [P-TBB Arena A4] pairs with arena_of
}

pool_impl& arena::use() noexcept {
  kind k = kind_.load(std::memory_order_acquire);  // [P-TBB Arena A8] pairs with own_if_fresh's release store
  if (k == kind::fresh && kind_.compare_exchange_strong(k, kind::used, std::memory_order_acq_rel))
    k = kind::used;                // acq_rel: pairs with own_if_fresh's CAS, exactly one of the two wins
  while (k == kind::converting) {  // an observer is giving the arena its own pool: wait for it
    std::this_thread::yield();
    k = kind_.load(std::memory_order_acquire);  // [P-TBB Arena A8] pairs with own_if_fresh's release store
  }
  return pool();
}

bool arena::own_if_fresh(std::unique_ptr<forkjoin::pool>& own, pool_impl& lender) noexcept {
  kind k = kind::fresh;
  // acq_rel: pairs with use()'s CAS, exactly one of the two wins [P-TBB Arena A8]
  if (!kind_.compare_exchange_strong(k, kind::converting, std::memory_order_acq_rel)) return false;
  lender_pool_ = &lender;  // [P-TBB Arena A16] published by the release stores below
  own_ = std::move(own);
  impl_.store(&forkjoin::detail::impl_of(*own_), std::memory_order_release);  // [P-TBB Arena A8] pairs with pool()
  kind_.store(kind::owned, std::memory_order_release);                        // [P-TBB Arena A8] pairs with use()
  return true;
}

void release_arena(arena* a) noexcept {
  if (a == nullptr || !a->release()) return;
  if (a->owns_pool()) unregister_arena(a);
  delete a;  // an owned pool finishes its queued tasks and joins its threads here
}

void terminate(d1::task_arena_base& ta) {
  release_arena(task_arena_impl::arena_of(ta).exchange(nullptr, std::memory_order_acq_rel));  // pairs with A4
}

// [P-TBB Arena A3] the arena of the pool this thread works for: one made by initialize, or
// a reference-counted view of any other pool (the implicit arena, a forkjoin::pool). A
// thread outside every pool that has used the scheduler is in the implicit arena (A15).
bool attach(d1::task_arena_base& ta) {
  forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  arena* a = nullptr;
  if (w == nullptr) {
    if (!tl::attached_outside()) return false;
    a = new arena(&tl::implicit_pool(), tl::implicit_concurrency(), false);  // [P-TBB Arena A15] a view
  } else if ((a = entered_here()) != nullptr) {                              // [P-TBB Arena A7]
    a->add_ref();
  } else {
    const std::lock_guard<std::mutex> lock(tl::g_arenas_mutex);
    if (tl::g_arenas != nullptr) {
      auto it = tl::g_arenas->find(w->pool_);
      if (it != tl::g_arenas->end()) a = it->second;
    }
    if (a != nullptr)
      a->add_ref();
    else
      a = new arena(w->pool_, static_cast<int>(w->pool_size_), false);
  }
  task_arena_impl::requested(ta) = a->concurrency();
  // an arena initialize made answers its reserved slots; a view of a pool, the implicit
  // arena's one
  task_arena_impl::set_reserved(ta, a->owns_pool() || a->isolates() ? a->reserved() : 1);
  task_arena_impl::arena_of(ta).store(a, std::memory_order_release);  // pairs with arena_of
  return true;
}

void execute(d1::task_arena_base& ta, d1::delegate_base& d) {
  arena* a = tl::arena_of(ta);
  if (a == nullptr) throw std::logic_error("libforkjoin-tbb: task_arena::execute on an arena that is not initialized");
  // Work started inside runs on the arena's pool: this thread enters it (its external slot,
  // or an injected job while another thread holds that slot) and leaves when d returns.
  pool_impl& p = a->use();  // [P-TBB Arena A8]
  const forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  if (w != nullptr && w->pool_ == &p) {
    run_entered(a, d, true);
    return;
  }
  // [P-TBB Observe O2, O3] the calling thread, when it runs d itself, enters the arena's
  // observers before d and leaves them after; a worker running an injected d enters them
  // before it as before its first task, and stays.
  const std::thread::id caller = std::this_thread::get_id();
  tl::run_on(p, [&d, &a, &p, caller] {
    if (std::this_thread::get_id() != caller) {
      tl::observers_on_task();
      run_entered(a, d, false);
      return;
    }
    struct leave_guard {
      forkjoin::detail::pool_impl& p;
      ~leave_guard() { tl::observers_leave(p); }
    } guard{p};
    tl::observers_on_task();
    run_entered(a, d, false);
  });
}

// [P-TBB Arena A5] isolation is forkjoin's: waits inside help only with work spawned inside.
// A nonzero key is shared: threads isolating with the same key at the same time are in one
// region ([P-ISO Share]), so collaborative_call_once's helpers run the runner's work.
void isolate_within_arena(d1::delegate_base& d, std::intptr_t key) {
  auto isolated = [&d, key] {
    forkjoin::detail::worker& w = *forkjoin::detail::tls_worker;
    if (key == 0) {
      const forkjoin::detail::isolation_scope scope(w);
      d();
    } else if (w.pool_size_ == 1) {
      d();  // [P-TBB Arena A5] one thread: a keyed region is not isolated
    } else {
      const forkjoin::detail::shared_isolation_scope scope(w, static_cast<std::uintptr_t>(key));
      d();
    }
  };
  tl::run_on(tl::current_pool(), isolated);
}

int max_concurrency(const d1::task_arena_base* ta) {
  if (ta != nullptr) {
    const arena* a = task_arena_impl::arena_of(*ta).load(std::memory_order_acquire);  // pairs with [P-TBB Arena A4]
    // [P-TBB Arena A12] while a thread is lent to it, an arena that reserves its slot counts
    // that thread too, as oneTBB's arena counts its mandatory worker
    if (a != nullptr) return a->concurrency() + (a->reserved() > 0 && a->lending() ? 1 : 0);
    const int requested = task_arena_impl::requested(*ta);
    return requested > 0 ? requested : tl::implicit_concurrency();
  }
  if (const arena* a = entered_here()) return a->concurrency();  // [P-TBB Arena A7]
  // [P-TBB Arena A12] a thread lent to an arena that reserves its slot is a worker beside it
  if (const arena* l = tl::lent_arena()) return l->concurrency() + (l->reserved() > 0 ? 1 : 0);
  const forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  if (w == nullptr) return tl::implicit_concurrency();
  if (const arena* l = tl::arena_of_lent(*w->pool_)) return l->concurrency();  // [P-TBB Arena A16]
  return static_cast<int>(w->pool_size_);
}

namespace {
// The context of enqueued tasks that name none: isolated, never cancelled.
d1::task_group_context& enqueue_context() {
  static d1::task_group_context ctx(d1::task_group_context::isolated);
  return ctx;
}

pool_impl& pool_of(d1::task_arena_base* ta) {
  if (ta == nullptr) return tl::current_pool();
  arena* a = tl::arena_of(*ta);
  if (a == nullptr) throw std::logic_error("libforkjoin-tbb: task_arena::enqueue on an arena that is not initialized");
  return a->use();  // [P-TBB Arena A8]
}

// [P-TBB Arena A6] fire and forget: into the pool's injection queue, which every worker
// polls, so that it runs even while this thread's own deque is busy. From inside the
// region of a borrowing arena entered from a task, onto this thread's deque in that region
// (published at once), where the region's waits find it.
void enqueue_on(pool_impl& p, d1::task& t, d1::task_group_context& ctx) {
  task_group_context_impl::bind(ctx);
  forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  if (w != nullptr && w->pool_ == &p && t_entered_tag != 0 && w->deque_.tag() == t_entered_tag) {
    tl::submit_to(p, t, ctx, d1::no_slot, /*spawned=*/true);
    return;
  }
  task_job* job = tl::job_for(t, ctx, d1::no_slot, d1::no_slot);
  forkjoin::detail::inject_job(p, job);
}
}  // namespace

namespace {
// [P-TBB Arena A12] an arena whose own pool has no worker borrows a thread for each task.
void lend_if_workerless(d1::task_arena_base* ta) {
  arena* a = ta != nullptr ? tl::arena_of(*ta) : nullptr;
  if (a != nullptr && a->workerless()) tl::lend_thread(*a);
}
}  // namespace

void enqueue(d1::task& t, d1::task_arena_base* ta) {
  enqueue_on(pool_of(ta), t, enqueue_context());
  lend_if_workerless(ta);
}

void enqueue(d1::task& t, d1::task_group_context& ctx, d1::task_arena_base* ta) {
  enqueue_on(pool_of(ta), t, task_group_context_impl::actual(ctx));
  lend_if_workerless(ta);
}

void submit(d1::task& t, d1::task_group_context& ctx, arena* a, std::uintptr_t as_critical) {
  d1::task_group_context& c = task_group_context_impl::actual(ctx);
  task_group_context_impl::bind(c);
  pool_impl& p = a != nullptr ? a->use() : tl::current_pool();
  if (a != nullptr && a->isolates() && a->entered_inside() && entered_here() != a)
    tl::submit_pending(*a, p, t, c);  // [P-TBB Arena A11]
  else if (as_critical != 0)
    tl::submit_critical(p, t, c);  // [P-TBB Crit K1]
  else
    tl::submit_to(p, t, c, d1::no_slot, /*spawned=*/false);
}

// [P-TBB Arena A10] task_arena::debug_wait_until_empty: enters the arena as execute does and
// runs what this thread can (its own deque, the pool's injection queue) until the arena
// looks empty: nothing injected, nothing left on this thread's deque, every other worker of
// the pool asleep (a blocked worker or a spare is not) and no thread lent to the arena
// (A12) still draining it. A debugging aid: a thread that
// holds the pool's external slot meanwhile is not watched.
void wait(d1::task_arena_base& ta) {
  arena* a = tl::arena_of(ta);
  if (a == nullptr) return;
  tl::run_on(a->use(), [a] {
    forkjoin::detail::worker& w = *forkjoin::detail::tls_worker;
    const bool is_worker = w.index_ != 0 && w.index_ < w.pool_size_;  // slot 0: the external slot, no thread
    const std::uint32_t others = w.pool_size_ - 1 - (is_worker ? 1 : 0);
    for (;;) {
      forkjoin::detail::run_own_until(
          w, [](const void*) { return false; }, nullptr);
      forkjoin::detail::yield_to_injected(w);
      // acquire: pairs with the sleepers' [P-SLEEP IncSleepers] RMW: what they ran before
      // falling asleep is visible to the caller
      const std::uint32_t sleeping =
          forkjoin::detail::idle_count::decode(w.idle_word_->load(std::memory_order_acquire)).sleeping;
      // [P-TBB Arena A12] a lent thread may be running the arena's tasks in a slot of its own:
      // its flag clears, under the lender mutex, only once it found nothing left to run. Not
      // when this thread is that lent thread (it took the wait from the injection queue):
      // the flag clears only after the wait returns
      const bool lent_elsewhere = tl::lent_arena() != a && a->lending();
      if (sleeping >= others && !forkjoin::detail::injected_pending(w) && !lent_elsewhere) return;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
}

// global_control: [P-TBB Arena A2].
struct global_control_impl {
  static void add(d1::global_control& gc) {
    const std::lock_guard<std::mutex> lock(tl::g_controls_mutex);
    tl::g_controls[gc.my_param].push_back(gc.my_value);
    publish();
  }
  static void remove(d1::global_control& gc) {
    const std::lock_guard<std::mutex> lock(tl::g_controls_mutex);
    std::vector<std::size_t>& v = tl::g_controls[gc.my_param];
    auto it = std::find(v.begin(), v.end(), gc.my_value);
    if (it != v.end()) v.erase(it);
    publish();
  }
  static void publish() noexcept {
    tl::g_parallelism_cap.store(tl::effective(d1::global_control::max_allowed_parallelism),
                                std::memory_order_relaxed);  // a hint: a racing spawn may use the old pool
  }
};

void create(d1::global_control& gc) { global_control_impl::add(gc); }
void destroy(d1::global_control& gc) { global_control_impl::remove(gc); }

std::size_t global_control_active_value(int param) {
  const std::size_t v = tl::active_value(param);
  if (v != 0) return v;
  switch (param) {
    case d1::global_control::max_allowed_parallelism:
      return static_cast<std::size_t>(tl::implicit_concurrency());
    case d1::global_control::thread_stack_size:
      return forkjoin::pool_options{}.stack_size;
    default:
      return 0;
  }
}

// [P-TBB Arena A9] the scheduler handle. A handle is a global_control of its own kind, so
// that the number alive is that parameter's count. finalize follows oneTBB's rule for
// when it may succeed; on success it has nothing to join (the pools are shared with OpenMP
// and forkjoin and live as long as the process).
void get(d1::task_scheduler_handle& handle) {
  handle.m_ctl = new d1::global_control(d1::global_control::scheduler_handle, 1);
}

bool finalize_impl(d1::task_scheduler_handle& handle) {
  delete handle.m_ctl;
  handle.m_ctl = nullptr;
  return true;
}

bool finalize(d1::task_scheduler_handle& handle, std::intptr_t mode) {
  if (mode == d1::release_nothrowing) return finalize_impl(handle);
  // Inside a parallel region (a task, or an arena's functor) the scheduler is in use by
  // this very call's caller: finalizing would wait for itself.
  const bool inside = forkjoin::detail::tls_worker != nullptr;
  finalize_impl(handle);
  if (!inside) tl::leave_scheduler();  // the calling thread's own use ends here
  const bool ok = !inside && (!tl::scheduler_used() || (tl::outside_users() == 0 &&
                                                        tl::active_value(d1::global_control::scheduler_handle) == 0));
  if (ok) tl::scheduler_finalized();  // as oneTBB's scheduler ends here: unused until the next use
  if (!ok && mode == d1::finalize_throwing) throw_exception(d0::exception_id::unsafe_wait);
  return ok;
}

}  // namespace tbb::detail::r1

namespace forkjoin::detail::tbb_layer {

const r1::arena* entered_arena() noexcept { return r1::entered_here(); }

// [P-TBB Arena A8] an observer of a borrowing arena that has not run anything yet gives it a
// pool of its own, so that the observer sees the arena's threads alone, as oneTBB's does.
pool_impl& observed_pool(r1::arena& a) {
  if (a.isolates()) {
    // [P-TBB Arena A16] lent, as any arena's pool; its lenders name the arena (the
    // conversion's release store publishes the context with the pool)
    auto own = r1::lent_arena_pool(static_cast<std::size_t>(a.concurrency()), a.reserved());
    forkjoin::detail::set_lender_context(forkjoin::detail::impl_of(*own), &a);
    if (a.own_if_fresh(own, lender_pool())) r1::register_arena(&a);
  }
  return a.pool();
}

}  // namespace forkjoin::detail::tbb_layer
