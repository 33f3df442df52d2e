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
#include "internal.hpp"

namespace forkjoin::detail::tbb_layer {

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

// [P-TBB Arena A3] the arena of each pool an arena object was made for, for attach().
std::mutex g_arenas_mutex;
std::map<pool_impl*, r1::arena*>* g_arenas = nullptr;

std::size_t default_size() { return default_pool().num_threads(); }

forkjoin::pool& capped_pool(std::size_t n) {
  const std::lock_guard<std::mutex> lock(g_capped_mutex);
  if (g_capped == nullptr) g_capped = new std::map<std::size_t, forkjoin::pool*>();
  forkjoin::pool*& p = (*g_capped)[n];
  if (p == nullptr) {
    pool_options o;
    o.num_threads = n;
    o.thread_name_prefix = "forkjoin-tbb";
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

}  // namespace

// [P-TBB Arena A4] an initialized task_arena owns a pool of its concurrency (automatic: the
// implicit arena's), capped by max_allowed_parallelism and built with thread_stack_size.
void initialize(d1::task_arena_base& ta) {
  int& requested = task_arena_impl::requested(ta);
  std::size_t n =
      requested > 0 ? static_cast<std::size_t>(requested) : static_cast<std::size_t>(tl::implicit_concurrency());
  const std::size_t cap = tl::active_value(d1::global_control::max_allowed_parallelism);
  if (cap != 0) n = std::min(n, cap);
  forkjoin::pool_options o;
  o.num_threads = n;
  o.thread_name_prefix = "forkjoin-arena";
  if (const std::size_t stack = tl::active_value(d1::global_control::thread_stack_size); stack != 0)
    o.stack_size = stack;
  auto own = std::make_unique<forkjoin::pool>(o);
  pool_impl* impl = &forkjoin::detail::impl_of(*own);
  auto* a = new arena(std::move(own), impl, static_cast<int>(n));
  if (requested <= 0) requested = static_cast<int>(n);
  register_arena(a);
  task_arena_impl::arena_of(ta).store(a, std::memory_order_release);  // [P-TBB Arena A4] pairs with arena_of
}

void terminate(d1::task_arena_base& ta) {
  arena* a = task_arena_impl::arena_of(ta).exchange(nullptr, std::memory_order_acq_rel);  // pairs with A4
  if (a == nullptr || !a->release()) return;
  if (a->owns_pool()) unregister_arena(a);
  delete a;  // an owned pool finishes its queued tasks and joins its threads here
}

// [P-TBB Arena A3] the arena of the pool this thread works for: one made by initialize, or
// a reference-counted view of any other pool (the implicit arena, a forkjoin::pool).
bool attach(d1::task_arena_base& ta) {
  forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  if (w == nullptr) return false;
  arena* a = nullptr;
  {
    const std::lock_guard<std::mutex> lock(tl::g_arenas_mutex);
    if (tl::g_arenas != nullptr) {
      auto it = tl::g_arenas->find(w->pool_);
      if (it != tl::g_arenas->end()) a = it->second;
    }
    if (a != nullptr) a->add_ref();
  }
  if (a == nullptr) a = new arena(nullptr, w->pool_, static_cast<int>(w->pool_size_));
  task_arena_impl::requested(ta) = a->concurrency();
  task_arena_impl::arena_of(ta).store(a, std::memory_order_release);  // pairs with arena_of
  return true;
}

void execute(d1::task_arena_base& ta, d1::delegate_base& d) {
  arena* a = tl::arena_of(ta);
  if (a == nullptr) throw std::logic_error("libforkjoin-tbb: task_arena::execute on an arena that is not initialized");
  // Work started inside runs on the arena's pool: this thread enters it (its external slot,
  // or an injected job while another thread holds that slot) and leaves when d returns.
  const forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  if (w != nullptr && w->pool_ == &a->pool()) {
    d();
    return;
  }
  // [P-TBB Observe O2, O3] the calling thread, when it runs d itself, enters the arena's
  // observers before d and leaves them after (a worker running an injected d stays).
  const std::thread::id caller = std::this_thread::get_id();
  tl::run_on(a->pool(), [&d, &a, caller] {
    if (std::this_thread::get_id() != caller) {
      d();
      return;
    }
    struct leave_guard {
      forkjoin::detail::pool_impl& p;
      ~leave_guard() { tl::observers_leave(p); }
    } guard{a->pool()};
    tl::observers_on_task();
    d();
  });
}

// [P-TBB Arena A5] isolation is forkjoin's: waits inside help only with work spawned inside.
// The key is not used: every region is the calling thread's own.
void isolate_within_arena(d1::delegate_base& d, std::intptr_t) {
  auto isolated = [&d] {
    forkjoin::detail::isolation_scope scope(*forkjoin::detail::tls_worker);
    d();
  };
  tl::run_on(tl::current_pool(), isolated);
}

int max_concurrency(const d1::task_arena_base* ta) {
  if (ta != nullptr) {
    const arena* a = task_arena_impl::arena_of(*ta).load(std::memory_order_acquire);  // pairs with [P-TBB Arena A4]
    if (a != nullptr) return a->concurrency();
    const int requested = task_arena_impl::requested(*ta);
    return requested > 0 ? requested : tl::implicit_concurrency();
  }
  const forkjoin::detail::worker* w = forkjoin::detail::tls_worker;
  return w != nullptr ? static_cast<int>(w->pool_size_) : tl::implicit_concurrency();
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
  return a->pool();
}

// [P-TBB Arena A6] fire and forget: into the pool's injection queue, which every worker
// polls, so that it runs even while this thread's own deque is busy.
void enqueue_on(pool_impl& p, d1::task& t, d1::task_group_context& ctx) {
  task_group_context_impl::bind(ctx);
  task_job* job = tl::job_for(t, ctx, d1::no_slot, d1::no_slot);
  forkjoin::detail::inject_job(p, job);
}
}  // namespace

void enqueue(d1::task& t, d1::task_arena_base* ta) { enqueue_on(pool_of(ta), t, enqueue_context()); }

void enqueue(d1::task& t, d1::task_group_context& ctx, d1::task_arena_base* ta) {
  enqueue_on(pool_of(ta), t, task_group_context_impl::actual(ctx));
}

void submit(d1::task& t, d1::task_group_context& ctx, arena* a, std::uintptr_t) {
  d1::task_group_context& c = task_group_context_impl::actual(ctx);
  task_group_context_impl::bind(c);
  tl::submit_to(a != nullptr ? a->pool() : tl::current_pool(), t, c, d1::no_slot);
}

// [P-TBB Arena A7] task_arena::debug_wait_until_empty: enters the arena as execute does and
// runs what this thread can (its own deque, the pool's injection queue) until the arena
// looks empty: nothing injected, nothing left on this thread's deque, and every other worker
// of the pool asleep (a blocked worker or a spare is not). A debugging aid: a thread that
// holds the pool's external slot meanwhile is not watched.
void wait(d1::task_arena_base& ta) {
  arena* a = tl::arena_of(ta);
  if (a == nullptr) return;
  tl::run_on(a->pool(), [] {
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
      if (sleeping >= others && !forkjoin::detail::injected_pending(w)) return;
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

// The scheduler handle: the pools are shared with OpenMP and forkjoin and live as long as
// the process, so finalize has nothing to join; it reports success once the handle's
// control is gone.
void get(d1::task_scheduler_handle& handle) {
  handle.m_ctl = new d1::global_control(d1::global_control::scheduler_handle, 1);
}

bool finalize_impl(d1::task_scheduler_handle& handle) {
  delete handle.m_ctl;
  handle.m_ctl = nullptr;
  return true;
}

bool finalize(d1::task_scheduler_handle& handle, std::intptr_t) { return finalize_impl(handle); }

}  // namespace tbb::detail::r1
