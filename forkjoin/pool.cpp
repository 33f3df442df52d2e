// pool.cpp: a pool's lifecycle: sizing, starting named (optionally pinned) threads with
// their own stack size, the external slot taken by pool::run callers, and shutdown
// (DESIGN.md [P-TERM]: close, wake everyone, drain, join). Also default_pool().
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "cpu_limits.hpp"
#include "mailbox.hpp"
#include "pool_impl.hpp"

namespace forkjoin {
namespace detail {

namespace {

struct thread_start {
  pool_impl* pool;
  worker_slot* slot;
  std::string name;
  int cpu;
};

void* thread_entry(void* arg) {
  std::unique_ptr<thread_start> start(static_cast<thread_start*>(arg));
  pthread_setname_np(pthread_self(), start->name.substr(0, 15).c_str());
  if (start->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(start->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
  pool_impl* p = start->pool;
  worker_slot* w = start->slot;
  start.reset();
  p->apply_fp_mode();
  p->worker_main(*w);
  return nullptr;
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

}  // namespace

std::uintptr_t steal_limit_of_this_thread() noexcept {
  thread_local const std::uintptr_t limit = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return std::uintptr_t{0};
    void* low = nullptr;
    std::size_t size = 0;
    pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    return reinterpret_cast<std::uintptr_t>(low) + size / 2;  // stacks grow down
  }();
  return limit;
}

// [P-FORK] fork() copies only the calling thread: in the child, every pool of the parent
// has lost its workers. The child handler bumps the generation; a parent pool then refuses
// work (std::logic_error), its destructor joins nothing, and default_pool() makes a new pool.
namespace {
std::atomic<std::uint32_t> g_fork_generation{0};
std::atomic<pool*> g_default_pool{nullptr};
std::atomic<std::uint32_t> g_default_pool_generation{0};  // written under g_default_pool_mutex
std::mutex g_default_pool_mutex;

void on_fork_child() noexcept {
  g_fork_generation.fetch_add(1, std::memory_order_relaxed);  // the child is single-threaded here
  new (&g_default_pool_mutex) std::mutex;                     // a parent thread may have held it: it no longer exists
}
void register_fork_handler() {
  static const bool registered = [] { return pthread_atfork(nullptr, nullptr, &on_fork_child) == 0; }();
  (void)registered;
}
}  // namespace

std::uint32_t current_fork_generation() noexcept { return g_fork_generation.load(std::memory_order_relaxed); }

namespace {
pool_options resolve_thread_count(pool_options o) {
  if (detail::negative_or_wrapped(o.num_threads))
    detail::bad_argument("pool_options", "num_threads", o.num_threads, "must not be negative");
  std::size_t n = o.num_threads == 0 ? default_concurrency() : o.num_threads;
  if (n > pool_options::k_max_threads) n = pool_options::k_max_threads;
  o.num_threads = n;
  if (o.max_spare_threads > pool_options::k_max_spare_threads) o.max_spare_threads = pool_options::k_max_spare_threads;
  if (detail::negative_or_wrapped(o.max_outside_threads))
    detail::bad_argument("pool_options", "max_outside_threads", o.max_outside_threads, "must not be negative");
  return o;
}
}  // namespace

pool_impl::pool_impl(const pool_options& options, const thread_lender& lender)
    : options_(resolve_thread_count(options)),
      lender_(lender),
      sleep_(options_.num_threads, *this, options_.max_spare_threads),
      spare_slots_(std::make_unique<std::atomic<worker_slot*>[]>(options_.max_spare_threads)) {
  register_fork_handler();
  fork_generation_ = current_fork_generation();
  // [P-SLOT X1] slot 0 is the first outside thread's; the others take spare slots
  max_extra_holders_ = options_.max_outside_threads == 0 ? ~std::size_t{0} : options_.max_outside_threads - 1;
  // [P-BUDGET] every pool shares the budget except one sized explicitly above it.
  // A lent pool's threads are another pool's, with their tokens ([P-LENT]).
  budgeted_ =
      lender_.summon == nullptr && (options.num_threads == 0 || options.num_threads <= cpu_budget::process().size());
  const std::size_t n = options_.num_threads;
  // [P-SLEEP Window] more threads than the CPUs it may run on: spinning there takes a CPU
  // from a thread that works.
  oversubscribed_ = n > std::max<std::size_t>(1, affinity_cpu_count());
  slots_.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    slots_.push_back(std::make_unique<worker_slot>(this, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(n),
                                                   &sleep_.word(), &injector_.size_word()));
  observer_ = observer::create(*this);  // trace rings and FORKJOIN_STATS, before any thread runs
  if (lender_.summon != nullptr) {
    for (std::size_t i = 1; i < n; ++i) {  // [P-LENT W0] away until work wants them
      slots_[i]->available_.store(0, std::memory_order_relaxed);
      sleep_.start_away(slots_[i]->sleep_, static_cast<std::uint32_t>(i));
    }
    return;
  }

  const std::vector<int> cpus = options_.pin_threads ? allowed_cpus() : std::vector<int>{};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (options_.stack_size != 0) pthread_attr_setstacksize(&attr, options_.stack_size);
  threads_.reserve(n - 1);
  int error = 0;
  for (std::size_t i = 1; i < n && error == 0; ++i) {
    std::unique_ptr<thread_start> start;
    try {
      start = std::make_unique<thread_start>(thread_start{this, slots_[i].get(),
                                                          options_.thread_name_prefix + "-" + std::to_string(i),
                                                          cpus.empty() ? -1 : cpus[i % cpus.size()]});
    } catch (const std::bad_alloc&) {  // threads may have started: stop them below, as for a refused thread
      error = ENOMEM;
      break;
    }
    // [INV-COUNT] a worker starts counted as searching, as if just woken: pushers made
    // before it runs see an idle worker and publish [P-POST Publish], and it searches first.
    sleep_.start_searching_at_launch(slots_[i]->sleep_);
    pthread_t t;
    error = pthread_create(&t, &attr, &thread_entry, start.get());
    if (error == 0) {
      static_cast<void>(start.release());  // the new thread owns it now (thread_entry)
      threads_.push_back(t);
    } else {
      sleep_.cancel_launch(slots_[i]->sleep_);
    }
  }
  pthread_attr_destroy(&attr);
  if (error != 0) {                                    // no leaked threads: stop and join the ones that started
    shutdown_.store(true, std::memory_order_seq_cst);  // [P-TERM Close] pairs with shutting_down()'s acquire load
    sleep_.wake_all();
    if (budgeted_) cpu_budget::process().cancel_waiters(&shutdown_);  // [P-BUDGET C1]
    for (pthread_t t : threads_) pthread_join(t, nullptr);
    throw std::system_error(error, std::generic_category(), "forkjoin: cannot start worker thread");
  }
}

pool_impl::~pool_impl() {
  if (fork_generation_ != current_fork_generation()) return;  // [P-FORK] its threads are the parent's
  worker* w = tls_worker;
  FORKJOIN_ASSERT(w == nullptr || w->pool_ != this,
                  "a pool was destroyed from one of its own tasks (it would have to join itself)");
  shutdown_.store(true,
                  std::memory_order_seq_cst);  // [P-TERM Close] pairs with shutting_down()'s acquire load in ReadJob
  sleep_.wake_all();                           // [P-TERM Wake]
  if (budgeted_) cpu_budget::process().cancel_waiters(&shutdown_);  // [P-BUDGET C1]
  for (pthread_t t : threads_) pthread_join(t, nullptr);            // [P-TERM Join] workers leave only when drained
  wait_for_spares();                                                // [P-BLOCK Retire] and so do spare threads
  drop_queued_delegates();                                          // [P-SLOT D4] left by a pool without workers
  if (observer_) observer_->finish();                               // [P-TRACE] every ring's owner has stopped
}

void pool_impl::inject(job_header* j) {
  injector_.push(j);              // [P-POST PushJob]
  sleep_.notify_external_work();  // [P-POST PushFence, ReadSleepers]
}

void inject_job(pool_impl& p, job_header* j) { p.inject(j); }

pool_impl& impl_of(pool& p) noexcept { return *p.impl_; }

void* lender_context(const pool_impl& p) noexcept { return p.lender().ctx; }
void set_lender_context(pool_impl& p, void* ctx) noexcept { p.lender().ctx = ctx; }

}  // namespace detail

pool::pool() : pool(pool_options{}) {}

pool::pool(std::size_t num_threads)
    : pool([num_threads] {
        if (num_threads == 0 || detail::negative_or_wrapped(num_threads))
          detail::bad_argument("pool", "num_threads", num_threads, "must be at least 1");
        pool_options o;
        o.num_threads = num_threads;
        return o;
      }()) {}

pool::pool(const pool_options& options) : impl_(std::make_unique<detail::pool_impl>(options)) {}

pool::pool(const pool_options& options, const detail::thread_lender& lender)
    : impl_(std::make_unique<detail::pool_impl>(options, lender)) {}

std::unique_ptr<pool> detail::make_lent_pool(const pool_options& options, const thread_lender& lender) {
  if (lender.summon == nullptr) throw std::invalid_argument("forkjoin: make_lent_pool needs a summon function");
  return std::unique_ptr<pool>(new pool(options, lender));
}

pool::~pool() = default;

std::size_t pool::num_threads() const noexcept { return impl_->num_threads(); }
std::size_t pool::num_sleeping() const noexcept { return impl_->sleep().counts().sleeping; }
std::size_t pool::num_parked() const noexcept { return impl_->sleep().num_parked(); }

pool::stats pool::statistics() const { return detail::pool_statistics(*impl_); }

pool& default_pool() { return detail::default_pool_with(pool_options{}); }

namespace {
// The default pool of this fork generation, or null if it was not created yet.
pool* existing_default_pool() noexcept {
  pool* p = detail::g_default_pool.load(std::memory_order_acquire);  // pairs with default_pool_with's release
  // relaxed: written before the release store of p, read after its acquire load
  if (p != nullptr &&
      detail::g_default_pool_generation.load(std::memory_order_relaxed) == detail::current_fork_generation())
    return p;
  return nullptr;
}
}  // namespace

pool& detail::default_pool_with(const pool_options& options) {
  // Never destroyed: never joined at exit. Recreated in a fork() child [P-FORK]; the
  // parent's copy is leaked there, since its threads do not exist.
  if (pool* p = existing_default_pool()) return *p;
  std::lock_guard<std::mutex> lock(detail::g_default_pool_mutex);
  if (pool* p = existing_default_pool()) return *p;  // created meanwhile
  pool* p = new pool(options);
  detail::g_default_pool_generation.store(detail::current_fork_generation(), std::memory_order_relaxed);
  detail::g_default_pool.store(p, std::memory_order_release);  // pairs with existing_default_pool's acquire
  return *p;
}

std::size_t detail::default_pool_size() {
  if (const pool* p = existing_default_pool()) return p->num_threads();
  return resolve_thread_count(pool_options{}).num_threads;
}

int this_worker_index() noexcept {
  detail::worker* w = detail::tls_worker;
  return w == nullptr ? -1 : static_cast<int>(w->index_);
}

}  // namespace forkjoin
