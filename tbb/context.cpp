// context.cpp: task_group_context: binding to the parent context on first use, cancellation
// (a context is cancelled when it or a bound ancestor is), the first exception of a group
// and its rethrow at the wait, floating-point settings; and the exceptions the headers ask
// the library to throw (throw_exception, the r1 exception classes). Protocol: tbb/DESIGN.md
// [P-TBB Cancel].
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <thread>

#include "fp_env.hpp"
#include "internal.hpp"

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;

namespace {

using tl::current_fp_env;

void drop_exception(d1::task_group_context& c) noexcept {
  // Relaxed: reset and destroy run once every task of the group has finished (the header's
  // rule), after the waiter's acquire of the wait_context.
  delete task_group_context_impl::exception_of(c).exchange(nullptr, std::memory_order_relaxed);
}

// [P-TBB Cancel C2] counts cancellations, from 1: a context whose chain was seen clear at
// the current value need not walk it again.
std::atomic<std::uintptr_t> g_cancel_epoch{1};

std::uintptr_t clear_epoch(d1::task_group_context& c) noexcept {
  return reinterpret_cast<std::uintptr_t>(
      task_group_context_impl::clear_epoch_word(c).load(std::memory_order_relaxed));  // a cache: see is_cancelled
}

}  // namespace

d1::task_group_context* task_group_context_impl::parent(context& c) noexcept {
  return c.my_state.load(std::memory_order_acquire) == state::bound  // [P-TBB Cancel C1] pairs with C1's release
             ? c.my_parent
             : nullptr;
}

void task_group_context_impl::initialize(context& c) noexcept {
  c.my_cancellation_requested.store(0, std::memory_order_relaxed);
  c.my_may_have_children.store(0, std::memory_order_relaxed);
  c.my_parent = nullptr;
  c.my_context_list = nullptr;  // [P-TBB Cancel C2] epoch 0: the chain was never seen clear
  c.my_exception.store(nullptr, std::memory_order_relaxed);
  c.my_itt_caller = nullptr;
  c.my_cpu_ctl_env = c.my_traits.fp_settings ? current_fp_env() : 0;  // fp_settings: captured now
  c.my_state.store(state::created, std::memory_order_relaxed);        // published by whatever hands c to a task
}

void task_group_context_impl::destroy(context& c) noexcept {
  drop_exception(c);
  c.my_state.store(state::dead, std::memory_order_relaxed);
}

void task_group_context_impl::reset(context& c) noexcept {
  drop_exception(c);
  c.my_cancellation_requested.store(0, std::memory_order_relaxed);
}

// [P-TBB Cancel C1] the first thread to use c binds it: to the context of the task it runs
// (a bound context inside a task) or to nothing (isolated, or started outside every task).
void task_group_context_impl::bind(context& c) noexcept {
  state s = c.my_state.load(std::memory_order_acquire);  // [P-TBB Cancel C1] pairs with the release below
  if (s == state::created &&
      c.my_state.compare_exchange_strong(
          s, state::locked, std::memory_order_acquire,
          std::memory_order_acquire)) {  // [P-TBB Cancel C1] a loser pairs with the release below
    context* p = c.my_traits.bound ? tl::current_context() : nullptr;
    if (p == &c) p = nullptr;
    c.my_parent = p;
    // [P-TBB Cancel C2] a chain seen clear at the current epoch stays clear one level down:
    // the new context starts with its parent's epoch if the parent's own flag is clear too.
    const std::uintptr_t epoch =
        g_cancel_epoch.load(std::memory_order_acquire);  // [P-TBB Cancel C2] pairs with cancel's release
    if (p == nullptr || (clear_epoch(*p) == epoch && p->my_cancellation_requested.load(std::memory_order_relaxed) == 0))
      clear_epoch_word(c).store(reinterpret_cast<r1::context_list*>(epoch), std::memory_order_relaxed);
    if (p != nullptr && !c.my_traits.fp_settings && p->my_traits.fp_settings) {
      c.my_cpu_ctl_env = p->my_cpu_ctl_env;  // a bound context inherits its parent's settings
      c.my_traits.fp_settings = true;
    }
    c.my_state.store(p != nullptr ? state::bound : state::isolated,
                     std::memory_order_release);  // [P-TBB Cancel C1] publishes my_parent
    return;
  }
  while (s == state::locked) {  // another thread binds it right now: a few stores away
    std::this_thread::yield();
    s = c.my_state.load(std::memory_order_acquire);  // [P-TBB Cancel C1] pairs with the release above
  }
}

bool task_group_context_impl::is_cancelled(context& c) noexcept {
  // [P-TBB Cancel C2] relaxed flags: a task that misses a cancellation just runs; nothing is
  // read on the strength of a flag.
  if (c.my_cancellation_requested.load(std::memory_order_relaxed) != 0) return true;
  // No cancellation anywhere since the chain was last seen clear: no ancestor's flag is set.
  const std::uintptr_t epoch =
      g_cancel_epoch.load(std::memory_order_acquire);  // [P-TBB Cancel C2] pairs with cancel's release
  if (clear_epoch(c) == epoch) return false;
  for (context* p = parent(c); p != nullptr; p = parent(*p))
    if (p->my_cancellation_requested.load(std::memory_order_relaxed) != 0) return true;
  // Seen clear after reading epoch: a cancellation the walk missed counted after that read.
  clear_epoch_word(c).store(reinterpret_cast<r1::context_list*>(epoch), std::memory_order_relaxed);
  return false;
}

bool task_group_context_impl::cancel(context& c) noexcept {
  for (context* p = parent(c); p != nullptr; p = parent(*p))
    if (p->my_cancellation_requested.load(std::memory_order_relaxed) != 0) return false;
  if (c.my_cancellation_requested.exchange(1, std::memory_order_relaxed) != 0) return false;  // [P-TBB Cancel C2]
  g_cancel_epoch.fetch_add(1, std::memory_order_release);  // [P-TBB Cancel C2] pairs with is_cancelled's acquire
  return true;
}

void task_group_context_impl::capture_fp(context& c) noexcept {
  c.my_cpu_ctl_env = current_fp_env();
  c.my_traits.fp_settings = true;
}

void task_group_context_impl::record_exception(context& c, std::exception_ptr e) noexcept {
  if (!cancel(c)) return;  // [P-TBB Cancel E1] cancelled already: that cause wins, as in oneTBB
  auto* holder = new (std::nothrow) tbb_exception_ptr(std::move(e));
  if (holder == nullptr) {
    std::fputs("libforkjoin-tbb: out of memory while capturing a task's exception\n", stderr);
    std::abort();
  }
  tbb_exception_ptr* expected = nullptr;
  if (!c.my_exception.compare_exchange_strong(expected, holder, std::memory_order_release,
                                              std::memory_order_relaxed))  // [P-TBB Cancel E1] pairs with E2
    delete holder;
}

void task_group_context_impl::rethrow_if_any(context& c) {
  // [P-TBB Cancel E2] the thrower stored it before releasing its wait_context (cancel()
  // after the catch), so the waiter, past its acquire of the count, sees it.
  tbb_exception_ptr* e = c.my_exception.load(std::memory_order_acquire);  // [P-TBB Cancel E2] pairs with E1's CAS
  if (e != nullptr) e->rethrow();
}

void initialize(d1::task_group_context& c) { task_group_context_impl::initialize(c); }
void destroy(d1::task_group_context& c) { task_group_context_impl::destroy(c); }
void reset(d1::task_group_context& c) { task_group_context_impl::reset(task_group_context_impl::actual(c)); }
bool cancel_group_execution(d1::task_group_context& c) {
  return task_group_context_impl::cancel(task_group_context_impl::actual(c));
}
bool is_group_execution_cancelled(d1::task_group_context& c) {
  return task_group_context_impl::is_cancelled(task_group_context_impl::actual(c));
}
void capture_fp_settings(d1::task_group_context& c) {
  task_group_context_impl::capture_fp(task_group_context_impl::actual(c));
}

const char* bad_last_alloc::what() const noexcept(true) { return "bad allocation in previous or concurrent attempt"; }
const char* user_abort::what() const noexcept(true) { return "User-initiated abort has terminated this operation"; }
const char* missing_wait::what() const noexcept(true) { return "wait() was not called on the structured_task_group"; }

void throw_exception(d0::exception_id id) {
  // global_control::terminate_on_exception: the library's own exceptions end the program
  // instead of unwinding ([P-TBB Cancel] E1).
  if (tl::active_value(d1::global_control::terminate_on_exception) != 0) std::terminate();
  switch (id) {
    case d0::exception_id::bad_alloc:
      throw std::bad_alloc();
    case d0::exception_id::bad_last_alloc:
      throw bad_last_alloc();
    case d0::exception_id::user_abort:
      throw user_abort();
    case d0::exception_id::nonpositive_step:
      throw std::invalid_argument("Step must be positive");
    case d0::exception_id::out_of_range:
      throw std::out_of_range("Index out of requested size range");
    case d0::exception_id::reservation_length_error:
      throw std::length_error("Attempt to exceed implementation defined length limits");
    case d0::exception_id::missing_wait:
      throw missing_wait();
    case d0::exception_id::invalid_load_factor:
      throw std::out_of_range("Invalid hash load factor");
    case d0::exception_id::invalid_key:
      throw std::out_of_range("invalid key");
    case d0::exception_id::bad_tagged_msg_cast:
      throw std::runtime_error("Illegal tagged_msg cast");
    case d0::exception_id::unsafe_wait:
      throw unsafe_wait("Unsafe to wait further");
    case d0::exception_id::last_entry:
      break;
  }
  std::fprintf(stderr, "libforkjoin-tbb: throw_exception called with unknown id %d\n", static_cast<int>(id));
  std::abort();
}

}  // namespace tbb::detail::r1
